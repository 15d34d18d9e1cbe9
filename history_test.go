package nova

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// writeTranscript writes a session of recs to dir and loads it back.
func writeTranscript(t *testing.T, dir, id string, recs ...session.Record) *session.State {
	t.Helper()
	tr, err := session.Create(dir, id, session.Record{Cwd: "/ws", Model: "claude-sonnet-4-5", Provider: "anthropic"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := tr.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := session.Load(tr.Path())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func message(turn int, role llm.Role, blocks ...llm.Block) session.Record {
	return session.Record{Type: session.TypeMessage, Turn: turn, Message: &llm.Message{Role: role, Content: blocks}}
}

func textBlock(s string) llm.Block { return llm.Block{Type: llm.BlockText, Text: s} }

// describe is an entry as one comparable line.
func describe(e HistoryEntry) string {
	switch ev := e.Event.(type) {
	case nil:
		return "prompt " + e.Prompt
	case event.StreamText:
		return "text " + ev.Text
	case event.ThinkingText:
		return "thinking " + ev.Text
	case event.ToolUse:
		return fmt.Sprintf("tool_use %s %s %s", ev.ID, ev.Name, ev.Input)
	case event.ToolResult:
		return fmt.Sprintf("tool_result %s %s %q error=%v", ev.ID, ev.Name, ev.Content, ev.IsError)
	case event.Compact:
		return fmt.Sprintf("compact %d→%d", ev.TokensBefore, ev.TokensAfter)
	default:
		return e.Event.Type()
	}
}

// A transcript becomes the timeline of the session it was: prompts without
// the preamble and reminders, thinking, answers, tool calls with their
// results (named), compactions; rewound turns are gone. The status line
// gets the totals and the last call.
func TestPastOfTranscript(t *testing.T) {
	read := json.RawMessage(`{"file_path":"go.mod"}`)
	st := writeTranscript(t, t.TempDir(), "s1",
		message(1, llm.RoleUser, textBlock("<system-reminder>\n<env>cwd</env>\n</system-reminder>"), textBlock("what is in go.mod?")),
		message(1, llm.RoleAssistant, llm.Block{Type: llm.BlockThinking, Text: "Read it.", Signature: "sig"}, textBlock("Let me look."),
			llm.Block{Type: llm.BlockToolUse, ToolUseID: "t1", ToolName: "Read", Input: read}),
		message(1, llm.RoleUser, llm.Block{Type: llm.BlockToolResult, ToolUseID: "t1", Content: "module x"}),
		session.Record{Type: session.TypeUsage, Turn: 1, Usage: &llm.Usage{InputTokens: 1000, OutputTokens: 50}, CostUSD: 0.01},
		message(2, llm.RoleAssistant, textBlock("It declares module x.")),
		session.Record{Type: session.TypeUsage, Turn: 2, Usage: &llm.Usage{InputTokens: 1000, CacheReadTokens: 1100, OutputTokens: 80}, CostUSD: 0.02},
		session.Record{Type: session.TypeBoundary, Turn: 2, BoundaryID: "b1", Reason: "manual", TokensBefore: 2100, TokensAfter: 300,
			Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{textBlock("Summary: …")}}}},
		message(3, llm.RoleUser, textBlock("run the tests"), textBlock("<system-reminder>todo list</system-reminder>")),
		message(3, llm.RoleAssistant, llm.Block{Type: llm.BlockToolUse, ToolUseID: "t2", ToolName: "Bash", Input: json.RawMessage(`{"command":"go test"}`)}),
		message(3, llm.RoleUser, llm.Block{Type: llm.BlockToolResult, ToolUseID: "t2", Content: "FAIL", IsError: true}),
		message(4, llm.RoleUser, textBlock("never mind")),
		session.Record{Type: session.TypeRewind, Turn: 4},
	)
	p := historyOf(st, "claude-sonnet-4-5", 200_000)
	var got []string
	for _, e := range p.Entries {
		got = append(got, describe(e))
	}
	want := []string{
		"prompt what is in go.mod?",
		"thinking Read it.",
		"text Let me look.",
		`tool_use t1 Read {"file_path":"go.mod"}`,
		"turn_complete",
		`tool_result t1 Read "module x" error=false`,
		"text It declares module x.",
		"turn_complete",
		"compact 2100→300",
		"prompt run the tests",
		`tool_use t2 Bash {"command":"go test"}`,
		"turn_complete",
		`tool_result t2 Bash "FAIL" error=true`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	wantUsage := event.Usage{Turn: 4, Model: "claude-sonnet-4-5",
		Call:  event.TokenCounts{CacheReadTokens: 1100, OutputTokens: 30},
		Total: event.TokenCounts{InputTokens: 1000, CacheReadTokens: 1100, OutputTokens: 80}, CostUSD: 0.02, ContextWindow: 200_000}
	if diff := cmp.Diff(wantUsage, p.Usage); diff != "" {
		t.Errorf("usage (-want +got):\n%s", diff)
	}
}
