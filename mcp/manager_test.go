package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/mcp/mcptest"
	"github.com/novacode/nova/tool"
)

// stdio is a server definition for the test binary serving mode.
func stdio(t *testing.T, name, mode string, env map[string]string) Server {
	t.Helper()
	cmd, args, e := mcptest.Command(mode)
	for k, v := range env {
		e[k] = v
	}
	return Server{Name: name, Config: ServerConfig{Command: cmd, Args: args, Env: e}, Scope: ScopeSDK}
}

func newManager(t *testing.T, o Options) *Manager {
	t.Helper()
	if o.SpillDir == "" {
		o.SpillDir = t.TempDir()
	}
	m := NewManager(o)
	t.Cleanup(func() { m.Close() })
	return m
}

// waitState waits until the server is in one of states.
func waitState(t *testing.T, m *Manager, name string, states ...State) Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, ok := m.Status(name)
		if !ok {
			t.Fatalf("no server %s", name)
		}
		for _, s := range states {
			if st.State == s {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s: %s (%s), want %v", name, st.State, st.Error, states)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func toolOf(t *testing.T, m *Manager, server, name string) tool.Tool {
	t.Helper()
	st, _ := m.Status(server)
	for _, x := range st.Tools {
		if x.Name() == name {
			return x
		}
	}
	t.Fatalf("server %s has no tool %s", server, name)
	return nil
}

func run(t *testing.T, x tool.Tool, input string) tool.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := x.Run(ctx, &tool.Env{}, json.RawMessage(input))
	if err != nil {
		t.Fatalf("%s: Go error %v", x.Name(), err)
	}
	return r
}

// pids reads the pids a pid file collected.
func pids(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, l := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(l)
		out = append(out, n)
	}
	return out
}

// groupGone reports whether no process is left in the group pgid.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

// The tools server: every kind of result comes back as text, with the
// server's schema, read-only hint and instructions.
func TestToolsAndResults(t *testing.T) {
	m := newManager(t, Options{})
	if err := m.Start(stdio(t, "test", mcptest.ModeTools, nil)); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, m, "test", StateConnected, StateFailed)
	if st.State != StateConnected {
		t.Fatalf("state %s: %s", st.State, st.Error)
	}
	var names []string
	for _, x := range st.Tools {
		names = append(names, x.Name())
	}
	want := []string{"mcp__test__add", "mcp__test__crash", "mcp__test__echo", "mcp__test__fail", "mcp__test__grow", "mcp__test__hang", "mcp__test__image", "mcp__test__link"}
	if d := cmp.Diff(want, names); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	if st.Instructions != mcptest.Instructions || st.Transport != "stdio" {
		t.Errorf("status = %+v", st)
	}
	echo := toolOf(t, m, "test", "mcp__test__echo")
	if !echo.ReadOnly() || toolOf(t, m, "test", "mcp__test__add").ReadOnly() {
		t.Error("ReadOnly does not follow readOnlyHint")
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(echo.Schema(), &schema); err != nil || schema.Type != "object" || schema.Properties["text"] == nil {
		t.Errorf("echo schema = %s", echo.Schema())
	}

	tests := []struct {
		tool, input string
		want        string // the whole result, or a prefix ending in …
		isError     bool
	}{
		{"mcp__test__echo", `{"text":"hello"}`, "hello", false},
		{"mcp__test__add", `{"a":2,"b":3}`, "The sum is 5.\n{\"sum\":5}", false},
		{"mcp__test__link", `{}`, "[resource link: file:///tmp/report.txt (report), text/plain]", false},
		{"mcp__test__fail", ``, "the widget is broken", true},
		{"mcp__test__echo", `{"text":1}`, "…", true}, // the server's validation
		{"mcp__test__image", `{}`, "Here is the image.\n[image: image/png, 67 bytes, saved to …", false},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			r := run(t, toolOf(t, m, "test", tt.tool), tt.input)
			prefix, isPrefix := strings.CutSuffix(tt.want, "…")
			if isPrefix && !strings.HasPrefix(r.Content, prefix) || !isPrefix && r.Content != tt.want || r.IsError != tt.isError {
				t.Errorf("result = %+v, want %q (error %v)", r, tt.want, tt.isError)
			}
		})
	}
	r := run(t, toolOf(t, m, "test", "mcp__test__image"), `{}`)
	_, path, _ := strings.Cut(r.Content, "saved to ")
	path = strings.TrimSuffix(path, "]")
	if b, err := os.ReadFile(path); err != nil || string(b) != string(mcptest.PNG) {
		t.Errorf("saved image %s: %v", path, err)
	}
}

