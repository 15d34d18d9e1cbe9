package temporal

import (
	"runtime"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/novacode/nova/fleet"
)

// DefaultTaskQueue is the task queue nova batch submits to and nova worker
// polls when neither names one.
const DefaultTaskQueue = "nova-fleet"

// WorkerOptions configure a worker.
type WorkerOptions struct {
	// TaskQueue is the queue to poll; empty means DefaultTaskQueue.
	TaskQueue string
	// Parallel is the number of activities (steps, mostly) run at once;
	// 0 or less means runtime.NumCPU().
	Parallel int
	// Config is how the worker runs tasks (Activities.Config).
	Config fleet.Config
}

// NewWorker returns a worker that runs tasks' workflows and activities
// from o.TaskQueue; Start or Run it, Stop it when done.
func NewWorker(c client.Client, o WorkerOptions) worker.Worker {
	parallel := o.Parallel
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	w := worker.New(c, cmpQueue(o.TaskQueue), worker.Options{
		MaxConcurrentActivityExecutionSize: parallel,
		// Workflow tasks are short (they decide the next activity):
		// a few at once keep the steps coming.
		MaxConcurrentWorkflowTaskExecutionSize: max(parallel, 2),
	})
	Register(w, &Activities{Config: o.Config})
	return w
}

// Register registers the workflow and a's activities with r under their
// names (a worker, or a test environment).
func Register(r worker.Registry, a *Activities) {
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(a.Prepare, activity.RegisterOptions{Name: prepareActivity})
	r.RegisterActivityWithOptions(a.Step, activity.RegisterOptions{Name: stepActivity})
	r.RegisterActivityWithOptions(a.Finish, activity.RegisterOptions{Name: finishActivity})
}

func cmpQueue(q string) string {
	if q == "" {
		return DefaultTaskQueue
	}
	return q
}
