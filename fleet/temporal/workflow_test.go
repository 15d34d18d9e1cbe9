package temporal

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/novacode/nova"
	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// scripted serves each task's conversation from its own script, chosen by
// the marker in its prompt.
func scripted(t *testing.T, scripts map[string][]llmtest.Turn) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFallback(llmtest.Conversations(scripts))
	return srv
}

// testConfig points the sessions at srv, with a data directory of their
// own and nothing of the machine's environment.
func testConfig(t *testing.T, srv *llmtest.Server) fleet.Config {
	t.Helper()
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	return fleet.Config{
		Options:    nova.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }, Sandbox: "off"},
		ScratchDir: t.TempDir(),
		Defaults:   fleet.Task{PermissionMode: "bypassPermissions"},
	}
}

func turn(blocks ...llmtest.Block) llmtest.Turn {
	return llmtest.Turn{Blocks: blocks, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}}
}

func bash(command string) llmtest.Block {
	b, _ := json.Marshal(map[string]any{"command": command})
	return llmtest.ToolUse("", "Bash", string(b))
}

// modelCalls are the model calls srv answered (not its models list).
func modelCalls(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}

// counting is the script of a task that counts in n tool turns, then
// answers.
func counting(marker string, n int) []llmtest.Turn {
	var turns []llmtest.Turn
	for i := range n {
		turns = append(turns, turn(bash("echo "+marker+" "+string(rune('a'+i)))))
	}
	return append(turns, turn(llmtest.Text("counted: "+marker)))
}

// newEnv is a test environment running the workflow and acts (registered
// under their names) for the task with workflow id id.
func newEnv(t *testing.T, id string, acts *Activities) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	// The environment logs every activity and timer; the tests say what
	// went wrong.
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	env := s.NewTestWorkflowEnvironment()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: id})
	env.SetTestTimeout(time.Minute)
	Register(env, acts)
	// The environment completes a cancelled activity at once, where a
	// server waits for it (WaitForCancellation): the test waits, so that
	// nothing it started outlives it.
	var running sync.WaitGroup
	t.Cleanup(running.Wait)
	env.RegisterActivityWithOptions(func(ctx context.Context, in StepInput) (StepOutput, error) {
		running.Add(1)
		defer running.Done()
		return acts.Step(ctx, in)
	}, activity.RegisterOptions{Name: stepActivity})
	return env
}

