package nova_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/mcp/mcptest"
)

// lastUserBlocks are the text blocks of the last message of an Anthropic
// request.
func lastUserBlocks(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	if last.Role != "user" {
		t.Fatalf("last message is the %s's", last.Role)
	}
	var out []string
	for _, c := range last.Content {
		if c.Type == "text" {
			out = append(out, c.Text)
		}
	}
	return out
}

// mcpSession opens an in-memory session with the mcptest server "t",
// without the preamble, and waits for the server.
func mcpSession(t *testing.T, srv *llmtest.Server) *nova.Session {
	t.Helper()
	o := testOptions(t, srv)
	o.InMemory, o.NoContext = true, true
	o.MCPServers = map[string]mcp.ServerConfig{"t": testServer(mcptest.ModeTools, nil)}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// @server:uri attaches the resource: text in a block labelled with its URI
// after the prompt's, binary contents saved and named; a resource the
// server does not have and a server the session does not have are
// warnings, and the prompt goes without them; a file mention is left
// alone.
func TestMCPResourceMentions(t *testing.T) {
	srv := llmtest.NewServer(text("ok"))
	defer srv.Close()
	s := mcpSession(t, srv)
	// Sent at once: the mention waits for the server's start.
	prompt := "compare @t:test://greeting with @t:test://pixel.png. Also @t:test://nothing, @nosuch:demo://x and @src/main.go:12 (and @t:test://greeting again)"
	evs, err := collect(t, s, prompt)
	if err != nil {
		t.Fatal(err)
	}
	ws := warnings(evs)
	if len(ws) != 2 ||
		!strings.HasPrefix(ws[0], "could not attach @t:test://nothing: MCP server t could not read test://nothing: ") ||
		!strings.HasSuffix(ws[0], "; the prompt was sent without it") ||
		ws[1] != "@nosuch:demo://x names no MCP server of this session (its servers: t); the prompt was sent with the mention as written and nothing attached" {
		t.Errorf("warnings = %q", ws)
	}
	calls := modelCalls(srv)
	if len(calls) != 1 {
		t.Fatalf("%d model calls", len(calls))
	}
	blocks := lastUserBlocks(t, calls[0])
	if len(blocks) != 3 {
		t.Fatalf("blocks = %q", blocks)
	}
	if blocks[0] != prompt {
		t.Errorf("prompt = %q", blocks[0])
	}
	wantText := "<system-reminder>\nThe user attached @t:test://greeting.\n--- test://greeting (text/plain, MCP resource of t) ---\n" + mcptest.Greeting + "\n</system-reminder>"
	if blocks[1] != wantText {
		t.Errorf("text attachment:\n%s\nwant:\n%s", blocks[1], wantText)
	}
	head := "<system-reminder>\nThe user attached @t:test://pixel.png.\n--- test://pixel.png (image/png, MCP resource of t) ---\n[binary contents, 67 bytes, saved to "
	rest, ok := strings.CutPrefix(blocks[2], head)
	path, ok2 := strings.CutSuffix(rest, "]\n</system-reminder>")
	if !ok || !ok2 || filepath.Base(filepath.Dir(path)) != "mcp-resources" || filepath.Ext(path) != ".png" {
		t.Fatalf("binary attachment:\n%s", blocks[2])
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != string(mcptest.PNG) {
		t.Errorf("saved contents: %v", err)
	}
	if res := s.Result(); res.Reason != event.ReasonDone || res.Text != "ok" {
		t.Errorf("result = %+v", res)
	}
}

// MCPResources and MCPPrompts list what the servers offer, for completion.
func TestMCPResourcesAndPromptsListed(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	s := mcpSession(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rs, err := s.MCPResources(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []nova.MCPResource{
		{Server: "t", URI: mcptest.GreetingURI, Name: "greeting", Description: "A friendly text.", MIMEType: "text/plain"},
		{Server: "t", URI: mcptest.PixelURI, Name: "pixel", Description: "A tiny image.", MIMEType: "image/png"},
	}
	if d := cmp.Diff(want, rs); d != "" {
		t.Errorf("resources (-want +got):\n%s", d)
	}
	if got := rs[0].Mention(); got != "@t:test://greeting" {
		t.Errorf("mention = %q", got)
	}
	ps, err := s.MCPPrompts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantPrompts := []nova.MCPPrompt{
		{Name: "mcp__t__greet", Server: "t", Prompt: "greet", Description: "Greets the user."},
		{Name: "mcp__t__review", Server: "t", Prompt: "review", Description: "Reviews a file.", Arguments: []nova.MCPPromptArgument{
			{Name: "file", Description: "the file to review", Required: true}, {Name: "focus", Description: "what to look at"}}},
	}
	if d := cmp.Diff(wantPrompts, ps); d != "" {
		t.Errorf("prompts (-want +got):\n%s", d)
	}
	if got := ps[1].Usage(); got != "/mcp__t__review FILE [FOCUS]" {
		t.Errorf("usage = %q", got)
	}
}

// /mcp__server__prompt args is the server's prompt, filled in with the
// arguments in order (split like a shell line); a command that cannot be
// filled in is an error to the person and sends nothing.
func TestMCPPromptCommands(t *testing.T) {
	srv := llmtest.NewServer(text("reviewed"), text("hello!"))
	defer srv.Close()
	s := mcpSession(t, srv)

	fails := []struct{ prompt, err string }{
		{"/mcp__t__review", "/mcp__t__review needs the argument file (the file to review); nothing was sent. Usage: /mcp__t__review FILE [FOCUS]"},
		{"/mcp__t__review a b c", "/mcp__t__review takes 2 argument(s), not 3: /mcp__t__review FILE [FOCUS] (quote an argument that holds spaces)"},
		{"/mcp__t__review 'a b", "/mcp__t__review: a ' quote is not closed"},
		{"/mcp__t__greet now", "/mcp__t__greet takes no arguments"},
		{"/mcp__t__nope", "/mcp__t__nope: MCP server t has no such prompt (its prompts: /mcp__t__greet, /mcp__t__review)"},
		{"/mcp__x__y", "/mcp__x__y: no MCP server of this session has that prefix (its servers: t)"},
	}
	for _, f := range fails {
		evs, err := collect(t, s, f.prompt)
		if err == nil || err.Error() != f.err {
			t.Errorf("%s: error %v, want %q", f.prompt, err, f.err)
		}
		if lc, ok := evs[len(evs)-1].(event.LoopComplete); !ok || lc.Reason != event.ReasonError || lc.Error != f.err {
			t.Errorf("%s: last event %#v", f.prompt, evs[len(evs)-1])
		}
	}
	if n := len(modelCalls(srv)); n != 0 {
		t.Fatalf("%d model calls for commands that failed", n)
	}

	send(t, s, `/mcp__t__review  "main.go"   'error handling'`)
	send(t, s, "  /mcp__t__greet")
	calls := modelCalls(srv)
	if len(calls) != 2 {
		t.Fatalf("%d model calls", len(calls))
	}
	want := "Review main.go, focusing on error handling.\n\n[resource test://greeting, text/plain]\n" + mcptest.Greeting
	if got := lastUserBlocks(t, calls[0]); !slices.Equal(got, []string{want}) {
		t.Errorf("first prompt = %q", got)
	}
	if got := lastUserBlocks(t, calls[1]); !slices.Equal(got, []string{"Say hello to the user."}) {
		t.Errorf("second prompt = %q", got)
	}
}

// Without MCP servers a prompt command is an error, and a mention that
// looks like one is a warning.
func TestMCPInputWithoutServers(t *testing.T) {
	srv := llmtest.NewServer(text("ok"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.InMemory, o.NoContext = true, true
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := collect(t, s, "/mcp__a__b"); err == nil || err.Error() != "/mcp__a__b: this session has no MCP servers" {
		t.Errorf("error = %v", err)
	}
	evs, err := collect(t, s, "read @docs:file:///README.md")
	if err != nil {
		t.Fatal(err)
	}
	if ws := warnings(evs); len(ws) != 1 || !strings.Contains(ws[0], "(this session has no MCP servers)") {
		t.Errorf("warnings = %q", ws)
	}
	if rs, err := s.MCPResources(context.Background()); rs != nil || err != nil {
		t.Errorf("resources = %v, %v", rs, err)
	}
}

// The servers decided already start while the person is asked about those
// of .mcp.json: the question does not delay them. An approved server
// starts once answered, a declined one says so.
func TestMCPApprovalDoesNotDelayOthers(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	o := testOptions(t, srv)
	o.InMemory = true
	userPids := filepath.Join(t.TempDir(), "pids")
	o.MCPServers = map[string]mcp.ServerConfig{"mine": testServer(mcptest.ModeTools, map[string]string{mcptest.EnvPIDFile: userPids})}
	putFile(t, filepath.Join(o.Dir, ".mcp.json"), mcpJSON(t, map[string]mcp.ServerConfig{
		"yes": testServer(mcptest.ModeTools, nil),
		"no":  testServer(mcptest.ModeTools, nil),
	}))
	o.ApproveMCPServers = func(ctx context.Context, infos []nova.MCPServerInfo) ([]string, error) {
		deadline := time.Now().Add(20 * time.Second)
		for {
			if b, _ := os.ReadFile(userPids); len(b) > 0 {
				return []string{"yes"}, nil
			}
			if time.Now().After(deadline) {
				t.Error("the user's server did not start while the person was asked")
				return nil, nil
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	settle(t, s)
	if d := cmp.Diff([]string{"mine sdk connected", "no project disabled", "yes project connected"}, states(s)); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
	for _, st := range s.MCPServers() {
		if st.Name == "no" && st.Error != "you declined it" {
			t.Errorf("no: %+v", st)
		}
	}
}
