package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/llm/llmtest"
)

func TestBatchFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    BatchOptions
		wantErr string
	}{
		{name: "defaults", args: []string{"batch", "tasks.jsonl"}, want: BatchOptions{TasksFile: "tasks.jsonl"}},
		{
			name: "everything",
			args: []string{"batch", "--parallel", "8", "--out", "r.jsonl", "--patch-dir", "p", "--provider", "openai", "--model", "m",
				"--permission-mode", "acceptEdits", "--allowedTools", "Bash(go test:*),Edit", "--allowedTools", "Write",
				"--max-turns", "7", "--timeout", "90s", "-"},
			want: BatchOptions{TasksFile: "-", Parallel: 8, Out: "r.jsonl", PatchDir: "p", Provider: "openai", Model: "m",
				PermissionMode: "acceptEdits", AllowedTools: []string{"Bash(go test:*),Edit", "Write"}, MaxTurns: 7, Timeout: 90 * time.Second},
		},
		{name: "-o", args: []string{"batch", "-o", "out.jsonl", "t.jsonl"}, want: BatchOptions{TasksFile: "t.jsonl", Out: "out.jsonl"}},
		{name: "no file", args: []string{"batch"}, wantErr: "accepts 1 arg(s), received 0"},
		{name: "two files", args: []string{"batch", "a", "b"}, wantErr: "accepts 1 arg(s), received 2"},
		{name: "negative parallel", args: []string{"batch", "--parallel", "-1", "t"}, wantErr: "--parallel must be 1 or more"},
		{name: "bad mode", args: []string{"batch", "--permission-mode", "yolo", "t"}, wantErr: `unknown permission mode "yolo"`},
		{name: "bad provider", args: []string{"batch", "--provider", "acme", "t"}, wantErr: `unknown provider "acme"`},
		{name: "negative turns", args: []string{"batch", "--max-turns", "-2", "t"}, wantErr: "--max-turns must be 0 (no limit) or more"},
		{name: "negative timeout", args: []string{"batch", "--timeout", "-1s", "t"}, wantErr: "--timeout must be positive"},
		{name: "bad timeout", args: []string{"batch", "--timeout", "soon", "t"}, wantErr: `invalid argument "soon" for "--timeout"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *BatchOptions
			root := NewCmdRoot(ios, nil)
			// The batch command with a runF, in place of the real one.
			for _, c := range root.Commands() {
				if c.Name() == "batch" {
					root.RemoveCommand(c)
				}
			}
			root.AddCommand(newCmdBatch(ios, func(ctx context.Context, o *BatchOptions) error { got = o; return nil }))
			root.SetArgs(tc.args)
			root.SetOut(ios.Out)
			root.SetErr(ios.ErrOut)
			err := root.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(BatchOptions{}, "IO"), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func ended(id string, ok bool, err string) fleet.Progress {
	r := fleet.TaskResult{ID: id, Result: fleet.Result{Type: "result", Subtype: fleet.SubtypeSuccess, DurationMS: 2140, TotalCostUSD: 0.0123}}
	if !ok {
		r.Subtype, r.IsError, r.Error = fleet.SubtypeError, true, err
	}
	return fleet.Progress{Ended: &r, Tally: fleet.Tally{Tasks: 3, Done: 1, Running: 1, Usage: fleet.Usage{InputTokens: 12_000, OutputTokens: 345}, CostUSD: 0.0123}}
}

// Without a terminal: a plain line per task that ends, nothing per start.
func TestBatchProgressPlain(t *testing.T) {
	var b bytes.Buffer
	p := newBatchProgress(&b, false, 3)
	stop := p.start()
	task := fleet.Task{ID: "t3"}
	p.update(fleet.Progress{Started: &task})
	p.update(ended("t3", true, ""))
	p.update(ended("t5", false, "model call failed (server): overloaded\nsecond line"))
	p.update(ended("t6", false, ""))
	stop()
	want := "t3 done in 2.1s, $0.0123\nt5 failed: model call failed (server): overloaded\nt6 failed: error_during_execution\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
}

// On a terminal: one line redrawn in place; a failure printed above it;
// the bar cleared at the end.
func TestBatchProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := newBatchProgress(&b, true, 3)
	p.now = func() time.Time { return p.t0.Add(61 * time.Second) }
	p.every = time.Hour
	stop := p.start()
	p.update(ended("t3", true, ""))
	p.update(ended("t5", false, "boom"))
	stop()
	got := b.String()
	bar := "\r\x1b[2Knova batch: 1/3 done, 0 failed, 1 running · 12.3k tokens · $0.0123 · 1m1s"
	want := bar + "\r\x1b[2Kt5 failed: boom\n" + bar + "\r\x1b[2K"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("terminal output (-want +got):\n%q\n%s", got, d)
	}
}

func TestBatchSummary(t *testing.T) {
	tally := fleet.Tally{Tasks: 10, Done: 6, Failed: 2, Skipped: 1, Usage: fleet.Usage{InputTokens: 1_500_000, CacheReadInputTokens: 500, OutputTokens: 2_345}, CostUSD: 1.23456}
	tests := []struct {
		name        string
		out         string
		sum         fleet.Summary
		invalid     int
		interrupted bool
		want        string
	}{
		{"all done", "r.jsonl", fleet.Summary{Tally: fleet.Tally{Tasks: 1, Done: 1}, Wall: 1234 * time.Millisecond}, 0, false,
			"nova: batch finished in 1.2s: 1 task, 1 done, 0 failed, 0 skipped (done before)\nnova: 0 tokens (0 in, 0 out), $0.0000\n"},
		{"failures and an invalid line", "r.jsonl", fleet.Summary{Tally: tally, NotRun: 1, Wall: time.Minute}, 1, false,
			"nova: batch finished in 1m0s: 10 tasks, 6 done, 2 failed, 1 skipped (done before), 1 not run\n" +
				"nova: 1.5M tokens (1.5M in, 2.3k out), $1.2346\n" +
				"nova: 2 tasks failed; each one's line in r.jsonl says why\n" +
				"nova: 1 line of t.jsonl invalid and skipped (see above)\n" +
				"nova: run the same command again to run the 1 tasks not run; those done are skipped\n"},
		{"interrupted, to standard output", "", fleet.Summary{Tally: fleet.Tally{Tasks: 5, Done: 2}, NotRun: 3, Wall: time.Second}, 0, true,
			"nova: batch interrupted in 1s: 5 tasks, 2 done, 0 failed, 0 skipped (done before), 3 not run\nnova: 0 tokens (0 in, 0 out), $0.0000\n" +
				"nova: 3 tasks not run; with --out FILE, running the command again runs only those\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeSummary(&b, &BatchOptions{TasksFile: "t.jsonl", Out: tt.out}, tt.sum, tt.invalid, tt.interrupted)
			if d := cmp.Diff(tt.want, b.String()); d != "" {
				t.Errorf("summary (-want +got):\n%s", d)
			}
		})
	}
}

// In-process, against the scripted model: results on standard output, a
// bad line reported, the exit code says so; then to a file, where a run
// again skips what is done.
func TestRunBatch(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	say := func(s string) []llmtest.Turn { return []llmtest.Turn{{Blocks: []llmtest.Block{llmtest.Text(s)}}} }
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{"[one]": say("one"), "[two]": say("two"), "[fail]": {{Status: 400}}}))
	t.Setenv("NOVA_HOME", t.TempDir())
	for k, v := range map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_MODEL": "", "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""} {
		t.Setenv(k, v)
	}
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id": "a", "prompt": "[one]", "cwd": "`+dir+`"}
{"id": "b", "prompt": "[two]", "cwd": "`+dir+`"}
{"id": "b", "prompt": "again"}
`), 0o644)

	ios, _, out, errOut := iostreams.Test()
	err := runBatch(t.Context(), &BatchOptions{IO: ios, TasksFile: tasks, Parallel: 2})
	if ee, ok := errors.AsType[exitError](err); !ok || ee.code != 1 {
		t.Fatalf("error = %v, want exit 1 (an invalid line)\n%s", err, errOut)
	}
	if !strings.Contains(errOut.String(), `tasks.jsonl:3: duplicate id "b" (first on line 2); skipped`) {
		t.Errorf("stderr:\n%s", errOut)
	}
	got := map[string]string{}
	for l := range strings.Lines(out.String()) {
		var r fleet.TaskResult
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		got[r.ID] = r.Result.Result
	}
	if d := cmp.Diff(map[string]string{"a": "one", "b": "two"}, got); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}

	// To a file; a failing task makes the exit code 1; a run again runs
	// only that one.
	os.WriteFile(tasks, []byte(`{"id": "a", "prompt": "[one]", "cwd": "`+dir+`"}
{"id": "f", "prompt": "[fail]", "cwd": "`+dir+`"}
`), 0o644)
	srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{"[one]": say("one"), "[fail]": {{Status: 400}, {Status: 400}}}))
	results := filepath.Join(dir, "results.jsonl")
	ios, _, _, errOut = iostreams.Test()
	err = runBatch(t.Context(), &BatchOptions{IO: ios, TasksFile: tasks, Out: results})
	if ee, ok := errors.AsType[exitError](err); !ok || ee.code != 1 || !strings.Contains(errOut.String(), "f failed: ") {
		t.Fatalf("error = %v, want exit 1 (a failed task)\n%s", err, errOut)
	}
	ios, _, _, errOut = iostreams.Test()
	err = runBatch(t.Context(), &BatchOptions{IO: ios, TasksFile: tasks, Out: results})
	if ee, ok := errors.AsType[exitError](err); !ok || ee.code != 1 || !strings.Contains(errOut.String(), "2 tasks, 0 done, 1 failed, 1 skipped") {
		t.Fatalf("error = %v, want exit 1, a skipped\n%s", err, errOut)
	}
	b, _ := os.ReadFile(results)
	if n := strings.Count(string(b), "\n"); n != 3 {
		t.Errorf("%d result lines, want a, f, f:\n%s", n, b)
	}
}
