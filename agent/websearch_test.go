package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
)

// searchSteps is a stream that searches once (found), once in vain, and
// cites what it found after the text it supports.
func searchSteps() []step {
	return []step{
		{ev: llm.ServerToolUse{Index: 0, ID: "srv_1", Name: "web_search", Input: json.RawMessage(`{"query":"go 1.26"}`), Origin: llm.OriginAnthropic}},
		{ev: llm.ServerToolResult{Index: 1, ID: "srv_1", Name: "web_search", Origin: llm.OriginAnthropic,
			Results: []llm.SearchResult{{Title: "Go 1.26", URL: "https://go.dev/doc/go1.26", PageAge: "1 day ago"}},
			Raw:     json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[]}`)}},
		text(2, "Go 1.26 is out."),
		{ev: llm.Citation{Index: 2, URL: "https://go.dev/doc/go1.26", Title: "Go 1.26", CitedText: "released"}},
		{ev: llm.ServerToolUse{Index: 3, ID: "srv_2", Name: "web_search", Input: json.RawMessage(`{"query":"go 1.27"}`), Origin: llm.OriginAnthropic}},
		{ev: llm.ServerToolResult{Index: 4, ID: "srv_2", Name: "web_search", Origin: llm.OriginAnthropic, Error: "max_uses_exceeded",
			Raw: json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srv_2","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}`)}},
		{ev: llm.StreamEnd{StopReason: llm.StopEndTurn, Model: "claude-sonnet-4-5", Usage: llm.Usage{InputTokens: 1000, OutputTokens: 10, WebSearchRequests: 1}}},
	}
}

// runAnswering runs the loop to its end, answering each permission request
// with answer, and returns the events.
func runAnswering(t *testing.T, a *agent.Agent, conv *agent.Conversation, answer event.Decision) []event.Event {
	t.Helper()
	var evs []event.Event
	for e := range a.Run(context.Background(), conv) {
		if pr, ok := e.(*event.PermissionRequest); ok {
			pr.Respond(answer)
		}
		validateEvent(t, e)
		evs = append(evs, e)
	}
	if _, ok := evs[len(evs)-1].(event.LoopComplete); !ok {
		t.Fatalf("last event %T", evs[len(evs)-1])
	}
	return evs
}

// The provider's searches come out as web_search events (searching, then
// done or failed), citations after the text they support, and the blocks
// stay in history as the provider sent them; the searches are counted and
// billed.
func TestWebSearchEventsAndHistory(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{searchSteps()}}
	a := newAgent(fc, nil)
	a.WebSearch = &llm.WebSearch{MaxUses: 5}
	conv := agent.NewConversation("s", "", "what is new in go?")
	evs := collect(t, a, context.Background(), conv)

	var got []event.Event
	for _, e := range evs {
		switch e.(type) {
		case event.WebSearch, event.Citation, event.StreamText:
			got = append(got, e)
		}
	}
	want := []event.Event{
		event.WebSearch{Turn: 1, ID: "srv_1", Query: "go 1.26", Status: event.SearchSearching},
		event.WebSearch{Turn: 1, ID: "srv_1", Query: "go 1.26", Status: event.SearchDone, Results: []event.SearchResult{{Title: "Go 1.26", URL: "https://go.dev/doc/go1.26", PageAge: "1 day ago"}}},
		event.StreamText{Turn: 1, Text: "Go 1.26 is out."},
		event.Citation{Turn: 1, URL: "https://go.dev/doc/go1.26", Title: "Go 1.26", CitedText: "released"},
		event.WebSearch{Turn: 1, ID: "srv_2", Query: "go 1.27", Status: event.SearchSearching},
		event.WebSearch{Turn: 1, ID: "srv_2", Query: "go 1.27", Status: event.SearchFailed, Error: "max_uses_exceeded"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ws := fc.reqs()[0].WebSearch; ws == nil || ws.MaxUses != 5 {
		t.Errorf("request offered %+v, want the agent's web search", ws)
	}

	s := searchSteps()
	wantMsg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		{Type: llm.BlockServerToolUse, ToolUseID: "srv_1", ToolName: "web_search", Input: json.RawMessage(`{"query":"go 1.26"}`), Origin: llm.OriginAnthropic},
		{Type: llm.BlockServerToolResult, ToolUseID: "srv_1", ToolName: "web_search", Origin: llm.OriginAnthropic,
			Results: []llm.SearchResult{{Title: "Go 1.26", URL: "https://go.dev/doc/go1.26", PageAge: "1 day ago"}}, Raw: s[1].ev.(llm.ServerToolResult).Raw},
		{Type: llm.BlockText, Text: "Go 1.26 is out."},
		{Type: llm.BlockServerToolUse, ToolUseID: "srv_2", ToolName: "web_search", Input: json.RawMessage(`{"query":"go 1.27"}`), Origin: llm.OriginAnthropic},
		{Type: llm.BlockServerToolResult, ToolUseID: "srv_2", ToolName: "web_search", Origin: llm.OriginAnthropic,
			Content: "max_uses_exceeded", IsError: true, Raw: s[5].ev.(llm.ServerToolResult).Raw},
	}}
	if diff := cmp.Diff(wantMsg, conv.Messages[1]); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}

	lc := last(evs)
	info, _ := llm.LookupModel("claude-sonnet-4-5")
	if lc.Usage.WebSearchRequests != 1 || fmt.Sprintf("%.6f", lc.CostUSD) != fmt.Sprintf("%.6f", info.Cost(llm.Usage{InputTokens: 1000, OutputTokens: 10})+0.01) {
		t.Errorf("loop complete %+v: want one search, billed USD 0.01", lc)
	}
}

