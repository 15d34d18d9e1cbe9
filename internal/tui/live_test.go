package tui

import (
	"encoding/json"
	"fmt"
	"image/color"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui/render"
	tea "github.com/novacode/nova/third_party/bubbletea"
)

// countingRenderer counts the Markdown bytes it is asked to render.
type countingRenderer struct {
	renderer
	bytes int
}

func (c *countingRenderer) Markdown(src string, width int) string {
	c.bytes += len(src)
	return c.renderer.Markdown(src, width)
}

// streamAnswer feeds src to a live text block in chunks of n bytes,
// viewing it after each chunk as the frame tick does, and returns the last
// live view.
func streamAnswer(r renderer, src string, n int) (*block, string) {
	b := &block{kind: kindText, live: true}
	var last string
	for i := 0; i < len(src); i += n {
		b.text.WriteString(src[i:min(i+n, len(src))])
		b.dirty = true
		last = b.view(r, 80, false, time.Time{}, true)
	}
	return b, last
}

func paragraphs(n int) string {
	var s strings.Builder
	for i := range n {
		s.WriteString("A paragraph of the answer that goes on for a while, number ")
		s.WriteString(strings.Repeat("x", i%7))
		s.WriteString(".\n\n")
	}
	return s.String()
}

// TestLiveMarkdownRendersOnlyTheTail: streaming an answer costs Markdown
// work in proportion to its length, not to its length squared (re-rendering
// the whole answer every frame froze typing during long answers).
func TestLiveMarkdownRendersOnlyTheTail(t *testing.T) {
	src := paragraphs(300) // ~20 KB
	c := &countingRenderer{renderer: plainRenderer{}}
	b, live := streamAnswer(c, src, 40)
	// Every byte is rendered once in the stable part and at most a
	// paragraph's worth of times in the tail.
	if limit := 3 * len(src); c.bytes > limit {
		t.Fatalf("rendered %d Markdown bytes for a %d-byte answer (limit %d): the whole answer is re-rendered per frame", c.bytes, len(src), limit)
	}
	b.live, b.dirty = false, true
	final := b.view(plainRenderer{}, 80, false, time.Time{}, true)
	if diff := cmp.Diff(final, live); diff != "" {
		t.Errorf("last live view differs from the finished rendering (-final +live):\n%s", diff)
	}
}

// TestLiveMarkdownMatchesWholeRendering: with the real renderer, the live
// view of common answer shapes (paragraphs, headings, lists, fenced code)
// is what rendering the whole answer gives, so nothing jumps when the
// answer finishes.
func TestLiveMarkdownMatchesWholeRendering(t *testing.T) {
	docs := map[string]string{
		"paragraphs": "First paragraph with **bold**.\n\nSecond paragraph with `code`.\n\nThird.",
		"heading":    "## Plan\n\nDo the thing.\n\n### Details\n\nMore.",
		"list":       "Steps:\n\n- one\n- two\n\nAfter the list.",
		"code":       "Here:\n\n```go\nfunc main() {\n\n\tprintln(1)\n}\n```\n\nDone.",
		"loose list": "Steps:\n\n- one\n\n- two\n\n- three\n\nDone.",
		"numbered":   "Plan:\n\n1. first\n\n2. second\n\n3. third\n\nDone.",
		"nested":     "- a\n  - b\n\n- c\n\nText.",
		"quote":      "> quoted\n> more\n\nAfter.",
		"table":      "| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter.",
		"rule":       "One.\n\n---\n\nTwo.",
	}
	for name, src := range docs {
		t.Run(name, func(t *testing.T) {
			r := themed{t: render.NewTheme(true, false), md: render.NewMarkdown(render.NewTheme(true, false))}
			_, live := streamAnswer(r, src, 3)
			whole := r.Markdown(src, 80)
			// Glamour opens an empty styled span before a heading that
			// follows a paragraph; it draws nothing.
			whole, live = emptySpan.ReplaceAllString(whole, ""), emptySpan.ReplaceAllString(live, "")
			if diff := cmp.Diff(whole, live); diff != "" {
				t.Errorf("live view differs from the whole rendering (-whole +live):\n%s", diff)
			}
		})
	}
}

var emptySpan = regexp.MustCompile(`\x1b\[[0-9;]*m\x1b\[m`)

