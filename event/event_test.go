package event_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/event/eventtest"
)

// One value of every event type, with and without optional fields.
var samples = []event.Event{
	event.StreamText{Turn: 1, Text: "hello"},
	event.ThinkingText{Turn: 1, Text: "hmm"},
	event.ToolUse{Turn: 1, ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)},
	event.ToolUse{Turn: 1, ID: "toolu_5", Name: "Bash", Input: json.RawMessage(`{"command":"ls -l"}`), ModelInput: json.RawMessage(`{"command":"rm -rf ."}`)},
	event.ToolDone{Turn: 1, ID: "toolu_1", Name: "Read", DurationMS: 3},
	event.ToolResult{Turn: 1, ID: "toolu_1", Name: "Read", Content: "1\tpackage a", DurationMS: 3},
	event.ToolResult{Turn: 2, ID: "toolu_2", Name: "Bash", Content: "[cancelled]", IsError: true, Cancelled: true, Denied: true, SpillPath: "/tmp/x"},
	event.ToolResult{Turn: 2, ID: "toolu_4", Name: "Bash", Content: "not granted", IsError: true, Denied: true,
		Reason: "running a command needs approval", NeedsApproval: true, Suggest: []string{"Bash(touch x)"}, SuggestMode: "acceptEdits"},
	event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "toolu_3", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`), Reason: "runs a command", Choices: []string{"allow_once", "allow_always", "deny"}}, event.NewReply()),
	event.NewPermissionRequest(event.PermissionRequest{Turn: 2, ID: "toolu_5", Name: "ExitPlanMode", Input: json.RawMessage(`{"plan":"# Plan"}`), Reason: "the plan needs your approval",
		Choices: event.PlanChoices, Plan: "# Plan\n\n1. Edit a.go"}, event.NewReply()),
	event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "toolu_6", Name: "Write", Input: json.RawMessage(`{"file_path":".novacode/settings.json"}`), Reason: "writing a protected path", Choices: []string{"allow_once", "deny"}, NeedsPerson: true}, event.NewReply()),
	event.Usage{Turn: 1, Model: "claude-sonnet-4-5", Call: event.TokenCounts{InputTokens: 5}, Total: event.TokenCounts{InputTokens: 5, Estimated: true}, CostUSD: 0.1, ContextWindow: 200000},
	event.Compact{TokensBefore: 100, TokensAfter: 10, Reason: "auto", BoundaryID: "b1"},
	event.TurnComplete{Turn: 1, StopReason: "tool_use"},
	event.LoopComplete{Reason: event.ReasonDone, Turns: 2, FinalText: "ok", DurationMS: 10},
	event.LoopComplete{Reason: event.ReasonError, Error: "boom"},
	event.NewQuestion(event.Question{Turn: 1, ID: "q1", Question: "Which database?", Options: []string{"Postgres", "SQLite"}}, event.NewAnswerReply()),
	event.Todo{Turn: 2, Todos: []event.TodoItem{{Content: "Run the tests", Status: "in_progress", ActiveForm: "Running the tests"}, {Content: "Ship", Status: "pending", ActiveForm: "Shipping"}}},
	event.Todo{Turn: 3, Todos: []event.TodoItem{}},
	event.WebSearch{Turn: 1, ID: "srvtoolu_1", Query: "go 1.26", Status: event.SearchSearching},
	event.WebSearch{Turn: 1, ID: "srvtoolu_1", Query: "go 1.26", Status: event.SearchDone, Results: []event.SearchResult{{Title: "Go", URL: "https://go.dev/", PageAge: "1 day ago"}, {URL: "https://go.dev/blog"}}},
	event.WebSearch{Turn: 1, ID: "srvtoolu_2", Query: "x", Status: event.SearchFailed, Error: "max_uses_exceeded"},
	event.WebSearch{Turn: 2, Status: event.SearchUnavailable, Error: "the endpoint rejected web search"},
	event.Citation{Turn: 1, URL: "https://go.dev/", Title: "Go", CitedText: "Go is"},
	event.Usage{Turn: 1, Model: "claude-sonnet-4-5", Call: event.TokenCounts{InputTokens: 5, WebSearchRequests: 1}, Total: event.TokenCounts{InputTokens: 5, WebSearchRequests: 1}, CostUSD: 0.01},
	event.Retry{Turn: 1, Kind: "overloaded", StatusCode: 529, Error: "model call failed (overloaded, HTTP 529)", Retry: 2, MaxRetries: 4, WaitMS: 1100},
	event.Retry{Turn: 3, Kind: "timeout", Error: "no answer", Retry: 1, MaxRetries: 1},
	event.Warning{Turn: 2, Message: "could not save Bash(ls) for next time"},
	event.Mailbox{Turn: 3, Items: []event.MailItem{{Kind: "command", From: "bash_1", Text: "exit 0"}, {Kind: "message", From: "agent_2", Text: "done with a.go"}}},
	event.ToolResult{Turn: 2, ID: "toolu_7", Name: "Task", Content: "found it", DurationMS: 1000,
		Subagent: &event.SubagentRun{AgentID: "agent_1", AgentType: "Explore", Turns: 2, Usage: event.TokenCounts{InputTokens: 10, OutputTokens: 2}, CostUSD: 0.01, Transcript: "/x/agent_1.jsonl"}},
	event.Child{ParentToolUseID: "toolu_7", AgentID: "agent_1", Event: event.ToolUse{Turn: 1, ID: "toolu_8", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}},
	event.Child{ParentToolUseID: "toolu_7", AgentID: "agent_1", Event: event.LoopComplete{Reason: event.ReasonDone, Turns: 1}},
	event.Child{ParentToolUseID: "toolu_7", AgentID: "agent_1", Event: event.Child{ParentToolUseID: "toolu_9", AgentID: "agent_2", Event: event.StreamText{Turn: 1, Text: "x"}}},
}

func TestEveryEventMatchesSchema(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range samples {
		b, err := event.Marshal(e)
		if err != nil {
			t.Fatalf("%s: %v", e.Type(), err)
		}
		if err := eventtest.ValidateJSON(b); err != nil {
			t.Errorf("%s does not match the schema: %v\n%s", e.Type(), err, b)
		}
		var head struct{ Type string }
		_ = json.Unmarshal(b, &head)
		if head.Type != e.Type() {
			t.Errorf("type field = %q, want %q", head.Type, e.Type())
		}
		seen[e.Type()] = true
	}
	if len(seen) != 17 {
		t.Errorf("samples cover %d event types, want all 17", len(seen))
	}
}

func TestSchemaRejectsWrongEvents(t *testing.T) {
	for _, bad := range []string{
		`{"type":"stream_text"}`,
		`{"type":"nope","text":"x"}`,
		`{"type":"loop_complete","reason":"finished","turns":1,"final_text":"","usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"cost_usd":0,"duration_ms":0}`,
		`{"type":"tool_result","turn":1,"id":"a","name":"b","content":"c","is_error":"no","duration_ms":1}`,
		`{"type":"todo","turn":1,"todos":[{"content":"a","status":"done","active_form":"Doing a"}]}`,
		`{"type":"todo","turn":1,"todos":null}`,
		`{"type":"web_search","turn":1,"id":"a","query":"q","status":"lost"}`,
		`{"type":"citation","turn":1}`,
		`{"type":"retry","turn":1,"kind":"overloaded","error":"x","retry":0,"max_retries":4,"wait_ms":10}`,
		`{"type":"retry","turn":1,"kind":"overloaded","error":"x","retry":1,"max_retries":4}`,
		`{"type":"warning","turn":1}`,
		`{"type":"tool_result","turn":1,"id":"a","name":"b","content":"c","is_error":true,"denied":true,"suggest_mode":"yolo","duration_ms":1}`,
		`{"type":"permission_request","turn":1,"id":"a","name":"ExitPlanMode","input":{},"reason":"r","choices":["approve"]}`,
		`{"type":"permission_request","turn":1,"id":"a","name":"ExitPlanMode","input":{},"reason":"r","choices":["keep_planning"],"plan":1}`,
	} {
		if err := eventtest.ValidateJSON([]byte(bad)); err == nil {
			t.Errorf("schema accepted %s", bad)
		}
	}
}

