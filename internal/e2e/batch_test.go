//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// batchEnv is nova's environment for a batch against srv: a data
// directory and a temporary directory of the test's (git tasks are cloned
// in the latter).
func batchEnv(srv *llmtest.Server, home, tmp string) []string {
	return append(os.Environ(), "NOVA_HOME="+home, "TMPDIR="+tmp, "ANTHROPIC_MODEL=", "OPENAI_MODEL=",
		"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL, "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
}

// batchRun is one finished nova batch.
type batchRun struct {
	code   int
	stderr string
}

func runBatch(t *testing.T, env []string, args ...string) batchRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, novaBin, append([]string{"batch"}, args...)...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader("")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("nova batch did not finish within the deadline\nstderr: %s", stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return batchRun{code: code, stderr: stderr.String()}
}

// batchTasks writes n tasks t000… to dir/tasks.jsonl, each marked
// [task-NNN] for the scripted model, which has it read notes.txt in ws and
// answer "answer tNNN" (in a copy of answer); bad maps line numbers to
// broken lines written there. It returns the file and the scripts.
func batchTasks(t *testing.T, dir, ws string, n int, bad map[int]string, answer llmtest.Block) (string, map[string][]llmtest.Turn) {
	t.Helper()
	var b strings.Builder
	scripts := map[string][]llmtest.Turn{}
	line := 1
	for i := range n {
		if s, ok := bad[line]; ok {
			b.WriteString(s + "\n")
			line++
		}
		id, marker := fmt.Sprintf("t%03d", i), fmt.Sprintf("[task-%03d]", i)
		fmt.Fprintf(&b, `{"id": %q, "prompt": %q, "cwd": %q}`+"\n", id, marker+" what do the notes say?", ws)
		line++
		read, _ := json.Marshal(map[string]any{"file_path": "notes.txt"})
		ans := answer
		ans.Text = "answer " + id
		// Twice over: a task stopped after its first or second request runs
		// again from its start and still gets a tool turn or an answer.
		tool := llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("", "Read", string(read))}, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 50}}
		done := llmtest.Turn{Blocks: []llmtest.Block{ans}, Usage: llm.Usage{InputTokens: 1100, OutputTokens: 20}}
		scripts[marker] = []llmtest.Turn{tool, done, tool, done}
	}
	path := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, scripts
}

var markerRE = regexp.MustCompile(`\[task-\d{3}\]`)

// requestsPer counts the model calls per task marker.
func requestsPer(srv *llmtest.Server) map[string]int {
	n := map[string]int{}
	for _, r := range modelCalls(srv) {
		n[markerRE.FindString(string(r.Body))]++
	}
	return n
}

// readResults reads a results file: every line must be a result.
func readResults(t *testing.T, path string) []fleet.TaskResult {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []fleet.TaskResult
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var r fleet.TaskResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.ID == "" || r.Type != "result" {
			t.Fatalf("not a result line (%v): %.200s", err, sc.Text())
		}
		out = append(out, r)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Fatalf("the results end in a partial line: %.200s", b[max(0, len(b)-200):])
	}
	return out
}

// 100 scripted tasks through nova batch --parallel 8: every result, each
// from its own conversation; a bad line reported with its number and
// skipped.
func TestBatch100Tasks(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\n"), 0o644)
	tasks, scripts := batchTasks(t, dir, ws, 100, map[int]string{51: `{"id": "broken", "prompt": }`}, llmtest.Text(""))
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(scripts))
	out := filepath.Join(dir, "results.jsonl")
	start := time.Now()
	r := runBatch(t, batchEnv(srv, t.TempDir(), t.TempDir()), "--parallel", "8", "--out", out, tasks)
	t.Logf("100 tasks in %s", time.Since(start).Round(time.Millisecond))
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (a line was invalid)\nstderr: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		tasks + ":51: not a task object: invalid character '}' looking for beginning of value; skipped\n",
		"nova: batch finished in ",
		": 100 tasks, 100 done, 0 failed, 0 skipped (done before)\n",
		"nova: 1 line of " + tasks + " invalid and skipped (see above)\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if n := strings.Count(r.stderr, " done in "); n != 100 {
		t.Errorf("%d progress lines, want 100 (stderr is no terminal)", n)
	}
	results := readResults(t, out)
	if len(results) != 100 {
		t.Fatalf("%d results, want 100", len(results))
	}
	seen := map[string]bool{}
	for _, res := range results {
		if seen[res.ID] {
			t.Errorf("%s twice", res.ID)
		}
		seen[res.ID] = true
		if !res.Succeeded() || res.Result.Result != "answer "+res.ID || res.NumTurns != 2 || len(res.ToolCalls) != 1 ||
			res.ToolCalls[0].Name != "Read" || res.ToolCalls[0].IsError || res.SessionID == "" || res.TotalCostUSD <= 0 {
			t.Errorf("result %+v", res)
		}
	}
	// Each conversation made its two model calls, no more.
	for marker, n := range requestsPer(srv) {
		if n != 2 {
			t.Errorf("%s: %d model calls, want 2", marker, n)
		}
	}
}

