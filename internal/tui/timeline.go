package tui

import (
	"fmt"
	"time"

	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// awaiting marks the card of call id as waiting for the person: its clock
// stops, since nothing runs until they answer.
func (m *Model) awaiting(id string) {
	if b := m.tools[id]; b != nil {
		b.running, b.waiting, b.live, b.dirty = false, true, false, true
	}
}

// answered ends the wait on call id's card; an allowed call runs now, so
// its clock starts; a denied one only waits for its result.
func (m *Model) answered(id string, runs bool) {
	b := m.tools[id]
	if b == nil || !b.waiting {
		return
	}
	b.waiting, b.dirty = false, true
	if runs {
		b.running, b.live, b.start = true, true, timeNow()
	} else {
		b.pending = true // denied: its result is on the way
	}
}

// handleEvent folds one event into the timeline.
func (m *Model) handleEvent(ev event.Event) {
	switch e := ev.(type) {
	case event.StreamText:
		m.stream(kindText, e.Text)
	case event.ThinkingText:
		m.stream(kindThinking, e.Text)
	case event.Child:
		m.child(e)
	case event.Mailbox:
		m.mailbox(e)
	case event.ToolUse:
		m.endStream()
		if e.Name == taskTool {
			m.taskUse(e)
			return
		}
		b := &block{kind: kindTool, id: e.ID, name: e.Name, input: e.Input, start: timeNow(), running: true, live: true, dirty: true}
		m.tools[e.ID] = b
		m.add(b)
	case event.ToolDone:
		// Finished; its result comes with the batch's. Stop the clock now,
		// or a finished Read would keep spinning beside a permission dialog.
		// It always comes before the call's tool_result.
		if b := m.tools[e.ID]; b != nil {
			b.running, b.waiting, b.live, b.dirty, b.pending = false, false, false, true, true
			b.dur = time.Duration(e.DurationMS) * time.Millisecond
			b.isError = e.IsError
		}
	case event.ToolResult:
		b := m.tools[e.ID]
		switch {
		case b == nil && e.Name == taskTool:
			b = m.agentCard(e.ID)
		case b == nil:
			b = &block{kind: kindTool, id: e.ID, name: e.Name}
			m.add(b)
		}
		b.running, b.waiting, b.live, b.dirty, b.pending = false, false, false, true, false
		b.dur = time.Duration(e.DurationMS) * time.Millisecond
		b.result, b.isError, b.denied, b.cancelled = e.Content, e.IsError, e.Denied, e.Cancelled
		if b.sub != nil {
			m.taskResult(b, e)
		}
	case *event.PermissionRequest:
		m.endStream()
		m.awaiting(e.ID)
		m.ask(ask{perm: e})
	case *event.Question:
		m.endStream()
		m.awaiting(e.ID)
		m.ask(ask{ques: e})
	case event.WebSearch:
		m.webSearch(e)
	case event.Citation:
		m.cite(e)
	case event.Usage:
		m.usage = e
		if e.Model != "" {
			m.model = e.Model
		}
	case event.Todo:
		m.todos.set(e.Todos)
	case event.Retry:
		// Nothing of the failed call was shown (the loop yields nothing of
		// it), so the timeline only gains the notice. One line per wait:
		// the next retry of the same call replaces it.
		m.endStream()
		if n := len(m.blocks); n > 0 && m.blocks[n-1].kind == kindRetry {
			b := m.blocks[n-1]
			b.text.Reset()
			b.text.WriteString(e.Notice())
			b.dirty = true
		} else {
			m.addText(kindRetry, e.Notice())
		}
	case event.Warning:
		m.endStream()
		m.addText(kindWarning, e.Message)
	case event.Compact:
		m.addText(kindInfo, fmt.Sprintf("Context compacted: %d → %d tokens", e.TokensBefore, e.TokensAfter))
	case event.TurnComplete:
		m.endStream()
	case event.LoopComplete:
		m.endStream()
		m.memory.lastDone = e.Reason == event.ReasonDone
		switch e.Reason {
		case event.ReasonCancelled:
			m.addText(kindInfo, "Cancelled.")
		case event.ReasonError:
			m.addText(kindError, e.Error)
		case event.ReasonMaxTurns:
			m.addText(kindError, "stopped: turn limit reached")
		}
	}
}

// stream appends a delta to the current block of its kind. The block is only
// marked dirty: the frame tick re-renders it, so a burst of deltas costs one
// Markdown render per frame instead of one per delta.
func (m *Model) stream(kind blockKind, text string) {
	if m.current == nil || m.current.kind != kind {
		m.endStream()
		m.current = &block{kind: kind, live: true}
		m.add(m.current)
	}
	m.current.text.WriteString(text)
	m.current.dirty = true
}

func (m *Model) endStream() {
	b := m.current
	if b == nil {
		return
	}
	b.live, b.dirty, m.current = false, true, nil
	if s := sourcesOf(b); s != "" {
		defer m.addText(kindInfo, s)
	}
	if b.kind == kindText && b.text.Len() > asyncRenderBytes && b.cacheW == m.width {
		// Rendering a long answer whole takes Glamour tens of
		// milliseconds, which would hold keys and frames. Show the live
		// rendering (prefix kept, tail rendered now: cheap) and render the
		// whole in the background; applyFinal swaps it in.
		b.setCache(b.liveMarkdown(m.r, m.width), m.width, m.expanded)
		m.finals = append(m.finals, b)
	}
}

// asyncRenderBytes is the answer size above which the finished answer is
// rendered whole in the background (Glamour: ≈ 0.4 MB/s, so 8 KB ≈ 20 ms).
const asyncRenderBytes = 8 << 10

// finalRender is a long answer rendered whole off the UI goroutine.
type finalRender struct {
	b        *block
	n, width int // text length and width it was rendered for
	themeGen int
	out      string
}

// renderFinals starts the background renderings endStream asked for. Each
// runs in a command: Bubble Tea owns its goroutine, which ends when it
// returns the result.
func (m *Model) renderFinals() tea.Cmd {
	var cmds []tea.Cmd
	for _, b := range m.finals {
		src, width, gen, r := b.text.String(), m.width, m.themeGen, m.bg
		cmds = append(cmds, func() tea.Msg {
			return finalRender{b: b, n: len(src), width: width, themeGen: gen, out: r.Markdown(src, width)}
		})
	}
	m.finals = nil
	return tea.Batch(cmds...)
}

// applyFinal swaps a whole rendering in, unless the block changed since:
// another width or theme re-rendered it, or its cache was dropped.
func (m *Model) applyFinal(f finalRender) {
	b := f.b
	if b.live || b.cache == "" || b.cacheW != f.width || b.text.Len() != f.n || f.themeGen != m.themeGen {
		return
	}
	b.setCache(f.out, b.cacheW, b.cacheExp)
	b.mdDone, b.mdDoneLen = "", 0 // the live rendering's prefix is no longer needed
}

func (m *Model) add(b *block) {
	b.dirty = true
	m.blocks = append(m.blocks, b)
}

func (m *Model) addText(kind blockKind, text string) {
	b := &block{kind: kind}
	b.text.WriteString(text)
	m.add(b)
}
