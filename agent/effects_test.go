package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/tool"
)

// spanIn is the input of the Span test tool: it runs for ms and says what
// it touches, relative to the workspace.
type spanIn struct {
	ID     string   `json:"id"`
	MS     int      `json:"ms,omitempty"`
	Reads  []string `json:"reads,omitempty"`
	Writes []string `json:"writes,omitempty"`
	All    bool     `json:"all,omitempty"`  // exclusive
	Fail   bool     `json:"fail,omitempty"` // panic after ms
}

// spans records when each call ran.
type spans struct {
	mu    sync.Mutex
	start map[string]time.Time
	end   map[string]time.Time
}

func (s *spans) ran(id string) (time.Time, time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.start[id], s.end[id]
}

// overlapped reports whether a and b ran at the same time.
func (s *spans) overlapped(a, b string) bool {
	as, ae := s.ran(a)
	bs, be := s.ran(b)
	return as.Before(be) && bs.Before(ae)
}

func spanTools(s *spans) *tool.Registry {
	span := tool.New("Span", "touches what it is told", false, nil, func(ctx context.Context, env *tool.Env, in spanIn) (tool.Result, error) {
		s.mu.Lock()
		s.start[in.ID] = time.Now()
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.end[in.ID] = time.Now()
			s.mu.Unlock()
		}()
		select {
		case <-time.After(time.Duration(in.MS) * time.Millisecond):
			if in.Fail {
				panic("span " + in.ID + " failed")
			}
			return tool.Result{Content: "done " + in.ID}, nil
		case <-ctx.Done():
			return tool.Result{Content: "interrupted " + in.ID, IsError: true}, nil
		}
	}).WithEffects(func(env *tool.Env, in spanIn) tool.Effects {
		if in.All {
			return tool.Exclusive()
		}
		var fx tool.Effects
		for _, p := range in.Reads {
			fx.Reads = append(fx.Reads, env.Abs(p))
		}
		for _, p := range in.Writes {
			fx.Writes = append(fx.Writes, env.Abs(p))
		}
		return fx
	})
	return tool.NewRegistry(span)
}

func spanCall(idx int, id string, ms int, fx string) step {
	return call(idx, id, "Span", fmt.Sprintf(`{"id":%q,"ms":%d%s}`, id, ms, fx))
}

func spanAgent(t *testing.T, fc *fakeClient, s *spans) *agent.Agent {
	return &agent.Agent{Client: fc, Model: "claude-sonnet-4-5", Tools: spanTools(s),
		Env: &tool.Env{Dir: t.TempDir(), Files: tool.NewFileState()}, Permissions: agent.AllowAll}
}

