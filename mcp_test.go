package nova_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/mcp/mcptest"
)

// testServer is a server definition for the test binary serving mode
// (mcptest), with extra environment.
func testServer(mode string, env map[string]string) mcp.ServerConfig {
	cmd, args, e := mcptest.Command(mode)
	for k, v := range env {
		e[k] = v
	}
	return mcp.ServerConfig{Command: cmd, Args: args, Env: e}
}

// waitMCP waits until the session's server name is in one of states.
func waitMCP(t *testing.T, s *nova.Session, name string, states ...string) nova.MCPServerStatus {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, st := range s.MCPServers() {
			if st.Name == name && (len(states) == 0 || contains(states, st.State)) {
				return st
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server %s never reached %v: %+v", name, states, s.MCPServers())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// anthropicRequest is what the tests read of a Messages request.
type anthropicRequest struct {
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	RawTools json.RawMessage `json:"-"`
}

func decodeRequest(t *testing.T, r llmtest.Request) anthropicRequest {
	t.Helper()
	var req anthropicRequest
	if err := json.Unmarshal(r.Body, &req); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Tools json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(r.Body, &raw)
	req.RawTools = raw.Tools
	return req
}

func (r anthropicRequest) toolNames() []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

func (r anthropicRequest) system() string {
	var b strings.Builder
	for _, s := range r.System {
		b.WriteString(s.Text)
	}
	return b.String()
}

// send runs one prompt to its end and returns the result.
func send(t *testing.T, s *nova.Session, prompt string) nova.Result {
	t.Helper()
	if _, err := collect(t, s, prompt); err != nil {
		t.Fatalf("%s: %v", prompt, err)
	}
	return s.Result()
}

// A server's tools reach the model with their schemas, its instructions
// the system prompt; a read-only tool runs in print mode, results of
// every kind come back as text, and Close stops the server.
func TestMCPToolsThroughTheSDK(t *testing.T) {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("c1", "mcp__t__echo", `{"text":"hi"}`),
			llmtest.ToolUse("c2", "mcp__t__link", `{}`),
		}},
		text("done"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.InMemory = true
	o.Allow = []string{"mcp__t__link"} // not read-only: it would be asked
	o.MCPServers = map[string]mcp.ServerConfig{"t": testServer(mcptest.ModeTools, nil)}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st := waitMCP(t, s, "t", "connected", "failed")
	if st.State != "connected" || st.Tools != 8 || st.Scope != "sdk" || st.Transport != "stdio" {
		t.Fatalf("status = %+v", st)
	}
	res := send(t, s, "use the tools")
	var got []string
	for _, c := range res.ToolCalls {
		got = append(got, c.Name+": "+c.Result)
	}
	want := []string{"mcp__t__echo: hi", "mcp__t__link: [resource link: file:///tmp/report.txt (report), text/plain]"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	first := decodeRequest(t, modelCalls(srv)[0])
	names := first.toolNames()
	for _, n := range []string{"Read", "Bash", "mcp__t__echo", "mcp__t__add", "mcp__t__crash"} {
		if !contains(names, n) {
			t.Errorf("tools lack %s: %v", n, names)
		}
	}
	if contains(names, "ToolSearch") {
		t.Errorf("ToolSearch is listed with nothing deferred: %v", names)
	}
	for _, tl := range first.Tools {
		if tl.Name == "mcp__t__add" && !bytes.Contains(tl.InputSchema, []byte(`"a":{"type":"integer"}`)) {
			t.Errorf("add's schema = %s", tl.InputSchema)
		}
	}
	if sys := first.system(); !strings.Contains(sys, "# MCP server instructions") || !strings.Contains(sys, "## t\n\n"+mcptest.Instructions) {
		t.Errorf("system prompt lacks the instructions:\n%s", sys)
	}
}

// Permission rules apply to MCP tools as to any: a tool that is not
// read-only is asked about (denied in print mode, saying how to allow it);
// mcp__server allows or denies every tool of the server; a bare deny rule
// hides the tools from the model.
func TestMCPPermissions(t *testing.T) {
	tests := []struct {
		name        string
		allow, deny []string
		ask         []string
		mode        string
		tool        string
		want        string // the result, or a part of it
		denied      bool
		hidden      bool
	}{
		{name: "not read-only is asked", tool: "mcp__t__add", want: "needs approval (mcp__t__add may change files or run commands), and nobody can approve it in this non-interactive run. The user can allow it by running again with --allowedTools 'mcp__t__add'.", denied: true},
		{name: "read-only runs", tool: "mcp__t__echo", want: "x"},
		{name: "the server allowed", allow: []string{"mcp__t"}, tool: "mcp__t__add", want: "The sum is 3.\n{\"sum\":3}"},
		{name: "the tool allowed", allow: []string{"mcp__t__add"}, tool: "mcp__t__add", want: "The sum is 3."},
		{name: "another tool allowed", allow: []string{"mcp__t__echo"}, tool: "mcp__t__add", want: "not granted", denied: true},
		{name: "an ask rule", ask: []string{"mcp__t__echo"}, tool: "mcp__t__echo", want: "not granted", denied: true},
		{name: "plan mode", mode: nova.ModePlan, tool: "mcp__t__add", want: "plan mode allows read-only tools only", denied: true},
		{name: "plan mode, read-only", mode: nova.ModePlan, tool: "mcp__t__echo", want: "x"},
		{name: "bypass", mode: nova.ModeBypassPermissions, tool: "mcp__t__add", want: "The sum is 3."},
		{name: "the tool denied and hidden", deny: []string{"mcp__t__add"}, tool: "mcp__t__add", want: "Unknown tool", hidden: true},
		{name: "the server denied and hidden", deny: []string{"mcp__t"}, tool: "mcp__t__echo", want: "Unknown tool", hidden: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := `{"a":1,"b":2}`
			if strings.HasSuffix(tt.tool, "echo") {
				input = `{"text":"x"}`
			}
			srv := llmtest.NewServer(call("c1", tt.tool, input), text("ok"))
			defer srv.Close()
			o := testOptions(t, srv)
			o.InMemory, o.NoContext = true, true
			o.Allow, o.Deny, o.Ask, o.PermissionMode = tt.allow, tt.deny, tt.ask, tt.mode
			o.MCPServers = map[string]mcp.ServerConfig{"t": testServer(mcptest.ModeTools, nil)}
			s, err := nova.Open(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			waitMCP(t, s, "t", "connected")
			res := send(t, s, "go")
			c := res.ToolCalls[0]
			if !strings.Contains(c.Result, tt.want) || c.Denied != tt.denied {
				t.Errorf("call = %+v, want %q (denied %v)", c, tt.want, tt.denied)
			}
			names := decodeRequest(t, modelCalls(srv)[0]).toolNames()
			if contains(names, tt.tool) == tt.hidden {
				t.Errorf("%s listed = %v, want hidden %v", tt.tool, contains(names, tt.tool), tt.hidden)
			}
		})
	}
}

// The tools array is decided once: a server that connects after the first
// request, and a tools/list_changed, change only the deferred tools,
// which are callable by name; every request carries the same bytes.
func TestMCPToolsArrayStaysTheSame(t *testing.T) {
	srv := llmtest.NewServer(
		text("first"),
		call("c1", "mcp__late__echo", `{"text":"from the late one"}`),
		call("c2", "mcp__fast__grow", `{}`),
		text("grown"),
		call("c3", "mcp__fast__extra", `{}`),
		text("done"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.InMemory, o.NoContext = true, true
	o.Allow = []string{"mcp__fast"}
	o.MCPServers = map[string]mcp.ServerConfig{
		"fast": testServer(mcptest.ModeTools, nil),
		"late": testServer(mcptest.ModeSlow, map[string]string{mcptest.EnvDelay: "1500ms"}),
	}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitMCP(t, s, "fast", "connected")
	if st := waitMCP(t, s, "late"); st.State != "connecting" {
		t.Fatalf("late: %+v", st)
	}
	send(t, s, "hello")
	if st := waitMCP(t, s, "late"); st.State != "connecting" {
		t.Logf("late connected before the first request was answered (a slow machine?): %+v", st)
	}
	waitMCP(t, s, "late", "connected")
	res := send(t, s, "call the late one, then grow")
	if res.ToolCalls[0].Result != "from the late one" || res.ToolCalls[1].Result != "grown" {
		t.Fatalf("calls: %+v", res.ToolCalls)
	}
	deadline := time.Now().Add(10 * time.Second)
	for waitMCP(t, s, "fast").Tools != 9 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	res = send(t, s, "call the new tool")
	if res.ToolCalls[0].Result != "extra!" {
		t.Fatalf("extra: %+v", res.ToolCalls[0])
	}

	calls := modelCalls(srv)
	if len(calls) != 6 {
		t.Fatalf("%d requests", len(calls))
	}
	first := decodeRequest(t, calls[0])
	names := first.toolNames()
	if !contains(names, "ToolSearch") || !contains(names, "mcp__fast__echo") || contains(names, "mcp__late__echo") || contains(names, "mcp__fast__extra") {
		t.Fatalf("first request's tools: %v", names)
	}
	for i, c := range calls[1:] {
		if r := decodeRequest(t, c); !bytes.Equal(r.RawTools, first.RawTools) {
			t.Errorf("request %d's tools differ from the first's:\n%s\n%s", i+2, r.RawTools, first.RawTools)
		}
	}
}

// With 200 tools, far beyond a tenth of the window, the first request
// lists ToolSearch and none of them; each is callable by its name.
// MCPToolSearch "never" lists them all, "always" defers even a few.
func TestMCPManyToolsAreDeferred(t *testing.T) {
	tests := []struct {
		name, mode, serverMode string
		listed                 int // MCP tools listed
		search                 bool
	}{
		{"200 tools, auto", "", mcptest.ModeMany, 0, true},
		{"200 tools, never", "never", mcptest.ModeMany, 200, false},
		{"a few tools, always", "always", mcptest.ModeTools, 0, true},
		{"a few tools, auto", "auto", mcptest.ModeTools, 8, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := "mcp__s__tool007"
			input := `{"query":"x"}`
			if tt.serverMode == mcptest.ModeTools {
				tool, input = "mcp__s__echo", `{"text":"tool007 found nothing"}`
			}
			srv := llmtest.NewServer(call("c1", tool, input), text("ok"))
			defer srv.Close()
			o := testOptions(t, srv)
			o.InMemory, o.NoContext = true, true
			o.MCPToolSearch = tt.mode
			o.MCPServers = map[string]mcp.ServerConfig{"s": testServer(tt.serverMode, nil)}
			s, err := nova.Open(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			waitMCP(t, s, "s", "connected")
			res := send(t, s, "go")
			if c := res.ToolCalls[0]; c.Result != "tool007 found nothing" {
				t.Errorf("call by name: %+v", c)
			}
			names := decodeRequest(t, modelCalls(srv)[0]).toolNames()
			n := 0
			for _, x := range names {
				if strings.HasPrefix(x, "mcp__s__") {
					n++
				}
			}
			if n != tt.listed || contains(names, "ToolSearch") != tt.search {
				t.Errorf("listed %d MCP tools (ToolSearch %v), want %d (%v)", n, contains(names, "ToolSearch"), tt.listed, tt.search)
			}
		})
	}
	if _, err := nova.Open(context.Background(), nova.Options{MCPToolSearch: "sometimes", Dir: t.TempDir(), DataDir: t.TempDir(), InMemory: true,
		Getenv: func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "k"}[k] }}); err == nil || !strings.Contains(err.Error(), "auto, always or never") {
		t.Errorf("a bad MCPToolSearch: %v", err)
	}
}
