package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/novacode/nova/tool"
)

// executor runs one turn's tool calls as they arrive from the stream.
//
// Ordering invariants:
//   - A concurrency-safe task waits only for the last mutating task submitted
//     before it (barrier), so read-only tools overlap each other.
//   - A mutating task waits for the barrier and for every task submitted since
//     it, then becomes the new barrier: it runs alone, after all calls before
//     it, and every later call waits for it.
//
// Ownership: the executor owns every task goroutine; wait() returns only when
// all of them have ended, so none outlives the turn.
//
// Completion: a task that ends is queued (after its done channel closes)
// and notify is signalled; the loop takes the queue with takeDone and turns
// it into tool_done events. Every submitted task is queued exactly once.
type executor struct {
	ctx      context.Context
	env      *tool.Env
	now      func() time.Time
	turn     int
	snapshot func(turn int, paths []string)
	wg       sync.WaitGroup
	mu       sync.Mutex // guards barrier and since; submit is called from the loop only, but be explicit
	tail     barrierState

	doneMu  sync.Mutex // guards ended and running
	ended   []*task    // tasks that ended since the last takeDone
	running int        // tasks submitted and not yet queued in ended
	notify  chan struct{}
}

type barrierState struct {
	barrier <-chan struct{}   // done of the last mutating task; nil when none
	since   []<-chan struct{} // done of safe tasks submitted after barrier
}

// task is one submitted call. Fields other than done are written by its
// goroutine before done is closed and read by others only after.
type task struct {
	call     ToolCall
	done     chan struct{}
	result   tool.Result
	started  time.Time
	finished time.Time
	// cancelled is set when ctx ended before or while the tool ran.
	cancelled bool
}

func newExecutor(ctx context.Context, env *tool.Env, now func() time.Time, turn int, snapshot func(int, []string)) *executor {
	return &executor{ctx: ctx, env: env, now: now, turn: turn, snapshot: snapshot, notify: make(chan struct{}, 1)}
}

// end queues tk as ended and wakes the loop if it is waiting.
func (x *executor) end(tk *task) {
	x.doneMu.Lock()
	x.ended = append(x.ended, tk)
	x.running--
	x.doneMu.Unlock()
	select {
	case x.notify <- struct{}{}:
	default: // a wake-up is already pending; it covers this task too
	}
}

// takeDone returns the tasks that ended since the last call, in the order
// they ended, and how many are still running.
func (x *executor) takeDone() ([]*task, int) {
	x.doneMu.Lock()
	defer x.doneMu.Unlock()
	out := x.ended
	x.ended = nil
	return out, x.running
}

// submit starts call on t as soon as its ordering constraints allow.
// approved are the resolved paths the permission decision covered; file
// tools re-check what they open against them.
func (x *executor) submit(call ToolCall, t tool.Tool, approved []string) *task {
	tk := &task{call: call, done: make(chan struct{})}
	x.mu.Lock()
	var deps []<-chan struct{}
	if x.tail.barrier != nil {
		deps = append(deps, x.tail.barrier)
	}
	if t.ConcurrencySafe() {
		x.tail.since = append(x.tail.since, tk.done)
	} else {
		deps = append(deps, x.tail.since...)
		x.tail.barrier, x.tail.since = tk.done, nil
	}
	x.mu.Unlock()

	x.doneMu.Lock()
	x.running++
	x.doneMu.Unlock()
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		defer x.end(tk) // after done is closed: the fields are final
		defer close(tk.done)
		for _, d := range deps {
			select {
			case <-d:
			case <-x.ctx.Done():
				tk.cancelled = true
				tk.result = cancelledResult
				return
			}
		}
		if x.snapshot != nil && !t.ConcurrencySafe() && len(approved) > 0 {
			// Keep what the files held before this tool changes them.
			x.snapshot(x.turn, approved)
		}
		tk.started = x.now()
		tk.result = runTool(tool.WithApprovedPaths(x.ctx, approved), t, x.env, call.Input)
		tk.finished = x.now()
		if x.ctx.Err() != nil {
			tk.cancelled = true
			tk.result.IsError = true
			tk.result.Content = "[cancelled: the run was interrupted while this tool was running]\n" + tk.result.Content
		}
	}()
	return tk
}

// wait blocks until every submitted task has ended.
func (x *executor) wait() { x.wg.Wait() }

var cancelledResult = tool.Result{Content: "[cancelled: the run was interrupted before this tool ran]", IsError: true}

// runTool calls t, turning a Go error or a panic into an error result: one
// broken tool must never take the loop down.
func runTool(ctx context.Context, t tool.Tool, env *tool.Env, input json.RawMessage) (res tool.Result) {
	defer func() {
		if p := recover(); p != nil {
			res = tool.Errorf("Tool %s crashed: %v. This is a bug in NovaCode, not in your call; try another approach.\n%s", t.Name(), p, debug.Stack())
		}
	}()
	res, err := t.Run(ctx, env, input)
	if err != nil {
		return tool.Result{Content: fmt.Sprintf("Tool %s failed: %v", t.Name(), err), IsError: true}
	}
	return res
}