// TestLiveMarkdownWidthChange: a resize while streaming re-renders the
// stable part at the new width.
func TestLiveMarkdownWidthChange(t *testing.T) {
	b, _ := streamAnswer(plainRenderer{}, paragraphs(5), 50)
	narrow := b.view(plainRenderer{}, 20, false, time.Time{}, true)
	want := plainRenderer{}.Markdown(paragraphs(5), 20)
	if narrow != want {
		t.Errorf("at width 20 got\n%s\nwant\n%s", narrow, want)
	}
}

// TestThemeFollowsTerminalBackground: with DetectTheme, the terminal's
// background colour picks the theme, and what was drawn in the other theme
// is drawn again: the switched model shows exactly what a model built with
// that theme shows.
func TestThemeFollowsTerminalBackground(t *testing.T) {
	feed := func(m *Model) {
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		feedSession(m, 6)
	}
	switched := New(Options{Dark: true, DetectTheme: true})
	defer switched.Close()
	feed(switched)
	darkView := switched.View().Content
	switched.Update(tea.BackgroundColorMsg{Color: color.White})
	light := New(Options{Dark: false})
	defer light.Close()
	feed(light)
	if diff := cmp.Diff(light.View().Content, switched.View().Content); diff != "" {
		t.Fatalf("after a white background the view is not the light theme's (-light +switched):\n%s", diff)
	}
	if darkView == light.View().Content {
		t.Fatal("dark and light views are identical: the test proves nothing")
	}

	// Without DetectTheme (NOVA_THEME or NO_COLOR set) the answer is ignored.
	fixed := New(Options{Dark: true})
	defer fixed.Close()
	feed(fixed)
	before := fixed.View().Content
	fixed.Update(tea.BackgroundColorMsg{Color: color.White})
	if fixed.View().Content != before {
		t.Fatal("a fixed theme changed on the terminal's answer")
	}
}

// Tool cards name files below the working directory relative to it, the
// way the user thinks of them; files elsewhere keep their full path.
func TestToolCardPathsRelativeToWorkDir(t *testing.T) {
	m := New(Options{Dark: true, NoColor: true, Dir: "/work/proj"})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.busy = true
	m.handleEvent(event.ToolUse{Turn: 1, ID: "a", Name: "Read", Input: json.RawMessage(`{"file_path":"/work/proj/internal/x.go"}`)})
	m.handleEvent(event.ToolUse{Turn: 1, ID: "b", Name: "Read", Input: json.RawMessage(`{"file_path":"/etc/hosts"}`)})
	screen := m.View().Content
	for _, want := range []string{"Read(internal/x.go)", "Read(/etc/hosts)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

// A large paste becomes a placeholder in the input and in the timeline,
// and the run gets every line of it, far past what the input widget would
// hold (10,000 lines); history recalls the placeholder, which still
// expands. A small paste goes in as typed.
func TestLargePasteIsKeptWhole(t *testing.T) {
	f := newFake()
	m := plainModel(Options{Model: "m1", Mode: "default", Runner: f})
	defer m.Close()
	var big strings.Builder
	for i := range 25000 {
		fmt.Fprintf(&big, "log line %d\n", i)
	}
	m.Update(tea.PasteMsg{Content: "small\npaste"})
	if got := m.input.Value(); got != "small\npaste" {
		t.Fatalf("a small paste became %q", got)
	}
	m.input.Reset()
	typeText(m, "why does this fail? ")
	m.Update(tea.PasteMsg{Content: big.String()})
	const token = "[Pasted text #1 +25000 lines]"
	if got := m.input.Value(); got != "why does this fail? "+token {
		t.Fatalf("input after a large paste: %q", got)
	}
	press(m, key(tea.KeyEnter))
	deadline := time.Now().Add(10 * time.Second)
	for {
		f.mu.Lock()
		n := len(f.prompts)
		f.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never started")
		}
		time.Sleep(time.Millisecond)
	}
	f.mu.Lock()
	got := f.prompts[0]
	f.mu.Unlock()
	want := "why does this fail? " + big.String()
	if got != want {
		t.Fatalf("the run got %d bytes, want %d (the whole paste)", len(got), len(want))
	}
	if !strings.Contains(m.Screen(), token) || strings.Contains(m.Screen(), "log line 24999") {
		t.Errorf("the timeline should show the placeholder, not the paste:\n%s", m.Screen())
	}
	// Recalled from history, the placeholder still stands for the paste.
	if m.expandPastes(m.history[len(m.history)-1]) != want {
		t.Error("the history entry no longer expands to the paste")
	}
}

// tool_done stops a card's spinner and shows its duration before the
// result arrives; the result then fills the card.
func TestToolDoneStopsTheCard(t *testing.T) {
	m := plainModel(Options{Model: "m1", Mode: "default"})
	defer m.Close()
	m.busy = true
	m.handleEvent(event.ToolUse{Turn: 1, ID: "a", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)})
	if b := m.tools["a"]; !b.running {
		t.Fatal("card not running after tool_use")
	}
	m.handleEvent(event.ToolDone{Turn: 1, ID: "a", Name: "Read", DurationMS: 1500})
	b := m.tools["a"]
	if b.running || b.dur != 1500*time.Millisecond || b.result != "" {
		t.Fatalf("after tool_done: running %v, dur %v, result %q", b.running, b.dur, b.result)
	}
	m.handleEvent(event.ToolResult{Turn: 1, ID: "a", Name: "Read", Content: "package a", DurationMS: 1500})
	if b.result != "package a" || b.running {
		t.Fatalf("after tool_result: %+v", b)
	}
}

