package tui

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

var repoServers = []MCPApproval{
	{Name: "db", Transport: "stdio", Describe: "pg-mcp --url ${DATABASE_URL}", File: "/home/me/src/app/.mcp.json"},
	{Name: "issues", Transport: "http", Describe: "https://mcp.example.com/mcp", File: "/home/me/src/app/.mcp.json", Changed: true},
	{Name: "fs", Transport: "stdio", Describe: "npx -y @modelcontextprotocol/server-filesystem /home/me/notes", File: "/home/me/src/app/.mcp.json"},
}

func TestMCPApprovalKeys(t *testing.T) {
	tests := []struct {
		name string
		keys []tea.KeyPressMsg
		want []string
		done bool
	}{
		{"enter approves all (the first choice)", []tea.KeyPressMsg{key(tea.KeyEnter)}, []string{"db", "issues", "fs"}, true},
		{"3 denies all", []tea.KeyPressMsg{key('3'), key(tea.KeyEnter)}, nil, true},
		{"up wraps to deny all", []tea.KeyPressMsg{key(tea.KeyUp), key(tea.KeyEnter)}, nil, true},
		{"each: yes, no, yes", []tea.KeyPressMsg{key('2'), key(tea.KeyEnter), key(tea.KeyEnter), key(tea.KeyDown), key(tea.KeyEnter), key('1'), key(tea.KeyEnter)}, []string{"db", "fs"}, true},
		{"each, then esc quits without an answer", []tea.KeyPressMsg{key(tea.KeyDown), key(tea.KeyEnter), key(tea.KeyEnter), key(tea.KeyEscape)}, []string{"db"}, false},
		{"ctrl+c quits without an answer", []tea.KeyPressMsg{key('c', tea.ModCtrl)}, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &mcpApproveModel{servers: repoServers, width: 80, height: 24}
			quit := false
			for _, k := range tc.keys {
				if _, cmd := m.Update(k); cmd != nil {
					_, quit = cmd().(tea.QuitMsg)
				}
			}
			if d := cmp.Diff(tc.want, m.approved); d != "" {
				t.Errorf("approved (-want +got):\n%s", d)
			}
			if m.done != tc.done || !quit {
				t.Errorf("done = %v, quit = %v", m.done, quit)
			}
		})
	}
}

func TestMCPApprovalScreen(t *testing.T) {
	tests := []struct {
		name          string
		each          int // -1: the first screen
		width, height int
	}{
		{"mcp-approve.golden", -1, 80, 24},
		{"mcp-approve-short.golden", -1, 60, 18},
		{"mcp-approve-each.golden", 1, 80, 24},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &mcpApproveModel{servers: repoServers}
			m.Update(tea.WindowSizeMsg{Width: tc.width, Height: tc.height})
			if tc.each >= 0 {
				m.each, m.cur = true, tc.each
			}
			got := m.Screen()
			for i, l := range strings.Split(got, "\n") {
				if w := len([]rune(l)); w > tc.width {
					t.Errorf("line %d is %d wide", i, w)
				}
			}
			if n := strings.Count(got, "\n") + 1; n > tc.height {
				t.Errorf("%d lines in a window of %d", n, tc.height)
			}
			golden(t, tc.name, got)
		})
	}
	// What the repository wrote is shown as text, never as escapes.
	m := &mcpApproveModel{servers: []MCPApproval{{Name: "x\x1b[2J", Transport: "stdio", Describe: "run\u202e\x07"}}, width: 80, height: 24}
	if got := m.Screen(); strings.ContainsAny(got, "\x1b\x07\u202e") {
		t.Fatalf("screen:\n%q", got)
	}
}

// AskMCPServers runs the dialog as a program of its own.
func TestAskMCPServers(t *testing.T) {
	tests := []struct {
		input string
		want  []string
		err   error
	}{
		{"\r", []string{"db", "issues", "fs"}, nil},
		{"3\r", nil, nil},
		{"2\r\r2\r\r", []string{"db", "fs"}, nil},
		{"\x03", nil, ErrMCPNoAnswer},
	}
	for _, tc := range tests {
		t.Run(strings.ReplaceAll(tc.input, "\r", "⏎"), func(t *testing.T) {
			r, w := io.Pipe()
			go func() {
				_, _ = w.Write([]byte(tc.input))
			}()
			got, err := AskMCPServers(context.Background(), repoServers, r, io.Discard)
			w.Close()
			if !errors.Is(err, tc.err) || !cmp.Equal(got, tc.want) {
				t.Fatalf("AskMCPServers = %v, %v; want %v, %v", got, err, tc.want, tc.err)
			}
		})
	}
}

var mcpServers = []MCPServer{
	{Name: "everything", Scope: "flag", Source: "/tmp/servers.json", Transport: "stdio", Describe: "mcp-server-everything", State: "connected",
		Tools: []string{"mcp__everything__echo", "mcp__everything__get-sum"}, Warning: "dropped 2 lines of standard output that were not JSON-RPC"},
	{Name: "repo", Scope: "project", Source: "/w/.mcp.json", Transport: "stdio", Describe: "repo-server", State: "disabled", Error: "you declined it"},
	{Name: "slow", Scope: "user", Transport: "http", Describe: "https://example.com/mcp", State: "connecting"},
}

