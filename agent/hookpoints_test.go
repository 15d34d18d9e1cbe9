package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission/verdict"
)

// rewriter is a checker that allows every call and, like a PreToolUse
// hook's updatedInput, replaces the input of the calls it names. It
// records what it was asked.
type rewriter struct {
	inputs map[string]string // call id -> the input it runs with
	seen   []verdict.Call
}

func (r *rewriter) Check(c verdict.Call) verdict.Decision {
	r.seen = append(r.seen, c)
	d := verdict.Decision{Behavior: verdict.Allow, Reason: "test"}
	if in, ok := r.inputs[c.ID]; ok {
		d.Input = json.RawMessage(in)
	}
	return d
}

// A decision's Input is what runs: the tool gets it, the tool_use event
// shows it with the model's own as model_input, and history keeps the
// model's block as it was sent. An input the tool rejects runs nothing.
func TestDecisionInputReplacesTheCall(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{
			call(0, "a", "Look", `{"id":"model-a"}`),
			call(1, "b", "Look", `{"id":"model-b"}`),
			call(2, "c", "Look", `{"id":"model-c"}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("ok"),
	}}
	a := newAgent(fc, newProbe())
	rw := &rewriter{inputs: map[string]string{
		"a": `{"id":"hook-a"}`,
		"c": `{"id":"hook-c","ms":"soon"}`, // ms must be a number
	}}
	a.Permissions = rw
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, a, context.Background(), conv)

	var ids []string
	for _, c := range rw.seen {
		ids = append(ids, c.ID)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, ids); diff != "" {
		t.Errorf("calls checked (-want +got):\n%s", diff)
	}
	uses := map[string]event.ToolUse{}
	for _, e := range evs {
		if u, ok := e.(event.ToolUse); ok {
			uses[u.ID] = u
		}
	}
	if u := uses["a"]; string(u.Input) != `{"id":"hook-a"}` || string(u.ModelInput) != `{"id":"model-a"}` {
		t.Errorf("tool_use a: %+v", u)
	}
	if u := uses["b"]; string(u.Input) != `{"id":"model-b"}` || u.ModelInput != nil {
		t.Errorf("tool_use b: %+v", u)
	}
	rs := results(evs)
	if len(rs) != 3 || rs[0].Content != "done hook-a" || rs[1].Content != "done model-b" {
		t.Fatalf("results %+v", rs)
	}
	if !rs[2].IsError || !rs[2].Denied || !strings.Contains(rs[2].Content, "does not accept") || !strings.Contains(rs[2].Reason, "invalid") {
		t.Errorf("an invalid replacement ran or was not explained: %+v", rs[2])
	}
	// The model's blocks are in history as sent.
	sent := string(fc.reqs()[1].Messages)
	for _, want := range []string{`"id":"model-a"`, `"id":"model-c"`} {
		if !strings.Contains(sent, want) {
			t.Errorf("history lacks the model's %s: %s", want, sent)
		}
	}
	if strings.Contains(sent, "hook-a") && !strings.Contains(sent, "done hook-a") {
		t.Errorf("the replaced input leaked into the model's block: %s", sent)
	}
}

// A hook that returns *agent.Stop ends the loop before the next model call
// with its reason as the error, nothing prefixed; the history stays valid.
func TestStopFromAHook(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{call(0, "a", "Look", `{"id":"a"}`), end(llm.StopToolUse, 1, 1)},
		answer("never asked"),
	}}
	a := newAgent(fc, newProbe())
	a.Hooks.TurnStart = []agent.Hook{func(_ context.Context, ti *agent.TurnInfo) error {
		if ti.Turn == 2 {
			return &agent.Stop{Reason: "stopped by a PostToolUse hook: the build is broken"}
		}
		return nil
	}}
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, a, context.Background(), conv)
	lc := last(evs)
	if lc.Reason != event.ReasonError || lc.Error != "stopped by a PostToolUse hook: the build is broken" {
		t.Fatalf("loop_complete %+v", lc)
	}
	if n := len(fc.reqs()); n != 1 {
		t.Fatalf("%d model calls, want 1", n)
	}
}

// PreCompact and PostCompact hooks see the trigger and the focus; what
// PostCompact reminds follows the summary, in the first request after an
// automatic compaction and in history after one on demand.
func TestCompactHooks(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{call(0, "a", "Big", `{"n":4000}`), end(llm.StopToolUse, 100, 10)},
		{text(0, "SUMMARY-1"), end(llm.StopEndTurn, 100, 10)},
		answer("continued"),
		{text(0, "SUMMARY-2"), end(llm.StopEndTurn, 100, 10)},
		answer("more done"),
	}}
	a := newAgent(fc, nil)
	a.CompactThreshold = 500
	var log []string
	a.Hooks.PreCompact = []agent.Hook{func(_ context.Context, ti *agent.TurnInfo) error {
		log = append(log, "pre "+ti.Trigger+" "+ti.Focus)
		return nil
	}}
	a.Hooks.PostCompact = []agent.Hook{func(_ context.Context, ti *agent.TurnInfo) error {
		log = append(log, "post "+ti.Trigger)
		ti.Remind("CONTEXT-AFTER-" + ti.Trigger)
		return nil
	}}
	conv := agent.NewConversation("s", "", "go")
	collect(t, a, context.Background(), conv)
	reqs := fc.reqs()
	if len(reqs) != 3 || !strings.Contains(string(reqs[2].Messages), "CONTEXT-AFTER-auto") {
		t.Fatalf("the request after compaction lacks the reminder: %d requests", len(reqs))
	}
	if _, err := a.Compact(context.Background(), conv, "the tests"); err != nil {
		t.Fatal(err)
	}
	if n := len(conv.Messages); n < 2 || !strings.Contains(conv.Messages[n-1].Text(), "CONTEXT-AFTER-manual") || !strings.Contains(conv.Messages[0].Text(), "SUMMARY-2") {
		t.Fatalf("history after /compact: %+v", conv.Messages)
	}
	if diff := cmp.Diff([]string{"pre auto ", "post auto", "pre manual the tests", "post manual"}, log); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}

	// A PreCompact hook that stops leaves the history alone.
	conv.AddUser("more")
	collect(t, a, context.Background(), conv)
	a.Hooks.PreCompact = []agent.Hook{func(context.Context, *agent.TurnInfo) error { return &agent.Stop{Reason: "no compaction now"} }}
	before := len(conv.Messages)
	if _, err := a.Compact(context.Background(), conv, ""); err == nil || err.Error() != "no compaction now" {
		t.Fatalf("compact: %v", err)
	}
	if len(conv.Messages) != before || len(fc.reqs()) != 5 {
		t.Fatal("a stopped compaction changed the history or called the model")
	}
}

// A permission request says when only a person may allow the call.
func TestPermissionRequestSaysNeedsPerson(t *testing.T) {
	for _, needs := range []bool{false, true} {
		fc := &fakeClient{scripts: [][]step{
			{call(0, "w", "Change", `{"id":"w"}`), end(llm.StopToolUse, 1, 1)},
			answer("ok"),
		}}
		a := newAgent(fc, newProbe())
		a.Permissions = checkerFunc(func(verdict.Call) verdict.Decision {
			return verdict.Decision{Behavior: verdict.Ask, Reason: "r", NeedsPerson: needs}
		})
		var got []bool
		for e := range a.Run(context.Background(), agent.NewConversation("s", "", "go")) {
			if pr, ok := e.(*event.PermissionRequest); ok {
				got = append(got, pr.NeedsPerson)
				pr.Respond(event.Decision{Behavior: event.Deny})
			}
		}
		if len(got) != 1 || got[0] != needs {
			t.Errorf("needs person %v: requests said %v", needs, got)
		}
	}
}

type checkerFunc func(verdict.Call) verdict.Decision

func (f checkerFunc) Check(c verdict.Call) verdict.Decision { return f(c) }
