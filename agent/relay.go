package agent

import (
	"context"
	"sync"

	"github.com/novacode/nova/event"
)

// relay carries events produced off the loop's goroutine by work a tool
// call started (a subagent's run) to the consumers of the run: the work
// posts them, the loop yields them at its next wake-up, in the order they
// were posted and before the tool_done of the call that posted them.
//
// Invariants: posts are accepted only while a run is attached (between
// attach and detach, both called on the loop's goroutine); the queue is
// bounded for posters that wait (a foreground subagent waits while more
// than relayBacklog events are queued, so a chatty child cannot grow
// memory), while posters that may not wait (a background subagent, whose
// events are progress only) drop what does not fit.
type relay struct {
	mu       sync.Mutex
	queue    []event.Event
	wake     chan struct{} // the attached run's wake-up channel; nil when none
	drained  chan struct{} // closed and replaced at every take
	attached bool
}

// relayBacklog is how many events may wait for the loop.
const relayBacklog = 256

func newRelay() *relay { return &relay{drained: make(chan struct{})} }

// attach starts accepting posts for a run that is woken through wake.
func (rl *relay) attach(wake chan struct{}) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	rl.wake, rl.attached = wake, true
}

// detach stops accepting posts and returns what is still queued.
func (rl *relay) detach() []event.Event {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	out := rl.queue
	rl.queue, rl.wake, rl.attached = nil, nil, false
	close(rl.drained)
	rl.drained = make(chan struct{})
	return out
}

// take returns the queued events, oldest first.
func (rl *relay) take() []event.Event {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if len(rl.queue) == 0 {
		return nil
	}
	out := rl.queue
	rl.queue = nil
	close(rl.drained)
	rl.drained = make(chan struct{})
	return out
}

// post queues e for the run. With wait, it blocks while the queue is full
// (until the loop takes it or ctx ends; past ctx's end it queues anyway:
// the run is ending and drains what is left). It reports whether e was
// accepted.
func (rl *relay) post(ctx context.Context, e event.Event, wait bool) bool {
	for {
		rl.mu.Lock()
		if !rl.attached {
			rl.mu.Unlock()
			return false
		}
		if len(rl.queue) < relayBacklog || ctx.Err() != nil {
			rl.queue = append(rl.queue, e)
			wake := rl.wake
			rl.mu.Unlock()
			select {
			case wake <- struct{}{}:
			default: // a wake-up is already pending
			}
			return true
		}
		if !wait {
			rl.mu.Unlock()
			return false
		}
		drained := rl.drained
		rl.mu.Unlock()
		select {
		case <-drained:
		case <-ctx.Done():
		}
	}
}

type relayKey struct{}

// relayPoster is what a tool call's context carries: the run's relay and
// whether the caller may wait.
type relayPoster struct {
	rl *relay
}

// Emit passes e, an event of work the current tool call runs beside the
// loop (a subagent's run), to the consumers of the run that made the call.
// ctx must be the call's context (or derived from it). It waits while the
// run's backlog is full, and reports false when there is no run to take it
// (ctx is not a tool call's, or the run has ended).
func Emit(ctx context.Context, e event.Event) bool {
	p, ok := ctx.Value(relayKey{}).(relayPoster)
	if !ok {
		return false
	}
	return p.rl.post(ctx, e, true)
}

// Emitter returns a function that passes events to the consumers of the
// run the tool call ctx belongs to, without ever waiting: for work that
// outlives the call (a background subagent), whose events reach whichever
// run of the agent is going on when they happen, and are dropped when none
// is or its backlog is full. nil when ctx is not a tool call's.
func Emitter(ctx context.Context) func(event.Event) bool {
	p, ok := ctx.Value(relayKey{}).(relayPoster)
	if !ok {
		return nil
	}
	return func(e event.Event) bool { return p.rl.post(context.Background(), e, false) }
}
