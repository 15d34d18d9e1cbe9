package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// The interactive UI shows each running subagent as a card with its live
// progress, asks the person about a subagent's command like the parent's,
// and /bashes lists the background commands.
func TestTUISubagentCardsAndBashes(t *testing.T) {
	needTmux(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"": {
			{Blocks: []llmtest.Block{
				jsonBlock("ta", "Task", map[string]any{"description": "survey alpha", "prompt": "child-A: look", "subagent_type": "Explore"}),
				jsonBlock("tb", "Task", map[string]any{"description": "build beta", "prompt": "child-B: make", "subagent_type": "general-purpose"}),
			}},
			{Blocks: []llmtest.Block{jsonBlock("bg", "Bash", map[string]any{"command": "sleep 60", "run_in_background": true, "description": "a long wait"})}},
			{Blocks: []llmtest.Block{llmtest.Text("Both reported; the wait runs on.")}},
		},
		"child-A": {
			{Blocks: []llmtest.Block{bash("", "sleep 3; echo surveyed")}},
			{Blocks: []llmtest.Block{llmtest.Text("alpha report")}},
		},
		"child-B": {
			{Blocks: []llmtest.Block{bash("", "touch beta.txt")}},
			{Blocks: []llmtest.Block{llmtest.Text("beta report")}},
		},
	}))
	ws := t.TempDir()
	s := startTUI(t, "subagents", srv, ws, t.TempDir(), "")
	s.waitFor("Type a prompt")
	s.run("send-keys", "-t", s.name, "-l", "split it")
	s.run("send-keys", "-t", s.name, "Enter")
	// beta's touch needs the person; alpha's read-only command runs.
	scr := s.waitFor("touch beta.txt")
	if !strings.Contains(scr, "survey alpha") || !strings.Contains(scr, "build beta") {
		t.Fatalf("no card per subagent:\n%s", scr)
	}
	s.waitFor("Subagent general-purpose (build beta) asks")
	s.waitFor("Bash(sleep 3")
	s.run("send-keys", "-t", s.name, "Enter") // allow once
	final := s.waitFor("Both reported; the wait runs on.")
	for _, want := range []string{"alpha report", "beta report"} {
		if !strings.Contains(final, want) {
			t.Errorf("the finished cards do not show %q:\n%s", want, final)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "beta.txt")); err != nil {
		t.Errorf("the approved command of the subagent did not run: %v", err)
	}
	s.waitUntil("the run's end", func(scr string) bool { return !strings.Contains(scr, "esc to interrupt") })
	s.run("send-keys", "-t", s.name, "-l", "/bashes")
	s.run("send-keys", "-t", s.name, "Enter")
	list := s.waitFor("bash_1")
	if !strings.Contains(list, "running") || !strings.Contains(list, "sleep 60") {
		t.Errorf("/bashes does not list the running command:\n%s", list)
	}
}
