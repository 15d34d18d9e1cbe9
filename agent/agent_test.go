package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/event/eventtest"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// probe records when tools ran and how many ran at once.
type probe struct {
	mu      sync.Mutex
	starts  map[string]time.Time
	active  int
	overlap map[string]bool // a mutating call saw another tool running
	order   []string        // finishing order
}

func newProbe() *probe {
	return &probe{starts: map[string]time.Time{}, overlap: map[string]bool{}}
}

func (p *probe) enter(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starts[id] = time.Now()
	p.active++
}

func (p *probe) leave(id string, mutating bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if mutating && p.active > 1 {
		p.overlap[id] = true
	}
	p.active--
	p.order = append(p.order, id)
}

type sleepIn struct {
	ID string `json:"id" jsonschema:"label to record"`
	MS int    `json:"ms,omitempty" jsonschema:"how long to run"`
}

func testTools(p *probe) *tool.Registry {
	run := func(mutating bool) func(ctx context.Context, env *tool.Env, in sleepIn) (tool.Result, error) {
		return func(ctx context.Context, env *tool.Env, in sleepIn) (tool.Result, error) {
			p.enter(in.ID)
			defer p.leave(in.ID, mutating)
			t := time.NewTimer(time.Duration(in.MS) * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					if mutating {
						p.mu.Lock()
						if p.active > 1 {
							p.overlap[in.ID] = true
						}
						p.mu.Unlock()
					}
					return tool.Result{Content: "done " + in.ID}, nil
				case <-ctx.Done():
					return tool.Result{Content: "interrupted " + in.ID, IsError: true}, nil
				case <-time.After(time.Millisecond):
					if mutating {
						p.mu.Lock()
						if p.active > 1 {
							p.overlap[in.ID] = true
						}
						p.mu.Unlock()
					}
				}
			}
		}
	}
	type bigIn struct {
		N int `json:"n"`
	}
	return tool.NewRegistry(
		tool.New("Look", "read-only test tool", true, nil, run(false)),
		tool.New("Change", "mutating test tool", false, nil, run(true)),
		tool.New("Boom", "panics", true, nil, func(ctx context.Context, env *tool.Env, in sleepIn) (tool.Result, error) {
			panic("kaboom")
		}),
		tool.New("Big", "returns n bytes", true, nil, func(ctx context.Context, env *tool.Env, in bigIn) (tool.Result, error) {
			return tool.Result{Content: strings.Repeat("x", in.N)}, nil
		}),
	)
}

// newAgent is an agent whose every call is allowed (the loop's mechanics
// are under test here, not its permissions).
func newAgent(c llm.Client, p *probe) *agent.Agent {
	return &agent.Agent{
		Client: c, Model: "claude-sonnet-4-5", Tools: testTools(p),
		Env:         &tool.Env{Dir: os.TempDir(), Files: tool.NewFileState()},
		Permissions: agent.AllowAll,
	}
}

// collect runs the loop to the end and checks the universal invariants:
// LoopComplete is last and unique, and the history is valid.
func collect(t *testing.T, a *agent.Agent, ctx context.Context, conv *agent.Conversation) []event.Event {
	t.Helper()
	var evs []event.Event
	for e := range a.Run(ctx, conv) {
		if len(evs) > 0 {
			if _, ok := evs[len(evs)-1].(event.LoopComplete); ok {
				t.Fatalf("event %T yielded after loop_complete", e)
			}
		}
		if pr, ok := e.(*event.PermissionRequest); ok {
			pr.Respond(event.Decision{Behavior: event.Deny, Message: "not in tests"})
		}
		evs = append(evs, e)
		validateEvent(t, e)
	}
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	if _, ok := evs[len(evs)-1].(event.LoopComplete); !ok {
		t.Fatalf("last event is %T, want LoopComplete", evs[len(evs)-1])
	}
	checkHistory(t, conv)
	checkToolDone(t, evs)
	return evs
}

