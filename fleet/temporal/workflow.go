package temporal

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/novacode/nova/fleet"
)

// Names under which the workflow and activities are registered: the
// history names them, so they stay the same whatever the Go functions are
// called.
const (
	WorkflowName    = "nova.fleet.Task"
	prepareActivity = "nova.fleet.Prepare"
	stepActivity    = "nova.fleet.Step"
	finishActivity  = "nova.fleet.Finish"
)

// DefaultStepsPerRun is how many steps a workflow run takes before it
// continues as new. A step adds about a dozen small events to the history
// (an activity scheduled, started, completed, and the workflow tasks
// around it); 200 keep a run's history near 2,500 events, well below the
// server's limits (warnings from 10,240 events), however long the session.
const DefaultStepsPerRun = 200

// Input is a workflow's argument: the task, and what a run carries to the
// next when it continues as new.
type Input struct {
	// Task is the task with the batch's defaults applied (fleet.Task's
	// WithDefaults) and its cwd absolute: the worker that runs it knows
	// nothing of the batch.
	Task fleet.Task `json:"task"`
	// StepsPerRun is the number of steps after which the run continues as
	// new; 0 means DefaultStepsPerRun.
	StepsPerRun int `json:"steps_per_run,omitempty"`
	// State is the task's progress so far; nil for a task not begun.
	State *State `json:"state,omitempty"`
}

// State is all a task's workflow keeps: the session's name, the workspace,
// counts. The conversation itself is in the session store.
type State struct {
	// SessionID names the stored session every step opens.
	SessionID string `json:"session_id"`
	// Prepared reports that Workspace is made.
	Prepared  bool            `json:"prepared,omitempty"`
	Workspace fleet.Workspace `json:"workspace"`
	// Started is when the task began, for its timeout.
	Started time.Time `json:"started"`
	// Steps counts the steps run, in every run; Turns the session's model
	// calls so far (the answers its transcript holds).
	Steps int `json:"steps"`
	Turns int `json:"turns"`
}

// PrepareInput is Prepare's argument.
type PrepareInput struct {
	Task      fleet.Task `json:"task"`
	SessionID string     `json:"session_id"`
}

// StepInput is Step's argument.
type StepInput struct {
	Task      fleet.Task      `json:"task"`
	SessionID string          `json:"session_id"`
	Workspace fleet.Workspace `json:"workspace"`
}

// StepOutput is what the workflow learns of a step: whether the model has
// more to do (Subtype error_max_turns) and the session's turn count. The
// step's result itself is stored beside the session; only a step that made
// no model call (nothing stored: the session was answered already, or the
// run failed before its call) returns it, small as it then is.
type StepOutput struct {
	Subtype string `json:"subtype"`
	// Turn is the turn number of the step's model call; 0 when it made
	// none.
	Turn int `json:"turn,omitempty"`
	// Answers counts the model's answers the session holds after the
	// step: its model calls so far.
	Answers int           `json:"answers"`
	Result  *fleet.Result `json:"result,omitempty"`
}

// FinishInput is Finish's argument: the task and how its steps ended.
type FinishInput struct {
	Task      fleet.Task      `json:"task"`
	SessionID string          `json:"session_id"`
	Workspace fleet.Workspace `json:"workspace"`
	// Turns is the session's model calls (the answers it holds).
	Turns int `json:"turns"`
	// Last is the last step's result when it made no model call.
	Last *fleet.Result `json:"last,omitempty"`
	// Stopped is why the steps stopped before the session's end:
	// "cancelled" (the workflow was), "timeout" (the task's), or "".
	Stopped string `json:"stopped,omitempty"`
	// Failure is why the task failed outside its session (its workspace,
	// a step the retry policy gave up on); "" otherwise.
	Failure string `json:"failure,omitempty"`
}

// Why steps stopped (FinishInput.Stopped).
const (
	stoppedCancelled = "cancelled"
	stoppedTimeout   = "timeout"
)

// Errors an activity returns that no retry can mend (the retry policies'
// NonRetryableErrorTypes).
const (
	// errNoWorkspace: the task's workspace is not on this worker.
	errNoWorkspace = "NovaWorkspaceMissing"
)

// Activity options: the runtime's own timeouts and retry policy. Every
// activity heartbeats each second while it runs, so that a worker that
// dies (SIGKILL, a lost machine) loses its attempt after heartbeatTimeout
// and the retry runs on any worker within seconds, and so that a running
// step learns of the workflow's cancellation. Retries back off from one
// second to half a minute.
var (
	heartbeatTimeout = 5 * time.Second
	retryPolicy      = temporal.RetryPolicy{
		InitialInterval:        time.Second,
		BackoffCoefficient:     2,
		MaximumInterval:        30 * time.Second,
		NonRetryableErrorTypes: []string{errNoWorkspace},
	}
)

// activityOptions are the options of one kind of activity: start-to-close
// bounds one attempt (a hung attempt is retried), attempts the attempts.
func activityOptions(startToClose time.Duration, attempts int32) workflow.ActivityOptions {
	rp := retryPolicy
	rp.MaximumAttempts = attempts
	return workflow.ActivityOptions{
		StartToCloseTimeout: startToClose,
		HeartbeatTimeout:    heartbeatTimeout,
		RetryPolicy:         &rp,
		// A cancelled step ends (its tools stopped, its transcript
		// written) before Finish takes the diff.
		WaitForCancellation: true,
	}
}

