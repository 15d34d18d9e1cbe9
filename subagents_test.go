package nova_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// priced gives a turn usage, so that every model call costs something.
func priced(t llmtest.Turn) llmtest.Turn {
	t.Usage = llm.Usage{InputTokens: 1000, OutputTokens: 100}
	return t
}

// callCost is what one priced turn costs on the default model.
func callCost(t *testing.T) float64 {
	t.Helper()
	info, ok := llm.LookupModel(llmtest.DefaultModel)
	if !ok {
		t.Fatalf("no catalog entry for %s", llmtest.DefaultModel)
	}
	return info.Cost(llm.Usage{InputTokens: 1000, OutputTokens: 100})
}

func taskCall(id, description, prompt, typ string, background bool) llmtest.Block {
	in, _ := json.Marshal(map[string]any{"description": description, "prompt": prompt, "subagent_type": typ, "run_in_background": background})
	return llmtest.ToolUse(id, "Task", string(in))
}

func bashCall(id, command string, background bool) llmtest.Block {
	in, _ := json.Marshal(map[string]any{"command": command, "run_in_background": background})
	return llmtest.ToolUse(id, "Bash", string(in))
}

func turn(blocks ...llmtest.Block) llmtest.Turn { return priced(llmtest.Turn{Blocks: blocks}) }

// openFor opens a session closed at the test's end, and a context that
// bounds the test's runs.
func openFor(t *testing.T, opts nova.Options) (*nova.Session, context.Context) {
	t.Helper()
	s, err := nova.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return s, ctx
}

// sendAll runs one prompt and returns its events (children's included, as
// event.Child) and the run's end.
func sendAll(t *testing.T, s *nova.Session, ctx context.Context, prompt string) ([]event.Event, event.LoopComplete) {
	t.Helper()
	var evs []event.Event
	var lc event.LoopComplete
	for e, err := range s.Send(ctx, prompt) {
		if err != nil {
			continue
		}
		evs = append(evs, e)
		if l, ok := e.(event.LoopComplete); ok {
			lc = l
		}
	}
	return evs, lc
}

