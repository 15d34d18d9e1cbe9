//go:build unix

package e2e

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/session"
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

// needTmux skips a test that drives a terminal where tmux is missing, but
// fails it under CI=true: CI installs tmux (.ci/run), and a skip there
// would hide that the terminal tests never ran.
func needTmux(t *testing.T) {
	t.Helper()
	needTool(t, "tmux", ".ci/run installs it")
}

// memoryOff turns the memory suggestion off in the data directory home
// (unless its settings file exists): after every run the TUI asks the model
// for facts to remember, and that request would take a scripted turn meant
// for a test about something else.
func memoryOff(t *testing.T, home string) {
	t.Helper()
	path := filepath.Join(home, "settings.json")
	if _, err := os.Stat(path); err == nil {
		return
	}
	if err := os.WriteFile(path, []byte(`{"autoMemory":"off"}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

// quietHome is a data directory with the memory suggestion off.
func quietHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	memoryOff(t, home)
	return home
}

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
	needTmux(t)
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
			// A read-only command would run without asking: this one
			// writes a file too.
			bash("ls1", "ls | tee listing.txt"),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("There are **two** Go files.")}},
	)
	defer srv.Close()
	s := &tmuxSession{t: t, name: fmt.Sprintf("nova-e2e-%d", os.Getpid())}
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= ANTHROPIC_MODEL= %q 'list the files'; sleep 30",
		ws, srv.URL, quietHome(t), novaBin)
	s.run("new-session", "-d", "-s", s.name, "-x", "80", "-y", "24", script)
	defer exec.Command("tmux", "-L", s.name, "kill-server").Run()

	s.waitFor("Allow once")
	s.run("send-keys", "-t", s.name, "Enter")
	final := s.waitFor("There are two Go files.")
	for _, want := range []string{"> list the files", "Thinking", "● Bash(ls | tee listing.txt)", "alpha.go", "beta.go", "claude-sonnet-4-5", "default"} {
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
	needTmux(t)
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
	memoryOff(t, home)
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= ANTHROPIC_MODEL= %q --permission-mode acceptEdits 'rewrite notes'; sleep 30",
		ws, srv.URL, home, novaBin)
	s.run("new-session", "-d", "-s", s.name, "-x", "100", "-y", "30", script)
	defer exec.Command("tmux", "-L", s.name, "kill-server").Run()
	s.waitFor("Rewrote notes.txt.")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "changed\n" {
		t.Fatalf("notes.txt = %q before rewind", b)
	}
	// One prompt, three model calls: one turn, as nova rewind counts.
	s.run("send-keys", "-t", s.name, "/rewind", "Enter")
	s.waitFor("1  rewrite notes")
	s.waitFor("changed notes.txt")
	s.run("send-keys", "-t", s.name, "/rewind 1", "Enter")
	s.waitFor("Rewound to before turn 1")
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "original\n" {
		t.Fatalf("notes.txt = %q after /rewind 1", b)
	}
	s.run("send-keys", "-t", s.name, "/resume", "Enter")
	s.waitFor("rewrite notes")
}

// A TUI left before its first prompt leaves no session behind: nothing in
// nova sessions or /resume, no file in the data directory's projects.
func TestTUIQuitBeforeAnyPromptLeavesNoSession(t *testing.T) {
	needTmux(t)
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer()
	defer srv.Close()
	s := &tmuxSession{t: t, name: fmt.Sprintf("nova-e2e-q-%d", os.Getpid())}
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= ANTHROPIC_MODEL= %q; echo nova-exited; sleep 30",
		ws, srv.URL, home, novaBin)
	s.run("new-session", "-d", "-s", s.name, "-x", "100", "-y", "30", script)
	defer exec.Command("tmux", "-L", s.name, "kill-server").Run()
	s.waitFor("claude-sonnet-4-5")
	s.run("send-keys", "-t", s.name, "C-c")
	s.waitFor("ctrl+c again")
	s.run("send-keys", "-t", s.name, "C-c")
	s.waitFor("nova-exited")
	var left []string
	filepath.WalkDir(filepath.Join(home, "projects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Fatalf("quitting before any prompt left %v", left)
	}
	if entries, _ := os.ReadDir(session.ProjectDir(home, ws)); len(entries) > 0 {
		t.Fatalf("quitting before any prompt left %d entries in the project's session directory", len(entries))
	}
}

// The TUI asks the terminal for its background colour and picks the light
// or dark theme from it; NOVA_THEME overrides. tmux answers the query with
// the pane's window-style background, so each pane is a terminal of a
// known colour: with a white background the input line is drawn exactly as
// with NOVA_THEME=light, with a black one as with NOVA_THEME=dark.
func TestTUIThemeFollowsTerminal(t *testing.T) {
	needTmux(t)
	inputLine := func(name, bg, theme string) string {
		conf := filepath.Join(t.TempDir(), "tmux.conf")
		if err := os.WriteFile(conf, []byte(fmt.Sprintf("set -g window-style 'bg=%s'\n", bg)), 0o644); err != nil {
			t.Fatal(err)
		}
		sock := fmt.Sprintf("nova-e2e-theme-%s-%d", name, os.Getpid())
		s := &tmuxSession{t: t, name: sock}
		script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=http://127.0.0.1:9 NOVA_HOME=%q NO_COLOR= NOVA_THEME=%s %q; sleep 30",
			t.TempDir(), t.TempDir(), theme, novaBin)
		if out, err := exec.Command("tmux", "-L", sock, "-f", conf, "new-session", "-d", "-s", sock, "-x", "80", "-y", "24", script).CombinedOutput(); err != nil {
			t.Fatalf("tmux: %v: %s", err, out)
		}
		defer exec.Command("tmux", "-L", sock, "kill-server").Run()
		s.waitFor("default")
		s.run("send-keys", "-t", sock, "-l", "hello")
		s.waitFor("> hello")
		for _, line := range strings.Split(s.run("capture-pane", "-t", sock, "-p", "-e"), "\n") {
			if strings.Contains(line, "hello") {
				return line
			}
		}
		t.Fatalf("%s: no input line", name)
		return ""
	}
	light := inputLine("light", "black", "light")
	dark := inputLine("dark", "white", "dark")
	if light == dark {
		t.Fatalf("the light and dark themes draw the input line alike (%q): the test proves nothing", light)
	}
	if got := inputLine("white", "white", ""); got != light {
		t.Errorf("on a white terminal the input line is %q, want the light theme's %q", got, light)
	}
	if got := inputLine("black", "black", ""); got != dark {
		t.Errorf("on a black terminal the input line is %q, want the dark theme's %q", got, dark)
	}
}

// An idle TUI writes nothing: no redraw, no blinking cursor, no ticking
// clock. The pane's output is piped to a file once the first frame and the
// terminal's answers have settled; two seconds later it must be empty.
// (Only something drawing while idle can make this fail; a slow machine
// cannot.)
func TestTUIIdleWritesNothing(t *testing.T) {
	needTmux(t)
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Done with **that**.")}})
	defer srv.Close()
	s := &tmuxSession{t: t, name: fmt.Sprintf("nova-e2e-idle-%d", os.Getpid())}
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= ANTHROPIC_MODEL= %q 'say done'; sleep 30",
		t.TempDir(), srv.URL, quietHome(t), novaBin)
	s.run("new-session", "-d", "-s", s.name, "-x", "80", "-y", "24", script)
	defer exec.Command("tmux", "-L", s.name, "kill-server").Run()
	s.waitFor("Done with that.")
	out := filepath.Join(t.TempDir(), "pane.out")
	s.run("pipe-pane", "-t", s.name, "-o", "cat >> "+out)
	// Settle: wait until a whole second passes without output.
	deadline := time.Now().Add(30 * time.Second)
	last := int64(-1)
	for {
		time.Sleep(time.Second)
		fi, err := os.Stat(out)
		size := int64(0)
		if err == nil {
			size = fi.Size()
		}
		if size == last {
			break
		}
		last = size
		if time.Now().After(deadline) {
			t.Fatalf("the TUI kept writing for 30 s after the answer (%d bytes)", size)
		}
	}
	time.Sleep(2 * time.Second)
	fi, err := os.Stat(out)
	size := int64(0)
	if err == nil {
		size = fi.Size()
	}
	if size != last {
		b, _ := os.ReadFile(out)
		t.Fatalf("an idle TUI wrote %d bytes in 2 s: %q", size-last, b[last:])
	}
	// The pipe does see output: a key press is drawn and lands in it.
	s.run("send-keys", "-t", s.name, "-l", "x")
	for {
		if fi, err := os.Stat(out); err == nil && fi.Size() > size {
			return
		}
		if time.Now().After(deadline.Add(30 * time.Second)) {
			t.Fatal("a key press wrote nothing to the pipe: the idle check proves nothing")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
