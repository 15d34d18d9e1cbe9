//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// What a new user meets in the first hour, through the binary in a real
// terminal: retries that leave the screen alone, pastes whatever their line
// endings, a continued session that shows where it was, Ctrl-C, the hint on
// exit, and no TUI without a terminal.

const tuiWidth, tuiHeight = 100, 30

// startTUI runs nova in a tmux pane against srv, in workspace ws with data
// directory home; tail is appended to the command line as it is (quoted by
// the caller). When nova exits the pane says "nova exited CODE" and stays,
// so what nova printed last can be read. The memory suggestion is off
// (memoryOff) unless home has a settings file already.
func startTUI(t *testing.T, name string, srv *llmtest.Server, ws, home, tail string) *tmuxSession {
	t.Helper()
	memoryOff(t, home)
	s := &tmuxSession{t: t, name: fmt.Sprintf("nova-e2e-%s-%d", name, os.Getpid())}
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= OPENAI_BASE_URL= ANTHROPIC_MODEL= NO_COLOR=1 %q %s; echo nova exited $?; sleep 60",
		ws, srv.URL, home, novaBin, tail)
	s.run("new-session", "-d", "-s", s.name, "-x", fmt.Sprint(tuiWidth), "-y", fmt.Sprint(tuiHeight), script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", s.name, "kill-server").Run() })
	return s
}

