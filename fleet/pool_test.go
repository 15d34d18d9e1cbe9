package fleet

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func tasksN(n int) []Task {
	var ts []Task
	for i := range n {
		ts = append(ts, Task{ID: fmt.Sprintf("t%02d", i), Prompt: "p"})
	}
	return ts
}

func success(t Task) TaskResult {
	return TaskResult{ID: t.ID, Result: Result{Type: "result", Subtype: SubtypeSuccess}}
}

func ids(rs []TaskResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	slices.Sort(out)
	return out
}

// Every task runs once, at most Parallel at a time, each with the pool's
// Config.
func TestPoolRunsEveryTaskOnce(t *testing.T) {
	for _, parallel := range []int{1, 3, 8, 0} {
		t.Run(fmt.Sprint("parallel ", parallel), func(t *testing.T) {
			var running, peak atomic.Int32
			var mu sync.Mutex
			startedIDs := []string{}
			p := &Pool{Parallel: parallel, Config: Config{MaxDiff: 7}, runTask: func(ctx context.Context, task Task, cfg Config) TaskResult {
				if cfg.MaxDiff != 7 {
					t.Errorf("the task got config %+v", cfg)
				}
				n := running.Add(1)
				for {
					old := peak.Load()
					if n <= old || peak.CompareAndSwap(old, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				running.Add(-1)
				return success(task)
			}}
			tasks := tasksN(20)
			var got []TaskResult
			for r := range p.Run(t.Context(), tasks, func(task Task) {
				mu.Lock()
				startedIDs = append(startedIDs, task.ID)
				mu.Unlock()
			}) {
				got = append(got, r)
			}
			want := ids(func() []TaskResult {
				var rs []TaskResult
				for _, task := range tasks {
					rs = append(rs, success(task))
				}
				return rs
			}())
			if d := cmp.Diff(want, ids(got)); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			slices.Sort(startedIDs)
			if d := cmp.Diff(want, startedIDs); d != "" {
				t.Errorf("started (-want +got):\n%s", d)
			}
			limit := parallel
			if limit == 0 {
				limit = runtime.NumCPU()
			}
			if int(peak.Load()) > limit {
				t.Errorf("%d tasks ran at once, want at most %d", peak.Load(), limit)
			}
		})
	}
}

// When ctx ends, the running tasks are cancelled and not yielded; those
// that ended before are, and so is one that succeeded as ctx ended.
func TestPoolCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	release, t02 := make(chan struct{}), make(chan struct{})
	p := &Pool{Parallel: 4, runTask: func(ctx context.Context, task Task, cfg Config) TaskResult {
		switch task.ID {
		case "t00", "t01":
			return success(task) // quick
		case "t02":
			close(t02)
			<-release // ends well just as the batch is stopped
			return success(task)
		}
		<-ctx.Done()
		return TaskResult{ID: task.ID, Result: Result{Subtype: SubtypeCancelled, IsError: true}}
	}}
	var got []TaskResult
	for r := range p.Run(ctx, tasksN(10), nil) {
		got = append(got, r)
		if len(got) == 2 {
			<-t02
			cancel()
			close(release)
		}
	}
	if d := cmp.Diff([]string{"t00", "t01", "t02"}, ids(got)); d != "" {
		t.Errorf("results (-want +got):\n%s", d)
	}
}

// A consumer that stops ranging stops the pool: the running tasks are
// cancelled and Run returns.
func TestPoolConsumerStops(t *testing.T) {
	var cancelled atomic.Int32
	p := &Pool{Parallel: 3, runTask: func(ctx context.Context, task Task, cfg Config) TaskResult {
		if task.ID == "t00" {
			return success(task)
		}
		<-ctx.Done()
		cancelled.Add(1)
		return TaskResult{ID: task.ID, Result: Result{Subtype: SubtypeCancelled, IsError: true}}
	}}
	n := 0
	var started atomic.Int32
	for range p.Run(t.Context(), tasksN(10), func(Task) { started.Add(1) }) {
		n++
		break
	}
	// Run has returned: every task started has ended.
	if n != 1 || cancelled.Load() != started.Load()-1 {
		t.Errorf("%d results, %d tasks started, %d cancelled; want 1 result and every other started task cancelled", n, started.Load(), cancelled.Load())
	}
}

// No tasks: nothing runs.
func TestPoolNoTasks(t *testing.T) {
	p := &Pool{runTask: func(context.Context, Task, Config) TaskResult { t.Error("ran"); return TaskResult{} }}
	for range p.Run(t.Context(), nil, nil) {
		t.Error("a result")
	}
}

// Through a Batch, the running count never passes Parallel: a worker
// takes its next task only once its last result was counted.
func TestPoolRunningCount(t *testing.T) {
	p := &Pool{Parallel: 3, runTask: func(ctx context.Context, task Task, cfg Config) TaskResult {
		time.Sleep(time.Millisecond)
		return success(task)
	}}
	peak := 0
	sum, err := (&Batch{Engine: p, Progress: func(pr Progress) { peak = max(peak, pr.Running) }}).Run(t.Context(), tasksN(40))
	if err != nil || sum.Done != 40 {
		t.Fatalf("summary %+v, %v", sum, err)
	}
	if peak != 3 {
		t.Errorf("at most %d running, want 3", peak)
	}
}

// A panic in the consumer's loop body still stops and waits for the
// workers (goleak checks).
func TestPoolConsumerPanics(t *testing.T) {
	p := &Pool{Parallel: 2, runTask: func(ctx context.Context, task Task, cfg Config) TaskResult {
		if task.ID == "t00" {
			return success(task)
		}
		<-ctx.Done()
		return TaskResult{ID: task.ID, Result: Result{Subtype: SubtypeCancelled, IsError: true}}
	}}
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	for range p.Run(t.Context(), tasksN(5), nil) {
		panic("consumer bug")
	}
}
