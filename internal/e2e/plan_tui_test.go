//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// Plan mode in the TUI, in a real terminal: the plan ExitPlanMode asks
// about is shown with the three choices; approving it with acceptEdits
// switches the mode (the status line says so) and the edit that follows
// runs without a question.
func TestTUIPlanApproval(t *testing.T) {
	needTmux(t)
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Text("Here is my plan."),
			llmtest.ToolUse("p", "ExitPlanMode", `{"plan":"# Notes plan\n\n1. Write notes.txt with a greeting\n2. Nothing else"}`),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("w", "Write", `{"file_path":"notes.txt","content":"hello\n"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Wrote notes.txt.")}},
	)
	defer srv.Close()
	s := startTUI(t, "plan", srv, ws, home, "--permission-mode plan 'add a notes file'")
	scr := s.waitFor("Yes, and accept edits")
	for _, want := range []string{"The model's plan, for your approval:", "Notes plan", "1. Write notes.txt with a greeting", "2. Nothing else",
		"Approve the plan above?", "❯ 1. Yes, and accept edits", "2. Yes, and ask before each edit", "3. No, keep planning", "claude-sonnet-4-5 · plan"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the plan's dialog lacks %q:\n%s", want, scr)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err == nil {
		t.Fatal("notes.txt exists before the plan was approved")
	}
	s.run("send-keys", "-t", s.name, "Enter")
	final := s.waitFor("Wrote notes.txt.")
	for _, want := range []string{"Plan approved. Permission mode: acceptEdits", "claude-sonnet-4-5 · acceptEdits"} {
		if !strings.Contains(final, want) {
			t.Errorf("the final screen lacks %q:\n%s", want, final)
		}
	}
	if strings.Contains(final, "Allow once") {
		t.Errorf("the edit after the approval was asked about:\n%s", final)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.txt")); err != nil || string(b) != "hello\n" {
		t.Fatalf("notes.txt: %q, %v", b, err)
	}
	calls := modelCalls(srv)
	if len(calls) != 3 || !strings.Contains(string(calls[1].Body), "The user approved your plan") {
		t.Fatalf("%d model calls; the approval did not reach the model", len(calls))
	}
}