// Three Task calls in one answer run three subagents side by side: each
// runs a read-only command in its own conversation and its final text is
// the call's result; the children's events come tagged with their Task
// call; their cost is in the session's total.
func TestTaskRunsSubagentsSideBySide(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	scripts := map[string][]llmtest.Turn{
		"": {
			turn(taskCall("task_a", "find a", "child-A: look for a", "Explore", false),
				taskCall("task_b", "find b", "child-B: look for b", "Explore", false),
				taskCall("task_c", "find c", "child-C: look for c", "general-purpose", false)),
			turn(llmtest.Text("All three reported.")),
		},
	}
	for _, c := range []string{"A", "B", "C"} {
		scripts["child-"+c] = []llmtest.Turn{
			turn(bashCall("", "sleep 0.3; echo found-"+c, false)),
			turn(llmtest.Text("report from " + c)),
		}
	}
	srv.SetFallback(llmtest.Conversations(scripts))
	s, err := nova.Open(context.Background(), testOptions(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	evs, lc := sendAll(t, s, ctx, "Split the work in three.")
	if lc.Reason != event.ReasonDone || lc.FinalText != "All three reported." {
		t.Fatalf("loop_complete = %+v", lc)
	}
	results := map[string]event.ToolResult{}
	children := map[string]int{} // events per parent call
	childBash := map[string]string{}
	for _, e := range evs {
		switch e := e.(type) {
		case event.ToolResult:
			results[e.ID] = e
		case event.Child:
			children[e.ParentToolUseID]++
			if r, ok := e.Event.(event.ToolResult); ok && r.Name == "Bash" {
				childBash[e.ParentToolUseID] = r.Content
			}
		}
	}
	for id, c := range map[string]string{"task_a": "A", "task_b": "B", "task_c": "C"} {
		r := results[id]
		if r.Content != "report from "+c || r.IsError {
			t.Errorf("%s result = %q (error %v), want the child's final text", id, r.Content, r.IsError)
		}
		if r.Subagent == nil || r.Subagent.Turns != 2 || r.Subagent.AgentID == "" {
			t.Errorf("%s subagent = %+v, want its id and 2 turns", id, r.Subagent)
		} else if math.Abs(r.Subagent.CostUSD-2*callCost(t)) > 1e-9 {
			t.Errorf("%s subagent cost = %v, want %v", id, r.Subagent.CostUSD, 2*callCost(t))
		}
		if children[id] == 0 {
			t.Errorf("no events of %s's subagent reached the consumer", id)
		}
		if !strings.Contains(childBash[id], "found-"+c) {
			t.Errorf("%s's command output = %q", id, childBash[id])
		}
	}
	// 2 calls of the parent and 2 of each child, all in the total.
	if want := 8 * callCost(t); math.Abs(lc.CostUSD-want) > 1e-9 {
		t.Errorf("session cost = %v, want %v (children rolled up)", lc.CostUSD, want)
	}
	if got := s.Result().CostUSD; math.Abs(got-8*callCost(t)) > 1e-9 {
		t.Errorf("Result().CostUSD = %v", got)
	}
	// Each child's conversation is its own: its first request holds its
	// prompt and none of the parent's.
	for _, r := range modelCalls(srv) {
		body := string(r.Body)
		if !strings.Contains(firstUser(t, r), "child-A") {
			continue
		}
		if strings.Contains(body, "Split the work") {
			t.Errorf("a child's request carries the parent's history")
		}
		if strings.Contains(body, `"name":"Task"`) {
			t.Errorf("a subagent was offered Task beyond the depth limit")
		}
	}
}

// Cancelling the run while three subagents run their commands stops all
// of them; every call gets a result (goleak in TestMain checks nothing is
// left running).
func TestCancelStopsSubagents(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	scripts := map[string][]llmtest.Turn{
		"": {turn(taskCall("t1", "one", "child-1: wait", "general-purpose", false),
			taskCall("t2", "two", "child-2: wait", "general-purpose", false),
			taskCall("t3", "three", "child-3: wait", "general-purpose", false))},
	}
	for i := 1; i <= 3; i++ {
		scripts[fmt.Sprintf("child-%d", i)] = []llmtest.Turn{turn(bashCall("", "sleep 30", false))}
	}
	srv.SetFallback(llmtest.Conversations(scripts))
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	s, ctx := openFor(t, opts)
	running := map[string]bool{}
	results := map[string]event.ToolResult{}
	var lc event.LoopComplete
	for e, err := range s.Send(ctx, "Wait three times.") {
		if err != nil {
			continue
		}
		switch e := e.(type) {
		case event.Child:
			if u, ok := e.Event.(event.ToolUse); ok && u.Name == "Bash" {
				running[e.ParentToolUseID] = true
				if len(running) == 3 {
					go func() { time.Sleep(200 * time.Millisecond); s.Interrupt() }()
				}
			}
		case event.ToolResult:
			results[e.ID] = e
		case event.LoopComplete:
			lc = e
		}
	}
	if lc.Reason != event.ReasonCancelled {
		t.Fatalf("reason = %q (%s), want cancelled", lc.Reason, lc.Error)
	}
	for _, id := range []string{"t1", "t2", "t3"} {
		r, ok := results[id]
		if !ok || !r.IsError || !strings.Contains(r.Content, "cancelled") {
			t.Errorf("%s result = %+v, want a cancelled result", id, r)
		}
	}
}

// A background command returns at once; when it ends, the model learns it
// at the start of its next turn (a run nobody watches waits for it), with
// the exit code and the tail of the output.
func TestBackgroundCommandIsDelivered(t *testing.T) {
	srv := llmtest.NewServer(
		turn(bashCall("b1", "sleep 0.5; echo bg-done", true)),
		turn(llmtest.Text("Started it.")),
		turn(llmtest.Text("It finished.")),
	)
	defer srv.Close()
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	s, ctx := openFor(t, opts)
	evs, lc := sendAll(t, s, ctx, "Run it in the background.")
	if lc.Reason != event.ReasonDone || lc.FinalText != "It finished." {
		t.Fatalf("loop_complete = %+v", lc)
	}
	var mail []event.MailItem
	for _, e := range evs {
		switch e := e.(type) {
		case event.ToolResult:
			if e.ID == "b1" && !strings.Contains(e.Content, "bash_1") {
				t.Errorf("background result = %q, want its id", e.Content)
			}
		case event.Mailbox:
			mail = append(mail, e.Items...)
		}
	}
	if len(mail) != 1 || mail[0].Kind != "command" || !strings.Contains(mail[0].Text, "bg-done") {
		t.Fatalf("mailbox = %+v, want one command item with the output", mail)
	}
	calls := modelCalls(srv)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	last := string(calls[2].Body)
	if !strings.Contains(last, "system-reminder") || !strings.Contains(last, "bg-done") {
		t.Errorf("the third request does not deliver the command's end: %s", last)
	}
	// The command's text is in the second request (its call); its output
	// only in the third.
	if n2, n3 := strings.Count(string(calls[1].Body), "bg-done"), strings.Count(last, "bg-done"); n3 <= n2 {
		t.Errorf("the third request mentions bg-done %d times, the second %d: the end was not delivered after it came", n3, n2)
	}
}

// Two background subagents message each other and the session's agent;
// each delivery comes at the start of the recipient's next turn.
func TestTeamMailbox(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	send := func(to, msg string) llmtest.Block {
		in, _ := json.Marshal(map[string]string{"to": to, "message": msg})
		return llmtest.ToolUse("", "SendMessage", string(in))
	}
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"": {
			turn(taskCall("ta", "alpha", "child-alpha: start", "general-purpose", true),
				taskCall("tb", "beta", "child-beta: start", "general-purpose", true)),
			turn(llmtest.Text("Waiting for my team.")),
			turn(llmtest.Text("Noted.")),
			turn(llmtest.Text("Noted.")),
			turn(llmtest.Text("Noted.")),
			turn(llmtest.Text("Noted.")),
		},
		"child-alpha": {
			turn(bashCall("", "sleep 0.2", false)),
			turn(send("beta", "hello from alpha")),
			turn(send("parent", "alpha is done")),
			turn(llmtest.Text("alpha final")),
		},
		"child-beta": {
			turn(bashCall("", "sleep 1", false)),
			turn(llmtest.Text("beta final")),
		},
	}))
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	s, ctx := openFor(t, opts)
	evs, lc := sendAll(t, s, ctx, "Start the team.")
	if lc.Reason != event.ReasonDone {
		t.Fatalf("loop_complete = %+v", lc)
	}
	// beta's second request carries alpha's message, delivered at its turn start.
	var betaSecond string
	for _, r := range modelCalls(srv) {
		b := string(r.Body)
		if strings.Contains(firstUser(t, r), "child-beta") && strings.Contains(b, "tool_result") {
			betaSecond = b
		}
	}
	if !strings.Contains(betaSecond, "hello from alpha") || !strings.Contains(betaSecond, "system-reminder") {
		t.Errorf("beta did not get alpha's message at its next turn: %s", betaSecond)
	}
	// The session's agent got alpha's message and both ends, in order of
	// arrival: alpha's message before alpha's end.
	var alpha string
	var got []string
	for _, e := range evs {
		switch e := e.(type) {
		case event.ToolResult:
			if e.ID == "ta" && e.Subagent != nil {
				alpha = e.Subagent.AgentID
			}
		case event.Mailbox:
			for _, it := range e.Items {
				got = append(got, it.Kind+":"+it.From)
			}
		}
	}
	msg, end := slices.Index(got, "message:"+alpha), slices.Index(got, "agent:"+alpha)
	if alpha == "" || msg < 0 || end < 0 || msg > end || len(got) != 3 {
		t.Errorf("main agent's deliveries = %v, want alpha's (%s) message, then its end, and beta's end", got, alpha)
	}
	// Both background subagents' cost is in the total: 6 parent calls at
	// most, 4 + 2 child calls.
	var parentCalls int
	for _, r := range modelCalls(srv) {
		if !strings.Contains(firstUser(t, r), "child-") {
			parentCalls++
		}
	}
	if want := float64(parentCalls+6) * callCost(t); math.Abs(lc.CostUSD-want) > 1e-9 {
		t.Errorf("cost = %v, want %v (background subagents rolled up)", lc.CostUSD, want)
	}
}

