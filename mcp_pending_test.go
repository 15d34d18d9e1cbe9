package nova_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/mcp/mcptest"
)

// A tool called by its exact name while its server still starts waits for
// the server and is then decided on the real tool: a read-only one runs
// without asking, one that is not is asked about (denied here: nobody can
// answer). A name the server turns out not to have, a server that does not
// start within the start timeout and one that exits at start each give an
// error result saying so; none is "Unknown tool". Bare deny rules still hide
// a starting server's tools.
func TestMCPCallWaitsForStartingServer(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	var session atomic.Pointer[nova.Session]
	var atFirst atomic.Pointer[[]nova.MCPServerStatus]
	var n atomic.Int32
	srv.SetFallback(func(llmtest.Request) llmtest.Turn {
		if n.Add(1) > 1 {
			return text("done")
		}
		st := session.Load().MCPServers()
		atFirst.Store(&st)
		return llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("c1", "mcp__slow__echo", `{"text":"waited for"}`),
			llmtest.ToolUse("c2", "mcp__slow__add", `{"a":1,"b":2}`),
			llmtest.ToolUse("c3", "mcp__slow__nosuch", `{}`),
			llmtest.ToolUse("c4", "mcp__never__echo", `{"text":"x"}`),
			llmtest.ToolUse("c5", "mcp__exit__echo", `{"text":"x"}`),
			llmtest.ToolUse("c6", "mcp__slow__fail", `{}`),
		}}
	})
	o := testOptions(t, srv)
	o.InMemory, o.NoContext = true, true
	o.Deny = []string{"mcp__slow__fail"}
	o.MCPTimeouts = mcp.Timeouts{Start: 3 * time.Second}
	slow := testServer(mcptest.ModeSlow, map[string]string{mcptest.EnvDelay: "500ms"})
	never := testServer(mcptest.ModeSlow, map[string]string{mcptest.EnvDelay: "1h"})
	o.MCPServers = map[string]mcp.ServerConfig{
		"slow":  slow,
		"never": never,
		"exit":  testServer(mcptest.ModeExit, nil),
	}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	session.Store(s)
	defer s.Close()
	if _, err := collect(t, s, "call them"); err != nil {
		t.Fatal(err)
	}
	first := atFirst.Load()
	if first == nil {
		t.Fatal("no request")
	}
	for _, st := range *first {
		if st.Name == "slow" && st.State != "connecting" {
			t.Fatalf("slow was %s at the first request: the call did not come before its tools were known", st.State)
		}
	}
	res := s.Result()
	if len(res.ToolCalls) != 6 {
		t.Fatalf("calls: %+v", res.ToolCalls)
	}
	checks := []struct {
		isError bool
		says    string
	}{
		{false, "waited for"},
		{true, "Permission to use mcp__slow__add was not granted: it needs approval"},
		{true, "The call of mcp__slow__nosuch did not run: MCP server slow has no such tool; its tools are mcp__slow__add, mcp__slow__crash, mcp__slow__echo, mcp__slow__grow,"},
		{true, "The call of mcp__never__echo did not run: MCP server never failed to start: did not start within 3s."},
		{true, "The call of mcp__exit__echo did not run: MCP server exit failed to start: the process exited (exit status 2) before it finished starting"},
		{true, `Unknown tool "mcp__slow__fail"`},
	}
	for i, c := range checks {
		got := res.ToolCalls[i]
		if got.IsError != c.isError || !strings.Contains(got.Result, c.says) {
			t.Errorf("%s: error %v: %q\nwant error %v and %q", got.Name, got.IsError, got.Result, c.isError, c.says)
		}
	}
	if !res.ToolCalls[1].Denied {
		t.Errorf("add: %+v", res.ToolCalls[1])
	}
}
