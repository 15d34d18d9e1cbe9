package temporal

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// steps is the tool turns of a task's script; with its answer, each task
// makes steps+1 model calls.
const steps = 4

// taskScript is a task's conversation: steps turns that each stream a
// line slowly (so that a worker killed at any moment is likely killed in
// the middle of a stream) and run a command of half a second (or in the
// middle of one), then the answer.
func taskScript(id string, git bool) []llmtest.Turn {
	usage := llm.Usage{InputTokens: 1000, OutputTokens: 100}
	var turns []llmtest.Turn
	for k := 1; k <= steps; k++ {
		in, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("sleep 0.5; echo %s step %d", id, k)})
		tool := llmtest.ToolUse("", "Bash", string(in))
		if git && k == 1 {
			in, _ = json.Marshal(map[string]string{"file_path": "NOTES-" + id + ".md", "content": "notes of " + id + "\n"})
			tool = llmtest.ToolUse("", "Write", string(in))
		}
		turns = append(turns, llmtest.Turn{ChunkDelay: 60 * time.Millisecond, Usage: usage,
			Blocks: []llmtest.Block{llmtest.Text(strings.Repeat(fmt.Sprintf("%s, step %d. ", id, k), 8)), tool}})
	}
	return append(turns, llmtest.Turn{Usage: usage, Blocks: []llmtest.Block{llmtest.Text(id + " is done")}})
}

func marker(id string) string { return "[" + id + "]" }

// bareRepo makes a repository with one commit on main and returns its
// file:// URL.
func bareRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	bare := filepath.Join(root, "origin.git")
	git(root, "init", "--quiet", "--bare", bare)
	work := filepath.Join(root, "work")
	git(root, "clone", "--quiet", bare, work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(work, "add", ".")
	git(work, "commit", "--quiet", "-m", "first")
	git(work, "push", "--quiet", "origin", "HEAD:main")
	return "file://" + bare
}

// Twenty tasks over two workers, one of them killed with SIGKILL in the
// middle of the run: every task completes, on the other worker, and the
// scripted model's log shows that no completed turn was requested twice.
// Submitting tasks again — while they run, and after they ended — runs
// nothing twice. The workflows' histories replay against the workflow's
// code (fleet/temporal's TestReplayHistories).
//
// A turn is one model request; its position in its conversation is the
// number of the model's answers it carries (llmtest.Answers). A turn is
// completed once its answer has been streamed and recorded in the task's
// transcript. The worker's kill leaves the turns it had in flight
// incomplete: one killed mid-stream has no answer recorded, so its retry
// sends the same request again (the same position) — not a completed turn
// repeated; one killed while its tools ran has its answer recorded, so its
// retry goes on with the next position (the interrupted calls reported as
// such). So: the only position any conversation requests twice is one in
// flight when the worker died, requested again after the kill, and never
// a position whose answer the transcripts held at the kill (read right
// after it, before any retry could start).
func TestTwentyTasksSurviveAKilledWorker(t *testing.T) {
	ids := make([]string, 20)
	scripts := map[string][]llmtest.Turn{}
	for i := range ids {
		ids[i] = fmt.Sprintf("task-%02d", i+1)
		scripts[marker(ids[i])] = taskScript(ids[i], i >= 18)
	}
	c := newCluster(t, scripts)
	repo := bareRepo(t)
	var tasks []fleet.Task
	for i, id := range ids {
		task := fleet.Task{ID: id, Prompt: marker(id) + " take your steps", Cwd: t.TempDir()}
		if i >= 18 {
			task.Cwd, task.Git = "", &fleet.Git{URL: repo}
		}
		tasks = append(tasks, task)
	}
	all := c.writeTasks("tasks.jsonl", tasks)
	resultsDir := t.TempDir()
	out := filepath.Join(resultsDir, "results.jsonl")

	a := c.worker("worker-a", 4)
	c.worker("worker-b", 4)
	first := c.batch("batch", all, out)

	// Kill worker A once both workers are busy: a dozen calls made and
	// several streaming.
	ctx := t.Context()
	busy := eventually(ctx, 2*time.Minute, func() bool {
		calls := modelCalls(c.model)
		inFlight := 0
		for _, r := range calls {
			if r.Done.IsZero() {
				inFlight++
			}
		}
		return len(calls) >= 12 && inFlight >= 4
	})
	if !busy {
		t.Fatalf("the workers never got busy: %d model calls", len(modelCalls(c.model)))
	}
	killedAt := time.Now()
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	recordedAtKill := c.recordedAnswers(ids)
	t.Logf("worker A killed after %d model calls", len(modelCalls(c.model)))

	// Three of the tasks submitted again while they run: they are
	// collected, not run again.
	dupOut := filepath.Join(resultsDir, "again.jsonl")
	again := c.batch("batch-again", c.writeTasks("again.jsonl", tasks[:3]), dupOut)

	if code := first.wait(t, 4*time.Minute); code != 0 {
		t.Errorf("nova batch: exit %d", code)
	}
	if code := again.wait(t, time.Minute); code != 0 {
		t.Errorf("the second nova batch: exit %d", code)
	}
	results := readResults(t, out)
	if got := slices.Sorted(maps.Keys(results)); !slices.Equal(got, ids) {
		t.Fatalf("results for %v, want all 20", got)
	}
	for i, id := range ids {
		r := results[id]
		if !r.Succeeded() || r.Result.Result != id+" is done" || r.SessionID != fleet.StepSessionID(id) {
			t.Errorf("%s: %+v", id, r)
		}
		if r.NumTurns != steps+1 {
			t.Errorf("%s: %d turns, want %d", id, r.NumTurns, steps+1)
		}
		if i >= 18 && !strings.Contains(r.Diff, "+++ b/NOTES-"+id+".md") {
			t.Errorf("%s: the git task's diff is %q", id, r.Diff)
		}
	}
	dup := readResults(t, dupOut)
	for _, id := range ids[:3] {
		if d := cmp.Diff(results[id], dup[id]); d != "" {
			t.Errorf("%s submitted again while it ran: a result of its own (-first +again):\n%s", id, d)
		}
	}

	// The model's log.
	calls := modelCalls(c.model)
	repeats := checkTurns(t, calls, ids, scripts, killedAt, recordedAtKill)
	t.Logf("%d model calls for %d scripted turns; %d requests repeated after the kill (in flight when it came)",
		len(calls), len(ids)*(steps+1), repeats)

	// After the end, a task submitted again is collected at once, its
	// model never asked.
	before := len(calls)
	lateOut := filepath.Join(resultsDir, "late.jsonl")
	if code := c.batch("batch-late", c.writeTasks("late.jsonl", tasks[5:6]), lateOut).wait(t, time.Minute); code != 0 {
		t.Errorf("nova batch of a finished task: exit %d", code)
	}
	if d := cmp.Diff(results[ids[5]], readResults(t, lateOut)[ids[5]]); d != "" {
		t.Errorf("a finished task submitted again (-first +again):\n%s", d)
	}
	if n := len(modelCalls(c.model)) - before; n != 0 {
		t.Errorf("a finished task submitted again made %d model calls", n)
	}

	// Nothing of the steps is left beside the sessions but the results,
	// and no clone in the scratch directory.
	if left, _ := filepath.Glob(filepath.Join(c.home, "fleet", "*", "turn-*.json")); len(left) != 0 {
		t.Errorf("step results left: %v", left)
	}
	if left, _ := os.ReadDir(c.scratch); len(left) != 0 {
		t.Errorf("clones left in the scratch directory: %v", left)
	}

	retried := c.replayHistories(t, ids)
	if retried == 0 {
		t.Error("no step was retried: the kill hit no running step")
	}
	t.Logf("%d steps retried after the kill", retried)
}

