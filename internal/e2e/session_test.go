//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/session"
)

// sessionCmd runs nova with a fixed data directory, so runs share sessions.
func sessionCmd(t *testing.T, ctx context.Context, srv *llmtest.Server, home, ws string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := novaCmdFor(t, ctx, srv, "anthropic", ws, args...)
	cmd.Env = append(cmd.Env, "NOVA_HOME="+home)
	return cmd
}

// countResults counts tool_result blocks in a recorded Anthropic request.
func countResults(r llmtest.Request) int {
	return strings.Count(string(r.Body), `"type":"tool_result"`)
}

var killsSoFar atomic.Int32

// thirtyTurns is a fallback script: a 30-turn task where turn n appends
// "step n" to log.txt; the step number comes from the history itself, so a
// resumed session picks up where its transcript says it is.
func thirtyTurns(r llmtest.Request) llmtest.Turn {
	n := strings.Count(string(r.Body), `"type":"tool_use"`)
	// The task ends after 30 turns, and not before the test has killed
	// nova 20 times, however fast this machine is.
	if n >= 29 && killsSoFar.Load() >= 20 {
		return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("All 30 steps done.")}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}
	}
	return llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Text(fmt.Sprintf("Step %d.", n+1)),
		withDelay(bash(fmt.Sprintf("s%d", n+1), fmt.Sprintf("echo step %d >> log.txt", n+1)), 20*time.Millisecond),
	}, ChunkDelay: 3 * time.Millisecond, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}
}

