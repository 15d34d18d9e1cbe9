package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// serverTool stands for a tool of an MCP server: a name, a description and
// a JSON schema of its own; a call answers with its reply and the input.
type serverTool struct {
	name, desc, schema, reply string
}

func (t serverTool) Name() string            { return t.name }
func (t serverTool) Description() string     { return t.desc }
func (t serverTool) Schema() json.RawMessage { return json.RawMessage(t.schema) }
func (t serverTool) ReadOnly() bool          { return false }
func (t serverTool) Run(_ context.Context, _ *tool.Env, in json.RawMessage) (tool.Result, error) {
	return tool.Result{Content: t.reply + " " + string(in)}, nil
}

const textSchema = `{"type":"object","properties":{"text":{"type":"string","description":"what to send"}},"required":["text"]}`

// byID returns the tool results of evs by call id.
func byID(evs []event.Event) map[string]event.ToolResult {
	out := map[string]event.ToolResult{}
	for _, r := range results(evs) {
		out[r.ID] = r
	}
	return out
}

// checkToolsStable fails unless every request sent the same tools array,
// byte for byte, and returns it.
func checkToolsStable(t *testing.T, reqs []recorded) []llm.ToolSpec {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("no requests")
	}
	for i, r := range reqs[1:] {
		if string(r.Tools) != string(reqs[0].Tools) {
			t.Fatalf("request %d sent other tools than request 0:\n%s\nwant\n%s", i+1, r.Tools, reqs[0].Tools)
		}
	}
	var specs []llm.ToolSpec
	if err := json.Unmarshal(reqs[0].Tools, &specs); err != nil {
		t.Fatal(err)
	}
	return specs
}

func specNames(specs []llm.ToolSpec) []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	return out
}

// wantResult checks one tool result: its error flag and what it contains.
func wantResult(t *testing.T, rs map[string]event.ToolResult, id string, isErr bool, subs ...string) {
	t.Helper()
	r, ok := rs[id]
	if !ok {
		t.Errorf("no result for %s", id)
		return
	}
	if r.IsError != isErr {
		t.Errorf("%s: is_error = %v, want %v: %s", id, r.IsError, isErr, r.Content)
	}
	for _, s := range subs {
		if !strings.Contains(r.Content, s) {
			t.Errorf("%s: result lacks %q:\n%s", id, s, r.Content)
		}
	}
}

