package nova_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/mcp/mcptest"
)

// The fault suite, through the SDK and the scripted model: a server that
// crashes in the middle of a call, one that never answers a call, one that
// prints garbage on its standard output, one that exits at start and one
// that takes 10 s to start. Each gives a clear error result or warning,
// none hangs the run; the first request does not wait for the slow one;
// and no server process outlives Close (checked by process group, the
// slow one killed while it still starts).
func TestMCPFaults(t *testing.T) {
	start := time.Now()
	pidFile := filepath.Join(t.TempDir(), "pids")
	env := map[string]string{mcptest.EnvPIDFile: pidFile}
	turns := []llmtest.Turn{
		{Blocks: []llmtest.Block{
			llmtest.ToolUse("c1", "mcp__crash__crash", `{}`),
			llmtest.ToolUse("c2", "mcp__hang__hang", `{}`),
			llmtest.ToolUse("c3", "mcp__garbage__echo", `{"text":"through the garbage"}`),
		}},
		call("c4", "mcp__crash__echo", `{"text":"back again"}`),
		text("done"),
	}
	var session atomic.Pointer[nova.Session]
	var atFirst atomic.Pointer[[]nova.MCPServerStatus]
	var n atomic.Int32
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(func(llmtest.Request) llmtest.Turn {
		i := n.Add(1)
		if i == 1 {
			st := session.Load().MCPServers()
			atFirst.Store(&st)
		}
		return turns[min(int(i), len(turns))-1]
	})
	o := testOptions(t, srv)
	o.InMemory, o.NoContext = true, true
	o.Allow = []string{"mcp__crash", "mcp__hang"}
	o.MCPTimeouts = mcp.Timeouts{Call: 500 * time.Millisecond}
	o.MCPServers = map[string]mcp.ServerConfig{
		"crash":   testServer(mcptest.ModeTools, env),
		"hang":    testServer(mcptest.ModeTools, env),
		"garbage": testServer(mcptest.ModeGarbage, env),
		"exit":    testServer(mcptest.ModeExit, env),
		"slow":    testServer(mcptest.ModeSlow, env), // 10 s
	}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	session.Store(s)
	defer s.Close()
	for _, name := range []string{"crash", "hang", "garbage"} {
		waitMCP(t, s, name, "connected")
	}
	waitMCP(t, s, "exit", "failed")

	evs, err := collect(t, s, "break things")
	if err != nil {
		t.Fatal(err)
	}
	res := s.Result()
	if len(res.ToolCalls) != 4 {
		t.Fatalf("calls: %+v", res.ToolCalls)
	}
	checks := []struct {
		call    nova.ToolCall
		isError bool
		says    []string
	}{
		{res.ToolCalls[0], true, []string{"MCP server crash stopped during the call of crash", "exit status 3", "panic: the crash tool was called", "restarted at the next call"}},
		{res.ToolCalls[1], true, []string{"MCP server hang did not answer the call of hang within 500ms; the call was cancelled."}},
		{res.ToolCalls[2], false, []string{"through the garbage"}},
		{res.ToolCalls[3], false, []string{"back again"}}, // restarted
	}
	for _, c := range checks {
		if c.call.IsError != c.isError {
			t.Errorf("%s: error %v, want %v: %s", c.call.Name, c.call.IsError, c.isError, c.call.Result)
		}
		for _, s := range c.says {
			if !strings.Contains(c.call.Result, s) {
				t.Errorf("%s: %q lacks %q", c.call.Name, c.call.Result, s)
			}
		}
	}
	var warnings []string
	for _, e := range evs {
		if w, ok := e.(event.Warning); ok {
			warnings = append(warnings, w.Message)
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "MCP server exit did not start: the process exited (exit status 2) before it finished starting; its standard error ends: fatal: the database at localhost:5432 refused the connection") {
		t.Errorf("warnings = %q", warnings)
	}

	// The first request was not held back by the slow server.
	first := atFirst.Load()
	if first == nil {
		t.Fatal("no first request seen")
	}
	for _, st := range *first {
		if st.Name == "slow" && st.State != "connecting" {
			t.Errorf("at the first request the slow server was %s", st.State)
		}
	}
	for _, st := range s.MCPServers() {
		switch st.Name {
		case "garbage":
			if !strings.Contains(st.Warning, "not JSON-RPC on standard output (ignored)") {
				t.Errorf("garbage: %+v", st)
			}
		case "slow":
			if st.State != "connecting" {
				t.Errorf("slow: %+v", st)
			}
		}
	}

	// Close ends every server, the slow one still starting, at once.
	closing := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(closing); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
	pids := readPids(t, pidFile)
	// crash (twice: restarted), hang, garbage, exit, slow.
	if len(pids) != 6 {
		t.Errorf("pids = %v", pids)
	}
	for _, p := range pids {
		if err := syscall.Kill(-p, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process group %d outlived the session: %v", p, err)
		}
	}
	if d := time.Since(start); d > 9*time.Second {
		t.Errorf("the suite took %s: it waited for the slow server", d)
	}
}

func readPids(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
