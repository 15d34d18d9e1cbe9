package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
)

// summary is an event's type with what identifies it, for comparing runs.
func summary(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		switch e := e.(type) {
		case event.StreamText:
			out = append(out, "stream_text "+e.Text)
		case event.ToolDone:
			out = append(out, "tool_done "+e.ID)
		case event.ToolResult:
			out = append(out, "tool_result "+e.ID)
		case event.ToolUse:
			out = append(out, "tool_use "+e.ID)
		case event.Warning:
			out = append(out, "warning "+e.Message)
		case event.Retry:
			out = append(out, fmt.Sprintf("retry %s %d/%d", e.Kind, e.Retry, e.MaxRetries))
		case event.LoopComplete:
			out = append(out, "loop_complete "+e.Reason)
		default:
			out = append(out, e.Type())
		}
	}
	return out
}

// A retry of the model call is an event before anything of the turn, and
// the failed attempts leave nothing in the history: the retry layer yields
// nothing of them, and the loop takes the announcement as a notice only.
func TestRetryIsAnEvent(t *testing.T) {
	overloaded := &llm.Error{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "Overloaded"}
	fc := &fakeClient{scripts: [][]step{
		{{err: overloaded}},
		{{err: &llm.Error{Kind: llm.ErrRateLimit, StatusCode: 429}}},
		answer("ok"),
	}}
	a := newAgent(llm.WithRetry(fc, llm.RetryPolicy{MaxRetries: 4, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}), newProbe())
	conv := agent.NewConversation("s", "", "hi")
	evs := collect(t, a, context.Background(), conv)
	want := []string{"retry overloaded 1/4", "retry rate_limit 2/4", "stream_text ok", "usage", "loop_complete done"}
	if diff := cmp.Diff(want, summary(evs)); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	r := evs[0].(event.Retry)
	if r.StatusCode != 529 || r.Error != overloaded.Error() || r.Turn != 1 || r.WaitMS < 0 || r.WaitMS > 1 {
		t.Errorf("retry event = %+v", r)
	}
	if n := len(conv.Messages); n != 2 || conv.Messages[1].Text() != "ok" {
		t.Errorf("history has %d messages, the last %q", n, conv.Messages[n-1].Text())
	}
}

// pathChecker allows every call and says it touches path (the real chain
// resolves a call's paths; the snapshot hook is only called with them).
type pathChecker struct{ path string }

func (c pathChecker) Check(permission.Call) permission.Decision {
	return permission.Decision{Behavior: permission.Allow, Paths: []string{c.path}}
}

// What the hooks of the CLI fail to do reaches frontends as warnings, in
// place: an "allow always" rule that could not be saved right after the
// answer, a snapshot that could not be kept before the call's tool_done.
// The calls run all the same.
func TestHookFailuresAreWarnings(t *testing.T) {
	tests := []struct {
		name  string
		setup func(a *agent.Agent)
		want  []string
	}{
		{
			name: "snapshot",
			setup: func(a *agent.Agent) {
				a.Permissions = pathChecker{"/tmp/x"}
				a.Snapshot = func(turn int, paths []string) error {
					return fmt.Errorf("snapshot %s: disk full", paths[0])
				}
			},
			want: []string{"tool_use w", "warning snapshot /tmp/x: disk full", "tool_done w", "tool_result w", "turn_complete", "stream_text ok", "loop_complete done"},
		},
		{
			name: "allow always",
			setup: func(a *agent.Agent) {
				a.Permissions = permission.NewChecker(permission.ModeDefault, nil, nil)
				a.AllowAlways = func(agent.ToolCall, permission.Decision) error {
					return errors.New("could not save Change for next time")
				}
			},
			want: []string{"tool_use w", "permission_request", "warning could not save Change for next time", "tool_done w", "tool_result w", "turn_complete", "stream_text ok", "loop_complete done"},
		},
		{
			name: "no failure",
			setup: func(a *agent.Agent) {
				a.Permissions = pathChecker{"/tmp/x"}
				a.Snapshot = func(int, []string) error { return nil }
			},
			want: []string{"tool_use w", "tool_done w", "tool_result w", "turn_complete", "stream_text ok", "loop_complete done"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeClient{scripts: [][]step{
				{call(0, "w", "Change", `{"id":"w"}`), end(llm.StopToolUse, 1, 1)},
				answer("ok"),
			}}
			a := newAgent(fc, newProbe())
			tc.setup(a)
			var evs []event.Event
			for e := range a.Run(context.Background(), agent.NewConversation("s", "", "go")) {
				if pr, ok := e.(*event.PermissionRequest); ok {
					pr.Respond(event.Decision{Behavior: event.Allow, Always: true})
				}
				validateEvent(t, e)
				evs = append(evs, e)
			}
			// Usage events are left out: where the tool turn's falls
			// beside a fast tool's tool_done depends on timing.
			got := slices.DeleteFunc(summary(evs), func(s string) bool { return s == "usage" })
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			if rs := results(evs); len(rs) != 1 || rs[0].Content != "done w" {
				t.Errorf("results = %+v: the call did not run", rs)
			}
		})
	}
}