// /mcp lists the servers; /mcp NAME shows one and its tools.
func TestMCPCommand(t *testing.T) {
	m := plainModel(Options{MCPServers: func() []MCPServer { return mcpServers }})
	defer m.Close()
	submit(m, "/mcp")
	want := "MCP servers (/mcp NAME shows one and its tools):\n" +
		"  everything  flag · connected · 2 tools\n" +
		"  repo        project · disabled — you declined it\n" +
		"  slow        user · connecting"
	if got := m.blocks[len(m.blocks)-1].text.String(); got != want {
		t.Errorf("/mcp:\n%s\nwant:\n%s", got, want)
	}
	submit(m, "/mcp everything")
	want = "MCP server everything · flag · connected · 2 tools\n" +
		"  stdio: mcp-server-everything\n" +
		"  defined in /tmp/servers.json (flag)\n" +
		"  warning: dropped 2 lines of standard output that were not JSON-RPC\n" +
		"  Tools:\n" +
		"    mcp__everything__echo\n" +
		"    mcp__everything__get-sum"
	if got := m.blocks[len(m.blocks)-1].text.String(); got != want {
		t.Errorf("/mcp everything:\n%s\nwant:\n%s", got, want)
	}
	submit(m, "/mcp nope")
	if b := m.blocks[len(m.blocks)-1]; b.kind != kindError || b.text.String() != "/mcp: no MCP server nope (the servers: everything, repo, slow)" {
		t.Errorf("/mcp nope: %q", b.text.String())
	}

	none := plainModel(Options{})
	defer none.Close()
	submit(none, "/mcp")
	if got := none.blocks[len(none.blocks)-1].text.String(); !strings.HasPrefix(got, "No MCP servers.") {
		t.Errorf("/mcp without servers: %q", got)
	}
}

// promptRunner hands over the prompts it is given and yields nothing.
type promptRunner chan string

func (r promptRunner) Run(_ context.Context, prompt string) iter.Seq[event.Event] {
	r <- prompt
	return func(func(event.Event) bool) {}
}

func submit(m *Model, text string) { m.submit(text) }

// An MCP prompt command goes to the Runner as typed: the SDK fills it in.
func TestMCPPromptCommandIsSent(t *testing.T) {
	r := make(promptRunner, 1)
	m := plainModel(Options{Runner: r})
	defer m.Close()
	submit(m, "/mcp__everything__args-prompt Paris")
	if got := recv(t, r, "prompt"); got != "/mcp__everything__args-prompt Paris" {
		t.Errorf("runner got %q", got)
	}
	if b := m.blocks[0]; b.kind != kindUser || b.text.String() != "/mcp__everything__args-prompt Paris" {
		t.Errorf("timeline: %v %q", b.kind, b.text.String())
	}
}

// @ completes MCP resources besides paths, / MCP prompts besides the
// commands; both are asked of the servers in the background.
func TestMCPCompletion(t *testing.T) {
	asked := 0
	m := plainModel(Options{Dir: pathTree(t),
		MCPResources: func(context.Context) ([]MCPResource, error) {
			asked++
			return []MCPResource{
				{Server: "everything", URI: "demo://resource/static/document/architecture.md", Name: "architecture.md"},
				{Server: "docs", URI: "file:///guide", Name: "The guide"},
			}, nil
		},
		MCPPrompts: func(context.Context) ([]MCPPrompt, error) {
			return []MCPPrompt{
				{Name: "mcp__everything__simple-prompt", Usage: "/mcp__everything__simple-prompt", Description: "A prompt with no arguments"},
				{Name: "mcp__everything__args-prompt", Usage: "/mcp__everything__args-prompt CITY [STATE]", Description: "A prompt with two arguments", Args: true},
			}, nil
		},
	})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})

	_, cmd := m.Update(key('@'))
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	if asked != 1 {
		t.Fatalf("resources asked %d times", asked)
	}
	typeText(m, "ev")
	if d := cmp.Diff([]string{"everything:demo://resource/static/document/architecture.md"}, m.comp.matches); d != "" {
		t.Errorf("matches (-want +got):\n%s", d)
	}
	press(m, key(tea.KeyTab))
	if got := m.input.Value(); got != "@everything:demo://resource/static/document/architecture.md" {
		t.Errorf("after tab: %q", got)
	}
	if len(m.comp.matches) != 0 {
		t.Errorf("list still open: %q", m.comp.matches)
	}
	// A resource and paths together: resources that begin with the query
	// first; the line shows the resource's name and is cut to the width.
	m.input.Reset()
	typeText(m, " @d")
	if len(m.comp.matches) < 2 || m.comp.matches[0] != "docs:file:///guide" {
		t.Fatalf("matches = %q", m.comp.matches)
	}
	if !strings.Contains(m.Screen(), "❯ @docs:file:///guide  The guide") {
		t.Errorf("screen:\n%s", m.Screen())
	}

	// / at the start of the input: the commands and the prompts.
	m.input.Reset()
	_, cmd = m.Update(key('/'))
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	typeText(m, "mc")
	want := []string{"mcp", "mcp__everything__simple-prompt", "mcp__everything__args-prompt"}
	if d := cmp.Diff(want, m.comp.matches); d != "" {
		t.Errorf("matches (-want +got):\n%s", d)
	}
	screen := m.Screen()
	for _, line := range []string{"❯ /mcp  list the MCP servers", "  /mcp__everything__args-prompt  CITY [STATE] · A prompt with two arguments"} {
		if !strings.Contains(screen, line) {
			t.Errorf("screen lacks %q:\n%s", line, screen)
		}
	}
	press(m, key(tea.KeyDown), key(tea.KeyDown), key(tea.KeyTab))
	if got := m.input.Value(); got != "/mcp__everything__args-prompt " {
		t.Errorf("after tab: %q", got)
	}
	submit(m, "/help")
	if !strings.Contains(lastText(m), "/mcp__SERVER__PROMPT args  an MCP server's prompt (type / to list them)") {
		t.Errorf("/help:\n%s", lastText(m))
	}
	// Not at the start of the input: no commands.
	m.input.Reset()
	typeText(m, "see /mc")
	if len(m.comp.matches) != 0 {
		t.Errorf("commands offered mid-prompt: %q", m.comp.matches)
	}
}