// checkTurns checks the model's log against the scripts and the kill (see
// TestTwentyTasksSurviveAKilledWorker) and returns how many requests were
// repeats.
func checkTurns(t *testing.T, calls []llmtest.Request, ids []string, scripts map[string][]llmtest.Turn,
	killedAt time.Time, recordedAtKill map[string]int) int {
	t.Helper()
	byTask := map[string][]llmtest.Request{}
	for _, r := range calls {
		id := ""
		for _, cand := range ids {
			if strings.Contains(string(r.Body), marker(cand)) {
				id = cand
			}
		}
		if id == "" {
			t.Errorf("a model call of no task: %.200s", r.Body)
			continue
		}
		byTask[id] = append(byTask[id], r)
	}
	repeats := 0
	for _, id := range ids {
		asked := map[int][]time.Time{} // position -> when requested
		for _, r := range byTask[id] {
			n := llmtest.Answers(r.Body)
			if prev := asked[n]; len(prev) > 0 {
				repeats++
				switch {
				case r.Received.Before(killedAt):
					t.Errorf("%s: position %d requested twice before the kill", id, n)
				case prev[len(prev)-1].After(killedAt):
					t.Errorf("%s: position %d requested twice after the kill", id, n)
				case n < recordedAtKill[id]:
					t.Errorf("%s: position %d requested again after the kill, though its answer was recorded (%d answers at the kill): a completed turn repeated", id, n, recordedAtKill[id])
				}
			}
			if r.Received.After(killedAt) && n < recordedAtKill[id] {
				t.Errorf("%s: position %d requested after the kill, with %d answers recorded at it", id, n, recordedAtKill[id])
			}
			asked[n] = append(asked[n], r.Received)
		}
		if got := slices.Sorted(maps.Keys(asked)); len(got) != len(scripts[marker(id)]) || got[len(got)-1] != len(got)-1 {
			t.Errorf("%s: positions %v requested, want each of its %d turns", id, got, len(scripts[marker(id)]))
		}
	}
	return repeats
}

// replayHistories saves each task's workflow history and replays them all
// against the workflow's code, in the main module (fleet/temporal's
// TestReplayHistories). With NOVA_UPDATE_HISTORY set, a history with a
// retried step becomes that test's testdata. It returns how many steps
// were retried.
func (c *cluster) replayHistories(t *testing.T, ids []string) int {
	t.Helper()
	cl := c.server.GetDefaultClient()
	dir := t.TempDir()
	retried, kept := 0, ""
	for _, id := range ids {
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		it := cl.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		h := &historypb.History{}
		taskRetried := false
		for it.HasNext() {
			ev, err := it.Next()
			if err != nil {
				cancel()
				t.Fatal(err)
			}
			if a := ev.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() > 1 {
				retried++
				taskRetried = true
			}
			h.Events = append(h.Events, ev)
		}
		cancel()
		b, err := protojson.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, id+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if taskRetried && kept == "" {
			kept = path
		}
	}
	if kept != "" && os.Getenv("NOVA_UPDATE_HISTORY") != "" {
		b, _ := os.ReadFile(kept)
		dst := filepath.Join(repoRoot, "fleet", "temporal", "testdata", "history-retried-step.json")
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "TestReplayHistories", "./fleet/temporal")
	cmd.Dir = repoRoot
	cmd.Env = append(os.Environ(), "GOWORK=off", "NOVA_TEMPORAL_HISTORIES="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("the histories do not replay: %v\n%s", err, out)
	}
	return retried
}
