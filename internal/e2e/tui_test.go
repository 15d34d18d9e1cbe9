package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

// tmuxSession drives the real binary in a real terminal.
type tmuxSession struct {
	t    *testing.T
	name string
}

func (s *tmuxSession) run(args ...string) string {
	out, err := exec.Command("tmux", append([]string{"-L", s.name}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-t", s.name, "-p") }

// waitFor polls the screen until it shows want (a hang guard, not a timing
// assertion).
func (s *tmuxSession) waitFor(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %q:\n%s", want, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The interactive UI in tmux against the scripted server: the answer
// streams in, a permission dialog is answered, the tool runs and the final
// screen shows the rendered result.
func TestTUIInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	ws := t.TempDir()
	for _, f := range []string{"alpha.go", "beta.go"} {
		if err := os.WriteFile(filepath.Join(ws, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Thinking("Let me look at the files.", "sig"),
			llmtest.Text("I'll list the files."),
			bash("ls1", "ls"),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("There are **two** Go files.")}},
	)
	defer srv.Close()
	s := &tmuxSession{t: t, name: fmt.Sprintf("nova-e2e-%d", os.Getpid())}
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= ANTHROPIC_MODEL= %q 'list the files'; sleep 30",
		ws, srv.URL, t.TempDir(), novaBin)
	s.run("new-session", "-d", "-s", s.name, "-x", "80", "-y", "24", script)
	defer exec.Command("tmux", "-L", s.name, "kill-server").Run()

	s.waitFor("Allow once")
	s.run("send-keys", "-t", s.name, "Enter")
	final := s.waitFor("There are two Go files.")
	for _, want := range []string{"> list the files", "Thinking", "● Bash(ls)", "alpha.go", "beta.go", "claude-sonnet-4-5", "default"} {
		if !strings.Contains(final, want) {
			t.Errorf("final screen lacks %q:\n%s", want, final)
		}
	}
	for i, line := range strings.Split(final, "\n") {
		if w := len([]rune(line)); w > 80 {
			t.Errorf("line %d is %d cells wide", i, w)
		}
	}
	calls := modelCalls(srv)
	if len(calls) != 2 || !strings.Contains(string(calls[1].Body), "alpha.go") {
		t.Fatalf("%d model calls; the tool result did not reach the model", len(calls))
	}
	// Ctrl-C twice quits.
	s.run("send-keys", "-t", s.name, "C-c")
	s.waitFor("ctrl+c again")
	s.run("send-keys", "-t", s.name, "C-c")
	// nova exits: its status line leaves the screen (the alternate screen
	// is closed), or the session ends with it.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := exec.Command("tmux", "-L", s.name, "capture-pane", "-t", s.name, "-p").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "claude-sonnet-4-5") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("nova did not exit after ctrl+c twice:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// /rewind and /resume in the TUI: a Write made in the session is undone,
// and an earlier print-mode session can be resumed.
func TestTUISessionCommands(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("r", "Read", `{"file_path":"notes.txt"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("w", "Write", `{"file_path":"notes.txt","content":"changed\n"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Rewrote notes.txt.")}},
	)
	defer srv.Close()
	s := &tmuxSession{t: t, name: fmt.Sprintf("nova-e2e-s-%d", os.Getpid())}
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= ANTHROPIC_MODEL= %q --permission-mode acceptEdits 'rewrite notes'; sleep 30",
		ws, srv.URL, home, novaBin)
	s.run("new-session", "-d", "-s", s.name, "-x", "100", "-y", "30", script)
	defer exec.Command("tmux", "-L", s.name, "kill-server").Run()
	s.waitFor("Rewrote notes.txt.")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "changed\n" {
		t.Fatalf("notes.txt = %q before rewind", b)
	}
	s.run("send-keys", "-t", s.name, "/rewind", "Enter")
	s.waitFor("changed " + filepath.Join(ws, "notes.txt"))
	s.run("send-keys", "-t", s.name, "/rewind 2", "Enter")
	s.waitFor("Rewound to before turn 2")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "original\n" {
		t.Fatalf("notes.txt = %q after /rewind 2", b)
	}
	s.run("send-keys", "-t", s.name, "/resume", "Enter")
	s.waitFor("rewrite notes")
}
