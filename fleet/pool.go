package fleet

import (
	"context"
	"iter"
	"runtime"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
)

// Engine runs tasks: Pool on this machine, or an engine on a cluster. Each
// task is a full session run by RunTask, wherever it runs.
type Engine interface {
	// Run runs tasks and yields each one's result as it ends, in the order
	// they end, calling started (when not nil, from any goroutine) as each
	// one begins. A result is yielded once a task has ended, successfully
	// or not; a task that did not end — ctx ended, or the consumer stopped
	// ranging — is not yielded (a result with subtype cancelled never
	// is): it is for a later Run to do. Run returns once the tasks it ran
	// here have stopped.
	Run(ctx context.Context, tasks []Task, started func(Task)) iter.Seq[TaskResult]
}

// Pool is the local engine: Parallel workers on this machine, each running
// one task at a time through RunTask.
type Pool struct {
	// Parallel is the number of tasks run at once; 0 or less means
	// runtime.NumCPU().
	Parallel int
	Config   Config

	// runTask replaces RunTask in tests.
	runTask func(context.Context, Task, Config) TaskResult
}

var _ Engine = (*Pool)(nil)

// Run implements Engine. When ctx ends (Ctrl-C), the running tasks are
// cancelled — their sessions stop their tools — and not yielded; tasks that
// ended before are.
func (p *Pool) Run(ctx context.Context, tasks []Task, started func(Task)) iter.Seq[TaskResult] {
	return func(yield func(TaskResult) bool) {
		if len(tasks) == 0 {
			return
		}
		run := p.runTask
		if run == nil {
			run = RunTask
		}
		workers := p.Parallel
		if workers <= 0 {
			workers = runtime.NumCPU()
		}
		workers = min(workers, len(tasks))
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()

		next := make(chan Task)
		// A worker hands its result over and waits until it is yielded
		// before it takes the next task, so that a consumer counting
		// running tasks never sees more than Parallel. The consumer below
		// drains until the last worker closes results, so no result of a
		// task that ended is lost.
		type handover struct {
			r    TaskResult
			done chan struct{}
		}
		results := make(chan handover)
		var g errgroup.Group
		g.Go(func() error {
			defer close(next)
			for _, t := range tasks {
				select {
				case next <- t:
				case <-ctx.Done():
					return nil
				}
			}
			return nil
		})
		var live atomic.Int32
		live.Store(int32(workers))
		for range workers {
			g.Go(func() error {
				defer func() {
					if live.Add(-1) == 0 {
						close(results)
					}
				}()
				done := make(chan struct{}, 1)
				for t := range next {
					if ctx.Err() != nil {
						continue // handed over as ctx ended: not started
					}
					if started != nil {
						started(t)
					}
					r := run(ctx, t, p.Config)
					if r.Subtype == SubtypeCancelled && ctx.Err() != nil {
						continue // stopped, not ended
					}
					results <- handover{r, done}
					<-done
				}
				return nil
			})
		}
		// However the loop below ends — every result yielded, the consumer
		// stopping, or a panic in its body — the workers are released,
		// the tasks still running cancelled, and every goroutine has ended
		// when Run returns.
		var yielding chan struct{} // the handover whose yield is running
		defer func() {
			if yielding != nil {
				yielding <- struct{}{}
			}
			cancel()
			for h := range results {
				h.done <- struct{}{} // ended as the consumer left: not yielded
			}
			_ = g.Wait()
		}()
		for h := range results {
			yielding = h.done
			more := yield(h.r)
			yielding = nil
			h.done <- struct{}{}
			if !more {
				return
			}
		}
	}
}