// A crash in the middle of a call is an error result; the next call
// restarts the server, once.
func TestCrashRestartsOnce(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	m := newManager(t, Options{})
	m.Start(stdio(t, "c", mcptest.ModeTools, map[string]string{mcptest.EnvPIDFile: pidFile}))
	waitState(t, m, "c", StateConnected)
	crash, echo := toolOf(t, m, "c", "mcp__c__crash"), toolOf(t, m, "c", "mcp__c__echo")

	r := run(t, crash, `{}`)
	if !r.IsError || !strings.Contains(r.Content, "MCP server c stopped during the call of crash") ||
		!strings.Contains(r.Content, "exit status 3") || !strings.Contains(r.Content, "panic: the crash tool was called") ||
		!strings.Contains(r.Content, "restarted at the next call") {
		t.Fatalf("crash result = %+v", r)
	}
	if st, _ := m.Status("c"); st.State != StateFailed {
		t.Fatalf("after the crash: %+v", st)
	}
	if r := run(t, echo, `{"text":"back"}`); r.IsError || r.Content != "back" {
		t.Fatalf("after the restart: %+v", r)
	}
	r = run(t, crash, `{}`)
	if !r.IsError || !strings.Contains(r.Content, "will not be again") {
		t.Fatalf("second crash = %+v", r)
	}
	r = run(t, echo, `{"text":"again"}`)
	if !r.IsError || !strings.Contains(r.Content, "is not running (it was restarted once already)") {
		t.Fatalf("after the second crash = %+v", r)
	}
	ps := pids(t, pidFile)
	if len(ps) != 2 {
		t.Fatalf("pids = %v", ps)
	}
	for _, p := range ps {
		if !groupGone(p) {
			t.Errorf("process group %d is still there", p)
		}
	}
}

// A call that is never answered ends at the call timeout with an error
// result, and the server goes on serving.
func TestCallTimeout(t *testing.T) {
	m := newManager(t, Options{Timeouts: Timeouts{Call: 300 * time.Millisecond}})
	m.Start(stdio(t, "h", mcptest.ModeTools, nil))
	waitState(t, m, "h", StateConnected)
	start := time.Now()
	r := run(t, toolOf(t, m, "h", "mcp__h__hang"), `{}`)
	if !r.IsError || !strings.Contains(r.Content, "did not answer the call of hang within 300ms") {
		t.Fatalf("result = %+v", r)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the call took %s", d)
	}
	if r := run(t, toolOf(t, m, "h", "mcp__h__echo"), `{"text":"still here"}`); r.Content != "still here" {
		t.Errorf("after the timeout: %+v", r)
	}
}

