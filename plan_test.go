package nova_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
)

func jsonInput(t *testing.T, kv ...string) string {
	t.Helper()
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// addedMessages is the JSON of the messages cur sends beyond prev's (all of
// them for a zero prev).
func addedMessages(t *testing.T, prev, cur llmtest.Request) string {
	t.Helper()
	msgs := func(r llmtest.Request) []json.RawMessage {
		if r.Body == nil {
			return nil
		}
		var body struct{ Messages []json.RawMessage }
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		return body.Messages
	}
	p, c := msgs(prev), msgs(cur)
	b, _ := json.Marshal(c[len(p):])
	return string(b)
}

// Plan mode through the SDK: the model explores and writes its plan file
// (its other writes are refused), the plan is in every request while it
// plans, ExitPlanMode reaches CanUseTool with the plan, and the answer
// decides what follows: an approval switches the mode (Session.Mode) and
// the next request carries the plan once more; keep_planning sends the
// feedback and the mode stays plan.
func TestPlanModeThroughCanUseTool(t *testing.T) {
	const plan = "# Plan\n\n1. Create a.txt"
	type outcome struct {
		Mode      string
		Asked     []string // the tools CanUseTool was asked about
		Plan      string   // the plan CanUseTool saw
		Created   bool     // a.txt exists
		Approved  bool     // the request after the answer says plan mode is over
		Feedback  bool     // the feedback reached the model
		PlanAgain bool     // the request after the answer carries the plan
		Planning  bool     // the request after the answer says plan mode is still on
	}
	tests := []struct {
		name   string
		answer nova.Decision
		want   outcome
	}{
		{"approve, acceptEdits", nova.ApprovePlan(nova.ModeAcceptEdits),
			outcome{Mode: nova.ModeAcceptEdits, Asked: []string{"ExitPlanMode"}, Plan: plan, Created: true, Approved: true, PlanAgain: true}},
		{"approve, default", nova.ApprovePlan(nova.ModeDefault),
			outcome{Mode: nova.ModeDefault, Asked: []string{"ExitPlanMode", "Write"}, Plan: plan, Approved: true, PlanAgain: true}},
		{"keep planning", nova.KeepPlanning("also delete b.txt"),
			outcome{Mode: nova.ModePlan, Asked: []string{"ExitPlanMode"}, Plan: plan, Feedback: true, Planning: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			o := testOptions(t, srv)
			o.PermissionMode = nova.ModePlan
			var got outcome
			var mu sync.Mutex
			o.CanUseTool = func(_ context.Context, req nova.PermissionRequest) nova.Decision {
				mu.Lock()
				defer mu.Unlock()
				got.Asked = append(got.Asked, req.Tool)
				if req.Tool == "ExitPlanMode" {
					got.Plan = req.Plan
					return tc.answer
				}
				return nova.Deny("no")
			}
			s, err := nova.Open(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			planFile := s.PlanFile()
			if want := filepath.Join(o.DataDir, "plans", s.ID()+".md"); planFile != want {
				t.Fatalf("plan file %s, want %s", planFile, want)
			}
			target := filepath.Join(o.Dir, "a.txt")
			srv.Push(
				llmtest.Turn{Blocks: []llmtest.Block{
					llmtest.ToolUse("w0", "Write", jsonInput(t, "file_path", target, "content", "too early")),
					llmtest.ToolUse("b0", "Bash", jsonInput(t, "command", "touch a.txt")),
					llmtest.ToolUse("l0", "Bash", jsonInput(t, "command", "ls -la")),
					llmtest.ToolUse("p0", "Write", jsonInput(t, "file_path", planFile, "content", plan+"\n")),
				}},
				call("x", "ExitPlanMode", jsonInput(t, "plan", plan)),
				call("w1", "Write", jsonInput(t, "file_path", target, "content", "x")),
				text("Done."),
			)
			evs, err := collect(t, s, "create a.txt, but plan first")
			if err != nil {
				t.Fatal(err)
			}
			if lc := evs[len(evs)-1].(event.LoopComplete); lc.Reason != event.ReasonDone || lc.FinalText != "Done." {
				t.Fatalf("loop_complete %+v", lc)
			}
			rs := map[string]event.ToolResult{}
			for _, e := range evs {
				if r, ok := e.(event.ToolResult); ok {
					rs[r.ID] = r
				}
			}
			for _, id := range []string{"w0", "b0"} {
				if r := rs[id]; !r.Denied || !strings.Contains(r.Content, "plan mode allows read-only tools only") {
					t.Errorf("%s in plan mode: %+v", id, r)
				}
			}
			if r := rs["l0"]; r.IsError || r.Denied {
				t.Errorf("ls in plan mode: %+v", r)
			}
			if r := rs["p0"]; r.IsError {
				t.Errorf("the plan file's Write: %+v", r)
			}
			if b, err := os.ReadFile(planFile); err != nil || string(b) != plan+"\n" {
				t.Fatalf("plan file: %q, %v", b, err)
			}
			calls := modelCalls(srv)
			if len(calls) != 4 {
				t.Fatalf("%d model calls", len(calls))
			}
			// Planning: the first request has the reminder without a plan,
			// the second the plan just written.
			first, second := addedMessages(t, llmtest.Request{}, calls[0]), addedMessages(t, calls[0], calls[1])
			if !strings.Contains(first, "Plan mode is on") || !strings.Contains(first, "does not exist yet") {
				t.Errorf("the first request lacks the plan-mode reminder:\n%s", first)
			}
			if !strings.Contains(second, "Your plan so far ("+planFile+`):\n\n# Plan\n\n1. Create a.txt`) {
				t.Errorf("the second request lacks the plan:\n%s", second)
			}
			after := addedMessages(t, calls[1], calls[2])
			got.Approved = strings.Contains(after, "the user approved your plan")
			got.Feedback = strings.Contains(after, "They said: also delete b.txt")
			got.PlanAgain = strings.Contains(after, "The plan ("+planFile+`):\n\n# Plan\n\n1. Create a.txt`)
			got.Planning = strings.Contains(after, "Plan mode is still on")
			got.Mode = s.Mode()
			_, err = os.Stat(target)
			got.Created = err == nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nthird request adds: %s", diff, after)
			}
		})
	}
}

// Nobody to ask (print mode, Run without CanUseTool): the run ends when the
// model calls ExitPlanMode, successfully, with the plan as its text, and
// nothing in the workspace changed.
func TestPlanModeEndsARunNobodyAnswers(t *testing.T) {
	const plan = "# Plan\n\n1. Delete b.txt"
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("r", "Bash", `{"command":"rm b.txt"}`),
			llmtest.ToolUse("e", "Bash", `{"command":"echo x > c.txt"}`),
		}},
		call("x", "ExitPlanMode", jsonInput(t, "plan", plan)),
		text("never sent"),
	)
	defer srv.Close()
	o := testOptions(t, srv)
	o.PermissionMode = nova.ModePlan
	if err := os.WriteFile(filepath.Join(o.Dir, "b.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := nova.Run(context.Background(), "delete b.txt", o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != event.ReasonDone || res.Text != plan || res.Turns != 2 {
		t.Fatalf("result %+v", res)
	}
	if n := len(modelCalls(srv)); n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
	entries, _ := os.ReadDir(o.Dir)
	if len(entries) != 1 || entries[0].Name() != "b.txt" {
		t.Fatalf("the workspace changed: %v", entries)
	}
}

