package fleet

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Batch runs a task list on an engine: it skips the tasks Results already
// holds as done, writes each result as its task ends and counts.
type Batch struct {
	Engine Engine
	// Results receives every result; nil keeps none and skips nothing.
	Results *Results
	// Progress, when set, is called as each task starts and ends, one call
	// at a time, from the engine's goroutines.
	Progress func(Progress)
}

// Tally counts a batch's tasks so far.
type Tally struct {
	// Tasks are all the tasks of the batch; Skipped those done in an
	// earlier run (Results); Done and Failed those that ended in this one;
	// Running those started and not ended.
	Tasks, Skipped, Done, Failed, Running int
	// Usage and CostUSD sum up the tasks that ended in this run.
	Usage   Usage
	CostUSD float64
}

// Tokens is every token the tasks so far sent and received.
func (t Tally) Tokens() int64 {
	u := t.Usage
	return u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens
}

// Progress is one step of a batch: a task started (Started) or ended
// (Ended), with the counts after it.
type Progress struct {
	Tally
	Started *Task
	Ended   *TaskResult
	// Elapsed is the batch's time so far.
	Elapsed time.Duration
}

// Summary is what a batch came to.
type Summary struct {
	Tally
	// NotRun are the tasks that neither ended nor were skipped: the batch
	// was stopped (or the results could not be written) before they ended.
	NotRun int
	Wall   time.Duration
}

// Run runs tasks and returns the summary. Tasks must be valid, with
// distinct ids (ParseTasks sees to that). The error is one of writing the
// results, which stops the batch; a task that fails is counted, not an
// error. When ctx ends, the tasks running are stopped and counted NotRun.
func (b *Batch) Run(ctx context.Context, tasks []Task) (Summary, error) {
	start := time.Now()
	seen := map[string]bool{}
	for _, t := range tasks {
		if err := t.Validate(); err != nil {
			return Summary{}, fmt.Errorf("task %q: %w", t.ID, err)
		}
		if seen[t.ID] {
			return Summary{}, fmt.Errorf("task %q: the id is used twice", t.ID)
		}
		seen[t.ID] = true
	}
	var (
		mu    sync.Mutex
		tally = Tally{Tasks: len(tasks)}
	)
	notify := func(p Progress) {
		// Under mu: calls one at a time, counts in order.
		if b.Progress != nil {
			p.Tally, p.Elapsed = tally, time.Since(start)
			b.Progress(p)
		}
	}
	var todo []Task
	for _, t := range tasks {
		if b.Results != nil && b.Results.Done(t.ID) {
			tally.Skipped++
			continue
		}
		todo = append(todo, t)
	}
	started := func(t Task) {
		mu.Lock()
		defer mu.Unlock()
		tally.Running++
		notify(Progress{Started: &t})
	}
	var err error
	for r := range b.Engine.Run(ctx, todo, started) {
		if b.Results != nil {
			if err = b.Results.Write(r); err != nil {
				break // the engine stops the rest
			}
		}
		mu.Lock()
		tally.Running = max(tally.Running-1, 0)
		if r.Succeeded() {
			tally.Done++
		} else {
			tally.Failed++
		}
		u := r.Usage
		tally.Usage.InputTokens += u.InputTokens
		tally.Usage.OutputTokens += u.OutputTokens
		tally.Usage.CacheReadInputTokens += u.CacheReadInputTokens
		tally.Usage.CacheCreationInputTokens += u.CacheCreationInputTokens
		tally.Usage.ServerToolUse.WebSearchRequests += u.ServerToolUse.WebSearchRequests
		tally.CostUSD += r.TotalCostUSD
		notify(Progress{Ended: &r})
		mu.Unlock()
	}
	mu.Lock()
	defer mu.Unlock()
	s := Summary{Tally: tally, Wall: time.Since(start)}
	s.Running = 0
	s.NotRun = s.Tasks - s.Skipped - s.Done - s.Failed
	return s, err
}
