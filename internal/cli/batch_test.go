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
		{name: "defaults", args: []string{"batch", "tasks.jsonl"}, want: BatchOptions{TasksFile: "tasks.jsonl", Engine: "local", Temporal: defaultTemporal}},
		{
			name: "everything",
			args: []string{"batch", "--parallel", "8", "--out", "r.jsonl", "--patch-dir", "p", "--provider", "openai", "--model", "m",
				"--permission-mode", "acceptEdits", "--allowedTools", "Bash(go test:*),Edit", "--allowedTools", "Write",
				"--max-turns", "7", "--timeout", "90s", "-"},
			want: BatchOptions{TasksFile: "-", Parallel: 8, Out: "r.jsonl", PatchDir: "p", Provider: "openai", Model: "m",
				PermissionMode: "acceptEdits", AllowedTools: []string{"Bash(go test:*),Edit", "Write"}, MaxTurns: 7, Timeout: 90 * time.Second,
				Engine: "local", Temporal: defaultTemporal},
		},
		{name: "-o", args: []string{"batch", "-o", "out.jsonl", "t.jsonl"}, want: BatchOptions{TasksFile: "t.jsonl", Out: "out.jsonl", Engine: "local", Temporal: defaultTemporal}},
		{
			name: "temporal",
			args: []string{"batch", "--engine", "temporal", "--temporal-address", "tmprl:7233", "--namespace", "ci", "--task-queue", "q", "t"},
			want: BatchOptions{TasksFile: "t", Engine: "temporal", Temporal: TemporalOptions{Address: "tmprl:7233", Namespace: "ci", TaskQueue: "q"}},
		},
		{name: "unknown engine", args: []string{"batch", "--engine", "k8s", "t"}, wantErr: `unknown --engine "k8s" (local or temporal)`},
		{name: "temporal flags without the engine", args: []string{"batch", "--namespace", "ci", "t"}, wantErr: "--namespace needs --engine temporal"},
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

// defaultTemporal are the Temporal flags' defaults.
var defaultTemporal = TemporalOptions{Address: "localhost:7233", Namespace: "default", TaskQueue: "nova-fleet"}

func TestWorkerFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    WorkerOptions
		wantErr string
	}{
		{name: "defaults", args: []string{"worker"}, want: WorkerOptions{Temporal: defaultTemporal}},
		{
			name: "everything",
			args: []string{"worker", "--temporal-address", "10.0.0.5:7233", "--namespace", "ci", "--task-queue", "q", "--parallel", "4",
				"--scratch-dir", "/shared/scratch", "--patch-dir", "/shared/patches"},
			want: WorkerOptions{Temporal: TemporalOptions{Address: "10.0.0.5:7233", Namespace: "ci", TaskQueue: "q"}, Parallel: 4,
				ScratchDir: "/shared/scratch", PatchDir: "/shared/patches"},
		},
		{name: "negative parallel", args: []string{"worker", "--parallel", "-1"}, wantErr: "--parallel must be 1 or more"},
		{name: "arguments", args: []string{"worker", "tasks.jsonl"}, wantErr: `unknown command "tasks.jsonl"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *WorkerOptions
			root := NewCmdRoot(ios, nil)
			for _, c := range root.Commands() {
				if c.Name() == "worker" {
					root.RemoveCommand(c)
				}
			}
			root.AddCommand(newCmdWorker(ios, func(ctx context.Context, o *WorkerOptions) error { got = o; return nil }))
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
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(WorkerOptions{}, "IO")); diff != "" {
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
		engine      string
		sum         fleet.Summary
		invalid     int
		interrupted bool
		want        string
	}{
		{"all done", "r.jsonl", "", fleet.Summary{Tally: fleet.Tally{Tasks: 1, Done: 1}, Wall: 1234 * time.Millisecond}, 0, false,
			"nova: batch finished in 1.2s: 1 task, 1 done, 0 failed, 0 skipped (done before)\nnova: 0 tokens (0 in, 0 out), $0.0000\n"},
		{"failures and an invalid line", "r.jsonl", "", fleet.Summary{Tally: tally, NotRun: 1, Wall: time.Minute}, 1, false,
			"nova: batch finished in 1m0s: 10 tasks, 6 done, 2 failed, 1 skipped (done before), 1 not run\n" +
				"nova: 1.5M tokens (1.5M in, 2.3k out), $1.2346\n" +
				"nova: 2 tasks failed; each one's line in r.jsonl says why\n" +
				"nova: 1 line of t.jsonl invalid and skipped (see above)\n" +
				"nova: run the same command again to run the 1 tasks not run; those done are skipped\n"},
		{"interrupted, to standard output", "", "", fleet.Summary{Tally: fleet.Tally{Tasks: 5, Done: 2}, NotRun: 3, Wall: time.Second}, 0, true,
			"nova: batch interrupted in 1s: 5 tasks, 2 done, 0 failed, 0 skipped (done before), 3 not run\nnova: 0 tokens (0 in, 0 out), $0.0000\n" +
				"nova: 3 tasks not run; with --out FILE, running the command again runs only those\n"},
		{"interrupted, on Temporal", "r.jsonl", "temporal", fleet.Summary{Tally: fleet.Tally{Tasks: 5, Done: 2}, NotRun: 3, Wall: time.Second}, 0, true,
			"nova: batch interrupted in 1s: 5 tasks, 2 done, 0 failed, 0 skipped (done before), 3 not run\nnova: 0 tokens (0 in, 0 out), $0.0000\n" +
				"nova: 3 tasks not collected go on on the workers; run the same command again to collect them\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			writeSummary(&b, &BatchOptions{TasksFile: "t.jsonl", Out: tt.out, Engine: tt.engine}, tt.sum, tt.invalid, tt.interrupted)
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

// Without the Temporal SDK linked in, nova hands the Temporal commands
// over to nova-temporal, found on PATH (or beside nova), with the whole
// command line; without it, it says how to install it.
func TestTemporalCommandsHandedOver(t *testing.T) {
	type call struct {
		path string
		args []string
	}
	var calls []call
	saved := execCompanion
	execCompanion = func(path string, args []string) (int, error) {
		calls = append(calls, call{path, args})
		return 3, nil
	}
	t.Cleanup(func() { execCompanion = saved })

	bin := t.TempDir()
	fake := filepath.Join(bin, "nova-temporal")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"worker", "--parallel", "2"}, 3},
		{[]string{"batch", "--engine", "temporal", "--namespace", "ci", "tasks.jsonl"}, 3},
	}
	t.Setenv("PATH", bin)
	for _, tc := range tests {
		ios, _, _, errOut := iostreams.Test()
		if code := Run(t.Context(), ios, tc.args); code != tc.code {
			t.Errorf("nova %v: exit %d, want the companion's %d (%s)", tc.args, code, tc.code, errOut)
		}
	}
	want := []call{{fake, tests[0].args}, {fake, tests[1].args}}
	if d := cmp.Diff(want, calls, cmp.AllowUnexported(call{})); d != "" {
		t.Errorf("handed over (-want +got):\n%s", d)
	}

	t.Setenv("PATH", t.TempDir())
	ios, _, _, errOut := iostreams.Test()
	if code := Run(t.Context(), ios, []string{"worker"}); code != 1 ||
		!strings.Contains(errOut.String(), "go install github.com/novacode/nova/cmd/nova-temporal@latest") {
		t.Errorf("without nova-temporal: exit %d, %q", code, errOut)
	}
	// A local batch stays here.
	if len(calls) != 2 {
		t.Errorf("%d hand-overs, want 2", len(calls))
	}
}