// TestEffectsDecideWhatRunsTogether runs calls whose effects conflict or not
// and checks which of them overlapped. Every call takes 150 ms and the
// blocks arrive together, so independent calls overlap and dependent ones
// cannot.
func TestEffectsDecideWhatRunsTogether(t *testing.T) {
	const ms = 150
	type pair struct{ a, b string }
	tests := []struct {
		name     string
		calls    []string // effects of c0, c1, … as JSON fields
		long     int      // this call runs 3 × as long (0: none)
		together []pair   // must overlap
		apart    []pair   // must not overlap, the first before the second
	}{
		{name: "reads of one file run together",
			calls:    []string{`,"reads":["a.txt"]`, `,"reads":["a.txt"]`, `,"reads":["."]`},
			together: []pair{{"c0", "c1"}, {"c1", "c2"}}},
		{name: "writes of different files run together",
			calls:    []string{`,"writes":["a.txt"]`, `,"writes":["b.txt"]`, `,"writes":["sub/c.txt"],"reads":["sub/d.txt"]`},
			together: []pair{{"c0", "c1"}, {"c0", "c2"}}},
		{name: "writes of one file run in call order",
			calls: []string{`,"writes":["shared.txt"]`, `,"writes":["shared.txt"]`, `,"writes":["shared.txt"]`},
			apart: []pair{{"c0", "c1"}, {"c1", "c2"}}},
		{name: "a write between two reads waits for the first and holds the second",
			calls:    []string{`,"reads":["f"]`, `,"writes":["f"]`, `,"reads":["f"]`, `,"reads":["other"]`},
			apart:    []pair{{"c0", "c1"}, {"c1", "c2"}},
			together: []pair{{"c0", "c3"}}},
		{name: "a write of a directory conflicts with reads below it, both ways",
			calls: []string{`,"reads":["dir/x.go"]`, `,"writes":["dir"]`, `,"reads":["dir"]`, `,"writes":["dir/y/z"]`},
			apart: []pair{{"c0", "c1"}, {"c1", "c2"}, {"c2", "c3"}}},
		{name: "an exclusive call runs alone",
			calls:    []string{`,"reads":["a"]`, `,"all":true`, `,"reads":["b"]`, `,"writes":["c"]`},
			apart:    []pair{{"c0", "c1"}, {"c1", "c2"}, {"c1", "c3"}},
			together: []pair{{"c2", "c3"}}},
		{name: "a call waits only for what it conflicts with",
			calls: []string{`,"writes":["a"]`, `,"writes":["b"]`, `,"reads":["a"]`}, long: 1,
			apart:    []pair{{"c0", "c2"}},
			together: []pair{{"c1", "c2"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &spans{start: map[string]time.Time{}, end: map[string]time.Time{}}
			var script []step
			for i, fx := range tc.calls {
				d := ms
				if tc.long == i && i > 0 {
					d = 3 * ms
				}
				script = append(script, spanCall(i, fmt.Sprintf("c%d", i), d, fx))
			}
			script = append(script, end(llm.StopToolUse, 1, 1))
			fc := &fakeClient{scripts: [][]step{script, answer("ok")}}
			conv := agent.NewConversation("s", "", "go")
			evs := collect(t, spanAgent(t, fc, s), context.Background(), conv)
			for _, p := range tc.together {
				if !s.overlapped(p.a, p.b) {
					t.Errorf("%s and %s did not run together", p.a, p.b)
				}
			}
			for _, p := range tc.apart {
				_, aEnd := s.ran(p.a)
				bStart, _ := s.ran(p.b)
				if bStart.Before(aEnd) {
					t.Errorf("%s started before %s ended", p.b, p.a)
				}
			}
			var got, want []string
			for i, r := range results(evs) {
				got = append(got, r.Content)
				want = append(want, fmt.Sprintf("done c%d", i))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results not in call order (-want +got):\n%s", diff)
			}
		})
	}
}

// A call that fails releases the calls waiting for it.
func TestFailedCallReleasesItsWaiters(t *testing.T) {
	s := &spans{start: map[string]time.Time{}, end: map[string]time.Time{}}
	fc := &fakeClient{scripts: [][]step{{
		spanCall(0, "w", 50, `,"writes":["f"],"fail":true`),
		spanCall(1, "r", 10, `,"reads":["f"]`),
		end(llm.StopToolUse, 1, 1),
	}, answer("ok")}}
	evs := collect(t, spanAgent(t, fc, s), context.Background(), agent.NewConversation("s", "", "go"))
	rs := results(evs)
	if len(rs) != 2 || !rs[0].IsError || !strings.Contains(rs[0].Content, "failed") || rs[1].Content != "done r" {
		t.Fatalf("results %+v", rs)
	}
	if s.overlapped("w", "r") {
		t.Fatal("the read ran beside the write it waits for")
	}
}

// A call that needs a person keeps its place: a later call that conflicts
// with it waits for the answer and, when it is allowed, for the call; when
// it is denied, the later call goes on. Unrelated calls never wait.
func TestAskedCallKeepsItsPlace(t *testing.T) {
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) {
			s := &spans{start: map[string]time.Time{}, end: map[string]time.Time{}}
			fc := &fakeClient{scripts: [][]step{{
				spanCall(0, "asked", 100, `,"writes":["f"]`),
				spanCall(1, "after", 10, `,"reads":["f"]`),
				spanCall(2, "free", 10, `,"reads":["g"]`),
				end(llm.StopToolUse, 1, 1),
			}, answer("ok")}}
			a := spanAgent(t, fc, s)
			a.Permissions = askAbout("asked")
			conv := agent.NewConversation("s", "", "go")
			var answeredAt time.Time
			var rs []event.ToolResult
			for e := range a.Run(context.Background(), conv) {
				switch e := e.(type) {
				case *event.PermissionRequest:
					time.Sleep(50 * time.Millisecond) // the person takes a moment
					answeredAt = time.Now()
					if allow {
						e.Respond(event.Decision{Behavior: event.Allow})
					} else {
						e.Respond(event.Decision{Behavior: event.Deny})
					}
				case event.ToolResult:
					rs = append(rs, e)
				}
			}
			checkHistory(t, conv)
			freeStart, _ := s.ran("free")
			if !freeStart.Before(answeredAt) {
				t.Error("an unrelated call waited for the person")
			}
			afterStart, _ := s.ran("after")
			if !afterStart.After(answeredAt) {
				t.Error("a call that conflicts with the asked one did not wait for the answer")
			}
			if allow {
				_, askedEnd := s.ran("asked")
				if afterStart.Before(askedEnd) {
					t.Error("a call that conflicts with the allowed one did not wait for it to end")
				}
			}
			if len(rs) != 3 || rs[0].Denied == allow || rs[1].Content != "done after" || rs[2].Content != "done free" {
				t.Fatalf("results %+v", rs)
			}
		})
	}
}

// askAbout is a checker that asks about the named calls and allows the
// rest, counting its decisions per call.
type countingChecker struct {
	mu    sync.Mutex
	ask   map[string]bool
	count map[string]int
}