func TestRespondOnlyOnce(t *testing.T) {
	reply := event.NewReply()
	pr := event.NewPermissionRequest(event.PermissionRequest{ID: "x"}, reply)
	pr.Respond(event.Decision{Behavior: event.Allow})
	pr.Respond(event.Decision{Behavior: event.Deny}) // ignored, does not block
	if d := <-reply.C(); d.Behavior != event.Allow {
		t.Fatalf("decision = %+v", d)
	}
}

// Each choice a request offers has its decision: a plan's approvals switch
// the mode, keep_planning and deny carry the person's words.
func TestDecisionFor(t *testing.T) {
	tests := []struct {
		choice, message string
		want            event.Decision
	}{
		{event.ChoiceAllowOnce, "", event.Decision{Behavior: event.Allow}},
		{event.ChoiceAllowAlways, "", event.Decision{Behavior: event.Allow, Always: true}},
		{event.ChoiceDeny, "not that file", event.Decision{Behavior: event.Deny, Message: "not that file"}},
		{event.ChoiceApproveAcceptEdits, "", event.Decision{Behavior: event.Allow, Mode: "acceptEdits"}},
		{event.ChoiceApproveDefault, "", event.Decision{Behavior: event.Allow, Mode: "default"}},
		{event.ChoiceKeepPlanning, "split step 2", event.Decision{Behavior: event.Deny, Message: "split step 2"}},
		{"something new", "", event.Decision{Behavior: event.Deny}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, event.DecisionFor(tc.choice, tc.message)); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.choice, diff)
		}
	}
}

