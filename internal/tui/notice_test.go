package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// screenLines is the screen's text without blank lines and trailing space.
func screenLines(m *Model) []string {
	var out []string
	for _, l := range strings.Split(ansi.Strip(m.Screen()), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// A retry is one line in the timeline, replaced by the next retry of the
// same call; the answer that follows comes after it. A warning is a line of
// its own. Prompt and status line stay where they are.
func TestRetryAndWarningLines(t *testing.T) {
	m := plainModel(Options{Model: "m1", Mode: "default"})
	defer m.Close()
	m.addText(kindUser, "hi")
	m.busy = true
	m.handleEvent(event.Retry{Turn: 1, Kind: "overloaded", StatusCode: 529, Retry: 1, MaxRetries: 4, WaitMS: 600})
	m.handleEvent(event.Retry{Turn: 1, Kind: "overloaded", StatusCode: 529, Retry: 2, MaxRetries: 4, WaitMS: 1100})
	m.handleEvent(event.StreamText{Turn: 1, Text: "Hello."})
	m.handleEvent(event.Warning{Turn: 1, Message: "could not save Bash(ls) for next time"})
	m.handleEvent(event.LoopComplete{Reason: event.ReasonDone, Turns: 1})
	m.busy = false
	m.endStream()
	want := []string{
		"> hi",
		"↻ overloaded (HTTP 529) — retrying in 1.1 s (2/4)",
		"Hello.",
		"⚠ could not save Bash(ls) for next time",
		"> Type a prompt, /help for commands",
		"m1 · default",
	}
	if diff := cmp.Diff(want, screenLines(m)); diff != "" {
		t.Errorf("screen (-want +got):\n%s", diff)
	}
}

// A retry after an answer (the next turn's call) is a line of its own.
func TestRetryOfAnotherCallIsANewLine(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	m.handleEvent(event.Retry{Turn: 1, Kind: "rate_limit", StatusCode: 429, Retry: 1, MaxRetries: 4, WaitMS: 2000})
	m.handleEvent(event.StreamText{Turn: 1, Text: "one"})
	m.handleEvent(event.Retry{Turn: 2, Kind: "server", StatusCode: 500, Retry: 1, MaxRetries: 4, WaitMS: 800})
	var kinds []blockKind
	for _, b := range m.blocks {
		kinds = append(kinds, b.kind)
	}
	if diff := cmp.Diff([]blockKind{kindRetry, kindText, kindRetry}, kinds); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}

// Ctrl+L clears the terminal and has every cell drawn again: whatever else
// wrote to it is gone.
func TestCtrlLRedraws(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	cmd := m.key(key('l', tea.ModCtrl))
	if cmd == nil {
		t.Fatal("ctrl+l did nothing")
	}
	if got := cmd(); got != tea.ClearScreen() {
		t.Fatalf("ctrl+l gave %T, want tea.ClearScreen's message", got)
	}
	if m.input.Value() != "" {
		t.Errorf("ctrl+l typed %q", m.input.Value())
	}
}

// Through the whole program: a run that retries twice, warns and answers
// leaves one retry line, the warning and the answer, with the prompt and
// status line in place.
func TestRetryThroughTheProgram(t *testing.T) {
	r := &recordingRunner{script: []event.Event{
		event.Retry{Turn: 1, Kind: "overloaded", StatusCode: 529, Error: "model call failed (overloaded, HTTP 529)", Retry: 1, MaxRetries: 4, WaitMS: 700},
		event.Retry{Turn: 1, Kind: "rate_limit", StatusCode: 429, Error: "model call failed (rate_limit, HTTP 429)", Retry: 2, MaxRetries: 4, WaitMS: 30_000},
		event.StreamText{Turn: 1, Text: "Hello after all."},
		event.Warning{Turn: 1, Message: "could not save Bash(ls) for next time (it holds for this session): permission denied"},
		event.Usage{Turn: 1, Model: "claude-test", Call: event.TokenCounts{InputTokens: 1200, OutputTokens: 30},
			Total: event.TokenCounts{InputTokens: 1200, OutputTokens: 30}, CostUSD: 0.0041, ContextWindow: 200000},
	}}
	m := New(Options{Runner: r, Model: "claude-test", Mode: "default", NoColor: true, Dark: true})
	defer m.Close()
	tm := newTestProgram(t, m, 80, 16)
	tm.Type("hi")
	tm.Send(key(tea.KeyEnter))
	waitFor(t, tm, "permission denied")
	tm.Type("/exit")
	tm.Send(key(tea.KeyEnter))
	final := tm.final(t)
	final.Close()
	golden(t, "retry.golden", ansi.Strip(final.Screen()))
}
