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
//   - Every call that may run is reserved in call order, with its effects
//     (what it will touch), the moment its block completes — also a call
//     that first needs a person.
//   - A call waits for exactly the earlier calls of the turn whose effects
//     conflict with its own (a write against a read or write of the same
//     path or a directory holding it; exclusive against everything) and that
//     had not ended when it was reserved. Everything else starts at once.
//   - A reserved call ends exactly once: it runs and ends, or it is
//     released without running (denied, cancelled). Either way its done
//     channel closes and whoever waits on it goes on.
//
// Ownership: the executor owns every task goroutine; wait() returns only when
// all of them have ended, so none outlives the turn. reserve, start and
// release are called from the loop's goroutine only.
//
// Completion: a task that ran is queued (after its done channel closes) and
// notify is signalled; the loop takes the queue with takeDone and turns it
// into tool_done events. Every started task is queued exactly once; a
// released one never (the loop reports it itself).
type executor struct {
	ctx      context.Context
	env      *tool.Env
	now      func() time.Time
	turn     int
	snapshot func(turn int, paths []string) error
	wg       sync.WaitGroup
	tasks    []*task // every reserved task, in call order (loop goroutine only)

	doneMu  sync.Mutex // guards ended and running
	ended   []*task    // tasks that ended since the last takeDone
	running int        // tasks started and not yet queued in ended
	notify  chan struct{}
}

// task is one reserved call. Fields below done are written by its goroutine
// before done is closed and read by others only after.
type task struct {
	call ToolCall
	fx   tool.Effects
	deps []<-chan struct{} // done of the earlier calls it conflicts with
	done chan struct{}
	// state is the loop's view: reserved, then started or released.
	state taskState

	result   tool.Result
	started  time.Time
	finished time.Time
	// cancelled is set when ctx ended before or while the tool ran.
	cancelled bool
	// snapErr is why the files it changes could not all be snapshotted.
	snapErr error
}

type taskState int

const (
	reserved taskState = iota
	started
	released
)

// newExecutor makes the executor of one turn. notify is the run's wake-up
// channel (buffered, one slot): the executor signals it when a task ends,
// and so does the run's relay when work a call started posts an event.
// Tools run with ctx plus the relay (Emit, Emitter).
func newExecutor(ctx context.Context, env *tool.Env, now func() time.Time, turn int, snapshot func(int, []string) error, notify chan struct{}, rl *relay) *executor {
	if rl != nil {
		ctx = context.WithValue(ctx, relayKey{}, relayPoster{rl})
	}
	return &executor{ctx: ctx, env: env, now: now, turn: turn, snapshot: snapshot, notify: notify}
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

// reserve takes call's place in the turn: from now on later calls that
// conflict with fx wait for it. It waits itself for the earlier calls it
// conflicts with that have not ended yet.
func (x *executor) reserve(call ToolCall, fx tool.Effects) *task {
	tk := &task{call: call, fx: fx, done: make(chan struct{})}
	for _, prev := range x.tasks {
		if !prev.ended() && prev.fx.Conflicts(fx) {
			tk.deps = append(tk.deps, prev.done)
		}
	}
	x.tasks = append(x.tasks, tk)
	return tk
}

// ended reports whether tk's done channel is closed.
func (tk *task) ended() bool {
	select {
	case <-tk.done:
		return true
	default:
		return false
	}
}

// release ends a reserved call that will not run.
func (x *executor) release(tk *task) {
	if tk.state != reserved {
		return
	}
	tk.state = released
	close(tk.done)
}

// start runs a reserved call on t once the calls it conflicts with have
// ended. approved are the resolved paths the permission decision covered;
// file tools re-check what they open against them.
func (x *executor) start(tk *task, t tool.Tool, approved []string) {
	if tk.state != reserved {
		return
	}
	tk.state = started
	x.doneMu.Lock()
	x.running++
	x.doneMu.Unlock()
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		defer x.end(tk) // after done is closed: the fields are final
		defer close(tk.done)
		for _, d := range tk.deps {
			select {
			case <-d:
			case <-x.ctx.Done():
			}
		}
		if x.ctx.Err() != nil {
			// Checked after the wait too: a dependency released by the
			// cancellation must not let this call start.
			tk.cancelled = true
			tk.result = cancelledResult
			return
		}
		if x.snapshot != nil && !t.ReadOnly() && len(approved) > 0 {
			// Keep what the files held before this tool changes them.
			tk.snapErr = x.snapshot(x.turn, approved)
		}
		tk.started = x.now()
		ctx := tool.WithCallID(tool.WithApprovedPaths(x.ctx, approved), tk.call.ID)
		ctx = context.WithValue(ctx, turnKey{}, x.turn)
		tk.result = runTool(ctx, t, x.env, tk.call.Input)
		tk.finished = x.now()
		if x.ctx.Err() != nil {
			tk.cancelled = true
			tk.result.IsError = true
			tk.result.Content = "[cancelled: the run was interrupted while this tool was running]\n" + tk.result.Content
		}
	}()
}

// wait blocks until every started task has ended. A call still only
// reserved (the turn ended before it was decided) is released first, so
// nothing waits on it forever.
func (x *executor) wait() {
	for _, tk := range x.tasks {
		x.release(tk)
	}
	x.wg.Wait()
}

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

// effectsOf asks t what one call will touch, with symbolic links resolved.
// A tool that panics while answering, or an agent without an environment,
// gets the safe answer: the call runs alone (or, read-only, beside reads).
func effectsOf(t tool.Tool, env *tool.Env, input json.RawMessage) (fx tool.Effects) {
	defer func() {
		if recover() != nil {
			fx = tool.Exclusive()
		}
	}()
	if env == nil {
		if t.ReadOnly() {
			return tool.ReadsEverything()
		}
		return tool.Exclusive()
	}
	return tool.EffectsOf(t, env, input).Resolved()
}

type turnKey struct{}

// CallTurn is the turn of the run whose tool call ctx belongs to (0
// outside one): a subagent's file snapshots belong to the parent's turn
// that started it.
func CallTurn(ctx context.Context) int {
	t, _ := ctx.Value(turnKey{}).(int)
	return t
}