// While planning, a request whose history still holds the plan as the
// last reminder showed it gets a short reminder; leaving plan mode without
// an approval (Shift+Tab: SetMode) is said once, with the plan for
// reference; a session that is not planning gets no reminder at all.
func TestPlanReminders(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	o := testOptions(t, srv)
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	steps := []struct {
		mode   string
		prompt string
		write  string // the plan file's content before the prompt
		want   []string
	}{
		{nova.ModeDefault, "hi", "", nil},
		{nova.ModePlan, "plan it", "", []string{"Plan mode is on", "does not exist yet"}},
		{nova.ModePlan, "go on", "", []string{"Plan mode is still on", "as the last reminder showed it"}},
		{nova.ModePlan, "more", "# My plan\n", []string{"Plan mode is on", "Your plan so far", "# My plan"}},
		{nova.ModeDefault, "do it", "", []string{"without approving a plan", "# My plan"}},
		{nova.ModeDefault, "again", "", nil},
	}
	var prev llmtest.Request
	for i, st := range steps {
		if err := s.SetMode(st.mode); err != nil {
			t.Fatal(err)
		}
		if st.write != "" {
			if err := os.WriteFile(s.PlanFile(), []byte(st.write), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		srv.Push(text("ok"))
		if _, err := collect(t, s, st.prompt); err != nil {
			t.Fatal(err)
		}
		calls := modelCalls(srv)
		cur := calls[len(calls)-1]
		added := addedMessages(t, prev, cur)
		prev = cur
		var got []string
		for _, w := range st.want {
			if strings.Contains(added, w) {
				got = append(got, w)
			}
		}
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("step %d (%s, %q): (-want +got)\n%s\nadded: %s", i, st.mode, st.prompt, diff, added)
		}
		if st.want == nil && strings.Contains(added, "Plan mode") {
			t.Errorf("step %d (%s): a plan reminder: %s", i, st.mode, added)
		}
	}
}