// An Explore subagent is read-only: a write is denied whatever the mode.
// A definition in .novacode/agents gives a subagent its system prompt and
// tools.
func TestSubagentTypes(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"": {
			turn(taskCall("t1", "explore", "child-explore: write", "Explore", false)),
			turn(taskCall("t2", "review", "child-review: review", "reviewer", false)),
			turn(llmtest.Text("done")),
		},
		"child-explore": {
			turn(llmtest.ToolUse("w1", "Bash", `{"command":"touch x.txt"}`)),
			turn(llmtest.Text("could not write")),
		},
		"child-review": {turn(llmtest.Text("looks fine"))},
	}))
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	agents := filepath.Join(opts.Dir, ".novacode", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	def := "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\nYou are REVIEWER-PROMPT.\n"
	if err := os.WriteFile(filepath.Join(agents, "reviewer.md"), []byte(def), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ctx := openFor(t, opts)
	evs, lc := sendAll(t, s, ctx, "Go.")
	if lc.Reason != event.ReasonDone {
		t.Fatalf("loop_complete = %+v", lc)
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, "x.txt")); err == nil {
		t.Errorf("a read-only subagent wrote a file")
	}
	denied := false
	for _, e := range evs {
		if c, ok := e.(event.Child); ok {
			if r, ok := c.Event.(event.ToolResult); ok && r.Name == "Bash" && r.Denied {
				denied = true
			}
		}
	}
	if !denied {
		t.Errorf("the Explore subagent's touch was not denied")
	}
	for _, r := range modelCalls(srv) {
		var body struct {
			System any `json:"system"`
			Tools  []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(r.Body, &body)
		sys, _ := json.Marshal(body.System)
		if !strings.Contains(firstUser(t, r), "child-review") {
			continue
		}
		if !strings.Contains(string(sys), "REVIEWER-PROMPT") {
			t.Errorf("the reviewer's system prompt is not its definition's body: %s", sys)
		}
		var names []string
		for _, tl := range body.Tools {
			names = append(names, tl.Name)
		}
		if strings.Join(names, ",") != "Read,Grep,SendMessage" {
			t.Errorf("reviewer tools = %v, want Read, Grep (and SendMessage)", names)
		}
	}
}

// firstUser is the text of the first user message of an Anthropic request:
// which conversation the request belongs to.
func firstUser(t *testing.T, r llmtest.Request) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil || len(body.Messages) == 0 {
		return ""
	}
	return string(body.Messages[0].Content)
}