// While a permission request about a call is open, its card waits for the
// person (no clock); allowed, it runs; denied, it settles when tool_done
// comes.
func TestCardWaitsForThePerson(t *testing.T) {
	for _, allow := range []bool{true, false} {
		m := plainModel(Options{Model: "m1", Mode: "default"})
		m.busy = true
		in := json.RawMessage(`{"command":"make"}`)
		m.handleEvent(event.ToolUse{Turn: 1, ID: "b", Name: "Bash", Input: in})
		m.handleEvent(event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "b", Name: "Bash", Input: in, Reason: "runs a command",
			Choices: []string{"allow_once", "allow_always", "deny"}}, event.NewReply()))
		if !strings.Contains(m.Screen(), "● Bash(make) waiting for you") {
			t.Fatalf("card while the dialog is open:\n%s", m.Screen())
		}
		if !allow {
			press(m, key(tea.KeyDown), key(tea.KeyDown))
		}
		press(m, key(tea.KeyEnter))
		b := m.tools["b"]
		if b.waiting || b.running != allow {
			t.Fatalf("allow=%v: waiting %v, running %v", allow, b.waiting, b.running)
		}
		if !allow {
			m.handleEvent(event.ToolDone{Turn: 1, ID: "b", Name: "Bash", IsError: true})
			if b.running || !b.pending {
				t.Fatalf("denied card after tool_done: %+v", b)
			}
		}
		m.Close()
	}
}

// A long answer that ends is shown at once from its live rendering and
// rendered whole in the background; the whole rendering then replaces it
// (a reference-style link defined at the end, which only the whole
// rendering resolves, shows the swap).
func TestLongAnswerRenderedWholeInTheBackground(t *testing.T) {
	m := New(Options{Dark: true, NoColor: true})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.busy = true
	src := "See [the docs][d] first.\n\n" + paragraphs(200) + "[d]: https://example.com/docs\n"
	for i := 0; i < len(src); i += 500 {
		m.Update(eventMsg{ev: event.StreamText{Turn: 1, Text: src[i:min(i+500, len(src))]}, gen: m.gen})
		m.Update(frameMsg{})
		_ = m.View()
	}
	_, cmd := m.Update(eventMsg{ev: event.TurnComplete{Turn: 1, StopReason: "end_turn"}, gen: m.gen})
	b := m.blocks[len(m.blocks)-1]
	if b.kind != kindText || b.live || b.dirty {
		t.Fatalf("answer block after the turn: kind %v live %v dirty %v", b.kind, b.live, b.dirty)
	}
	if strings.Contains(b.cache, "example.com") && !strings.Contains(b.cache, "[d]") {
		t.Fatal("the whole rendering was made on the UI goroutine")
	}
	var final *finalRender
	for _, msg := range runCmd(cmd) {
		if f, ok := msg.(finalRender); ok {
			final = &f
		}
	}
	if final == nil {
		t.Fatal("no background rendering was started")
	}
	m.Update(*final)
	if want := m.r.Markdown(src, 80); b.cache != want {
		t.Fatalf("after the background rendering the cache is not the whole rendering")
	}
}

// runCmd runs cmd and the commands of any batch it returns, and gives the
// messages they produce (a tick would block, so frame ticks are skipped by
// not being produced here: TurnComplete returns none).
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range batch {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}