// checkToolDone asserts that every call with a tool_result had exactly one
// tool_done, after its tool_use and before its tool_result.
func checkToolDone(t *testing.T, evs []event.Event) {
	t.Helper()
	type key struct {
		turn int
		id   string
	}
	used, done := map[key]bool{}, map[key]bool{}
	for _, e := range evs {
		switch e := e.(type) {
		case event.ToolUse:
			used[key{e.Turn, e.ID}] = true
		case event.ToolDone:
			k := key{e.Turn, e.ID}
			if !used[k] {
				t.Errorf("tool_done for %v before its tool_use", k)
			}
			if done[k] {
				t.Errorf("two tool_done for %v", k)
			}
			done[k] = true
		case event.ToolResult:
			if !done[key{e.Turn, e.ID}] {
				t.Errorf("tool_result for %s (turn %d) without a tool_done before it", e.ID, e.Turn)
			}
		}
	}
}

// checkHistory asserts every tool_use has exactly one tool_result in the next
// message, in call order.
func checkHistory(t *testing.T, conv *agent.Conversation) {
	t.Helper()
	for i, m := range conv.Messages {
		calls := m.ToolCalls()
		if m.Role != llm.RoleAssistant || len(calls) == 0 {
			continue
		}
		if i+1 >= len(conv.Messages) {
			t.Fatalf("message %d has %d tool calls and no results message", i, len(calls))
		}
		var ids []string
		for _, b := range conv.Messages[i+1].Content {
			if b.Type == llm.BlockToolResult {
				ids = append(ids, b.ToolUseID)
			}
		}
		var want []string
		for _, c := range calls {
			want = append(want, c.ToolUseID)
		}
		if diff := cmp.Diff(want, ids); diff != "" {
			t.Fatalf("tool results of message %d not paired with calls in order (-want +got):\n%s", i, diff)
		}
	}
}

// validateEvent checks a real emitted event against the published schema.
func validateEvent(t *testing.T, e event.Event) {
	t.Helper()
	if err := eventtest.Validate(e); err != nil {
		t.Error(err)
	}
}

func last(evs []event.Event) event.LoopComplete { return evs[len(evs)-1].(event.LoopComplete) }

func results(evs []event.Event) []event.ToolResult {
	var out []event.ToolResult
	for _, e := range evs {
		if r, ok := e.(event.ToolResult); ok {
			out = append(out, r)
		}
	}
	return out
}

func TestTextOnly(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{{text(0, "Hel"), text(0, "lo"), end(llm.StopEndTurn, 12, 3)}}}
	conv := agent.NewConversation("s1", "sys", "hi")
	evs := collect(t, newAgent(fc, nil), context.Background(), conv)
	var types []string
	for _, e := range evs {
		types = append(types, e.Type())
	}
	want := []string{"stream_text", "stream_text", "usage", "loop_complete"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Fatalf("event types (-want +got):\n%s", diff)
	}
	lc := last(evs)
	if lc.Reason != event.ReasonDone || lc.FinalText != "Hello" || lc.Turns != 1 || lc.Usage.InputTokens != 12 {
		t.Fatalf("loop complete = %+v", lc)
	}
	if lc.CostUSD <= 0 {
		t.Fatalf("cost not computed: %+v", lc)
	}
}