// Two subagents editing one file are serialised by the file state: the
// second to edit finds the file changed since it read it, and nothing of
// the first's change is lost.
func TestSubagentsEditingOneFile(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	edit := func(old, new string, delay time.Duration) llmtest.Block {
		in, _ := json.Marshal(map[string]string{"file_path": "shared.txt", "old_string": old, "new_string": new})
		b := llmtest.ToolUse("", "Edit", string(in))
		b.Delay = delay
		return b
	}
	read := llmtest.ToolUse("", "Read", `{"file_path":"shared.txt"}`)
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"": {
			turn(taskCall("t1", "first", "child-first: edit", "general-purpose", false),
				taskCall("t2", "second", "child-second: edit", "general-purpose", false)),
			turn(llmtest.Text("done")),
		},
		"child-first":  {turn(read), turn(edit("line two", "line TWO by first", 100*time.Millisecond)), turn(llmtest.Text("first done"))},
		"child-second": {turn(read), turn(edit("line one", "line ONE by second", 600*time.Millisecond)), turn(llmtest.Text("second done"))},
	}))
	opts := testOptions(t, srv)
	opts.PermissionMode = "acceptEdits"
	path := filepath.Join(opts.Dir, "shared.txt")
	if err := os.WriteFile(path, []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ctx := openFor(t, opts)
	evs, lc := sendAll(t, s, ctx, "Edit it twice.")
	if lc.Reason != event.ReasonDone {
		t.Fatalf("loop_complete = %+v", lc)
	}
	edits := map[string]event.ToolResult{}
	for _, e := range evs {
		if c, ok := e.(event.Child); ok {
			if r, ok := c.Event.(event.ToolResult); ok && r.Name == "Edit" {
				edits[c.ParentToolUseID] = r
			}
		}
	}
	if r := edits["t1"]; r.IsError {
		t.Errorf("the first edit failed: %s", r.Content)
	}
	if r := edits["t2"]; !r.IsError || !strings.Contains(strings.ToLower(r.Content), "changed") {
		t.Errorf("the second edit = %+v, want it refused as changed since read", r)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "line one\nline TWO by first\n" {
		t.Errorf("file = %q, want only the first's change", got)
	}
}

// A subagent's permission request goes to whoever answers the session's
// own (here Options.CanUseTool), and its answer is the subagent's.
func TestSubagentAsksLikeTheParent(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"":            {turn(taskCall("t1", "make it", "child-maker: create", "general-purpose", false)), turn(llmtest.Text("done"))},
		"child-maker": {turn(bashCall("", "touch made.txt", false)), turn(llmtest.Text("made"))},
	}))
	opts := testOptions(t, srv)
	var asked []string
	opts.CanUseTool = func(_ context.Context, req nova.PermissionRequest) nova.Decision {
		asked = append(asked, req.Tool+" "+string(req.Input))
		return nova.Allow()
	}
	s, ctx := openFor(t, opts)
	_, lc := sendAll(t, s, ctx, "Make the file.")
	if lc.Reason != event.ReasonDone {
		t.Fatalf("loop_complete = %+v", lc)
	}
	if len(asked) != 1 || !strings.Contains(asked[0], "touch made.txt") {
		t.Fatalf("asked = %v, want the subagent's command once", asked)
	}
	if _, err := os.Stat(filepath.Join(opts.Dir, "made.txt")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// A lead waits for a background teammate with TaskOutput: it gets the
// final answer there, the news is not delivered a second time, and the
// teammate's cost is counted once.
func TestTaskOutputWaitsForATeammate(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"": {
			turn(taskCall("tg", "gamma", "child-gamma: work", "general-purpose", true)),
			turn(llmtest.ToolUse("wait", "TaskOutput", `{"task_id":"agent_1","block":true,"timeout":20000}`)),
			turn(llmtest.Text("gamma is done")),
		},
		"child-gamma": {turn(bashCall("", "sleep 0.3", false)), turn(llmtest.Text("gamma final"))},
	}))
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	s, ctx := openFor(t, opts)
	evs, lc := sendAll(t, s, ctx, "Work with gamma.")
	if lc.Reason != event.ReasonDone || lc.FinalText != "gamma is done" {
		t.Fatalf("loop_complete = %+v", lc)
	}
	var waited string
	mailed := 0
	for _, e := range evs {
		switch e := e.(type) {
		case event.ToolResult:
			if e.ID == "wait" {
				waited = e.Content
			}
		case event.Mailbox:
			mailed += len(e.Items)
		}
	}
	if !strings.Contains(waited, "gamma final") || !strings.Contains(waited, "finished") {
		t.Errorf("TaskOutput = %q, want the teammate's end and final answer", waited)
	}
	if mailed != 0 {
		t.Errorf("%d deliveries, want none: TaskOutput reported the end", mailed)
	}
	if want := 5 * callCost(t); math.Abs(lc.CostUSD-want) > 1e-9 {
		t.Errorf("cost = %v, want %v (3 parent calls, 2 of gamma, once)", lc.CostUSD, want)
	}
}