// A cancelled call returns the context's error at once (the loop reports
// it as cancelled).
func TestCallCancelled(t *testing.T) {
	m := newManager(t, Options{})
	m.Start(stdio(t, "h", mcptest.ModeTools, nil))
	waitState(t, m, "h", StateConnected)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := toolOf(t, m, "h", "mcp__h__hang").Run(ctx, &tool.Env{}, json.RawMessage(`{}`))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// Servers that fail to start say why; garbage on standard output is
// dropped (and noted) while the JSON-RPC lines get through.
func TestStartFaults(t *testing.T) {
	m := newManager(t, Options{Timeouts: Timeouts{Start: 1500 * time.Millisecond}})
	m.Start(stdio(t, "garbage", mcptest.ModeGarbage, nil))
	m.Start(stdio(t, "noise", mcptest.ModeNoise, nil))
	m.Start(stdio(t, "exit", mcptest.ModeExit, nil))
	m.Start(Server{Name: "missing", Config: ServerConfig{Command: "/nonexistent/mcp-server"}})
	tests := []struct {
		server string
		state  State
		says   []string
	}{
		{"garbage", StateConnected, nil},
		{"noise", StateFailed, []string{"did not start within 1.5s", "lines that are not JSON-RPC on standard output (ignored), the first: \"loading, please wait ...\""}},
		{"exit", StateFailed, []string{"the process exited (exit status 2)", "its standard error ends: fatal: the database at localhost:5432 refused the connection"}},
		{"missing", StateFailed, []string{"cannot start /nonexistent/mcp-server"}},
	}
	for _, tt := range tests {
		t.Run(tt.server, func(t *testing.T) {
			st := waitState(t, m, tt.server, StateConnected, StateFailed)
			if st.State != tt.state {
				t.Fatalf("state %s (%s), want %s", st.State, st.Error, tt.state)
			}
			for _, s := range tt.says {
				if !strings.Contains(st.Error, s) {
					t.Errorf("error %q lacks %q", st.Error, s)
				}
			}
		})
	}
	st, _ := m.Status("garbage")
	if !strings.Contains(st.Warning, `3 lines that are not JSON-RPC on standard output (ignored), the first: "Starting the garbage server v1.0 ..."`) {
		t.Errorf("warning = %q", st.Warning)
	}
	if r := run(t, toolOf(t, m, "garbage", "mcp__garbage__echo"), `{"text":"through"}`); r.IsError || r.Content != "through" {
		t.Errorf("echo through garbage = %+v", r)
	}
}

// A call to a server still starting waits for it; a start that takes too
// long is an error result saying so.
func TestCallWaitsForStart(t *testing.T) {
	m := newManager(t, Options{Timeouts: Timeouts{Start: 700 * time.Millisecond}})
	m.Start(stdio(t, "late", mcptest.ModeSlow, map[string]string{mcptest.EnvDelay: "200ms"}))
	m.Start(stdio(t, "never", mcptest.ModeSlow, map[string]string{mcptest.EnvDelay: "1h"}))
	// The tools are known only once connected; a call made through a tool
	// of the connected server, after it exited and while it restarts,
	// waits the same way. Here: the first start.
	st := waitState(t, m, "late", StateConnected, StateFailed)
	if st.State != StateConnected {
		t.Fatalf("late: %+v", st)
	}
	st = waitState(t, m, "never", StateFailed)
	if !strings.Contains(st.Error, "did not start within 700ms") {
		t.Errorf("never: %q", st.Error)
	}
	srv := m.servers["never"]
	r, err := m.call(context.Background(), &Tool{m: m, srv: srv, name: "mcp__never__x", remote: "x"}, nil)
	if err != nil || !r.IsError || !strings.Contains(r.Content, "MCP server never is not running: did not start within 700ms") {
		t.Errorf("call = %+v, %v", r, err)
	}
}

// tools/list_changed: the manager lists the tools again and says so.
func TestToolListChanged(t *testing.T) {
	changed := make(chan string, 10)
	m := newManager(t, Options{OnChange: func(s string) { changed <- s }})
	m.Start(stdio(t, "g", mcptest.ModeTools, nil))
	waitState(t, m, "g", StateConnected)
	<-changed // connected
	if r := run(t, toolOf(t, m, "g", "mcp__g__grow"), `{}`); r.Content != "grown" {
		t.Fatalf("grow = %+v", r)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no change after tools/list_changed")
	}
	if r := run(t, toolOf(t, m, "g", "mcp__g__extra"), `{}`); r.Content != "extra!" {
		t.Errorf("extra = %+v", r)
	}
}

// Close ends every server: those running, one still starting (killed, not
// waited for), and no process group is left.
func TestCloseKillsEveryGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pids")
	env := map[string]string{mcptest.EnvPIDFile: pidFile}
	m := NewManager(Options{SpillDir: t.TempDir()})
	m.Start(stdio(t, "a", mcptest.ModeTools, env))
	m.Start(stdio(t, "b", mcptest.ModeGarbage, env))
	m.Start(stdio(t, "slow", mcptest.ModeSlow, env))
	waitState(t, m, "a", StateConnected)
	waitState(t, m, "b", StateConnected)
	deadline := time.Now().Add(10 * time.Second)
	for len(pids(t, pidFile)) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	m.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %s", d)
	}
	ps := pids(t, pidFile)
	if len(ps) != 3 {
		t.Fatalf("pids = %v", ps)
	}
	for _, p := range ps {
		if !groupGone(p) {
			t.Errorf("process group %d outlived Close", p)
		}
	}
	if err := m.Start(stdio(t, "after", mcptest.ModeTools, nil)); err == nil {
		t.Error("Start after Close worked")
	}
}

