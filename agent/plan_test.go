package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// planAgent is an agent in plan mode with ExitPlanMode, a read-only tool
// and a plan file; modes records what SetMode was asked.
func planAgent(t *testing.T, fc *fakeClient, modes *[]string, setErr error) *agent.Agent {
	t.Helper()
	plan := filepath.Join(t.TempDir(), "plans", "s.md")
	reg := testTools(newProbe())
	reg.Register(builtin.NewExitPlanMode())
	checker := permission.NewChecker(permission.ModePlan, nil, nil)
	return &agent.Agent{
		Client: fc, Model: "claude-sonnet-4-5", Tools: reg,
		Env:         &tool.Env{Dir: os.TempDir(), Files: tool.NewFileState(), PlanFile: func() string { return plan }},
		Permissions: checker,
		SetMode: func(mode string) error {
			*modes = append(*modes, mode)
			if setErr != nil {
				return setErr
			}
			m, err := permission.ParseMode(mode)
			checker.SetMode(m)
			return err
		},
	}
}

// ExitPlanMode puts the plan to the person with the plan's choices; an
// approval switches the mode before the call runs, and the run goes on;
// keep_planning sends the feedback to the model, in plan mode still.
func TestPlanApproval(t *testing.T) {
	const plan = "# Plan\n\n1. Change a.go"
	type outcome struct {
		Modes   []string
		Result  string // a part of the plan call's result
		Denied  bool
		Reason  string
		Warning string
	}
	tests := []struct {
		name   string
		answer event.Decision
		setErr error
		want   outcome
	}{
		{"approve, acceptEdits", event.DecisionFor(event.ChoiceApproveAcceptEdits, ""), nil,
			outcome{Modes: []string{"acceptEdits"}, Result: "The user approved your plan"}},
		{"approve, default", event.DecisionFor(event.ChoiceApproveDefault, ""), nil,
			outcome{Modes: []string{"default"}, Result: "The user approved your plan"}},
		{"a plain allow ends plan mode in default", event.Decision{Behavior: event.Allow}, nil,
			outcome{Modes: []string{"default"}, Result: "The user approved your plan"}},
		{"keep planning", event.DecisionFor(event.ChoiceKeepPlanning, "split step 1"), nil,
			outcome{Result: "They said: split step 1", Denied: true, Reason: "the user kept planning: split step 1"}},
		{"keep planning, always ignored", event.Decision{Behavior: event.Deny, Always: true}, nil,
			outcome{Result: "wants you to keep planning", Denied: true, Reason: "the user kept planning"}},
		{"the switch fails", event.DecisionFor(event.ChoiceApproveAcceptEdits, ""), errors.New("no"),
			outcome{Modes: []string{"acceptEdits"}, Result: "The user approved your plan", Warning: "could not switch to acceptEdits mode: no"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeClient{scripts: [][]step{
				{call(0, "r", "Look", `{"id":"r"}`), call(1, "p", "ExitPlanMode", `{"plan":"`+strings.ReplaceAll(plan, "\n", `\n`)+`"}`), end(llm.StopToolUse, 1, 1)},
				answer("done"),
			}}
			var got outcome
			a := planAgent(t, fc, &got.Modes, tc.setErr)
			conv := agent.NewConversation("s", "", "plan it")
			var reqs []*event.PermissionRequest
			var evs []event.Event
			for e := range a.Run(context.Background(), conv) {
				validateEvent(t, e)
				evs = append(evs, e)
				switch e := e.(type) {
				case *event.PermissionRequest:
					reqs = append(reqs, e)
					go e.Respond(tc.answer)
				case event.Warning:
					got.Warning = e.Message
				}
			}
			checkHistory(t, conv)
			checkToolDone(t, evs)
			if len(reqs) != 1 {
				t.Fatalf("%d permission requests, want 1", len(reqs))
			}
			r := reqs[0]
			if diff := cmp.Diff([]string{"ExitPlanMode", plan, ""}, []string{r.Name, r.Plan, strings.Join(r.Suggest, ",")}); diff != "" {
				t.Errorf("request (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(event.PlanChoices, r.Choices); diff != "" {
				t.Errorf("choices (-want +got):\n%s", diff)
			}
			rs := results(evs)
			if len(rs) != 2 || rs[0].Content != "done r" {
				t.Fatalf("results %+v", rs)
			}
			if strings.Contains(rs[1].Content, tc.want.Result) {
				got.Result = tc.want.Result
			}
			got.Denied, got.Reason = rs[1].Denied, rs[1].Reason
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nresult: %s", diff, rs[1].Content)
			}
			if lc := last(evs); lc.Reason != event.ReasonDone || lc.FinalText != "done" || len(fc.reqs()) != 2 {
				t.Errorf("the run did not go on to the model's answer: %+v, %d requests", lc, len(fc.reqs()))
			}
		})
	}
}

// In a run nobody can answer, a plan the chain would ask about ends the
// run once the turn's other calls are done: reason done, the plan as the
// final text, no permission request, no further model call.
func TestPlanEndsANonInteractiveRun(t *testing.T) {
	for _, tc := range []struct {
		name, input, want string
	}{
		{"the plan given", `{"plan":"# Plan\n1. x"}`, "# Plan\n1. x"},
		{"no plan given, none written", `{"plan":""}`, "Here is my plan."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeClient{scripts: [][]step{
				{text(0, "Here is my plan."), call(1, "r", "Look", `{"id":"r"}`), call(2, "p", "ExitPlanMode", tc.input), end(llm.StopToolUse, 1, 1)},
				answer("never sent"),
			}}
			var modes []string
			a := planAgent(t, fc, &modes, nil)
			a.NonInteractive = true
			conv := agent.NewConversation("s", "", "plan it")
			evs := collect(t, a, context.Background(), conv)
			for _, e := range evs {
				if _, ok := e.(*event.PermissionRequest); ok {
					t.Fatal("a permission request in a non-interactive run")
				}
			}
			lc := last(evs)
			if lc.Reason != event.ReasonDone || lc.FinalText != tc.want || lc.Turns != 1 || lc.Error != "" {
				t.Fatalf("loop_complete %+v", lc)
			}
			rs := results(evs)
			if len(rs) != 2 || rs[0].Content != "done r" || !strings.Contains(rs[1].Content, "run ends here") || rs[1].IsError {
				t.Fatalf("results %+v", rs)
			}
			if n := len(fc.reqs()); n != 1 || len(modes) != 0 {
				t.Fatalf("%d model calls, modes %v", n, modes)
			}
		})
	}
}

// Outside plan mode ExitPlanMode is denied like any call the chain denies,
// and nothing ends.
func TestExitPlanModeOutsidePlanMode(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{call(0, "p", "ExitPlanMode", `{"plan":"x"}`), end(llm.StopToolUse, 1, 1)},
		answer("ok"),
	}}
	var modes []string
	a := planAgent(t, fc, &modes, nil)
	a.Permissions.(*permission.Checker).SetMode(permission.ModeAcceptEdits)
	a.NonInteractive = true
	evs := collect(t, a, context.Background(), agent.NewConversation("s", "", "go"))
	rs := results(evs)
	if len(rs) != 1 || !rs[0].Denied || !strings.Contains(rs[0].Content, "not in plan mode") {
		t.Fatalf("results %+v", rs)
	}
	if lc := last(evs); lc.FinalText != "ok" || len(modes) != 0 {
		t.Fatalf("loop_complete %+v, modes %v", lc, modes)
	}
}