// Continue runs the loop on the stored conversation without a prompt:
// with MaxTurns 1, one model call and its tools per Continue, and the
// session named by SessionID is continued, not started again.
func TestContinueStepsANamedSession(t *testing.T) {
	srv := llmtest.NewServer(
		turn(bashCall("c1", "echo one", false)),
		turn(bashCall("c2", "echo two", false)),
		turn(llmtest.Text("finished")),
	)
	defer srv.Close()
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	opts.MaxTurns = 1
	opts.SessionID = "fleet-task-1"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var reasons []string
	for step := 0; step < 3; step++ {
		s, err := nova.Open(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if s.ID() != "fleet-task-1" {
			t.Fatalf("session id = %q", s.ID())
		}
		if step == 0 {
			_, _ = collect(t, s, "go")
		} else {
			for range s.Continue(ctx) {
			}
		}
		reasons = append(reasons, s.Result().Reason)
		s.Close()
	}
	if d := strings.Join(reasons, ","); d != "max_turns,max_turns,done" {
		t.Errorf("reasons = %s, want max_turns,max_turns,done", d)
	}
	if n := len(modelCalls(srv)); n != 3 {
		t.Errorf("%d model calls, want 3 (no step repeated)", n)
	}
	opts.SessionID = "fleet-task-2"
	s, err := nova.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var runErr error
	for _, err := range s.Continue(ctx) {
		if err != nil {
			runErr = err
		}
	}
	if runErr == nil || !strings.Contains(runErr.Error(), "nothing to continue") {
		t.Errorf("Continue of an empty session: %v", runErr)
	}
}

// A session stepped one model call at a time (MaxTurns 1) runs a subagent
// whole within the step, to the limit SubagentMaxTurns gives it: the turn
// limit of a step is the session's agent's, not its subagents'.
func TestSubagentMaxTurns(t *testing.T) {
	tests := []struct {
		name       string
		limit      int
		childTurns int
	}{
		{"no limit", -1, 3},
		{"a limit of its own", 2, 2},
		{"MaxTurns", 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
				"": {
					turn(taskCall("task_a", "count", "child-A: count to three", "general-purpose", false)),
					turn(llmtest.Text("counted")),
				},
				"child-A": {
					turn(bashCall("", "echo one", false)),
					turn(bashCall("", "echo two", false)),
					turn(llmtest.Text("three")),
				},
			}))
			opts := testOptions(t, srv)
			opts.PermissionMode = "bypassPermissions"
			opts.MaxTurns, opts.SubagentMaxTurns = 1, tt.limit
			s, err := nova.Open(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			evs, lc := sendAll(t, s, ctx, "Count.")
			if lc.Reason != event.ReasonMaxTurns || lc.Turns != 1 {
				t.Errorf("the step: %s after %d turns, want max_turns after 1", lc.Reason, lc.Turns)
			}
			var run *event.SubagentRun
			for _, e := range evs {
				if r, ok := e.(event.ToolResult); ok && r.ID == "task_a" {
					run = r.Subagent
				}
			}
			if run == nil || run.Turns != tt.childTurns {
				t.Fatalf("the subagent ran %+v, want %d turns", run, tt.childTurns)
			}
		})
	}
}