// runToEnd runs the workflow for in, following its continues-as-new, and
// returns the result, how many runs it took and the workflow's error.
func runToEnd(t *testing.T, id string, acts *Activities, in Input) (fleet.TaskResult, int, error) {
	t.Helper()
	for runs := 1; ; runs++ {
		env := newEnv(t, id, acts)
		env.ExecuteWorkflow(WorkflowName, in)
		if !env.IsWorkflowCompleted() {
			t.Fatal("the workflow did not complete")
		}
		err := env.GetWorkflowError()
		if can, ok := errors.AsType[*workflow.ContinueAsNewError](err); ok {
			if can.WorkflowType.Name != WorkflowName {
				t.Fatalf("continued as %s", can.WorkflowType.Name)
			}
			in = Input{}
			if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var res fleet.TaskResult
		if err == nil {
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
		}
		return res, runs, err
	}
}

// ignoreTimes leaves out what differs between two runs of one
// conversation: durations, and the scripted server's tool call ids.
var ignoreTimes = cmp.Options{
	cmpopts.IgnoreFields(fleet.Result{}, "DurationMS"),
	cmpopts.IgnoreFields(fleet.ToolCall{}, "DurationMS", "ID"),
}

// The workflow runs a task through the same pieces as the local pool: its
// result is RunTask's for the same conversation, and nothing of its steps
// is left beside the session but the result.
func TestWorkflowRunsTheTaskAsRunTask(t *testing.T) {
	srv := scripted(t, map[string][]llmtest.Turn{"[local]": counting("[local]", 3), "[temporal]": counting("[temporal]", 3)})
	cfg := testConfig(t, srv)
	local := fleet.RunTask(t.Context(), fleet.Task{ID: "local", Prompt: "[local] count", Cwd: t.TempDir()}, cfg)
	if !local.Succeeded() {
		t.Fatalf("RunTask: %+v", local)
	}
	task := fleet.Task{ID: "t1", Prompt: "[temporal] count", Cwd: t.TempDir()}.WithDefaults(cfg.Defaults)
	acts := &Activities{Config: cfg}
	got, runs, err := runToEnd(t, "t1", acts, Input{Task: task})
	if err != nil || runs != 1 {
		t.Fatalf("workflow: %v after %d runs", err, runs)
	}
	want := local
	want.ID, want.SessionID = "t1", fleet.StepSessionID("t1")
	want.Result.Result = "counted: [temporal]"
	for i := range want.ToolCalls {
		want.ToolCalls[i].Input = json.RawMessage(strings.Replace(string(want.ToolCalls[i].Input), "[local]", "[temporal]", 1))
	}
	if d := cmp.Diff(want, got, ignoreTimes); d != "" {
		t.Errorf("the workflow's result against RunTask's (-want +got):\n%s", d)
	}
	dir, _ := acts.stepDir(fleet.StepSessionID("t1"))
	if left := stepFiles(dir); len(left) != 0 {
		t.Errorf("step results left: %v", left)
	}
}

// A git task: its clone is made where every worker finds it (the scratch
// directory, named after the session), its diff is the result's, and the
// clone goes at the end.
func TestWorkflowGitTask(t *testing.T) {
	url := bareRepo(t)
	write, _ := json.Marshal(map[string]any{"file_path": "NEW.md", "content": "new\n"})
	srv := scripted(t, map[string][]llmtest.Turn{"[git]": {
		turn(llmtest.ToolUse("", "Write", string(write))),
		turn(llmtest.Text("written")),
	}})
	cfg := testConfig(t, srv)
	acts := &Activities{Config: cfg}
	task := fleet.Task{ID: "g1", Prompt: "[git] add a file", Git: &fleet.Git{URL: url}}.WithDefaults(cfg.Defaults)
	var clone string
	env := newEnv(t, "g1", acts)
	env.SetOnActivityCompletedListener(func(info *activity.Info, result converter.EncodedValue, err error) {
		if info.ActivityType.Name == prepareActivity {
			var ws fleet.Workspace
			_ = result.Get(&ws)
			clone = ws.Dir
		}
	})
	env.ExecuteWorkflow(WorkflowName, Input{Task: task})
	var res fleet.TaskResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if !res.Succeeded() || !strings.Contains(res.Diff, "+++ b/NEW.md") {
		t.Errorf("result = %+v", res)
	}
	if want := filepath.Join(cfg.ScratchDir, fleet.StepSessionID("g1")); clone != want {
		t.Errorf("cloned into %s, want %s", clone, want)
	}
	if _, err := os.Stat(clone); !os.IsNotExist(err) {
		t.Errorf("the clone is still there: %v", err)
	}
}

// A step whose worker dies — before its model call, or after the call was
// recorded but before the step's end reached the server — is retried per
// the retry policy, and the retry goes on from the stored session: every
// scripted turn is requested once, and the task completes as if nothing
// had happened.
func TestStepRetriedAfterAWorkerDied(t *testing.T) {
	tests := []struct {
		name string
		// die fails the first attempt of the nth step, before it runs
		// (false) or after it ran (true).
		nth   int
		after bool
		// attempts of the step activity: a step that ran but whose end
		// was lost is retried as the next one (its model call made).
		attempts int32
	}{
		{"before its call", 2, false, 5},
		{"after its call, before reporting", 2, true, 4},
		{"after the answer, before reporting", 4, true, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := scripted(t, map[string][]llmtest.Turn{"[retry]": counting("[retry]", 3)})
			cfg := testConfig(t, srv)
			acts := &Activities{Config: cfg}
			var steps, attempts atomic.Int32
			flaky := func(ctx context.Context, in StepInput) (StepOutput, error) {
				attempts.Add(1)
				dies := activity.GetInfo(ctx).Attempt == 1 && steps.Add(1) == int32(tt.nth)
				if dies && !tt.after {
					return StepOutput{}, errors.New("the worker died")
				}
				out, err := acts.Step(ctx, in)
				if dies && err == nil {
					return StepOutput{}, errors.New("the worker died before reporting")
				}
				return out, err
			}
			env := newEnv(t, "r1", acts)
			env.RegisterActivityWithOptions(flaky, activity.RegisterOptions{Name: stepActivity})
			task := fleet.Task{ID: "r1", Prompt: "[retry] count", Cwd: t.TempDir()}.WithDefaults(cfg.Defaults)
			env.ExecuteWorkflow(WorkflowName, Input{Task: task})
			var res fleet.TaskResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if !res.Succeeded() || res.Result.Result != "counted: [retry]" || res.NumTurns != 4 || len(res.ToolCalls) != 3 {
				t.Errorf("result = %+v", res)
			}
			if n := len(modelCalls(srv)); n != 4 {
				t.Errorf("%d model calls, want the script's 4: a completed turn was requested again", n)
			}
			if n := attempts.Load(); n != tt.attempts {
				t.Errorf("%d step attempts, want %d", n, tt.attempts)
			}
		})
	}
}