func TestToolsStartWhileStreamingAndResultsInCallOrder(t *testing.T) {
	p := newProbe()
	const gap = 150 * time.Millisecond
	fc := &fakeClient{scripts: [][]step{
		{
			text(0, "running three"),
			// a is slowest, c fastest: finishing order c, b, a.
			call(1, "a", "Look", `{"id":"a","ms":300}`),
			paused(gap, call(2, "b", "Look", `{"id":"b","ms":150}`)),
			paused(gap, call(3, "c", "Look", `{"id":"c","ms":1}`)),
			paused(gap, end(llm.StopToolUse, 100, 20)),
		},
		answer("all done"),
	}}
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, newAgent(fc, p), context.Background(), conv)
	fc.mu.Lock()
	streamEnd := fc.endedAt[0]
	fc.mu.Unlock()
	if !p.starts["a"].Before(streamEnd) {
		t.Fatalf("first tool started at %v, after the stream ended at %v", p.starts["a"], streamEnd)
	}
	var got []string
	for _, r := range results(evs) {
		got = append(got, r.Content)
	}
	if diff := cmp.Diff([]string{"done a", "done b", "done c"}, got); diff != "" {
		t.Fatalf("results not in call order (-want +got):\n%s", diff)
	}
	if last(evs).FinalText != "all done" || last(evs).Turns != 2 {
		t.Fatalf("loop complete = %+v", last(evs))
	}
}