// TestDeferredToolsKeepTheToolsArray runs two runs on one conversation
// while deferred tools are added, replaced and removed (between requests,
// between runs, and all along from another goroutine, as servers that
// connect late would): every request sends the same tools array, a deferred
// tool runs when called by its exact name, and ToolSearch returns the
// schemas of what it finds.
func TestDeferredToolsKeepTheToolsArray(t *testing.T) {
	reg := testTools(newProbe())
	reg.Register(builtin.NewToolSearch(reg))
	reg.Defer(serverTool{"mcp__srv__echo", "Echoes text back.", textSchema, "echo v1"})
	ping := serverTool{"mcp__late__ping", "Pings a host.", `{"type":"object","properties":{"host":{"type":"string"}}}`, "pong"}
	pongSchema := `{"type":"object","properties":{"count":{"type":"integer"}}}`

	fc := &fakeClient{scripts: [][]step{
		// Run 1. A deferred tool called by name before any search.
		{call(0, "e1", "mcp__srv__echo", `{"text":"hi"}`), end(llm.StopToolUse, 1, 1)},
		{
			call(0, "s1", "ToolSearch", `{"query":"ping host"}`),
			call(1, "e2", "mcp__srv__echo", `{"text":"again"}`),
			call(2, "u1", "mcp__gone__x", `{}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("run 1 done"),
		// Run 2.
		{
			call(0, "e3", "mcp__srv__echo", `{"text":"gone?"}`),
			call(1, "s2", "ToolSearch", `{"query":"select:mcp__late__pong,mcp__late__ping"}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("run 2 done"),
	}}
	fc.onRequest = func(i int) {
		switch i {
		case 1: // a server's list changed, another one connected late
			reg.Defer(serverTool{"mcp__srv__echo", "Echoes text back, louder.", textSchema, "echo v2"})
			reg.Defer(ping)
		case 3:
			reg.RemoveDeferred("mcp__late__ping")
		}
	}

	// A server that keeps changing its tools all along.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("mcp__churn__t%d", i%5)
			if i%3 == 2 {
				reg.RemoveDeferred(name)
			} else {
				reg.Defer(serverTool{name, "Changes all the time.", `{"type":"object"}`, "churned"})
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()

	a := &agent.Agent{
		Client: fc, Model: "claude-sonnet-4-5", Tools: reg,
		Env:         &tool.Env{Dir: os.TempDir(), Files: tool.NewFileState()},
		Permissions: agent.AllowAll,
	}
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, a, context.Background(), conv)
	if lc := last(evs); lc.Reason != event.ReasonDone || lc.FinalText != "run 1 done" {
		t.Fatalf("run 1: %+v", lc)
	}
	rs := byID(evs)

	// Between the runs: a server went away, another added a tool.
	reg.RemoveDeferred("mcp__srv__echo")
	reg.Defer(serverTool{"mcp__late__pong", "Counts pongs.", pongSchema, "counted"})
	conv.AddUser("more")
	evs = collect(t, a, context.Background(), conv)
	if lc := last(evs); lc.Reason != event.ReasonDone || lc.FinalText != "run 2 done" {
		t.Fatalf("run 2: %+v", lc)
	}
	for id, r := range byID(evs) {
		rs[id] = r
	}

	wantResult(t, rs, "e1", false, `echo v1 {"text":"hi"}`)
	wantResult(t, rs, "s1", false, `<function>{"description":"Pings a host.","name":"mcp__late__ping","parameters":`+ping.schema+`}</function>`)
	wantResult(t, rs, "e2", false, `echo v2 {"text":"again"}`)
	wantResult(t, rs, "u1", true, `Unknown tool "mcp__gone__x". Available tools: Look, Change, Boom, Big, ToolSearch.`, "find them with ToolSearch")
	wantResult(t, rs, "e3", true, `Unknown tool "mcp__srv__echo"`)
	wantResult(t, rs, "s2", false, `"name":"mcp__late__pong","parameters":`+pongSchema, "No deferred tool is named mcp__late__ping")

	reqs := fc.reqs()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	specs := checkToolsStable(t, reqs)
	if diff := cmp.Diff([]string{"Look", "Change", "Boom", "Big", "ToolSearch"}, specNames(specs)); diff != "" {
		t.Errorf("tools sent (-want +got):\n%s", diff)
	}
}

// bigServer returns n tools of one MCP server, each with a realistic
// description and a schema of about 300 bytes.
func bigServer(server string, n int, version string) []tool.Tool {
	ts := make([]tool.Tool, n)
	for i := range ts {
		ts[i] = serverTool{
			name: fmt.Sprintf("mcp__%s__tool_%03d", server, i),
			desc: fmt.Sprintf("Looks up records of kind %03d in the %s inventory service by id or filter and returns them as JSON, newest first, in pages (%s).", i, server, version),
			schema: `{"type":"object","properties":{` +
				`"id":{"type":"string","description":"The record's id"},` +
				`"filter":{"type":"string","description":"A filter such as status:open"},` +
				`"limit":{"type":"integer","description":"Records per page, 1 to 100"},` +
				`"cursor":{"type":"string","description":"The next page's cursor"}},"additionalProperties":false}`,
			reply: fmt.Sprintf("%s tool %03d %s:", server, i, version),
		}
	}
	return ts
}

// TestToolSearchAtScale: 200 tools of one server in a 200k window are
// deferred; the requests list ToolSearch and not their schemas; a server
// that connects late and a list that changes leave the tools array
// byte-identical across the session.
func TestToolSearchAtScale(t *testing.T) {
	const window = 200_000
	big := bigServer("big", 200, "v1")
	if n := len(big[0].Schema()); n < 250 || n > 350 {
		t.Fatalf("schema of %d bytes, want about 300", n)
	}
	bigBytes := tool.SpecTokens(big) * 4
	listed, deferred := tool.Partition(big, window, tool.ToolSearchAuto, tool.DefaultToolSearchThreshold)
	if len(listed) != 0 || len(deferred) != 200 {
		t.Fatalf("Partition listed %d and deferred %d of 200 tools taking ~%d tokens in a %d window", len(listed), len(deferred), tool.SpecTokens(big), window)
	}

	reg := tool.NewRegistry(builtin.All()...)
	reg.Register(builtin.NewToolSearch(reg))
	for _, t := range deferred {
		reg.Defer(t)
	}
	want, err := json.Marshal(reg.Specs())
	if err != nil {
		t.Fatal(err)
	}

	fc := &fakeClient{scripts: [][]step{
		// Run 1.
		{call(0, "s1", "ToolSearch", `{"query":"select:mcp__big__tool_007"}`), end(llm.StopToolUse, 1, 1)},
		{
			call(0, "s2", "ToolSearch", `{"query":"warehouse","max_results":20}`),
			call(1, "c1", "mcp__late__tool_003", `{"id":"x"}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("run 1 done"),
		// Run 2, after the big server's list changed.
		{
			call(0, "s3", "ToolSearch", `{"query":"select:mcp__big__tool_001,mcp__big__tool_199"}`),
			call(1, "c2", "mcp__big__tool_002", `{"id":"y"}`),
			end(llm.StopToolUse, 1, 1),
		},
		answer("run 2 done"),
	}}
	fc.onRequest = func(i int) {
		if i == 0 { // a server connects late
			for _, t := range bigServer("late", 10, "warehouse") {
				reg.Defer(t)
			}
		}
	}
	a := &agent.Agent{
		Client: fc, Model: "claude-sonnet-4-5", Tools: reg,
		Env:         &tool.Env{Dir: t.TempDir(), Files: tool.NewFileState()},
		Permissions: agent.AllowAll,
	}
	conv := agent.NewConversation("s", "", "go")
	evs := collect(t, a, context.Background(), conv)
	if lc := last(evs); lc.Reason != event.ReasonDone {
		t.Fatalf("run 1: %+v", lc)
	}
	rs := byID(evs)

	// list_changed: five tools of the big server are replaced.
	for _, t := range bigServer("big", 5, "v2") {
		reg.Defer(t)
	}
	conv.AddUser("more")
	evs = collect(t, a, context.Background(), conv)
	if lc := last(evs); lc.Reason != event.ReasonDone {
		t.Fatalf("run 2: %+v", lc)
	}
	for id, r := range byID(evs) {
		rs[id] = r
	}

	reqs := fc.reqs()
	if len(reqs) != 5 {
		t.Fatalf("%d requests, want 5", len(reqs))
	}
	specs := checkToolsStable(t, reqs)
	if string(reqs[0].Tools) != string(want) {
		t.Errorf("the first request's tools are not the listed tools:\n%s\nwant\n%s", reqs[0].Tools, want)
	}
	if n := len(specs); n != len(builtin.All())+1 || specs[n-1].Name != "ToolSearch" {
		t.Errorf("sent %d tools %v, want the built-ins and ToolSearch", n, specNames(specs))
	}
	if strings.Contains(string(reqs[0].Tools), "mcp__big") {
		t.Error("the big server's tools are in the tools array")
	}
	// The deferred schemas alone would take more than a tenth of the window.
	sent := len(reqs[0].Tools)
	t.Logf("tools array: %d bytes for %d tools; the 200 deferred specs: %d bytes", sent, len(specs), bigBytes)
	if sent >= bigBytes || sent/4 > window/10 {
		t.Errorf("tools array of %d bytes (~%d tokens); the deferred specs take %d bytes", sent, sent/4, bigBytes)
	}

	wantResult(t, rs, "s1", false, "Loaded 1 deferred tool.", `"name":"mcp__big__tool_007","parameters":`+string(big[7].Schema()))
	if got := strings.Count(rs["s2"].Content, "<function>"); got != 10 {
		t.Errorf("the search for the late server's tools found %d, want 10:\n%s", got, rs["s2"].Content)
	}
	wantResult(t, rs, "c1", false, `late tool 003 warehouse: {"id":"x"}`)
	wantResult(t, rs, "s3", false, "Loaded 2 deferred tools.", "(v2)", `"name":"mcp__big__tool_199"`)
	wantResult(t, rs, "c2", false, `big tool 002 v2: {"id":"y"}`)
}