func TestRetryNotice(t *testing.T) {
	tests := []struct {
		r    event.Retry
		want string
	}{
		{event.Retry{Kind: "overloaded", StatusCode: 529, Retry: 2, MaxRetries: 4, WaitMS: 1100}, "overloaded (HTTP 529) — retrying in 1.1 s (2/4)"},
		{event.Retry{Kind: "rate_limit", StatusCode: 429, Retry: 1, MaxRetries: 4, WaitMS: 30_000}, "rate limited (HTTP 429) — retrying in 30 s (1/4)"},
		{event.Retry{Kind: "timeout", Retry: 1, MaxRetries: 1, WaitMS: 800}, "no answer — retrying in 0.8 s (1/1)"},
		{event.Retry{Kind: "broken_stream", Retry: 3, MaxRetries: 4, WaitMS: 9_960}, "connection lost — retrying in 10 s (3/4)"},
		{event.Retry{Kind: "server", StatusCode: 503, Retry: 1, MaxRetries: 2, WaitMS: 12_400}, "server error (HTTP 503) — retrying in 12 s (1/2)"},
		{event.Retry{Kind: "other", StatusCode: 409, Retry: 1, MaxRetries: 2}, "failed (HTTP 409) — retrying in 0.0 s (1/2)"},
		{event.Retry{Kind: "some_new_kind", Retry: 1, MaxRetries: 2, WaitMS: 1000}, "some new kind — retrying in 1.0 s (1/2)"},
	}
	for _, tc := range tests {
		if got := tc.r.Notice(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.r, got, tc.want)
		}
	}
}

func TestChildCarriesParent(t *testing.T) {
	inner := event.ToolUse{Turn: 1, ID: "toolu_8", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)}
	nested := event.Child{ParentToolUseID: "toolu_1", AgentID: "agent_1",
		Event: event.Child{ParentToolUseID: "toolu_2", AgentID: "agent_2", Event: inner}}
	b, err := event.Marshal(nested)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"type": "tool_use", "turn": float64(1), "id": "toolu_8", "name": "Bash",
		"input": map[string]any{"command": "ls"}, "parent_tool_use_id": "toolu_2", "agent_id": "agent_2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("nested child (-want +got):\n%s", d)
	}
	e, parent := event.Inner(nested)
	if d := cmp.Diff(event.Event(inner), e); d != "" || parent != "toolu_1" {
		t.Errorf("Inner = %v, %q; want the tool use and toolu_1 (%s)", e, parent, d)
	}
	if e, parent := event.Inner(inner); parent != "" || e.Type() != "tool_use" {
		t.Errorf("Inner of a plain event = %v, %q", e, parent)
	}
}