// A step whose session already ended with the model's answer (an engine
// retrying a step whose first attempt finished but whose result was lost)
// is not sent to the model again: Continue reports the answer and the
// session's totals at once.
func TestContinueAfterTheAnswerEndsAtOnce(t *testing.T) {
	srv := llmtest.NewServer(
		turn(bashCall("c1", "echo one", false)),
		turn(llmtest.Text("finished")),
	)
	defer srv.Close()
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	opts.SessionID = "fleet-task-done"
	s, err := nova.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = collect(t, s, "go")
	first := s.Result()
	s.Close()
	if first.Reason != "done" || first.Turns != 2 {
		t.Fatalf("first run: reason %s, %d turns", first.Reason, first.Turns)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err = nova.Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, err := range s.Continue(ctx) {
		if err != nil {
			t.Errorf("Continue: %v", err)
		}
	}
	got := s.Result()
	want := nova.Result{SessionID: "fleet-task-done", Text: "finished", Reason: "done", Usage: first.Usage, CostUSD: first.CostUSD}
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(nova.Result{}, "Duration")); d != "" {
		t.Errorf("Continue of an answered session (-want +got):\n%s", d)
	}
	if n := len(modelCalls(srv)); n != 2 {
		t.Errorf("%d model calls, want 2 (the answered conversation is not sent again)", n)
	}
}

