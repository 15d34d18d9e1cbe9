package temporal

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/novacode/nova/fleet"
)

// Engine runs tasks on a Temporal cluster: a fleet.Engine for fleet.Batch
// (nova batch --engine temporal). Workers (NewWorker, nova worker) on any
// machines run them.
type Engine struct {
	Client client.Client
	// TaskQueue is the queue the workers poll; empty means
	// DefaultTaskQueue.
	TaskQueue string
	// Defaults fill the fields a task leaves empty (the batch's flags);
	// they travel with the task, as the workers know nothing of the
	// batch.
	Defaults fleet.Task
	// StepsPerRun is the workflows' continue-as-new threshold; 0 means
	// DefaultStepsPerRun.
	StepsPerRun int
}

var _ fleet.Engine = (*Engine)(nil)

// submits bounds the submissions in flight.
const submits = 16

// Run implements fleet.Engine: it submits each task as a workflow whose id
// is the task's id and yields each result as its workflow closes. A task
// submitted before — by an earlier run of the batch, or another batch —
// starts nothing: its workflow, running or closed, is collected (a closed
// one's id is never run again while the server keeps its history; see the
// namespace's retention). started is called once a task's workflow runs
// or ran: "running" counts tasks submitted and not yet ended, queued
// ones included.
//
// When ctx ends (Ctrl-C), Run stops collecting and returns; the workflows
// go on on the workers, and running the batch again collects them.
func (e *Engine) Run(ctx context.Context, tasks []fleet.Task, started func(fleet.Task)) iter.Seq[fleet.TaskResult] {
	return func(yield func(fleet.TaskResult) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		results := make(chan fleet.TaskResult)
		slots := make(chan struct{}, submits)
		var wg sync.WaitGroup
		for _, t := range tasks {
			wg.Go(func() {
				r, ok := e.run(ctx, t, started, slots)
				if !ok {
					return
				}
				select {
				case results <- r:
				case <-ctx.Done():
				}
			})
		}
		// The collectors end once ctx ends or their result is taken; this
		// closes results after them, and the loops below drain it.
		var closer sync.WaitGroup
		closer.Go(func() {
			wg.Wait()
			close(results)
		})
		defer closer.Wait()
		for r := range results {
			if !yield(r) {
				cancel()
				break
			}
		}
		for range results {
		}
	}
}

// run submits t (or finds its workflow) and waits for its result; false
// when ctx ended first.
func (e *Engine) run(ctx context.Context, t fleet.Task, started func(fleet.Task), slots chan struct{}) (fleet.TaskResult, bool) {
	in, err := e.input(t)
	if err != nil {
		return failed(t, err.Error()), true
	}
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return fleet.TaskResult{}, false
	}
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        t.ID,
		TaskQueue: cmpQueue(e.TaskQueue),
		// Submitting twice starts nothing twice: a running workflow of
		// the id is the one collected, and a closed one is never run
		// again (WorkflowExecutionErrorWhenAlreadyStarted false: its
		// run is returned, not an error).
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
	}, WorkflowName, in)
	<-slots
	if err != nil {
		if ctx.Err() != nil {
			return fleet.TaskResult{}, false
		}
		return failed(t, fmt.Sprintf("submit to Temporal: %v", err)), true
	}
	if started != nil {
		started(t)
	}
	var res fleet.TaskResult
	err = run.Get(ctx, &res)
	switch {
	case ctx.Err() != nil:
		return fleet.TaskResult{}, false
	case err == nil:
		res.ID = t.ID
		return res, true
	}
	if ce, ok := errors.AsType[*temporal.CanceledError](err); ok {
		// Cancelled in Temporal: final, unlike a batch stopped here (its
		// id cannot run again), so a failed task with what it did.
		if !ce.HasDetails() || ce.Details(&res) != nil {
			res = failed(t, "")
		}
		res.ID, res.Subtype, res.IsError = t.ID, fleet.SubtypeError, true
		res.Error = fmt.Sprintf("the workflow %s was cancelled; a task id runs once: give the task a new id to run it again", t.ID)
		return res, true
	}
	return failed(t, fmt.Sprintf("workflow %s: %v", t.ID, err)), true
}

// input is t as its workflow's input: the batch's defaults applied and its
// cwd absolute, so that a worker elsewhere runs what this batch meant.
func (e *Engine) input(t fleet.Task) (Input, error) {
	t = t.WithDefaults(e.Defaults)
	if t.Git == nil {
		cwd, err := filepath.Abs(t.Cwd)
		if err != nil {
			return Input{}, fmt.Errorf("the task's cwd: %w", err)
		}
		t.Cwd = cwd
	}
	t.Line = 0
	return Input{Task: t, StepsPerRun: e.StepsPerRun}, nil
}

// failed is the result of a task that failed outside its session, in
// print mode's shape.
func failed(t fleet.Task, why string) fleet.TaskResult {
	return fleet.TaskResult{ID: t.ID, Result: fleet.Result{Type: "result", Subtype: fleet.SubtypeError, IsError: true, Error: why,
		ToolCalls: []fleet.ToolCall{}, PermissionDenials: []fleet.PermissionDenial{}}}
}
