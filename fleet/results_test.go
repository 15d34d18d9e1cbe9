package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func line(t *testing.T, r TaskResult) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func failure(task Task) TaskResult {
	return TaskResult{ID: task.ID, Result: Result{Type: "result", Subtype: SubtypeError, IsError: true, Error: "boom"}}
}

// The result line is print mode's result object with the id first, and
// the diff for a git task.
func TestTaskResultJSON(t *testing.T) {
	r := TaskResult{ID: "t1", Result: Result{Type: "result", Subtype: SubtypeSuccess, Result: "done", NumTurns: 2,
		Usage: Usage{InputTokens: 10, OutputTokens: 2}, TotalCostUSD: 0.5}, Diff: "diff --git a/x b/x\n"}
	got := strings.TrimSpace(line(t, r))
	want := `{"id":"t1","type":"result","subtype":"success","is_error":false,"result":"done","num_turns":2,"duration_ms":0,"session_id":"",` +
		`"usage":{"input_tokens":10,"output_tokens":2,"cache_read_input_tokens":0,"cache_creation_input_tokens":0},"total_cost_usd":0.5,` +
		`"tool_calls":null,"permission_denials":null,"diff":"diff --git a/x b/x\n"}`
	if got != want {
		t.Errorf("JSON:\n got %s\nwant %s", got, want)
	}
}