// The session decides once, before its first request, whether to offer web
// search: the chain's allow and deny rules decide, else the person is asked
// (a NonInteractive run does not ask and does not offer it).
func TestWebSearchPermission(t *testing.T) {
	tests := []struct {
		name           string
		allow, deny    []string
		ask            bool // AskWebSearch
		nonInteractive bool
		answer         event.Decision
		wantAsked      bool
		wantOffered    bool
		wantAlways     bool
	}{
		{name: "allowed by a rule", allow: []string{"WebSearch"}, wantOffered: true},
		{name: "denied by a rule", deny: []string{"WebSearch"}, ask: true},
		{name: "not to be asked: off", answer: event.Decision{Behavior: event.Allow}},
		{name: "asked, allowed once", ask: true, answer: event.Decision{Behavior: event.Allow}, wantAsked: true, wantOffered: true},
		{name: "asked, allowed always", ask: true, answer: event.Decision{Behavior: event.Allow, Always: true}, wantAsked: true, wantOffered: true, wantAlways: true},
		{name: "asked, denied", ask: true, answer: event.Decision{Behavior: event.Deny}, wantAsked: true},
		{name: "print mode: nobody to ask", ask: true, nonInteractive: true},
		{name: "print mode with a rule", allow: []string{"WebSearch"}, nonInteractive: true, wantOffered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := &fakeClient{scripts: [][]step{answer("one"), answer("two")}}
			a := newAgent(fc, nil)
			a.WebSearch, a.AskWebSearch = &llm.WebSearch{}, tt.ask
			a.NonInteractive = tt.nonInteractive
			a.Permissions = permission.NewChecker(permission.ModeDefault, tt.allow, tt.deny)
			var always []string
			a.AllowAlways = func(call agent.ToolCall, d permission.Decision) error {
				always = append(always, call.Name+" "+fmt.Sprint(d.Suggest))
				return nil
			}
			conv := agent.NewConversation("s", "", "hi")
			evs := runAnswering(t, a, conv, tt.answer)
			conv.AddUser("again")
			evs = append(evs, runAnswering(t, a, conv, tt.answer)...)

			var asked []string
			for _, e := range evs {
				if pr, ok := e.(*event.PermissionRequest); ok {
					asked = append(asked, pr.ID+" "+pr.Name+" "+fmt.Sprint(pr.Suggest))
				}
			}
			var wantAsked []string
			if tt.wantAsked {
				wantAsked = []string{"web_search WebSearch [WebSearch]"} // once for the session
			}
			if diff := cmp.Diff(wantAsked, asked); diff != "" {
				t.Errorf("permission requests (-want +got):\n%s", diff)
			}
			for i, r := range fc.reqs() {
				if offered := r.WebSearch != nil; offered != tt.wantOffered {
					t.Errorf("request %d offers web search: %v, want %v", i, offered, tt.wantOffered)
				}
			}
			if (len(always) > 0) != tt.wantAlways || (tt.wantAlways && always[0] != "WebSearch [WebSearch]") {
				t.Errorf("allow always: %v", always)
			}
		})
	}
}