// Past StepsPerRun steps the workflow continues as new, carrying only its
// small state, and the next run goes on with the same session.
func TestContinueAsNewPastTheThreshold(t *testing.T) {
	srv := scripted(t, map[string][]llmtest.Turn{"[long]": counting("[long]", 6)})
	cfg := testConfig(t, srv)
	acts := &Activities{Config: cfg}
	task := fleet.Task{ID: "long", Prompt: "[long] count", Cwd: t.TempDir()}.WithDefaults(cfg.Defaults)
	res, runs, err := runToEnd(t, "long", acts, Input{Task: task, StepsPerRun: 3})
	if err != nil {
		t.Fatal(err)
	}
	if runs != 3 {
		t.Errorf("%d runs, want 3 (7 steps, 3 per run)", runs)
	}
	if !res.Succeeded() || res.NumTurns != 7 || len(res.ToolCalls) != 6 || len(modelCalls(srv)) != 7 {
		t.Errorf("result = %+v after %d model calls", res, len(modelCalls(srv)))
	}
}

// The task's max_turns stops the steps at the task's limit, and the result
// says so as RunTask's does.
func TestWorkflowStopsAtTheTasksTurnLimit(t *testing.T) {
	srv := scripted(t, map[string][]llmtest.Turn{"[limit]": counting("[limit]", 5)})
	cfg := testConfig(t, srv)
	task := fleet.Task{ID: "lim", Prompt: "[limit] count", Cwd: t.TempDir(), MaxTurns: 2}.WithDefaults(cfg.Defaults)
	res, _, err := runToEnd(t, "lim", &Activities{Config: cfg}, Input{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	want := "reached the turn limit (2) before the task was done; raise --max-turns to let it go on"
	if res.Subtype != fleet.SubtypeMaxTurns || res.Error != want || res.NumTurns != 2 || len(modelCalls(srv)) != 2 {
		t.Errorf("result = %+v after %d model calls", res, len(modelCalls(srv)))
	}
}

// Cancelling the workflow cancels the running step: its command is
// stopped, and the workflow ends cancelled with what the task did. (The
// test environment completes a cancelled activity at once, without waiting
// for it as WaitForCancellation has a server do; the step learns of the
// cancellation from its next heartbeat's answer.)
func TestCancelStopsTheStepsTools(t *testing.T) {
	srv := scripted(t, map[string][]llmtest.Turn{"[cancel]": {
		turn(bash("echo started")),
		turn(bash("sleep 30; echo slept > slept.txt")),
		turn(llmtest.Text("never")),
	}})
	cfg := testConfig(t, srv)
	acts := &Activities{Config: cfg, heartbeatEvery: 50 * time.Millisecond}
	cwd := t.TempDir()
	task := fleet.Task{ID: "c1", Prompt: "[cancel] go", Cwd: cwd}.WithDefaults(cfg.Defaults)
	env := newEnv(t, "c1", acts)
	stepEnded := make(chan time.Time, 10)
	env.RegisterActivityWithOptions(func(ctx context.Context, in StepInput) (StepOutput, error) {
		defer func() { stepEnded <- time.Now() }()
		if len(modelCalls(srv)) == 1 {
			// The second step, whose command sleeps.
			env.RegisterDelayedCallback(env.CancelWorkflow, 500*time.Millisecond)
		}
		return acts.Step(ctx, in)
	}, activity.RegisterOptions{Name: stepActivity})
	start := time.Now()
	env.ExecuteWorkflow(WorkflowName, Input{Task: task})
	err := env.GetWorkflowError()
	ce, ok := errors.AsType[*temporal.CanceledError](err)
	if !ok {
		t.Fatalf("workflow error = %v, want cancelled", err)
	}
	var res fleet.TaskResult
	if err := ce.Details(&res); err != nil {
		t.Fatal(err)
	}
	if res.Subtype != fleet.SubtypeCancelled || res.Error != "cancelled" || len(res.ToolCalls) == 0 {
		t.Errorf("result = %+v", res)
	}
	<-stepEnded
	select {
	case end := <-stepEnded:
		if d := end.Sub(start); d > 15*time.Second {
			t.Errorf("the cancelled step ended after %s: its command was not stopped", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled step still runs")
	}
	if _, err := os.Stat(filepath.Join(cwd, "slept.txt")); !os.IsNotExist(err) {
		t.Errorf("the cancelled command ran to its end: %v", err)
	}
}

// The task's timeout stops the step that runs, and the result says so.
func TestWorkflowTimeout(t *testing.T) {
	srv := scripted(t, map[string][]llmtest.Turn{"[slow]": {turn(bash("sleep 30"))}})
	cfg := testConfig(t, srv)
	acts := &Activities{Config: cfg, heartbeatEvery: 50 * time.Millisecond}
	task := fleet.Task{ID: "slow", Prompt: "[slow] go", Cwd: t.TempDir(), Timeout: fleet.Duration(time.Second)}.WithDefaults(cfg.Defaults)
	start := time.Now()
	res, _, err := runToEnd(t, "slow", acts, Input{Task: task})
	if err != nil {
		t.Fatal(err)
	}
	if res.Subtype != fleet.SubtypeError || res.Error != "timed out after 1s (the task's timeout)" {
		t.Errorf("result = %+v", res)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s", d)
	}
}

// What fails outside the session fails the task, with why: a clone not on
// this worker is not retried, a workspace that cannot be made neither.
func TestWorkflowFailures(t *testing.T) {
	srv := scripted(t, map[string][]llmtest.Turn{"": counting("", 1)})
	cfg := testConfig(t, srv)
	tests := []struct {
		name string
		task fleet.Task
		acts *Activities
		want string
	}{
		{"a cwd not on this worker", fleet.Task{ID: "f1", Prompt: "p", Cwd: "/nonexistent/dir"}, &Activities{Config: cfg},
			"prepare the workspace: the task's cwd is not on this worker: stat /nonexistent/dir: no such file or directory"},
		{"no such repository", fleet.Task{ID: "f2", Prompt: "p", Git: &fleet.Git{URL: "file:///nonexistent/repo.git"}}, &Activities{Config: cfg},
			"prepare the workspace: clone file:///nonexistent/repo.git: git clone: exit status 128"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fastRetries(t)
			res, _, err := runToEnd(t, tt.task.ID, tt.acts, Input{Task: tt.task.WithDefaults(cfg.Defaults)})
			if err != nil {
				t.Fatal(err)
			}
			if res.Subtype != fleet.SubtypeError || !strings.HasPrefix(res.Error, tt.want) || res.ToolCalls == nil {
				t.Errorf("result = %+v\nwant error starting %q", res, tt.want)
			}
		})
	}
}

// fastRetries makes the retry policy's waits a millisecond for the test.
func fastRetries(t *testing.T) {
	saved := retryPolicy
	retryPolicy.InitialInterval, retryPolicy.MaximumInterval = time.Millisecond, time.Millisecond
	t.Cleanup(func() { retryPolicy = saved })
}

// runGit runs git in dir for a test's repository.
func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// bareRepo makes a bare repository with a README on main and returns its
// file:// URL.
func bareRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	bare := filepath.Join(root, "origin.git")
	runGit(t, root, "init", "--quiet", "--bare", bare)
	work := filepath.Join(root, "work")
	runGit(t, root, "clone", "--quiet", bare, work)
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, work, "add", ".")
	runGit(t, work, "commit", "--quiet", "-m", "first")
	runGit(t, work, "push", "--quiet", "origin", "HEAD:main")
	return "file://" + bare
}