func TestOpenResults(t *testing.T) {
	ok1, ok3 := success(Task{ID: "t1"}), success(Task{ID: "t3"})
	tests := []struct {
		name       string
		content    string
		done       []string
		torn       bool
		unreadable []int
		kept       string // the file once opened
	}{
		{name: "no file yet", content: "", kept: ""},
		{name: "successes are done, failures are not",
			content: line(t, ok1) + line(t, failure(Task{ID: "t2"})) + line(t, ok3),
			done:    []string{"t1", "t3"},
			kept:    line(t, ok1) + line(t, failure(Task{ID: "t2"})) + line(t, ok3)},
		{name: "a failure then a success of the same task",
			content: line(t, failure(Task{ID: "t1"})) + line(t, ok1),
			done:    []string{"t1"},
			kept:    line(t, failure(Task{ID: "t1"})) + line(t, ok1)},
		{name: "a torn last line is cut off, even one that would parse",
			content: line(t, ok1) + strings.TrimSuffix(line(t, ok3), "\n"),
			done:    []string{"t1"}, torn: true,
			kept: line(t, ok1)},
		{name: "a torn half line",
			content: line(t, ok1) + `{"id":"t3","type":"res`,
			done:    []string{"t1"}, torn: true,
			kept: line(t, ok1)},
		{name: "lines that are not results are kept and not done",
			content: "garbage\n\n" + `{"id":"x","subtype":"success"}` + "\n" + line(t, ok1),
			done:    []string{"t1"}, unreadable: []int{1, 3},
			kept: "garbage\n\n" + `{"id":"x","subtype":"success"}` + "\n" + line(t, ok1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "results.jsonl")
			if tt.content != "" {
				if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r, err := OpenResults(path)
			if err != nil {
				t.Fatal(err)
			}
			var done []string
			for _, id := range []string{"t1", "t2", "t3", "x"} {
				if r.Done(id) {
					done = append(done, id)
				}
			}
			if d := cmp.Diff(tt.done, done); d != "" {
				t.Errorf("done (-want +got):\n%s", d)
			}
			if r.Torn != tt.torn {
				t.Errorf("torn = %v, want %v", r.Torn, tt.torn)
			}
			if d := cmp.Diff(tt.unreadable, r.Unreadable); d != "" {
				t.Errorf("unreadable (-want +got):\n%s", d)
			}
			// Appending starts on a line of its own.
			ok4 := success(Task{ID: "t4"})
			if err := r.Write(ok4); err != nil {
				t.Fatal(err)
			}
			if !r.Done("t4") {
				t.Error("t4 written, not done")
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if d := cmp.Diff(tt.kept+line(t, ok4), string(b)); d != "" {
				t.Errorf("file (-want +got):\n%s", d)
			}
		})
	}
}

// Concurrent writes never interleave within a line.
func TestResultsConcurrentWrites(t *testing.T) {
	var buf bytes.Buffer
	r := NewResults(&buf)
	var wg sync.WaitGroup
	for _, task := range tasksN(50) {
		wg.Go(func() {
			_ = r.Write(TaskResult{ID: task.ID, Result: Result{Type: "result", Result: strings.Repeat("x", 5000)}})
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 50 {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("a torn line: %.80s", l)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
}

// fakeEngine yields the results it is given for the tasks it gets.
type fakeEngine struct {
	mu    sync.Mutex
	got   []string
	yield func(Task) (TaskResult, bool)
}

func (e *fakeEngine) Run(ctx context.Context, tasks []Task, started func(Task)) iter.Seq[TaskResult] {
	return func(yield func(TaskResult) bool) {
		for _, task := range tasks {
			e.mu.Lock()
			e.got = append(e.got, task.ID)
			e.mu.Unlock()
			started(task)
			r, ok := e.yield(task)
			if !ok {
				continue
			}
			if !yield(r) {
				return
			}
		}
	}
}

// A batch skips what the results hold as done, runs the rest (failures of
// an earlier run included), writes each result and counts.
func TestBatchResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	earlier := line(t, success(Task{ID: "t00"})) + line(t, failure(Task{ID: "t01"})) + `{"id":"t02","ty`
	if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := OpenResults(path)
	if err != nil {
		t.Fatal(err)
	}
	eng := &fakeEngine{yield: func(task Task) (TaskResult, bool) {
		switch task.ID {
		case "t03":
			return failure(task), true
		case "t04":
			return TaskResult{}, false // not ended: not yielded
		}
		r := success(task)
		r.Usage = Usage{InputTokens: 100, OutputTokens: 10}
		r.TotalCostUSD = 0.25
		return r, true
	}}
	var steps []string
	b := &Batch{Engine: eng, Results: res, Progress: func(p Progress) {
		switch {
		case p.Started != nil:
			steps = append(steps, "start "+p.Started.ID)
		case p.Ended != nil:
			steps = append(steps, "end "+p.Ended.ID)
		}
	}}
	sum, err := b.Run(t.Context(), tasksN(5))
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"t01", "t02", "t03", "t04"}, eng.got); d != "" {
		t.Errorf("tasks run (-want +got):\n%s", d)
	}
	want := Summary{Tally: Tally{Tasks: 5, Skipped: 1, Done: 2, Failed: 1, Usage: Usage{InputTokens: 200, OutputTokens: 20}, CostUSD: 0.5}, NotRun: 1}
	if d := cmp.Diff(want, sum, cmpIgnoreWall); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	wantSteps := []string{"start t01", "end t01", "start t02", "end t02", "start t03", "end t03", "start t04"}
	if d := cmp.Diff(wantSteps, steps); d != "" {
		t.Errorf("progress (-want +got):\n%s", d)
	}
	b2, _ := os.ReadFile(path)
	wantFile := line(t, success(Task{ID: "t00"})) + line(t, failure(Task{ID: "t01"}))
	for _, id := range []string{"t01", "t02"} {
		r := success(Task{ID: id})
		r.Usage, r.TotalCostUSD = Usage{InputTokens: 100, OutputTokens: 10}, 0.25
		wantFile += line(t, r)
	}
	wantFile += line(t, failure(Task{ID: "t03"}))
	if d := cmp.Diff(wantFile, string(b2)); d != "" {
		t.Errorf("results file (-want +got):\n%s", d)
	}
}

var cmpIgnoreWall = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Wall" }, cmp.Ignore())

// A results file that cannot be written stops the batch with the error.
func TestBatchWriteError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	res, err := OpenResults(path)
	if err != nil {
		t.Fatal(err)
	}
	res.f.Close() // every write now fails
	eng := &fakeEngine{yield: func(task Task) (TaskResult, bool) { return success(task), true }}
	sum, err := (&Batch{Engine: eng, Results: res}).Run(t.Context(), tasksN(3))
	if err == nil || !strings.Contains(err.Error(), "write the result of t00") {
		t.Fatalf("error = %v", err)
	}
	if sum.NotRun != 3 || len(eng.got) != 1 {
		t.Errorf("summary %+v after %v; want the batch stopped at the first", sum, eng.got)
	}
}

// Invalid tasks and repeated ids are refused before anything runs.
func TestBatchChecksTasks(t *testing.T) {
	eng := &fakeEngine{yield: func(task Task) (TaskResult, bool) { t.Error("ran"); return TaskResult{}, false }}
	for _, tc := range []struct {
		tasks []Task
		want  string
	}{
		{[]Task{{ID: "a"}}, `task "a": no "prompt"`},
		{[]Task{{ID: "a", Prompt: "p"}, {ID: "a", Prompt: "q"}}, `task "a": the id is used twice`},
	} {
		_, err := (&Batch{Engine: eng}).Run(context.Background(), tc.tasks)
		if err == nil || err.Error() != tc.want {
			t.Errorf("error = %v, want %q", err, tc.want)
		}
	}
}