// The session's hooks see a subagent as they see the session's own model:
// PostToolUse runs for the subagent's calls and what it says reaches that
// subagent's next request (not the parent's); SubagentStop runs when the
// subagent's model has finished and, blocking, has it go on with the
// reason; a second block with the same reason ends it. Its consumers see
// one loop_complete of the subagent, the last.
func TestHooksSeeSubagents(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"": {
			turn(taskCall("t1", "check", "child-hooked: check", "general-purpose", false)),
			turn(llmtest.Text("parent done")),
		},
		"child-hooked": {
			turn(bashCall("b1", "echo hooked-output", false)),
			turn(llmtest.Text("first end")),
			turn(llmtest.Text("second end")),
			turn(llmtest.Text("third end")),
		},
	}))
	opts := testOptions(t, srv)
	opts.PermissionMode = "bypassPermissions"
	var mu sync.Mutex
	var post []string
	var stops []bool
	opts.Hooks = nova.Hooks{
		PostToolUse: []nova.ToolHook{{Matcher: "Bash", Run: func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			mu.Lock()
			defer mu.Unlock()
			post = append(post, in.ToolUseID+" "+in.ToolResponse.Content)
			return nova.HookOutput{AdditionalContext: "POST-HOOK-SAW-IT"}, nil
		}}},
		SubagentStop: []nova.HookFunc{func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			mu.Lock()
			defer mu.Unlock()
			stops = append(stops, in.StopHookActive)
			return nova.HookOutput{Block: true, Reason: "STOP-HOOK: look again"}, nil
		}},
	}
	s, ctx := openFor(t, opts)
	evs, lc := sendAll(t, s, ctx, "Go.")
	if lc.Reason != event.ReasonDone || lc.FinalText != "parent done" {
		t.Fatalf("loop_complete = %+v", lc)
	}
	mu.Lock()
	if len(post) != 1 || !strings.HasPrefix(post[0], "b1 ") || !strings.Contains(post[0], "hooked-output") {
		t.Errorf("PostToolUse saw %q, want the subagent's Bash call", post)
	}
	// Blocked, then blocked again with the same reason: that ends it.
	if d := cmp.Diff([]bool{false, true}, stops); d != "" {
		t.Errorf("SubagentStop runs (stop_hook_active) (-want +got):\n%s", d)
	}
	mu.Unlock()

	var result event.ToolResult
	ends := 0
	for _, e := range evs {
		switch e := e.(type) {
		case event.ToolResult:
			if e.ID == "t1" {
				result = e
			}
		case event.Child:
			if _, ok := e.Event.(event.LoopComplete); ok {
				ends++
			}
		}
	}
	if result.Content != "second end" {
		t.Errorf("Task result = %q, want the end after the stop hook's continuation", result.Content)
	}
	if ends != 1 {
		t.Errorf("%d loop_complete events of the subagent, want 1", ends)
	}
	var child, parent []string
	for _, r := range modelCalls(srv) {
		if strings.Contains(firstUser(t, r), "child-hooked") {
			child = append(child, string(r.Body))
		} else {
			parent = append(parent, string(r.Body))
		}
	}
	if len(child) != 3 {
		t.Fatalf("%d requests of the subagent, want 3", len(child))
	}
	if strings.Contains(child[0], "POST-HOOK-SAW-IT") || !strings.Contains(child[1], "POST-HOOK-SAW-IT") {
		t.Errorf("the PostToolUse hook's context is not in the subagent's request after the call")
	}
	if !strings.Contains(child[2], "STOP-HOOK: look again") {
		t.Errorf("the SubagentStop hook's reason is not the subagent's next instruction")
	}
	for _, p := range parent {
		if strings.Contains(p, "POST-HOOK-SAW-IT") {
			t.Errorf("the hook's words on a subagent's call reached the parent")
		}
	}
}
