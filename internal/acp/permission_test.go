package acp

import (
	"encoding/json"
	"errors"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
)

func selected(id string) acpsdk.RequestPermissionResponse {
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(acpsdk.PermissionOptionId(id))}
}

var cancelled = acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}

// TestPermissionOptions: a call's choices as allow once, allow always
// (naming what it remembers) and reject; a plan's as approve with accept
// edits, approve, keep planning.
func TestPermissionOptions(t *testing.T) {
	tests := []struct {
		name    string
		choices []string
		suggest []string
		want    []acpsdk.PermissionOption
	}{
		{"a call", []string{"allow_once", "allow_always", "deny"}, []string{"Bash(npm test:*)"}, []acpsdk.PermissionOption{
			{OptionId: "allow_once", Name: "Allow once", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: "allow_always", Name: "Allow always: Bash(npm test:*)", Kind: acpsdk.PermissionOptionKindAllowAlways},
			{OptionId: "deny", Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
		}},
		{"a call nothing can allow always", []string{"allow_once", "deny"}, nil, []acpsdk.PermissionOption{
			{OptionId: "allow_once", Name: "Allow once", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: "deny", Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
		}},
		{"a plan", event.PlanChoices, nil, []acpsdk.PermissionOption{
			{OptionId: "approve_accept_edits", Name: "Approve, and accept edits", Kind: acpsdk.PermissionOptionKindAllowAlways},
			{OptionId: "approve_default", Name: "Approve, and ask before edits", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: "keep_planning", Name: "No, keep planning", Kind: acpsdk.PermissionOptionKindRejectOnce},
		}},
		{"a choice of the future is left out", []string{"allow_once", "allow_for_an_hour", "deny"}, nil, []acpsdk.PermissionOption{
			{OptionId: "allow_once", Name: "Allow once", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: "deny", Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, permissionOptions(tc.choices, tc.suggest)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecision: the editor's outcome as the loop's Decision
// (event.DecisionFor); whatever is not a choice offered denies.
func TestDecision(t *testing.T) {
	call := &event.PermissionRequest{ID: "c", Name: "Bash", Choices: []string{"allow_once", "allow_always", "deny"}}
	plan := &event.PermissionRequest{ID: "p", Name: "ExitPlanMode", Choices: event.PlanChoices, Plan: "1. x"}
	tests := []struct {
		name string
		req  *event.PermissionRequest
		resp acpsdk.RequestPermissionResponse
		err  error
		want event.Decision
	}{
		{"allow once", call, selected("allow_once"), nil, event.Decision{Behavior: event.Allow}},
		{"allow always", call, selected("allow_always"), nil, event.Decision{Behavior: event.Allow, Always: true}},
		{"reject", call, selected("deny"), nil, event.Decision{Behavior: event.Deny}},
		{"cancelled", call, cancelled, nil, event.Decision{Behavior: event.Deny, Message: "The person cancelled."}},
		{"the request failed", call, acpsdk.RequestPermissionResponse{}, errors.New("peer disconnected"), event.Decision{Behavior: event.Deny, Message: "The editor could not ask: peer disconnected"}},
		{"an option not offered", call, selected("approve_accept_edits"), nil, event.Decision{Behavior: event.Deny, Message: `The editor answered with "approve_accept_edits", which was not offered.`}},
		{"plan: approve and accept edits", plan, selected("approve_accept_edits"), nil, event.Decision{Behavior: event.Allow, Mode: "acceptEdits"}},
		{"plan: approve", plan, selected("approve_default"), nil, event.Decision{Behavior: event.Allow, Mode: "default"}},
		{"plan: keep planning", plan, selected("keep_planning"), nil, event.Decision{Behavior: event.Deny}},
		{"plan: cancelled", plan, cancelled, nil, event.Decision{Behavior: event.Deny, Message: "The person cancelled."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, decision(tc.req, tc.resp, tc.err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPermissionRequest: the request carries the call as announced (a
// client may not have seen it), pending; a plan's carries the plan; the
// session's web search, no call of the model's, is a call of its own.
func TestPermissionRequest(t *testing.T) {
	m := newMapper("/ws")
	m.updates(event.ToolUse{ID: "e", Name: "Edit", Input: json.RawMessage(`{"file_path":"a.txt","old_string":"a","new_string":"b"}`)})
	edit := &event.PermissionRequest{ID: "e", Name: "Edit", Choices: []string{"allow_once", "deny"}}
	c, isNew := permissionCall(m, edit, "")
	if isNew {
		t.Error("the announced Edit is new to the mapper")
	}
	got, err := json.Marshal(permissionRequest("s1", c, edit))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"options":[{"kind":"allow_once","name":"Allow once","optionId":"allow_once"},{"kind":"reject_once","name":"Reject","optionId":"deny"}],"sessionId":"s1","toolCall":{"_meta":{"novacode":{"toolName":"Edit"}},"content":[{"newText":"b","oldText":"a","path":"/ws/a.txt","type":"diff"}],"kind":"edit","locations":[{"path":"/ws/a.txt"}],"rawInput":{"file_path":"a.txt","new_string":"b","old_string":"a"},"status":"pending","title":"Edit a.txt","toolCallId":"e"}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("an edit's request (-want +got):\n%s", diff)
	}

	search := &event.PermissionRequest{ID: "web_search", Name: "WebSearch", Input: json.RawMessage(`{}`), Choices: []string{"allow_once", "allow_always", "deny"}}
	c, isNew = permissionCall(m, search, "")
	if !isNew || c.title != "Search the web" || c.kind != acpsdk.ToolKindSearch {
		t.Errorf("web search: new %v, %q %q", isNew, c.title, c.kind)
	}

	plan := &event.PermissionRequest{ID: "p", Name: "ExitPlanMode", Input: json.RawMessage(`{}`), Choices: event.PlanChoices, Plan: "1. Do it."}
	c, _ = permissionCall(m, plan, "")
	req := permissionRequest("s1", c, plan)
	if got, _ := json.Marshal(req.ToolCall.Content); string(got) != `[{"content":{"text":"1. Do it.","type":"text"},"type":"content"}]` {
		t.Errorf("the plan's content = %s", got)
	}
}

// TestQuestion: a question's answers are the options, with one to leave
// it to the model; without answers to choose from nobody can answer it.
func TestQuestion(t *testing.T) {
	q := &event.Question{ID: "q", Question: "Which database?", Options: []string{"Postgres", "SQLite"}}
	c := newCall("/ws", "q", "AskUserQuestion", json.RawMessage(`{"question":"Which database?"}`))
	req, ok := questionRequest("s1", c, q)
	if !ok {
		t.Fatal("no request for a question with options")
	}
	var ids []string
	for _, o := range req.Options {
		ids = append(ids, string(o.OptionId)+"="+o.Name)
	}
	if diff := cmp.Diff([]string{"answer-0=Postgres", "answer-1=SQLite", "skip=Skip: let the agent decide"}, ids); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if *req.ToolCall.Title != "Which database?" {
		t.Errorf("title = %q", *req.ToolCall.Title)
	}
	tests := []struct {
		name string
		resp acpsdk.RequestPermissionResponse
		err  error
		want event.Answer
	}{
		{"an option", selected("answer-1"), nil, event.Answer{Option: "SQLite"}},
		{"skipped", selected("skip"), nil, event.Answer{Text: noAnswer}},
		{"cancelled", cancelled, nil, event.Answer{Text: noAnswer}},
		{"out of range", selected("answer-7"), nil, event.Answer{Text: noAnswer}},
		{"failed", acpsdk.RequestPermissionResponse{}, errors.New("gone"), event.Answer{Text: noAnswer}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, answer(q, tc.resp, tc.err)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := questionRequest("s1", c, &event.Question{ID: "q", Question: "Name?"}); ok {
		t.Error("a question without options went to a permission dialog")
	}
}