// An endpoint that rejects the web search tool (an Anthropic-compatible
// gateway) gets the same turn again without it, once; the session goes on
// without web search and says why.
func TestWebSearchRejected(t *testing.T) {
	rejected := &llm.Error{Kind: llm.ErrInvalid, StatusCode: 400, Message: "tools.0: Input tag 'web_search_20250305' found using 'type' does not match any of the expected tags"}
	fc := &fakeClient{scripts: [][]step{{{err: rejected}}, answer("without it"), answer("still without")}}
	a := newAgent(fc, nil)
	a.WebSearch = &llm.WebSearch{}
	conv := agent.NewConversation("s", "", "hi")
	evs := collect(t, a, context.Background(), conv)
	conv.AddUser("again")
	evs = append(evs, collect(t, a, context.Background(), conv)...)

	var notes []event.WebSearch
	for _, e := range evs {
		if w, ok := e.(event.WebSearch); ok {
			notes = append(notes, w)
		}
	}
	if len(notes) != 1 || notes[0].Status != event.SearchUnavailable || notes[0].Turn != 1 || !bytes.Contains([]byte(notes[0].Error), []byte("web_search_20250305")) {
		t.Fatalf("notes = %+v, want one unavailable web_search event naming the cause", notes)
	}
	var offered []bool
	for _, r := range fc.reqs() {
		offered = append(offered, r.WebSearch != nil)
	}
	if diff := cmp.Diff([]bool{true, false, false}, offered); diff != "" {
		t.Errorf("requests offering web search (-want +got):\n%s", diff)
	}
	if lc := last(evs); lc.Reason != event.ReasonDone || lc.FinalText != "still without" {
		t.Errorf("loop complete %+v", lc)
	}
}

// A turn the provider paused (a long run of its own searches) goes back as
// it is, and the answer goes on; nothing is added between.
func TestPauseTurnContinues(t *testing.T) {
	// Paused while the second search runs: its call goes back without a
	// result, for the provider to finish.
	first := append(searchSteps()[:5], end(llm.StopPauseTurn, 100, 5))
	fc := &fakeClient{scripts: [][]step{first, answer(" And more.")}}
	a := newAgent(fc, nil)
	a.WebSearch = &llm.WebSearch{}
	conv := agent.NewConversation("s", "", "research go")
	evs := collect(t, a, context.Background(), conv)
	reqs := fc.reqs()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if n := len(reqs[1].msgs); n != 2 || reqs[1].msgs[1].Role != llm.RoleAssistant {
		t.Fatalf("the continuation sends %d messages, want the prompt and the paused answer", n)
	}
	if !bytes.HasPrefix(reqs[1].Messages, reqs[0].Messages[:len(reqs[0].Messages)-1]) {
		t.Errorf("the continuation edited the history:\n%s\n%s", reqs[0].Messages, reqs[1].Messages)
	}
	if paused := reqs[1].msgs[1].Content; paused[len(paused)-1].Type != llm.BlockServerToolUse || paused[len(paused)-1].ToolUseID != "srv_2" {
		t.Errorf("the paused search did not go back: %+v", paused)
	}
	var turnDone []string
	for _, e := range evs {
		if tc, ok := e.(event.TurnComplete); ok {
			turnDone = append(turnDone, tc.StopReason)
		}
	}
	if diff := cmp.Diff([]string{"pause_turn"}, turnDone); diff != "" {
		t.Errorf("turn_complete (-want +got):\n%s", diff)
	}
	if lc := last(evs); lc.Turns != 2 || lc.FinalText != " And more." {
		t.Errorf("loop complete %+v", lc)
	}
}

// A search cut before its result (a broken stream) is left out of history:
// the provider would reject the call alone in every later request. A turn
// the provider paused keeps it (TestPauseTurnContinues).
func TestCutSearchLeftOut(t *testing.T) {
	s := searchSteps()
	cut := append(s[:3:3], s[4], step{err: &llm.Error{Kind: llm.ErrBrokenStream, Message: "unexpected EOF"}})
	fc := &fakeClient{scripts: [][]step{cut}}
	a := newAgent(fc, nil)
	a.WebSearch = &llm.WebSearch{}
	conv := agent.NewConversation("s", "", "what is new in go?")
	if lc := last(collect(t, a, context.Background(), conv)); lc.Reason != event.ReasonError {
		t.Fatalf("loop complete %+v", lc)
	}
	var kept []string
	for _, b := range conv.Messages[1].Content {
		kept = append(kept, string(b.Type)+" "+b.ToolUseID)
	}
	want := []string{"server_tool_use srv_1", "server_tool_result srv_1", "text "}
	if diff := cmp.Diff(want, kept); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}
