//go:build unix

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp/mcptest"
)

// A cloned repository's .mcp.json in the terminal: the approval dialog asks
// before the UI starts; approved, the server runs, /mcp shows it and its
// tools, and one of its prompts is a slash command. The answer is
// remembered: the next session asks nothing.
func TestTUIMCPApprovalAndServers(t *testing.T) {
	needTmux(t)
	ws, home := t.TempDir(), t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pids")
	mcpConfig(t, filepath.Join(ws, ".mcp.json"), "repo", mcptest.ModeTools, pidFile)
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Hello there!")}})
	defer srv.Close()

	s := startTUI(t, "mcpapprove", srv, ws, home, "")
	scr := s.waitFor("Start the MCP servers of this project?")
	for _, want := range []string{filepath.Join(ws, ".mcp.json"), "  • repo", "runs ", "❯ 1. Approve all", "2. Approve each", "3. Deny all"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, scr)
		}
	}
	if ps := pidsIn(t, pidFile); len(ps) != 0 {
		t.Fatalf("the server started before it was approved: %v", ps)
	}
	s.run("send-keys", "-t", s.name, "Enter")
	s.waitFor("claude-sonnet-4-5 · default") // the TUI, past the dialog

	mcpShows(s, "repo  project · connected · 8 tools")
	s.run("send-keys", "-t", s.name, "-l", "/mcp repo")
	s.run("send-keys", "-t", s.name, "Enter")
	scr = s.waitFor("mcp__repo__link")
	for _, want := range []string{"MCP server repo · project · connected · 8 tools", "defined in " + filepath.Join(ws, ".mcp.json") + " (project)", "mcp__repo__echo"} {
		if !strings.Contains(scr, want) {
			t.Errorf("/mcp repo lacks %q:\n%s", want, scr)
		}
	}

	// A prompt of the server, completed with Tab and sent.
	s.run("send-keys", "-t", s.name, "-l", "/mcp__repo__gr")
	s.waitFor("❯ /mcp__repo__greet")
	s.run("send-keys", "-t", s.name, "Tab")
	s.waitFor("> /mcp__repo__greet")
	s.run("send-keys", "-t", s.name, "Enter")
	s.waitFor("Hello there!")
	calls := modelCalls(srv)
	if len(calls) != 1 || lastUserText(t, calls[0]) != "Say hello to the user." {
		t.Fatalf("the model got %d calls; the prompt: %q", len(calls), lastUserText(t, calls[len(calls)-1]))
	}
	s.run("send-keys", "-t", s.name, "C-c")
	s.run("send-keys", "-t", s.name, "C-c")
	s.waitFor("nova exited 0")

	// Remembered: no dialog, the server starts.
	s2 := startTUI(t, "mcpapprove2", srv, ws, home, "")
	s2.waitFor("claude-sonnet-4-5 · default")
	scr = mcpShows(s2, "repo  project · connected · 8 tools")
	if strings.Contains(scr, "Start the MCP servers") {
		t.Errorf("asked again:\n%s", scr)
	}
	s2.run("send-keys", "-t", s2.name, "C-c")
	s2.run("send-keys", "-t", s2.name, "C-c")
	s2.waitFor("nova exited 0")
	groupsGone(t, pidsIn(t, pidFile))
}

// mcpShows types /mcp until its output shows want: /mcp shows the servers
// as they are, and a server may still be starting (slowly, under -race).
func mcpShows(s *tmuxSession, want string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.run("send-keys", "-t", s.name, "-l", "/mcp")
		s.run("send-keys", "-t", s.name, "Enter")
		for range 20 {
			if scr := s.screen(); strings.Contains(scr, want) {
				return scr
			}
			time.Sleep(50 * time.Millisecond)
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("/mcp never showed %q:\n%s", want, s.screen())
		}
	}
}

// Deny all: nothing starts, /mcp says why, and the next session does not
// ask again.
func TestTUIMCPDenied(t *testing.T) {
	needTmux(t)
	ws, home := t.TempDir(), t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pids")
	mcpConfig(t, filepath.Join(ws, ".mcp.json"), "repo", mcptest.ModeTools, pidFile)
	srv := llmtest.NewServer()
	defer srv.Close()

	s := startTUI(t, "mcpdeny", srv, ws, home, "")
	s.waitFor("Start the MCP servers of this project?")
	s.run("send-keys", "-t", s.name, "3")
	s.run("send-keys", "-t", s.name, "Enter")
	s.waitFor("claude-sonnet-4-5 · default")
	mcpShows(s, "repo  project · disabled — you declined it")
	s.run("send-keys", "-t", s.name, "C-c")
	s.run("send-keys", "-t", s.name, "C-c")
	s.waitFor("nova exited 0")

	s2 := startTUI(t, "mcpdeny2", srv, ws, home, "")
	scr := s2.waitFor("claude-sonnet-4-5 · default")
	if strings.Contains(scr, "Start the MCP servers") {
		t.Errorf("asked again:\n%s", scr)
	}
	if ps := pidsIn(t, pidFile); len(ps) != 0 {
		t.Errorf("a declined server ran: %v", ps)
	}
}