// waitUntil polls the screen until ok holds (a hang guard, not a timing
// assertion) and returns that screen.
func (s *tmuxSession) waitUntil(what string, ok func(scr string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		scr := s.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("screen never showed %s:\n%s", what, scr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rows splits a captured screen into its rows (the capture ends with a
// newline).
func rows(scr string) []string { return strings.Split(strings.TrimSuffix(scr, "\n"), "\n") }

// checkIntact asserts that scr is a whole TUI screen: every row, the input
// line where it was (inputLine, one above the status line), the status line
// last, and nothing written over them.
func checkIntact(t *testing.T, scr, inputLine string) {
	t.Helper()
	rs := rows(scr)
	if len(rs) != tuiHeight {
		t.Errorf("the screen has %d rows, want %d:\n%s", len(rs), tuiHeight, scr)
		return
	}
	if got := rs[len(rs)-2]; got != inputLine {
		t.Errorf("input line = %q, want %q:\n%s", got, inputLine, scr)
	}
	if got := rs[len(rs)-1]; !strings.HasPrefix(got, "claude-sonnet-4-5 · default") {
		t.Errorf("status line = %q:\n%s", got, scr)
	}
	for i, r := range rs {
		if strings.Contains(r, "nova:") || strings.Contains(r, "model call failed") {
			t.Errorf("row %d was written over the TUI: %q", i, r)
		}
		if w := len([]rune(r)); w > tuiWidth {
			t.Errorf("row %d is %d cells wide", i, w)
		}
	}
}

// A 529 answered twice during a TUI turn is two retries: a line in the
// timeline (the second replacing the first), and nothing written over the
// screen; the input and status lines stay where they were, before, during
// and after. Ctrl+L then wipes what another program writes to the terminal.
func TestTUIRetryKeepsTheScreen(t *testing.T) {
	needTmux(t)
	srv := llmtest.NewServer(
		llmtest.Turn{Status: 529},
		llmtest.Turn{Status: 529},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Recovered.")}},
	)
	defer srv.Close()
	s := startTUI(t, "retry", srv, t.TempDir(), t.TempDir(), "")
	idle := s.waitFor("Type a prompt")
	inputLine := rows(idle)[tuiHeight-2]
	if !strings.HasPrefix(inputLine, "> Type a prompt") {
		t.Fatalf("input line %q:\n%s", inputLine, idle)
	}
	checkIntact(t, idle, inputLine)

	s.run("send-keys", "-t", s.name, "-l", "hello")
	s.waitFor("> hello")
	s.run("send-keys", "-t", s.name, "Enter")
	final := s.waitFor("Recovered.")
	checkIntact(t, final, inputLine)
	if !strings.Contains(final, "↻ overloaded (HTTP 529) — retrying in") || !strings.Contains(final, "(2/4)") || strings.Contains(final, "(1/4)") {
		t.Errorf("the timeline should show the second retry in place of the first:\n%s", final)
	}
	if n := len(modelCalls(srv)); n != 3 {
		t.Errorf("%d model calls, want 3", n)
	}

	// Another program writes to the terminal; Ctrl+L draws every cell anew.
	// The run is over once the status line drops its hint; from then on
	// the idle TUI draws nothing by itself.
	clean := s.waitUntil("the run's end", func(scr string) bool { return !strings.Contains(scr, "esc to interrupt") })
	tty := strings.TrimSpace(s.run("display-message", "-p", "-t", s.name, "#{pane_tty}"))
	f, err := os.OpenFile(tty, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("\x1b[3;5HSTRAY OUTPUT\x1b[29;1HSTRAY OUTPUT")
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.waitFor("STRAY OUTPUT")
	s.run("send-keys", "-t", s.name, "C-l")
	s.waitUntil("the screen as it was", func(scr string) bool { return scr == clean })
}

// Terminals send a paste's newlines as CR; files copied from Windows keep
// CRLF. A paste of 100 lines is collapsed as "+100 lines" whatever its
// endings, and the model gets every line, with LF endings. tmux sends the
// buffer verbatim (-r) inside a bracketed paste (-p).
func TestTUIPasteLineEndings(t *testing.T) {
	needTmux(t)
	endings := []struct{ name, eol string }{{"CR", "\r"}, {"LF", "\n"}, {"CRLF", "\r\n"}}
	var turns []llmtest.Turn
	for i := range endings {
		turns = append(turns, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(fmt.Sprintf("Got paste %d.", i+1))}})
	}
	srv := llmtest.NewServer(turns...)
	defer srv.Close()
	s := startTUI(t, "paste", srv, t.TempDir(), t.TempDir(), "")
	s.waitFor("Type a prompt")
	text := func(eol string) string {
		var b strings.Builder
		for i := 1; i <= 100; i++ {
			fmt.Fprintf(&b, "row %d of the log%s", i, eol)
		}
		return b.String()
	}
	for i, e := range endings {
		file := filepath.Join(t.TempDir(), "paste.txt")
		if err := os.WriteFile(file, []byte(text(e.eol)), 0o644); err != nil {
			t.Fatal(err)
		}
		s.run("load-buffer", "-b", "p", file)
		s.run("paste-buffer", "-p", "-r", "-d", "-b", "p", "-t", s.name)
		scr := s.waitFor(fmt.Sprintf("[Pasted text #%d +100 lines]", i+1))
		if strings.Contains(scr, "row 1 of the log") {
			t.Errorf("%s: the pasted lines show in the input:\n%s", e.name, scr)
		}
		s.run("send-keys", "-t", s.name, "Enter")
		s.waitFor(fmt.Sprintf("Got paste %d.", i+1))
	}
	calls := modelCalls(srv)
	if len(calls) != len(endings) {
		t.Fatalf("%d model calls, want %d", len(calls), len(endings))
	}
	for i, c := range calls {
		if got, want := lastUserText(t, c), text("\n"); got != want {
			t.Errorf("%s: the model got %d bytes (%q…), want the 100 lines with LF endings (%d bytes)",
				endings[i].name, len(got), got[:min(len(got), 40)], len(want))
		}
	}
}

// lastUserText is the last text block of the last message of an Anthropic
// request: the prompt just sent.
func lastUserText(t *testing.T, req llmtest.Request) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1].Content
	for i := len(last) - 1; i >= 0; i-- {
		if last[i].Type == "text" {
			return last[i].Text
		}
	}
	return ""
}

// nova -c opens on the session it continues: its prompt, answer and tool
// card with the result, and its tokens and cost in the status line. Ctrl-C
// clears a draft; a second quits, and nova says how to come back.
func TestTUIContinuesASession(t *testing.T) {
	needTmux(t)
	ws, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	usage := llm.Usage{InputTokens: 1000, OutputTokens: 100}
	srv := llmtest.NewServer(
		llmtest.Turn{Usage: usage, Blocks: []llmtest.Block{llmtest.Text("Reading it."), llmtest.ToolUse("r1", "Read", `{"file_path":"notes.txt"}`)}},
		llmtest.Turn{Usage: usage, Blocks: []llmtest.Block{llmtest.Text("The note says 42.")}},
	)
	defer srv.Close()
	// The first session, in print mode.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := novaCmd(t, ctx, srv, ws, "what does notes.txt say?")
	cmd.Env = append(cmd.Env, "NOVA_HOME="+home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("first session: %v\n%s", err, out)
	}

	s := startTUI(t, "continue", srv, ws, home, "-c")
	scr := s.waitFor("The note says 42.")
	for _, want := range []string{"> what does notes.txt say?", "Reading it.", "● Read(notes.txt)", "the answer is 42",
		"in 2.0k out 200", "$0.0090"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the continued session's screen lacks %q:\n%s", want, scr)
		}
	}
	idleInput := rows(scr)[tuiHeight-2]

	s.run("send-keys", "-t", s.name, "-l", "a draft I regret")
	s.waitFor("> a draft I regret")
	s.run("send-keys", "-t", s.name, "C-c")
	scr = s.waitUntil("the input cleared", func(scr string) bool {
		return !strings.Contains(scr, "a draft I regret") && strings.Contains(scr, "press ctrl+c again to exit")
	})
	if got := rows(scr)[tuiHeight-2]; got != idleInput {
		t.Errorf("input line after ctrl+c = %q, want %q", got, idleInput)
	}
	s.run("send-keys", "-t", s.name, "C-c")
	final := s.waitFor("nova exited")
	if !strings.Contains(final, "Resume this session with: nova -c") || !strings.Contains(final, "nova exited 0") {
		t.Errorf("no resume hint after exit:\n%s", final)
	}
	if n := len(modelCalls(srv)); n != 2 {
		t.Errorf("%d model calls: continuing a session must not call the model by itself", n)
	}
}

// Without a terminal on standard input the TUI does not start: one line
// says why and what to use instead, and the exit code is 1 (Bubble Tea's
// own "could not create cancelable reader" never shows).
func TestTUINeedsATerminal(t *testing.T) {
	needTmux(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	s := startTUI(t, "noterm", srv, t.TempDir(), t.TempDir(), "< /dev/null")
	scr := s.waitFor("nova exited")
	for _, want := range []string{"nova: the interactive UI needs a terminal, and standard input is not one", `nova -p`, "nova exited 1"} {
		if !strings.Contains(strings.ReplaceAll(scr, "\n", ""), want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "cancelable reader") {
		t.Errorf("Bubble Tea's error reached the user:\n%s", scr)
	}
}