// Ctrl-C in the middle of a batch: the running tasks are stopped and not
// written; run again with the same --out, only the rest run — the scripted
// model's counts per conversation show no finished task asked again — and
// the file ends with exactly one successful line per task.
func TestBatchInterruptAndResume(t *testing.T) {
	dir, ws := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\n"), 0o644)
	// Each answer takes a while, so that tasks are running when the
	// signal comes.
	tasks, scripts := batchTasks(t, dir, ws, 100, nil, llmtest.Block{Kind: llmtest.KindText, Delay: 150 * time.Millisecond})
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(scripts))
	out := filepath.Join(dir, "results.jsonl")
	env := batchEnv(srv, t.TempDir(), t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, novaBin, "batch", "--parallel", "8", "--out", out, tasks)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for lines := 0; lines < 20; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(out)
		lines = bytes.Count(b, []byte("\n"))
		if ctx.Err() != nil {
			t.Fatalf("no 20 results before the deadline\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted batch: %v, want exit 130\nstderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "nova: batch interrupted in ") || !strings.Contains(stderr.String(), "nova: run the same command again") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	first := readResults(t, out)
	if len(first) < 20 || len(first) >= 100 {
		t.Fatalf("%d results after the interrupt, want at least 20 and not all", len(first))
	}
	finished := map[string]bool{}
	for _, r := range first {
		if !r.Succeeded() {
			t.Errorf("a result of the interrupted run is not a success: %+v", r)
		}
		finished[fmt.Sprintf("[task-%s]", strings.TrimPrefix(r.ID, "t"))] = true
	}
	before := requestsPer(srv)

	r := runBatch(t, env, "--parallel", "8", "--out", out, tasks)
	if r.code != 0 {
		t.Fatalf("resumed batch: exit %d\nstderr: %s", r.code, r.stderr)
	}
	want := fmt.Sprintf(": 100 tasks, %d done, 0 failed, %d skipped (done before)\n", 100-len(first), len(first))
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
	}
	after := requestsPer(srv)
	rerun := 0
	for marker := range scripts {
		again := after[marker] - before[marker]
		switch {
		case finished[marker] && again != 0:
			t.Errorf("%s finished in the first run, asked %d times again", marker, again)
		case finished[marker] && before[marker] != 2:
			t.Errorf("%s finished with %d model calls, want 2", marker, before[marker])
		case !finished[marker] && again == 0:
			t.Errorf("%s not finished in the first run, not run in the second", marker)
		case !finished[marker]:
			rerun++
		}
	}
	if rerun != 100-len(first) {
		t.Errorf("%d tasks ran in the second run, want %d", rerun, 100-len(first))
	}
	final := readResults(t, out)
	var ids []string
	for _, r := range final {
		if !r.Succeeded() || r.Result.Result != "answer "+r.ID {
			t.Errorf("final result %+v", r)
		}
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	var all []string
	for i := range 100 {
		all = append(all, fmt.Sprintf("t%03d", i))
	}
	if d := cmp.Diff(all, ids); d != "" {
		t.Errorf("one successful line per task (-want +got):\n%s", d)
	}
}

// A git task runs in a scratch clone of a local bare repository; its
// result line carries the diff, and the clone is gone afterwards.
func TestBatchGitTask(t *testing.T) {
	root := t.TempDir()
	bare := filepath.Join(root, "origin.git")
	gitIn(t, root, "init", "--quiet", "--bare", bare)
	work := filepath.Join(root, "work")
	gitIn(t, root, "clone", "--quiet", bare, work)
	os.WriteFile(filepath.Join(work, "greet.txt"), []byte("hello\n"), 0o644)
	gitIn(t, work, "add", ".")
	gitIn(t, work, "commit", "--quiet", "-m", "first")
	gitIn(t, work, "push", "--quiet", "origin", "HEAD:main")

	read, _ := json.Marshal(map[string]any{"file_path": "greet.txt"})
	edit, _ := json.Marshal(map[string]any{"file_path": "greet.txt", "old_string": "hello", "new_string": "hello, world"})
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{"[git-1]": {
		{Blocks: []llmtest.Block{llmtest.ToolUse("", "Read", string(read))}},
		{Blocks: []llmtest.Block{llmtest.ToolUse("", "Edit", string(edit))}},
		{Blocks: []llmtest.Block{llmtest.Text("Greeted the world.")}},
	}}))
	dir, tmp := t.TempDir(), t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id": "g1", "prompt": "[git-1] greet the world", "git": {"url": "file://`+bare+`", "ref": "main"}}`+"\n"), 0o644)
	out := filepath.Join(dir, "results.jsonl")
	r := runBatch(t, batchEnv(srv, t.TempDir(), tmp), "--permission-mode", "acceptEdits", "--out", out, tasks)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	results := readResults(t, out)
	if len(results) != 1 || !results[0].Succeeded() || results[0].Result.Result != "Greeted the world." {
		t.Fatalf("results %+v", results)
	}
	diff := results[0].Diff
	for _, want := range []string{"diff --git a/greet.txt b/greet.txt\n", "-hello\n", "+hello, world\n"} {
		if !strings.Contains(diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, diff)
		}
	}
	// The patch applies to the repository.
	apply := exec.Command("git", "apply", "--check", "-")
	apply.Dir, apply.Stdin = work, strings.NewReader(diff)
	if b, err := apply.CombinedOutput(); err != nil {
		t.Errorf("git apply --check: %v\n%s", err, b)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "nova-task-*")); len(left) != 0 {
		t.Errorf("scratch clones left: %v", left)
	}
}
