package acp

import (
	"encoding/json"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
)

// wire is updates as the editor reads them.
func wire(t *testing.T, us []acpsdk.SessionUpdate) []string {
	t.Helper()
	out := []string{}
	for _, u := range us {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestUpdates: what a run's events become, in order, as the editor reads
// them.
func TestUpdates(t *testing.T) {
	child := func(e event.Event) event.Event {
		return event.Child{ParentToolUseID: "toolu_task", AgentID: "agent_1", Event: e}
	}
	tests := []struct {
		name   string
		events []event.Event
		want   []string
	}{
		{"text and thinking",
			[]event.Event{event.ThinkingText{Turn: 1, Text: "hmm"}, event.StreamText{Turn: 1, Text: "Hello"}, event.StreamText{Turn: 1, Text: ""}},
			[]string{
				`{"content":{"text":"hmm","type":"text"},"sessionUpdate":"agent_thought_chunk"}`,
				`{"content":{"text":"Hello","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
			}},
		{"a read, done and its result in a code block",
			[]event.Event{
				event.ToolUse{Turn: 1, ID: "r", Name: "Read", Input: json.RawMessage(`{"file_path":"a.txt"}`)},
				event.ToolDone{Turn: 1, ID: "r", Name: "Read"},
				event.ToolResult{Turn: 1, ID: "r", Name: "Read", Content: "     1\thi\n"},
			},
			[]string{
				`{"_meta":{"novacode":{"toolName":"Read"}},"kind":"read","locations":[{"path":"/ws/a.txt"}],"rawInput":{"file_path":"a.txt"},"sessionUpdate":"tool_call","status":"in_progress","title":"Read a.txt","toolCallId":"r"}`,
				`{"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"r"}`,
				"{\"content\":[{\"content\":{\"text\":\"```\\n     1\\thi\\n```\",\"type\":\"text\"},\"type\":\"content\"}],\"sessionUpdate\":\"tool_call_update\",\"status\":\"completed\",\"toolCallId\":\"r\"}",
			}},
		{"an edit shows its diff again once done",
			[]event.Event{
				event.ToolUse{Turn: 1, ID: "e", Name: "Edit", Input: json.RawMessage(`{"file_path":"a.txt","old_string":"a","new_string":"b"}`)},
				event.ToolResult{Turn: 1, ID: "e", Name: "Edit", Content: "The file /ws/a.txt has been updated."},
			},
			[]string{
				`{"_meta":{"novacode":{"toolName":"Edit"}},"content":[{"newText":"b","oldText":"a","path":"/ws/a.txt","type":"diff"}],"kind":"edit","locations":[{"path":"/ws/a.txt"}],"rawInput":{"file_path":"a.txt","new_string":"b","old_string":"a"},"sessionUpdate":"tool_call","status":"in_progress","title":"Edit a.txt","toolCallId":"e"}`,
				`{"content":[{"newText":"b","oldText":"a","path":"/ws/a.txt","type":"diff"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"e"}`,
			}},
		{"a failed edit says why, without the diff",
			[]event.Event{
				event.ToolUse{Turn: 1, ID: "e", Name: "Edit", Input: json.RawMessage(`{"file_path":"a.txt","old_string":"a","new_string":"b"}`)},
				event.ToolDone{Turn: 1, ID: "e", Name: "Edit", IsError: true},
				event.ToolResult{Turn: 1, ID: "e", Name: "Edit", IsError: true, Content: "old_string was not found in /ws/a.txt."},
			},
			[]string{
				`{"_meta":{"novacode":{"toolName":"Edit"}},"content":[{"newText":"b","oldText":"a","path":"/ws/a.txt","type":"diff"}],"kind":"edit","locations":[{"path":"/ws/a.txt"}],"rawInput":{"file_path":"a.txt","new_string":"b","old_string":"a"},"sessionUpdate":"tool_call","status":"in_progress","title":"Edit a.txt","toolCallId":"e"}`,
				`{"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"e"}`,
				`{"content":[{"content":{"text":"old_string was not found in /ws/a.txt.","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"failed","toolCallId":"e"}`,
			}},
		{"the task list is the plan, TodoWrite no tool call",
			[]event.Event{
				event.ToolUse{Turn: 1, ID: "td", Name: "TodoWrite", Input: json.RawMessage(`{}`)},
				event.ToolDone{Turn: 1, ID: "td", Name: "TodoWrite"},
				event.Todo{Turn: 1, Todos: []event.TodoItem{{Content: "a", Status: "completed"}, {Content: "b", Status: "in_progress"}, {Content: "c", Status: "pending"}}},
				event.ToolResult{Turn: 1, ID: "td", Name: "TodoWrite", Content: "ok"},
			},
			[]string{`{"entries":[{"content":"a","priority":"medium","status":"completed"},{"content":"b","priority":"medium","status":"in_progress"},{"content":"c","priority":"medium","status":"pending"}],"sessionUpdate":"plan"}`}},
		{"a subagent's calls show as calls, labelled; its text does not",
			[]event.Event{
				child(event.StreamText{Turn: 1, Text: "searching"}),
				child(event.ToolUse{Turn: 1, ID: "g", Name: "Grep", Input: json.RawMessage(`{"pattern":"x"}`)}),
				child(event.ToolResult{Turn: 1, ID: "g", Name: "Grep", Content: "a.go:1:x"}),
				child(event.LoopComplete{Reason: event.ReasonDone}),
			},
			[]string{
				`{"_meta":{"novacode":{"agentId":"agent_1","parentToolCallId":"toolu_task","toolName":"Grep"}},"kind":"search","locations":[{"path":"/ws"}],"rawInput":{"pattern":"x"},"sessionUpdate":"tool_call","status":"in_progress","title":"agent_1 · Grep \"x\"","toolCallId":"g"}`,
				"{\"content\":[{\"content\":{\"text\":\"```\\na.go:1:x\\n```\",\"type\":\"text\"},\"type\":\"content\"}],\"sessionUpdate\":\"tool_call_update\",\"status\":\"completed\",\"toolCallId\":\"g\"}",
			}},
		{"a result whose call was not shown is announced with it",
			[]event.Event{event.ToolResult{Turn: 1, ID: "x", Name: "Bash", Content: "interrupted", IsError: true}},
			[]string{`{"_meta":{"novacode":{"toolName":"Bash"}},"content":[{"content":{"text":"interrupted","type":"text"},"type":"content"}],"kind":"execute","sessionUpdate":"tool_call","status":"failed","title":"Run a command","toolCallId":"x"}`}},
		{"the provider's web search",
			[]event.Event{
				event.WebSearch{Turn: 1, ID: "ws1", Query: "go 1.26", Status: event.SearchSearching},
				event.WebSearch{Turn: 1, ID: "ws1", Query: "go 1.26", Status: event.SearchDone, Results: []event.SearchResult{{Title: "Go 1.26", URL: "https://go.dev/doc/go1.26"}}},
			},
			[]string{
				`{"kind":"search","rawInput":{"query":"go 1.26"},"sessionUpdate":"tool_call","status":"in_progress","title":"Search the web: go 1.26","toolCallId":"ws1"}`,
				`{"content":[{"content":{"text":"- [Go 1.26](https://go.dev/doc/go1.26)\n","type":"text"},"type":"content"}],"sessionUpdate":"tool_call_update","status":"completed","toolCallId":"ws1"}`,
			}},
		{"notices",
			[]event.Event{
				event.Warning{Turn: 1, Message: "could not save the rule"},
				event.Retry{Turn: 1, Kind: "overloaded", Retry: 1, MaxRetries: 4, WaitMS: 1100},
				event.Compact{TokensBefore: 1000, TokensAfter: 100},
				event.Usage{Turn: 1}, event.TurnComplete{Turn: 1}, event.LoopComplete{Reason: event.ReasonDone},
			},
			[]string{
				`{"content":{"text":"\n\n\u003e **nova:** could not save the rule\n\n","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
				`{"content":{"text":"\n\n\u003e **nova:** overloaded — retrying in 1.1 s (1/4)\n\n","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
				`{"content":{"text":"\n\n\u003e **nova:** conversation compacted: 1000 → 100 tokens\n\n","type":"text"},"sessionUpdate":"agent_message_chunk"}`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newMapper("/ws")
			var got []acpsdk.SessionUpdate
			for _, e := range tc.events {
				got = append(got, m.updates(e)...)
			}
			if diff := cmp.Diff(tc.want, wire(t, got)); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
			if len(m.calls) != 0 {
				// Every call announced here got its result.
				t.Errorf("calls left: %v", m.calls)
			}
		})
	}
}