// Streamable HTTP and SSE, with a bearer token from the headers; without
// it the error says what to do.
func TestHTTP(t *testing.T) {
	streamable := httptest.NewServer(mcptest.HTTPHandler(false, "tok"))
	t.Cleanup(streamable.Close) // after the manager's Close
	sse := httptest.NewServer(mcptest.HTTPHandler(true, ""))
	t.Cleanup(sse.Close)
	env := map[string]string{"MCP_TOKEN": "tok"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	withToken, err := Expand(ServerConfig{Type: "http", URL: streamable.URL, Headers: map[string]string{"Authorization": "Bearer ${MCP_TOKEN}"}}, lookup)
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{})
	m.Start(Server{Name: "http", Config: withToken})
	m.Start(Server{Name: "nokey", Config: ServerConfig{Type: "http", URL: streamable.URL}})
	m.Start(Server{Name: "sse", Config: ServerConfig{Type: "sse", URL: sse.URL}})
	for _, name := range []string{"http", "sse"} {
		st := waitState(t, m, name, StateConnected, StateFailed)
		if st.State != StateConnected {
			t.Fatalf("%s: %+v", name, st)
		}
		if r := run(t, toolOf(t, m, name, "mcp__"+name+"__echo"), `{"text":"over `+name+`"}`); r.Content != "over "+name {
			t.Errorf("%s echo = %+v", name, r)
		}
	}
	st := waitState(t, m, "nokey", StateFailed)
	if !strings.Contains(st.Error, "answered 401 Unauthorized") || !strings.Contains(st.Error, `"Authorization": "Bearer ${YOUR_TOKEN}"`) {
		t.Errorf("nokey: %q", st.Error)
	}
	m.Close()
}

func TestAddRefusesClashes(t *testing.T) {
	m := newManager(t, Options{})
	if err := m.AddDisabled(Server{Name: "a.b", Config: ServerConfig{Command: "x"}, Scope: ScopeProject}, "not approved"); err != nil {
		t.Fatal(err)
	}
	if err := m.AddDisabled(Server{Name: "a_b", Config: ServerConfig{Command: "x"}}, ""); err == nil {
		t.Error("a clash of tool names was accepted")
	}
	if err := m.AddDisabled(Server{Name: "x", Config: ServerConfig{}}, ""); err == nil {
		t.Error("a server without a command was accepted")
	}
	st, _ := m.Status("a.b")
	if st.State != StateDisabled || st.Error != "not approved" || st.Scope != ScopeProject {
		t.Errorf("status = %+v", st)
	}
}
