package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/novacode/nova/event"
)

// resumedPast is a session of two prompts: a tool call with its result, an
// answer, and a call the session was killed in (no result).
func resumedPast() *Past {
	in := func(s string) json.RawMessage { return json.RawMessage(s) }
	ev := func(e event.Event) Entry { return Entry{Event: e} }
	return &Past{
		Entries: []Entry{
			{Prompt: "what is in go.mod?"},
			ev(event.ThinkingText{Turn: 1, Text: "Read it."}),
			ev(event.StreamText{Turn: 1, Text: "Let me look."}),
			ev(event.ToolUse{Turn: 1, ID: "t1", Name: "Read", Input: in(`{"file_path":"go.mod"}`)}),
			ev(event.TurnComplete{Turn: 1}),
			ev(event.ToolResult{Turn: 1, ID: "t1", Name: "Read", Content: "module x\n\ngo 1.26\n"}),
			ev(event.StreamText{Turn: 2, Text: "It declares **module x**."}),
			ev(event.TurnComplete{Turn: 2}),
			{Prompt: "run the tests"},
			ev(event.ToolUse{Turn: 3, ID: "t2", Name: "Bash", Input: in(`{"command":"go test ./..."}`)}),
			ev(event.TurnComplete{Turn: 3}),
		},
		Usage: event.Usage{Turn: 3, Model: "claude-test",
			Call:  event.TokenCounts{InputTokens: 2000, CacheReadTokens: 8000, OutputTokens: 40},
			Total: event.TokenCounts{InputTokens: 5000, CacheReadTokens: 15000, OutputTokens: 300}, CostUSD: 0.0421, ContextWindow: 200000},
	}
}

// A resumed session shows its conversation, rendered as it was live
// (prompts, thinking, answers, tool cards with their results; a call that
// never finished as cancelled), and its tokens and cost in the status line.
func TestResumedSessionIsShown(t *testing.T) {
	m := New(Options{Model: "claude-test", Mode: "default", NoColor: true, Dark: true, Resumed: resumedPast(),
		Notice: "Resumed session abc (3 turns)."})
	defer m.Close()
	got := ansi.Strip(m.Screen())
	golden(t, "resumed.golden", got)
	for _, want := range []string{"> what is in go.mod?", "Read(go.mod)", "module x", "It declares **module x**.", "> run the tests", "Bash(go test ./...)", "$0.0421", "ctx 5%"} {
		if !strings.Contains(got, want) {
			t.Errorf("screen lacks %q:\n%s", want, got)
		}
	}
	if len(m.tools) != 0 || m.current != nil {
		t.Errorf("replay left live state: %d tools, current %v", len(m.tools), m.current)
	}
}

// /resume and /rewind replace the timeline with the conversation the CLI
// hands back.
func TestSessionCommandReplacesTimeline(t *testing.T) {
	m := plainModel(Options{Session: func(_ context.Context, name, args string) (string, *Past, error) {
		return "Resumed session " + args + ".", resumedPast(), nil
	}})
	defer m.Close()
	m.addText(kindUser, "an unrelated prompt of this session")
	m.submit("/resume abc")
	scr := m.Screen()
	if strings.Contains(scr, "unrelated") {
		t.Errorf("the old timeline is still shown:\n%s", scr)
	}
	for _, want := range []string{"> what is in go.mod?", "It declares **module x**.", "Resumed session abc.", "$0.0421"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
}