func askAbout(ids ...string) *countingChecker {
	c := &countingChecker{ask: map[string]bool{}, count: map[string]int{}}
	for _, id := range ids {
		c.ask[id] = true
	}
	return c
}

func (c *countingChecker) Check(call permission.Call) permission.Decision {
	id := callLabel(call)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.count[id]++
	if c.ask[id] {
		return permission.Decision{Behavior: permission.Ask, Reason: "test asks"}
	}
	return permission.Decision{Behavior: permission.Allow}
}

func callLabel(call permission.Call) string {
	var in struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(call.Input, &in)
	return in.ID
}

// Each call gets exactly one permission decision: allowed at once, asked
// and allowed, asked and denied, waiting behind a conflict, cancelled.
func TestOnePermissionDecisionPerCall(t *testing.T) {
	s := &spans{start: map[string]time.Time{}, end: map[string]time.Time{}}
	fc := &fakeClient{scripts: [][]step{{
		spanCall(0, "w1", 30, `,"writes":["f"]`),
		spanCall(1, "r1", 10, `,"reads":["f"]`),
		spanCall(2, "ask-yes", 10, `,"writes":["f"]`),
		spanCall(3, "ask-no", 10, `,"all":true`),
		spanCall(4, "r2", 10, `,"reads":["f"]`),
		end(llm.StopToolUse, 1, 1),
	}, {
		spanCall(0, "t2", 10, `,"reads":["g"]`),
		end(llm.StopToolUse, 1, 1),
	}, answer("ok")}}
	a := spanAgent(t, fc, s)
	checker := askAbout("ask-yes", "ask-no")
	a.Permissions = checker
	conv := agent.NewConversation("s", "", "go")
	for e := range a.Run(context.Background(), conv) {
		if pr, ok := e.(*event.PermissionRequest); ok {
			b := event.Deny
			if strings.Contains(string(pr.Input), "ask-yes") {
				b = event.Allow
			}
			pr.Respond(event.Decision{Behavior: b})
		}
	}
	checkHistory(t, conv)
	want := map[string]int{"w1": 1, "r1": 1, "ask-yes": 1, "ask-no": 1, "r2": 1, "t2": 1}
	if diff := cmp.Diff(want, checker.count); diff != "" {
		t.Fatalf("decisions per call (-want +got):\n%s", diff)
	}
}

// Cancelling while calls overlap stops every one of them, running or
// waiting, and every call still gets a result.
func TestCancelStopsOverlappingCalls(t *testing.T) {
	s := &spans{start: map[string]time.Time{}, end: map[string]time.Time{}}
	fc := &fakeClient{scripts: [][]step{{
		spanCall(0, "a", 60_000, `,"reads":["x"]`),
		spanCall(1, "b", 60_000, `,"writes":["y"]`),
		spanCall(2, "c", 60_000, `,"reads":["y"]`), // waits for b
		paused(time.Hour, end(llm.StopToolUse, 1, 1)),
	}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := spanAgent(t, fc, s)
	conv := agent.NewConversation("s", "", "go")
	var rs []event.ToolResult
	start := time.Now()
	uses := 0
	for e := range a.Run(ctx, conv) {
		switch e := e.(type) {
		case event.ToolUse:
			if uses++; uses == 3 {
				time.AfterFunc(50*time.Millisecond, cancel)
			}
		case event.ToolResult:
			rs = append(rs, e)
		}
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("cancel took too long")
	}
	checkHistory(t, conv)
	if len(rs) != 3 {
		t.Fatalf("results %+v", rs)
	}
	for _, r := range rs {
		if !r.Cancelled || !r.IsError {
			t.Errorf("result of %s not cancelled: %+v", r.ID, r)
		}
	}
	if !s.overlapped("a", "b") {
		t.Error("a and b should have run together")
	}
	if st, _ := s.ran("c"); !st.IsZero() {
		t.Error("c, waiting for b, started anyway")
	}
}

// The executor resolves symbolic links: a write through a link conflicts
// with a read of its target.
func TestEffectsSeeThroughSymlinks(t *testing.T) {
	s := &spans{start: map[string]time.Time{}, end: map[string]time.Time{}}
	fc := &fakeClient{scripts: [][]step{{
		spanCall(0, "w", 100, `,"writes":["link/f"]`),
		spanCall(1, "r", 10, `,"reads":["real/f"]`),
		end(llm.StopToolUse, 1, 1),
	}, answer("ok")}}
	a := spanAgent(t, fc, s)
	if err := mkdirLink(a.Env.Dir); err != nil {
		t.Fatal(err)
	}
	collect(t, a, context.Background(), agent.NewConversation("s", "", "go"))
	if s.overlapped("w", "r") {
		t.Fatal("a write through a link ran beside a read of its target")
	}
}

func mkdirLink(dir string) error {
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		return err
	}
	return os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link"))
}
