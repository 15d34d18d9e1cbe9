package event_test

import (
	"encoding/json"
	"testing"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/event/eventtest"
)

// One value of every event type, with and without optional fields.
var samples = []event.Event{
	event.StreamText{Turn: 1, Text: "hello"},
	event.ThinkingText{Turn: 1, Text: "hmm"},
	event.ToolUse{Turn: 1, ID: "toolu_1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.go"}`)},
	event.ToolDone{Turn: 1, ID: "toolu_1", Name: "Read", DurationMS: 3},
	event.ToolResult{Turn: 1, ID: "toolu_1", Name: "Read", Content: "1\tpackage a", DurationMS: 3},
	event.ToolResult{Turn: 2, ID: "toolu_2", Name: "Bash", Content: "[cancelled]", IsError: true, Cancelled: true, Denied: true, SpillPath: "/tmp/x"},
	event.ToolResult{Turn: 2, ID: "toolu_4", Name: "Bash", Content: "not granted", IsError: true, Denied: true,
		Reason: "running a command needs approval", NeedsApproval: true, Suggest: []string{"Bash(touch x)"}, SuggestMode: "acceptEdits"},
	event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "toolu_3", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`), Reason: "runs a command", Choices: []string{"allow_once", "allow_always", "deny"}}, event.NewReply()),
	event.Usage{Turn: 1, Model: "claude-sonnet-4-5", Call: event.TokenCounts{InputTokens: 5}, Total: event.TokenCounts{InputTokens: 5, Estimated: true}, CostUSD: 0.1, ContextWindow: 200000},
	event.Compact{TokensBefore: 100, TokensAfter: 10, Reason: "auto", BoundaryID: "b1"},
	event.TurnComplete{Turn: 1, StopReason: "tool_use"},
	event.LoopComplete{Reason: event.ReasonDone, Turns: 2, FinalText: "ok", DurationMS: 10},
	event.LoopComplete{Reason: event.ReasonError, Error: "boom"},
	event.NewQuestion(event.Question{Turn: 1, ID: "q1", Question: "Which database?", Options: []string{"Postgres", "SQLite"}}, event.NewAnswerReply()),
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
	if len(seen) != 11 {
		t.Errorf("samples cover %d event types, want all 11", len(seen))
	}
}

func TestSchemaRejectsWrongEvents(t *testing.T) {
	for _, bad := range []string{
		`{"type":"stream_text"}`,
		`{"type":"nope","text":"x"}`,
		`{"type":"loop_complete","reason":"finished","turns":1,"final_text":"","usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"cost_usd":0,"duration_ms":0}`,
		`{"type":"tool_result","turn":1,"id":"a","name":"b","content":"c","is_error":"no","duration_ms":1}`,
		`{"type":"tool_result","turn":1,"id":"a","name":"b","content":"c","is_error":true,"denied":true,"suggest_mode":"yolo","duration_ms":1}`,
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
