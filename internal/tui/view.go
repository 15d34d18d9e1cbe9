package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/novacode/nova/internal/tui/render"
	tea "github.com/novacode/nova/third_party/bubbletea"
)

// resize lays out the input box for the current size and content.
func (m *Model) resize() {
	m.input.SetWidth(max(10, m.width))
	m.input.SetHeight(min(maxInputRows, max(1, m.input.LineCount())))
}

// timelineHeight is what is left for the timeline below the fixed parts.
func (m *Model) timelineHeight() int {
	return max(1, m.height-1-m.bottomHeight())
}

func (m *Model) bottomHeight() int {
	h := m.todos.lines(m.r, m.width) + m.memoryLines()
	if n := len(m.comp.matches); n > 0 {
		return h + n + m.input.Height()
	}
	if m.perm != nil {
		return h + strings.Count(m.dialog(), "\n") + 1 + m.input.Height()
	}
	if m.ques != nil {
		return h + strings.Count(m.questionView(), "\n") + 1 + m.input.Height()
	}
	return h + m.input.Height()
}

// View implements tea.Model. It renders blocks from the bottom up only until
// the screen (plus the scroll offset) is full, so a frame costs the same
// with 20 blocks or 20,000.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	return v
}

// Screen is the frame as a string (View's content).
func (m *Model) Screen() string {
	h := m.timelineHeight()
	now := timeNow()
	need := h + m.scroll
	var parts []string // bottom-up
	lines := 0
	top := len(m.blocks)
	for top > 0 && lines < need {
		top--
		s := m.blocks[top].view(m.r, m.width, m.expanded, now, false)
		parts = append(parts, s)
		lines += m.blocks[top].lines + 1 // one blank line between blocks
	}
	m.evict(top, h)
	all := make([]string, 0, lines)
	for i := len(parts) - 1; i >= 0; i-- {
		all = append(all, strings.Split(parts[i], "\n")...)
		if i > 0 {
			all = append(all, "")
		}
	}
	// Clamp scrolling to the top of the timeline.
	if maxScroll := max(0, len(all)-h); m.scroll > maxScroll && len(parts) == len(m.blocks) {
		m.scroll = maxScroll
	}
	end := max(0, len(all)-m.scroll)
	start := max(0, end-h)
	view := all[start:end]
	for len(view) < h {
		view = append(view, "")
	}
	var b strings.Builder
	for _, l := range view {
		b.WriteString(ansi.Truncate(l, m.width, ""))
		b.WriteByte('\n')
	}
	if v := m.todos.render(m.r, m.width); v != "" {
		b.WriteString(v)
		b.WriteByte('\n')
	}
	if v := m.memoryPanel(); v != "" {
		b.WriteString(v)
		b.WriteByte('\n')
	}
	if m.perm != nil {
		b.WriteString(m.dialog())
		b.WriteByte('\n')
	}
	if m.ques != nil {
		b.WriteString(m.questionView())
		b.WriteByte('\n')
	}
	if len(m.comp.matches) > 0 {
		b.WriteString(m.completionView())
		b.WriteByte('\n')
	}
	b.WriteString(m.input.View())
	b.WriteByte('\n')
	b.WriteString(m.r.Status(m.width, m.status()))
	return b.String()
}

// evictScreens is how many screens of rendered blocks above the viewport
// keep their cache, so scrolling back a little does not re-render.
const evictScreens = 3

// evict drops the rendered cache of blocks more than evictScreens screens
// above top, the highest block on screen: without it every block ever shown
// keeps its rendering (a few KB of styled text each) for the whole session.
// They re-render on demand when scrolled back to. Amortised O(1) a frame:
// only blocks between cachedFrom and the margin are visited.
func (m *Model) evict(top, h int) {
	m.cachedFrom = min(m.cachedFrom, top)
	keep, lines := top, 0
	for keep > m.cachedFrom && lines < evictScreens*h {
		keep--
		lines += m.blocks[keep].lines + 1
	}
	for _, b := range m.blocks[m.cachedFrom:keep] {
		b.drop()
	}
	m.cachedFrom = keep
}

func (m *Model) status() status {
	u := m.usage
	s := status{
		Model: m.model, Mode: m.mode, Busy: m.busy, Hint: m.hint,
		// The latest call's prompt is what currently fills the window.
		ContextUsed:   u.Call.InputTokens + u.Call.CacheReadTokens + u.Call.CacheWriteTokens,
		ContextWindow: int64(u.ContextWindow),
		// Uncached input (fresh + cache writes); render adds the cache reads
		// to get the whole prompt and the cache hit share.
		InputTokens:     u.Total.InputTokens + u.Total.CacheWriteTokens,
		OutputTokens:    u.Total.OutputTokens,
		CacheReadTokens: u.Total.CacheReadTokens,
		CostUSD:         u.CostUSD,
	}
	if s.Hint == "" && m.busy {
		s.Hint = "esc to interrupt"
		if m.waitingForModel() {
			// A spinner and the run's age: a slow model must not look
			// like a frozen screen.
			d := timeNow().Sub(m.runStart)
			doing := "working"
			if w := m.todos.working(); w != "" {
				// What the model said it is doing (TodoWrite's activeForm).
				doing = strings.TrimSuffix(ansi.Truncate(w, 40, "…"), "…") + "…"
			}
			s.Hint = fmt.Sprintf("%s %s %ds · esc to interrupt", render.Spinner(d), doing, int(d.Seconds()))
		}
	}
	return s
}
