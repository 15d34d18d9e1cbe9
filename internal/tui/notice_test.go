package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

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