func TestMutatingToolRunsAlone(t *testing.T) {
	p := newProbe()
	fc := &fakeClient{scripts: [][]step{
		{
			call(0, "r1", "Look", `{"id":"r1","ms":80}`),
			call(1, "r2", "Look", `{"id":"r2","ms":80}`),
			call(2, "w", "Change", `{"id":"w","ms":40}`),
			call(3, "r3", "Look", `{"id":"r3","ms":10}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("ok"),
	}}
	conv := agent.NewConversation("s", "", "go")
	collect(t, newAgent(fc, p), context.Background(), conv)
	if p.overlap["w"] {
		t.Fatal("mutating tool ran alongside another tool")
	}
	if !p.starts["w"].After(p.starts["r1"]) || !p.starts["r3"].After(p.starts["w"]) {
		t.Fatalf("order wrong: %v", p.starts)
	}
	// r1 and r2 overlapped: r2 started before r1 finished (both take 80ms).
	if p.starts["r2"].Sub(p.starts["r1"]) > 60*time.Millisecond {
		t.Fatalf("read-only tools did not run together: r1 %v r2 %v", p.starts["r1"], p.starts["r2"])
	}
	if got := p.order[len(p.order)-1]; got != "r3" {
		t.Fatalf("r3 should finish last, order %v", p.order)
	}
}

func TestModelMistakesBecomeResults(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{
			call(0, "u", "NoSuchTool", `{}`),
			call(1, "j", "Look", `{"id":"j", "ms":`),
			call(2, "m", "Look", `{"ms":1}`),
			call(3, "p", "Boom", `{"id":"p"}`),
			call(4, "ok", "Look", `{"id":"ok"}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("recovered"),
	}}
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, newAgent(fc, newProbe()), context.Background(), conv)
	rs := results(evs)
	if len(rs) != 5 {
		t.Fatalf("got %d results, want 5", len(rs))
	}
	wantSub := []string{"Unknown tool \"NoSuchTool\"", "not valid JSON", "missing properties", "crashed: kaboom", "done ok"}
	for i, r := range rs {
		if !strings.Contains(r.Content, wantSub[i]) {
			t.Errorf("result %d = %q, want it to contain %q", i, r.Content, wantSub[i])
		}
		if wantErr := i < 4; r.IsError != wantErr {
			t.Errorf("result %d is_error = %v, want %v", i, r.IsError, wantErr)
		}
	}
	if lc := last(evs); lc.Reason != event.ReasonDone || lc.FinalText != "recovered" {
		t.Fatalf("loop did not go on: %+v", lc)
	}
}

func TestPermissionFlow(t *testing.T) {
	tests := []struct {
		name           string
		nonInteractive bool
		respond        *event.Decision
		wantRequests   int
		wantContent    string
		wantAlways     bool
		wantDenial     event.ToolResult // its Reason, Suggest and SuggestMode
	}{
		{name: "allow once", respond: &event.Decision{Behavior: event.Allow}, wantRequests: 1, wantContent: "done w"},
		{name: "allow always", respond: &event.Decision{Behavior: event.Allow, Always: true}, wantRequests: 1, wantContent: "done w", wantAlways: true},
		// The person's words end a sentence of their own, whatever
		// punctuation they typed.
		{name: "deny with message", respond: &event.Decision{Behavior: event.Deny, Message: "use git instead"}, wantRequests: 1,
			wantContent: "The user denied this call. They said: use git instead. Do not retry it",
			wantDenial:  event.ToolResult{Denied: true, Reason: "the user denied it: use git instead"}},
		{name: "deny with a full sentence", respond: &event.Decision{Behavior: event.Deny, Message: "Use git instead! "}, wantRequests: 1,
			wantContent: "They said: Use git instead! Do not retry it",
			wantDenial:  event.ToolResult{Denied: true, Reason: "the user denied it: Use git instead!"}},
		{name: "deny without message", respond: &event.Decision{Behavior: event.Deny}, wantRequests: 1,
			wantContent: "The user denied this call. Do not retry it",
			wantDenial:  event.ToolResult{Denied: true, Reason: "the user denied it"}},
		{name: "non-interactive", nonInteractive: true, wantRequests: 0,
			wantContent: "nobody can approve it in this non-interactive run. The user can allow it by running again with --allowedTools 'Change'.",
			wantDenial:  event.ToolResult{Denied: true, Reason: "Change may change files or run commands", NeedsApproval: true, Suggest: []string{"Change"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeClient{scripts: [][]step{
				{call(0, "r", "Look", `{"id":"r"}`), call(1, "w", "Change", `{"id":"w"}`), end(llm.StopToolUse, 1, 1)},
				answer("ok"),
			}}
			a := newAgent(fc, newProbe())
			a.Permissions = permission.NewChecker(permission.ModeDefault, nil, nil)
			a.NonInteractive = tc.nonInteractive
			var always []string
			a.AllowAlways = func(c agent.ToolCall, d permission.Decision) error { always = append(always, c.Name); return nil }
			conv := agent.NewConversation("s", "", "go")
			var reqs int
			var rs []event.ToolResult
			for e := range a.Run(context.Background(), conv) {
				switch e := e.(type) {
				case *event.PermissionRequest:
					reqs++
					if e.Name != "Change" {
						t.Errorf("asked about %s", e.Name)
					}
					// Answer from another goroutine, as a TUI would.
					go e.Respond(*tc.respond)
				case event.ToolResult:
					rs = append(rs, e)
				}
			}
			checkHistory(t, conv)
			if reqs != tc.wantRequests {
				t.Fatalf("permission requests = %d, want %d", reqs, tc.wantRequests)
			}
			if len(rs) != 2 || rs[0].Content != "done r" || !strings.Contains(rs[1].Content, tc.wantContent) {
				t.Fatalf("results = %+v", rs)
			}
			got := event.ToolResult{Denied: rs[1].Denied, Reason: rs[1].Reason, NeedsApproval: rs[1].NeedsApproval, Suggest: rs[1].Suggest, SuggestMode: rs[1].SuggestMode}
			if diff := cmp.Diff(tc.wantDenial, got); diff != "" {
				t.Errorf("denial (-want +got):\n%s", diff)
			}
			if (len(always) == 1) != tc.wantAlways {
				t.Fatalf("always = %v", always)
			}
		})
	}
}

func TestCancelInterruptsToolsAndKeepsHistoryValid(t *testing.T) {
	p := newProbe()
	fc := &fakeClient{scripts: [][]step{{
		call(0, "long", "Look", `{"id":"long","ms":60000}`),
		paused(50*time.Millisecond, call(1, "w", "Change", `{"id":"w","ms":60000}`)),
		paused(time.Hour, end(llm.StopToolUse, 1, 1)),
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conv := agent.NewConversation("s", "", "go")
	var evs []event.Event
	start := time.Now()
	for e := range newAgent(fc, p).Run(ctx, conv) {
		evs = append(evs, e)
		if e.Type() == event.TypeToolUse && len(evs) == 2 {
			time.AfterFunc(50*time.Millisecond, cancel)
		}
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("cancel took too long")
	}
	lc := last(evs)
	if lc.Reason != event.ReasonCancelled {
		t.Fatalf("reason = %q", lc.Reason)
	}
	checkHistory(t, conv)
	rs := results(evs)
	if len(rs) != 2 || !rs[0].Cancelled || !rs[1].Cancelled {
		t.Fatalf("results = %+v", rs)
	}
}

func TestConsumerStopStopsEverything(t *testing.T) {
	p := newProbe()
	fc := &fakeClient{scripts: [][]step{{
		call(0, "long", "Look", `{"id":"long","ms":60000}`),
		paused(time.Hour, end(llm.StopToolUse, 1, 1)),
	}}}
	conv := agent.NewConversation("s", "", "go")
	for e := range newAgent(fc, p).Run(context.Background(), conv) {
		if e.Type() == event.TypeToolUse {
			break
		}
	}
	// goleak in TestMain proves the tool goroutine and stream are gone.
	checkHistory(t, conv)
	if n := len(conv.Messages); n != 3 {
		t.Fatalf("history has %d messages, want prompt, call, result", n)
	}
}

func TestMaxTurns(t *testing.T) {
	loop := []step{call(0, "x", "Look", `{"id":"x"}`), end(llm.StopToolUse, 1, 1)}
	fc := &fakeClient{scripts: [][]step{loop, loop, loop}}
	a := newAgent(fc, newProbe())
	a.MaxTurns = 2
	evs := collect(t, a, context.Background(), agent.NewConversation("s", "", "go"))
	if lc := last(evs); lc.Reason != event.ReasonMaxTurns || lc.Turns != 2 {
		t.Fatalf("loop complete = %+v", lc)
	}
	if n := len(fc.reqs()); n != 2 {
		t.Fatalf("model called %d times", n)
	}
}

func TestMaxTokensRecovery(t *testing.T) {
	cut := []step{text(0, "part"), end(llm.StopMaxTokens, 1, 1)}
	t.Run("recovers", func(t *testing.T) {
		fc := &fakeClient{scripts: [][]step{cut, cut, answer(" rest")}}
		a := newAgent(fc, nil)
		a.MaxTokens = 1000
		conv := agent.NewConversation("s", "", "write a lot")
		evs := collect(t, a, context.Background(), conv)
		if lc := last(evs); lc.Reason != event.ReasonDone || lc.StopReason != "" {
			t.Fatalf("loop complete = %+v", lc)
		}
		reqs := fc.reqs()
		if reqs[0].MaxTokens != 1000 || reqs[1].MaxTokens != 64000 {
			t.Fatalf("output limit not raised: %d then %d", reqs[0].MaxTokens, reqs[1].MaxTokens)
		}
		lastUser := func(r recorded) string { m := r.msgs[len(r.msgs)-1]; return m.Content[len(m.Content)-1].Text }
		if !strings.Contains(lastUser(reqs[1]), "Continue exactly where you stopped") {
			t.Fatalf("first recovery prompt = %q", lastUser(reqs[1]))
		}
		if !strings.Contains(lastUser(reqs[2]), "smaller pieces") {
			t.Fatalf("second recovery prompt = %q", lastUser(reqs[2]))
		}
	})
	t.Run("gives up after four recoveries", func(t *testing.T) {
		fc := &fakeClient{scripts: [][]step{cut, cut, cut, cut, cut, answer("never")}}
		evs := collect(t, newAgent(fc, nil), context.Background(), agent.NewConversation("s", "", "go"))
		if lc := last(evs); lc.Reason != event.ReasonError || lc.StopReason != "max_tokens" || len(fc.reqs()) != 5 {
			t.Fatalf("loop complete = %+v after %d calls", lc, len(fc.reqs()))
		}
	})
}

// TestRefusal: a model that declines ends the run as done, and the
// LoopComplete says it refused (ACP's stop reason refusal).
func TestRefusal(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{{text(0, "I can't help with that."), end(llm.StopRefusal, 1, 1)}}}
	evs := collect(t, newAgent(fc, nil), context.Background(), agent.NewConversation("s", "", "go"))
	if lc := last(evs); lc.Reason != event.ReasonDone || lc.StopReason != "refusal" {
		t.Fatalf("loop complete = %+v", lc)
	}
}

func TestSizeControlAndAppendOnlyHistory(t *testing.T) {
	dir := t.TempDir()
	fc := &fakeClient{scripts: [][]step{
		{
			call(0, "s1", "Big", `{"n":100}`),
			call(1, "b1", "Big", `{"n":45000}`),
			call(2, "b2", "Big", `{"n":30000}`),
			call(3, "h", "Big", `{"n":2000000}`),
			end(llm.StopToolUse, 1, 1),
		},
		{call(0, "s2", "Big", `{"n":10}`), end(llm.StopToolUse, 1, 1)},
		answer("done"),
	}}
	a := newAgent(fc, nil)
	a.SpillDir = dir
	a.Hooks.PreSend = []agent.Hook{func(ctx context.Context, t *agent.TurnInfo) error {
		t.Remind("turn reminder")
		return nil
	}}
	conv := agent.NewConversation("sess", "", "go")
	evs := collect(t, a, context.Background(), conv)
	rs := results(evs)
	total := 0
	for _, r := range rs[:4] {
		total += len(r.Content)
	}
	if total > agent.DefaultBatchBudget {
		t.Fatalf("batch is %d characters, over the budget", total)
	}
	if rs[0].SpillPath != "" || rs[3].SpillPath == "" {
		t.Fatalf("wrong results spilled: %+v", []string{rs[0].SpillPath, rs[1].SpillPath, rs[2].SpillPath, rs[3].SpillPath})
	}
	full, err := os.ReadFile(rs[3].SpillPath)
	if err != nil || len(full) != 2000000 {
		t.Fatalf("spill file: %d bytes, %v", len(full), err)
	}
	if !strings.Contains(rs[3].Content, rs[3].SpillPath) {
		t.Fatal("preview does not name the spill path")
	}
	// Append-only: each request's messages (bar the newest, unsent user
	// message) are a byte prefix of the next request's.
	reqs := fc.reqs()
	for i := 1; i < len(reqs); i++ {
		prev, next := reqs[i-1].msgs, reqs[i].msgs
		for j := range prev {
			pb, _ := json.Marshal(prev[j])
			nb, _ := json.Marshal(next[j])
			if !bytes.Equal(pb, nb) {
				t.Fatalf("request %d edited message %d:\n%s\n%s", i, j, pb, nb)
			}
		}
	}
	// The reminder went in as new content of the outgoing user message.
	if n := strings.Count(string(reqs[2].Messages), "turn reminder"); n != 3 {
		t.Fatalf("reminders in third request = %d, want 3", n)
	}
}

func TestStreamErrorEndsWithClearError(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{{
		text(0, "start"),
		call(1, "x", "Look", `{"id":"x","ms":10}`),
		{err: &llm.Error{Kind: llm.ErrBrokenStream, Message: "unexpected EOF"}},
	}}}
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, newAgent(fc, newProbe()), context.Background(), conv)
	lc := last(evs)
	if lc.Reason != event.ReasonError || !strings.Contains(lc.Error, "unexpected EOF") {
		t.Fatalf("loop complete = %+v", lc)
	}
	if conv.Messages[1].Text() != "start" {
		t.Fatal("partial answer lost")
	}
}

func TestEventsEncodeWithType(t *testing.T) {
	b, err := event.Marshal(event.StreamText{Turn: 1, Text: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"type":"stream_text","turn":1,"text":"hi"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}

type askIn struct {
	Question string   `json:"question"`
	Options  []string `json:"options,omitempty"`
}

// asker is an Interactive tool, like AskUserQuestion.
type asker struct{ *tool.Typed[askIn] }

func (asker) AsksUser() bool { return true }

func TestQuestions(t *testing.T) {
	newAsk := func() tool.Tool {
		return asker{tool.New("Ask", "asks", true, nil, func(context.Context, *tool.Env, askIn) (tool.Result, error) {
			return tool.Result{Content: "ran as code"}, nil
		})}
	}
	tests := []struct {
		name           string
		nonInteractive bool
		answer         *event.Answer
		timeout        time.Duration
		want           string
	}{
		{name: "option and text", answer: &event.Answer{Option: "Postgres", Text: "version 16"}, want: "The user chose: Postgres; said: version 16."},
		{name: "no answer in time", timeout: 20 * time.Millisecond, want: "did not answer within 20ms"},
		{name: "print mode", nonInteractive: true, want: "Nobody can answer questions"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc := &fakeClient{scripts: [][]step{
				{call(0, "q", "Ask", `{"question":"Which database?","options":["Postgres","SQLite"]}`), end(llm.StopToolUse, 1, 1)},
				answer("ok"),
			}}
			a := newAgent(fc, nil)
			a.Tools.Register(newAsk())
			a.Permissions = permission.NewChecker(permission.ModeDefault, nil, nil)
			a.NonInteractive, a.QuestionTimeout = tc.nonInteractive, tc.timeout
			conv := agent.NewConversation("s", "", "go")
			var got []event.ToolResult
			asked := 0
			for e := range a.Run(context.Background(), conv) {
				validateEvent(t, e)
				switch e := e.(type) {
				case *event.Question:
					asked++
					if e.Question != "Which database?" || len(e.Options) != 2 {
						t.Errorf("question %+v", e)
					}
					if tc.answer != nil {
						go e.Respond(*tc.answer)
					}
				case event.ToolResult:
					got = append(got, e)
				}
			}
			checkHistory(t, conv)
			if len(got) != 1 || !strings.Contains(got[0].Content, tc.want) {
				t.Fatalf("results %+v, want %q", got, tc.want)
			}
			if wantAsked := map[bool]int{true: 0, false: 1}[tc.nonInteractive]; asked != wantAsked {
				t.Fatalf("asked %d times", asked)
			}
		})
	}
}

// A tool that ends while a later call waits for a person is reported done
// at once (tool_done), not when the whole batch ends: the person is still
// deciding when it arrives.
func TestToolDoneWhileAPermissionRequestIsOpen(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{call(0, "r", "Look", `{"id":"r","ms":30}`), call(1, "w", "Change", `{"id":"w"}`), end(llm.StopToolUse, 1, 1)},
		answer("ok"),
	}}
	a := newAgent(fc, newProbe())
	a.Permissions = permission.NewChecker(permission.ModeDefault, nil, nil)
	conv := agent.NewConversation("s", "", "go")
	doneSeen := make(chan struct{})
	answered := make(chan bool, 1) // whether tool_done came before the answer
	var evs []event.Event
	for e := range a.Run(context.Background(), conv) {
		evs = append(evs, e)
		validateEvent(t, e)
		switch e := e.(type) {
		case *event.PermissionRequest:
			// The person answers once r is shown done, or gives up after
			// 10 s (a hang guard: the old loop reported r only after the
			// answer).
			go func() {
				select {
				case <-doneSeen:
					answered <- true
				case <-time.After(10 * time.Second):
					answered <- false
				}
				e.Respond(event.Decision{Behavior: event.Allow})
			}()
		case event.ToolDone:
			if e.ID == "r" {
				if e.IsError || e.DurationMS < 0 {
					t.Errorf("tool_done for r = %+v", e)
				}
				close(doneSeen)
			}
		}
	}
	if !<-answered {
		t.Fatal("tool_done for the finished call did not come while the permission request was open")
	}
	checkHistory(t, conv)
	checkToolDone(t, evs)
}
