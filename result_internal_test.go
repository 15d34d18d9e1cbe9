package nova

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
)

// A Send's Result is its own run's: a subagent's calls, citations and end
// stay out of it, but for its denied calls; the subagents its Task calls
// ran are listed, with what they cost (already in the totals, which come
// from the run's end alone).
func TestResultOfARunWithSubagents(t *testing.T) {
	child := func(e event.Event) event.Event {
		return event.Child{ParentToolUseID: "task_1", AgentID: "agent_1", Event: e}
	}
	nested := func(e event.Event) event.Event {
		return child(event.Child{ParentToolUseID: "task_9", AgentID: "agent_2", Event: e})
	}
	run := event.SubagentRun{AgentID: "agent_1", AgentType: "Explore", Turns: 2,
		Usage: event.TokenCounts{InputTokens: 100, OutputTokens: 10}, CostUSD: 0.02, Transcript: "/d/s.agent_1.jsonl"}
	evs := []event.Event{
		event.ToolUse{Turn: 1, ID: "task_1", Name: "Task", Input: json.RawMessage(`{"description":"find the tests"}`)},
		child(event.StreamText{Turn: 1, Text: "looking"}),
		child(event.ToolUse{Turn: 1, ID: "r1", Name: "Bash", Input: json.RawMessage(`{"command":"rm -rf x"}`)}),
		child(event.ToolResult{Turn: 1, ID: "r1", Name: "Bash", Content: "denied", IsError: true, Denied: true, Reason: "no"}),
		child(event.Citation{Turn: 1, URL: "https://example.com/child"}),
		nested(event.ToolResult{Turn: 1, ID: "task_9", Name: "Task", Content: "deep", Subagent: &event.SubagentRun{AgentID: "agent_2"}}),
		child(event.LoopComplete{Reason: event.ReasonDone, Turns: 2, FinalText: "the tests are in a_test.go", CostUSD: 0.02}),
		event.ToolResult{Turn: 1, ID: "task_1", Name: "Task", Content: "the tests are in a_test.go", Subagent: &run},
		event.ToolUse{Turn: 2, ID: "task_2", Name: "Task", Input: json.RawMessage(`{}`)},
		event.ToolResult{Turn: 2, ID: "task_2", Name: "Task", Content: "started agent_3",
			Subagent: &event.SubagentRun{AgentID: "agent_3", AgentType: "general-purpose", Background: true}},
		event.Mailbox{Turn: 3, Items: []event.MailItem{{Kind: "agent", From: "agent_3", Text: "done"}}},
		event.LoopComplete{Reason: event.ReasonDone, Turns: 3, FinalText: "Found them.", CostUSD: 0.05,
			Usage: event.TokenCounts{InputTokens: 300, OutputTokens: 30}},
	}
	var got Result
	c := &collector{res: &got}
	for _, e := range evs {
		c.add(e)
	}
	want := Result{
		Text: "Found them.", Reason: event.ReasonDone, Turns: 3, CostUSD: 0.05,
		Usage: event.TokenCounts{InputTokens: 300, OutputTokens: 30},
		ToolCalls: []ToolCall{
			{ID: "task_1", Name: "Task", Input: json.RawMessage(`{"description":"find the tests"}`), Result: "the tests are in a_test.go"},
			{ID: "task_2", Name: "Task", Input: json.RawMessage(`{}`), Result: "started agent_3"},
		},
		SubagentDenials: []ToolCall{{ID: "r1", Name: "Bash", Input: json.RawMessage(`{"command":"rm -rf x"}`), Result: "denied", IsError: true,
			Denied: true, Reason: "no", ParentToolUseID: "task_1", AgentID: "agent_1"}},
		Subagents: []SubagentRun{
			{ToolUseID: "task_1", AgentID: "agent_1", AgentType: "Explore", Turns: 2, Usage: event.TokenCounts{InputTokens: 100, OutputTokens: 10},
				CostUSD: 0.02, Transcript: "/d/s.agent_1.jsonl"},
			{ToolUseID: "task_2", AgentID: "agent_3", AgentType: "general-purpose", Background: true},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	if d := got.Denied(); len(d) != 1 || d[0].AgentID != "agent_1" {
		t.Errorf("Denied() = %+v, want the subagent's denied call", d)
	}
}
