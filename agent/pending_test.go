package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/tool"
)

// pendingTool stands for a tool of an MCP server still starting: known by
// name, resolved later.
type pendingTool struct {
	name    string
	resolve func(ctx context.Context) (tool.Tool, error)
}

func (p pendingTool) Name() string            { return p.name }
func (p pendingTool) Description() string     { return "not known yet" }
func (p pendingTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (p pendingTool) ReadOnly() bool          { return false }
func (p pendingTool) Run(context.Context, *tool.Env, json.RawMessage) (tool.Result, error) {
	panic("a pending tool is resolved, never run")
}
func (p pendingTool) Resolve(ctx context.Context) (tool.Tool, error) { return p.resolve(ctx) }

// after resolves to t once d has passed (or ctx ended).
func after(d time.Duration, t tool.Tool, err error) func(context.Context) (tool.Tool, error) {
	return func(ctx context.Context) (tool.Tool, error) {
		select {
		case <-time.After(d):
			return t, err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// named is a tool under another name: the tool a pending one turns into.
type named struct {
	tool.Tool
	name string
}

func (n named) Name() string { return n.name }

// pendingRegistry is testTools with a fallback answering for the names of
// pending.
func pendingRegistry(p *probe, pending ...pendingTool) *tool.Registry {
	reg := testTools(p)
	reg.SetFallback(func(name string) (tool.Tool, bool) {
		for _, t := range pending {
			if t.name == name {
				return t, true
			}
		}
		return nil, false
	})
	return reg
}

// A call of a pending tool is decided on the tool it resolves to: a
// read-only one runs without asking, one that is not is asked about (here
// nobody can answer: denied, with how to allow it), and one that cannot be
// resolved is an error result saying why. A call after it in the turn that
// conflicts with it waits for it; the tools array never changes.
func TestPendingToolsAreDecidedOnceResolved(t *testing.T) {
	p := newProbe()
	base := testTools(p)
	look, _ := base.Get("Look")
	change, _ := base.Get("Change")
	reg := pendingRegistry(p,
		pendingTool{"mcp__s__look", after(100*time.Millisecond, named{look, "mcp__s__look"}, nil)},
		pendingTool{"mcp__s__change", after(50*time.Millisecond, named{change, "mcp__s__change"}, nil)},
		pendingTool{"mcp__s__gone", after(10*time.Millisecond, nil, errors.New("MCP server s has no tool gone"))},
	)
	fc := &fakeClient{scripts: [][]step{
		{
			call(0, "p1", "mcp__s__look", `{"id":"p1"}`),
			call(1, "p2", "mcp__s__change", `{"id":"p2"}`),
			call(2, "p3", "mcp__s__gone", `{}`),
			call(3, "w", "Change", `{"id":"w"}`),
			call(4, "u", "mcp__other__x", `{}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("ok"),
	}}
	a := newAgent(fc, p)
	a.Tools = reg
	a.Permissions = permission.NewChecker(permission.ModeDefault, []string{"Change"}, nil)
	a.NonInteractive = true
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, a, context.Background(), conv)
	if lc := last(evs); lc.Reason != event.ReasonDone {
		t.Fatalf("%+v", lc)
	}
	rs := byID(evs)
	wantResult(t, rs, "p1", false, "done p1")
	wantResult(t, rs, "p2", true, "Permission to use mcp__s__change was not granted", "--allowedTools 'mcp__s__change'")
	if !rs["p2"].NeedsApproval {
		t.Errorf("p2: %+v", rs["p2"])
	}
	wantResult(t, rs, "p3", true, "The call of mcp__s__gone did not run: MCP server s has no tool gone.")
	wantResult(t, rs, "w", false, "done w")
	wantResult(t, rs, "u", true, `Unknown tool "mcp__other__x"`)
	// p1 was reserved as touching anything: w, which writes, ran after it.
	if !p.starts["w"].After(p.starts["p1"]) {
		t.Errorf("w started at %v, p1 at %v", p.starts["w"], p.starts["p1"])
	}
	if p.overlap["w"] {
		t.Error("w ran beside another tool")
	}
	checkToolsStable(t, fc.reqs())
}

// In an interactive run a pending tool that resolves to one needing
// approval is asked about like any call, and runs once allowed.
func TestPendingToolAskedOnceResolved(t *testing.T) {
	p := newProbe()
	change, _ := testTools(p).Get("Change")
	reg := pendingRegistry(p, pendingTool{"mcp__s__change", after(20*time.Millisecond, named{change, "mcp__s__change"}, nil)})
	fc := &fakeClient{scripts: [][]step{
		{call(0, "p", "mcp__s__change", `{"id":"p"}`), end(llm.StopToolUse, 1, 1)},
		answer("ok"),
	}}
	a := newAgent(fc, p)
	a.Tools = reg
	a.Permissions = permission.NewChecker(permission.ModeDefault, nil, nil)
	conv := agent.NewConversation("s", "", "go")
	var asked []string
	var rs []event.ToolResult
	for e := range a.Run(context.Background(), conv) {
		switch e := e.(type) {
		case *event.PermissionRequest:
			asked = append(asked, e.Name)
			go e.Respond(event.Decision{Behavior: event.Allow})
		case event.ToolResult:
			rs = append(rs, e)
		}
	}
	checkHistory(t, conv)
	if len(asked) != 1 || asked[0] != "mcp__s__change" {
		t.Errorf("asked about %v", asked)
	}
	if len(rs) != 1 || rs[0].Content != "done p" {
		t.Fatalf("results = %+v", rs)
	}
}

// A run cancelled while a pending tool waits ends at once, the call
// cancelled, and the call waiting for it too; nothing is left waiting
// (goleak).
func TestPendingToolCancelled(t *testing.T) {
	p := newProbe()
	reg := pendingRegistry(p, pendingTool{"mcp__slow__x", after(time.Hour, nil, nil)})
	fc := &fakeClient{scripts: [][]step{
		{call(0, "p", "mcp__slow__x", `{}`), call(1, "r", "Look", `{"id":"r"}`), end(llm.StopToolUse, 1, 1)},
	}}
	a := newAgent(fc, p)
	a.Tools = reg
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	conv := agent.NewConversation("s", "", "go")
	var evs []event.Event
	start := time.Now()
	for e := range a.Run(ctx, conv) {
		evs = append(evs, e)
		if u, ok := e.(event.ToolUse); ok && u.ID == "r" {
			time.AfterFunc(50*time.Millisecond, cancel) // while the pending one waits
		}
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %s", d)
	}
	checkHistory(t, conv)
	checkToolDone(t, evs)
	rs := byID(evs)
	// r, reserved after p, waited for it.
	if !rs["p"].Cancelled || !rs["r"].Cancelled {
		t.Fatalf("results = %+v", rs)
	}
	if lc := last(evs); lc.Reason != event.ReasonCancelled {
		t.Errorf("reason %q", lc.Reason)
	}
}