// The options of each kind of activity. A clone of a large repository, a
// diff of one, take minutes. A step is one model call and its tool batch:
// a Bash command may run ten minutes, a subagent runs whole within its
// parent's step; ten attempts survive as many workers' crashes.
func prepareOptions() workflow.ActivityOptions { return activityOptions(30*time.Minute, 5) }
func finishOptions() workflow.ActivityOptions  { return activityOptions(30*time.Minute, 5) }
func stepOptions() workflow.ActivityOptions    { return activityOptions(2*time.Hour, 10) }

// Workflow runs one task: Prepare, Step until the session ends (the model
// answered, failed, or reached the task's turn limit), Finish. Past
// StepsPerRun steps it continues as new with its State. Cancelling it
// cancels the running step (its tools stop) and still runs Finish, whose
// result comes with the cancellation (temporal.CanceledError's details);
// the task's timeout does the same, and its result says so.
func Workflow(ctx workflow.Context, in Input) (fleet.TaskResult, error) {
	t := in.Task
	st := in.State
	if st == nil {
		st = &State{SessionID: fleet.StepSessionID(workflow.GetInfo(ctx).WorkflowExecution.ID), Started: workflow.Now(ctx)}
	}
	perRun := in.StepsPerRun
	if perRun <= 0 {
		perRun = DefaultStepsPerRun
	}

	// The task's timeout stops the steps, as the workflow's cancellation
	// does; Finish still runs.
	steps, stopSteps := workflow.WithCancel(ctx)
	defer stopSteps()
	timedOut := false
	if t.Timeout > 0 {
		left := st.Started.Add(time.Duration(t.Timeout)).Sub(workflow.Now(ctx))
		if left <= 0 {
			timedOut = true
			stopSteps()
		} else {
			workflow.Go(steps, func(gctx workflow.Context) {
				if workflow.NewTimer(gctx, left).Get(gctx, nil) == nil {
					timedOut = true
					stopSteps()
				}
			})
		}
	}

	fin := FinishInput{Task: t, SessionID: st.SessionID}
	if !st.Prepared && steps.Err() == nil {
		var ws fleet.Workspace
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(steps, prepareOptions()), prepareActivity,
			PrepareInput{Task: t, SessionID: st.SessionID}).Get(steps, &ws)
		if err == nil {
			st.Workspace, st.Prepared = ws, true
		} else if steps.Err() == nil {
			fin.Failure = "prepare the workspace: " + failureText(err)
		}
	}
	for run := 0; st.Prepared && fin.Failure == "" && steps.Err() == nil; run++ {
		if run == perRun {
			return fleet.TaskResult{}, workflow.NewContinueAsNewError(ctx, WorkflowName, Input{Task: t, StepsPerRun: in.StepsPerRun, State: st})
		}
		var out StepOutput
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(steps, stepOptions()), stepActivity,
			StepInput{Task: t, SessionID: st.SessionID, Workspace: st.Workspace}).Get(steps, &out)
		st.Steps++
		if err != nil {
			if steps.Err() == nil {
				fin.Failure = failureText(err)
			}
			break
		}
		st.Turns = out.Answers
		fin.Last = out.Result
		if out.Subtype != fleet.SubtypeMaxTurns || (t.MaxTurns > 0 && st.Turns >= t.MaxTurns) {
			break
		}
	}
	switch {
	case ctx.Err() != nil:
		fin.Stopped = stoppedCancelled
	case timedOut:
		fin.Stopped = stoppedTimeout
	}
	fin.Workspace, fin.Turns = st.Workspace, st.Turns

	// A cancelled workflow still finishes: the clone is removed and the
	// result says what was done.
	fctx := ctx
	if ctx.Err() != nil {
		var cancel workflow.CancelFunc
		fctx, cancel = workflow.NewDisconnectedContext(ctx)
		defer cancel()
	}
	var res fleet.TaskResult
	if err := workflow.ExecuteActivity(workflow.WithActivityOptions(fctx, finishOptions()), finishActivity, fin).Get(fctx, &res); err != nil {
		res = fleet.TaskResult{ID: t.ID, Result: fleet.Result{Type: "result", Subtype: fleet.SubtypeError, IsError: true,
			SessionID: st.SessionID, Error: "finish the task: " + failureText(err),
			ToolCalls: []fleet.ToolCall{}, PermissionDenials: []fleet.PermissionDenial{}}}
	}
	if ctx.Err() != nil {
		return res, temporal.NewCanceledError(res)
	}
	return res, nil
}

// failureText is why an activity failed for good, without the SDK's
// wrapping (event ids, the worker's identity).
func failureText(err error) string {
	if appErr, ok := errors.AsType[*temporal.ApplicationError](err); ok {
		return appErr.Message()
	}
	if te, ok := errors.AsType[*temporal.TimeoutError](err); ok {
		return fmt.Sprintf("no worker finished it: %s timeout", te.TimeoutType())
	}
	return err.Error()
}