// Kill -9 at random points of a 30-turn session, then resume with
// --continue, until it finishes: every resume works, no completed turn is
// lost, and no tool call is left without a result.
func TestKillNineAndResume(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(thirtyTurns)
	rng := rand.New(rand.NewPCG(1, 2))
	kills, runs := 0, 0
	done := false
	for runs = 0; runs < 60 && !done; runs++ {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		args := []string{"--allowedTools", "Bash", "do the 30 steps"}
		// A kill can land before the first run even created its
		// transcript; only then is there nothing to continue.
		if _, err := session.Latest(session.ProjectDir(home, ws)); err == nil {
			args = append([]string{"--continue"}, args[:2]...)
			args = append(args, "continue where you stopped")
		}
		before := len(modelCalls(srv))
		var prevLast llmtest.Request
		if before > 0 {
			prevLast = modelCalls(srv)[before-1]
		}
		cmd := sessionCmd(t, ctx, srv, home, ws, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killAfter := time.Duration(5+rng.IntN(100)) * time.Millisecond
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		if kills < 30 {
			select {
			case err = <-exited:
			case <-time.After(killAfter):
				_ = cmd.Process.Signal(syscall.SIGKILL)
				err = <-exited
				kills++
				killsSoFar.Store(int32(kills))
			}
		} else {
			err = <-exited
		}
		cancel()
		// The resumed run's first request carries everything the previous
		// run's last request had: no completed turn was lost.
		calls := modelCalls(srv)
		if before > 0 && len(calls) > before {
			first := calls[before]
			if got, want := countResults(first), countResults(prevLast); got < want {
				t.Fatalf("run %d: resumed with %d tool results, the last request before had %d", runs, got, want)
			}
			if c, r := strings.Count(string(first.Body), `"type":"tool_use"`), countResults(first); c != r {
				t.Fatalf("run %d: resumed history has %d tool calls but %d results", runs, c, r)
			}
		}
		if err == nil && strings.Contains(stdout.String(), `"subtype":"success"`) {
			done = true
		} else if err != nil && !strings.Contains(err.Error(), "killed") {
			t.Fatalf("run %d failed: %v\nstderr: %s", runs, err, stderr.String())
		}
	}
	if !done {
		t.Fatalf("the session did not finish after %d runs", runs)
	}
	if kills < 20 {
		t.Fatalf("only %d kills landed; the test must kill at least 20 times", kills)
	}
	// The transcript loads, is whole, and the task is complete.
	dir := session.ProjectDir(home, ws)
	list, err := session.List(dir)
	if err != nil || len(list) == 0 {
		t.Fatalf("sessions: %v %v", list, err)
	}
	st, err := session.Load(list[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	calls, results := 0, 0
	for _, m := range st.Messages {
		for _, b := range m.Content {
			switch b.Type {
			case llm.BlockToolUse:
				calls++
			case llm.BlockToolResult:
				results++
			}
		}
	}
	if calls != results || calls < 29 {
		t.Fatalf("final history: %d calls, %d results", calls, results)
	}
	t.Logf("%d runs, %d kills, %d model calls", runs, kills, len(modelCalls(srv)))
}

// A session that crosses the compaction threshold three times finishes
// its task; between compactions each request extends the previous one, and
// after each compaction the environment and memory are back.
func TestCompactionThreeTimes(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "NOVA.md"), []byte("Project rule: always say please.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Above what the system prompt, the tools array and the preamble take
	// after a compaction (about 7,000 tokens), or every request compacts.
	if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.json"), []byte(`{"compactThreshold": 9000}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	summaries := 0
	srv.SetFallback(func(r llmtest.Request) llmtest.Turn {
		body := string(r.Body)
		if strings.Contains(body, "Write that summary now") {
			summaries++
			return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(fmt.Sprintf("1. Task: print big chunks. Summary number %d.", summaries))}}
		}
		n := strings.Count(body, `"type":"tool_use"`)
		if summaries >= 3 && n >= 1 {
			return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Finished after three compactions.")}}
		}
		// Each turn adds about 2,500 tokens of output to the history.
		return llmtest.Turn{Blocks: []llmtest.Block{bash(fmt.Sprintf("c%d", len(srv.Requests())), "head -c 10000 /dev/zero | tr '\\0' x")}}
	})
	r := runNovaFor(t, srv, "anthropic", ws, "--allowedTools", "Bash", "produce output")
	if r.Code != 0 || r.Result.Result != "Finished after three compactions." {
		t.Fatalf("exit %d result %+v\n%s", r.Code, r.Result, r.Stderr)
	}
	if n := len(r.byType("compact")); n != 3 {
		t.Fatalf("%d compact events, want 3", n)
	}
	calls := modelCalls(srv)
	var prev []json.RawMessage
	fresh := 0
	for i, c := range calls {
		var body struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(c.Body, &body); err != nil {
			t.Fatal(err)
		}
		text := string(c.Body)
		firstAfterCompaction := i > 0 && strings.Contains(string(calls[i-1].Body), "Write that summary now")
		if i == 0 || firstAfterCompaction {
			// A fresh history: environment and memory are in it.
			fresh++
			for _, want := range []string{"Working directory", "always say please"} {
				if !strings.Contains(text, want) {
					t.Errorf("call %d lacks %q (environment and memory)", i, want)
				}
			}
			if firstAfterCompaction && !strings.Contains(text, fmt.Sprintf("Summary number %d", fresh-1)) {
				t.Errorf("call %d does not carry the summary", i)
			}
		} else {
			// Between compactions (the summary call included): the
			// previous request's messages are a prefix of this one's.
			if len(body.Messages) <= len(prev) {
				t.Fatalf("call %d has %d messages, the previous one %d", i, len(body.Messages), len(prev))
			}
			for j := range prev {
				if !bytes.Equal(stripCache(prev[j]), stripCache(body.Messages[j])) {
					t.Fatalf("call %d changed message %d of the previous request:\n%s\n%s", i, j, prev[j], body.Messages[j])
				}
			}
		}
		prev = body.Messages
	}
	if fresh != 4 {
		t.Fatalf("%d fresh histories, want the first and one after each of 3 compactions", fresh)
	}
}

// stripCache drops the cache_control marker, which moves to the newest
// user message on every request by design.
func stripCache(m json.RawMessage) []byte {
	return bytes.ReplaceAll(m, []byte(`,"cache_control":{"type":"ephemeral"}`), nil)
}

// Rewind restores byte-identical files after a sequence of edits, writes
// and deletes. Turns are counted per prompt: the second prompt's many model
// calls are one turn, labelled by the prompt's first line.
func TestRewindRestoresFiles(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	orig := []byte("line one\r\nline two\t \nno newline at the end é")
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), orig, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "gone.txt"), []byte("delete me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("n", "Write", `{"file_path":"notes.txt","content":"plan\n"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Noted.")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("r", "Read", `{"file_path":"a.txt"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"rewritten\n"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("w2", "Write", `{"file_path":"new/b.txt","content":"new file\n"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("e", "Edit", `{"file_path":"a.txt","old_string":"rewritten","new_string":"edited"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{bash("d", "rm gone.txt > gone.txt.log")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Done.")}},
	)
	defer srv.Close()
	ctx := context.Background()
	if out, err := sessionCmd(t, ctx, srv, home, ws, "--permission-mode", "acceptEdits", "write the plan down").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	cmd := sessionCmd(t, ctx, srv, home, ws, "--continue", "--permission-mode", "acceptEdits", "--allowedTools", "Bash", "change things\nin a.txt and elsewhere")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "edited\n" {
		t.Fatalf("a.txt = %q", b)
	}
	list := exec.Command(novaBin, "rewind", "--cwd", ws, "--list")
	list.Env = append(os.Environ(), "NOVA_HOME="+home)
	listed, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("rewind --list: %v\n%s", err, listed)
	}
	golden(t, "rewind-list.golden", string(listed))
	rewind := exec.Command(novaBin, "rewind", "--cwd", ws, "--turn", "2")
	rewind.Env = append(os.Environ(), "NOVA_HOME="+home)
	out, err := rewind.CombinedOutput()
	if err != nil {
		t.Fatalf("rewind: %v\n%s", err, out)
	}
	got, _ := os.ReadFile(filepath.Join(ws, "a.txt"))
	if !bytes.Equal(got, orig) {
		t.Fatalf("a.txt after rewind = %q, want %q", got, orig)
	}
	if fi, _ := os.Stat(filepath.Join(ws, "a.txt")); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	if _, err := os.Stat(filepath.Join(ws, "new", "b.txt")); !os.IsNotExist(err) {
		t.Errorf("new/b.txt still exists after rewind: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "gone.txt")); err != nil || string(b) != "delete me\n" {
		t.Errorf("gone.txt (deleted by rm) not restored: %q %v", b, err)
	}
	t.Logf("rewind said:\n%s", out)
	// The conversation is truncated: --continue starts before turn 2.
	st, err := session.Latest(session.ProjectDir(home, ws))
	if err != nil {
		t.Fatal(err)
	}
	state, err := session.Load(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(state.Messages) != 4 {
		t.Fatalf("conversation after rewind has %d messages, want the first prompt, its call, the result and the answer", len(state.Messages))
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.txt")); err != nil || string(b) != "plan\n" {
		t.Fatalf("notes.txt, written at turn 1, after rewinding to before turn 2: %q, %v", b, err)
	}
	sessions := exec.Command(novaBin, "sessions", "--cwd", ws)
	sessions.Env = append(os.Environ(), "NOVA_HOME="+home)
	if out, err := sessions.CombinedOutput(); err != nil || !strings.Contains(string(out), "write the plan down") {
		t.Fatalf("nova sessions: %v\n%s", err, out)
	}
}

// --extract-memory: after a successful run, durable facts go into the
// project's NOVA.md and are shown on standard error.
func TestExtractMemory(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "NOVA.md"), []byte("# Notes\n\nKeep this.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Tests pass with go test ./...")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("- Run the tests with go test ./...\n- Keep this.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "--extract-memory", "how do I run the tests?")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	got, _ := os.ReadFile(filepath.Join(ws, "NOVA.md"))
	if !strings.HasPrefix(string(got), "# Notes\n\nKeep this.\n") || !strings.Contains(string(got), "- Run the tests with go test ./...") ||
		strings.Count(string(got), "Keep this.") != 1 {
		t.Fatalf("NOVA.md:\n%s", got)
	}
	if !strings.Contains(r.Stderr, "Run the tests with go test") {
		t.Fatalf("stderr does not show the facts: %s", r.Stderr)
	}
	// Without the flag, print mode proposes nothing.
	srv.Push(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}})
	before := len(modelCalls(srv))
	runNova(t, srv, ws, "again")
	if n := len(modelCalls(srv)) - before; n != 1 {
		t.Fatalf("%d model calls without --extract-memory", n)
	}
}

// A run that fails before its prompt is sent leaves no session: nothing for
// nova sessions to list as "0 turns", nothing for --continue to pick up.
func TestFailedStartLeavesNoSession(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	// Read after the session is opened, before the prompt is sent.
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"permissions":{"defaultMode":"yolo"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	out, err := sessionCmd(t, context.Background(), srv, home, ws, "hello").CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown permission mode "yolo"`) {
		t.Fatalf("run with a bad mode: %v\n%s", err, out)
	}
	if entries, err := os.ReadDir(filepath.Join(home, "projects")); err == nil && len(entries) > 0 {
		left, _ := os.ReadDir(filepath.Join(home, "projects", entries[0].Name()))
		t.Fatalf("a failed start left %s with %d entries", entries[0].Name(), len(left))
	}
	list := exec.Command(novaBin, "sessions", "--cwd", ws)
	list.Env = append(os.Environ(), "NOVA_HOME="+home)
	if out, err := list.CombinedOutput(); err != nil || string(out) != "No sessions in this workspace yet.\n" {
		t.Fatalf("nova sessions: %v\n%s", err, out)
	}
}

// Where the data directory lies in a git work tree (here NOVA_HOME inside
// the project; a home directory kept in git is the same), what nova writes
// there — transcripts, the settings file it creates — is in the
// repository's info/exclude: git status shows none of it, so git add -A
// cannot commit it.
func TestLocalFilesStayOutOfGit(t *testing.T) {
	needTool(t, "git", "every machine of ours has it")
	ws := t.TempDir()
	gitEnv := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	gitCmd := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = ws, gitEnv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	gitCmd("init", "-q")
	if err := os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.json"), []byte(`{"permissions":{"allow":["Bash(make:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(ws, ".nova-home")
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Hello.")}})
	defer srv.Close()
	out, err := sessionCmd(t, context.Background(), srv, home, ws, "--output-format", "text", "hello").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "added it to the repository's info/exclude") {
		t.Fatalf("%v\n%s", err, out)
	}
	trust := exec.Command(novaBin, "trust", ws)
	trust.Env = append(os.Environ(), "NOVA_HOME="+home)
	if out, err := trust.CombinedOutput(); err != nil {
		t.Fatalf("nova trust: %v\n%s", err, out)
	}
	for _, p := range []string{"settings.json", "projects"} {
		if _, err := os.Stat(filepath.Join(home, p)); err != nil {
			t.Fatalf("nova wrote no %s: %v", p, err)
		}
	}
	status := gitCmd("status", "--porcelain", "--untracked-files=all")
	if diff := cmp.Diff("?? .novacode/settings.json\n", status); diff != "" {
		t.Fatalf("git status (-want +got):\n%s", diff)
	}
}
