package temporal

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// Activities run a task's pieces on a worker, through fleet's functions.
type Activities struct {
	// Config is how this worker runs tasks: its session options (data
	// directory, credentials, settings), where clones go (ScratchDir) and
	// patch files (PatchDir). The task's own fields and the batch's
	// defaults come with the task.
	Config fleet.Config

	// heartbeatEvery is how often a running activity heartbeats; 0 means
	// every second.
	heartbeatEvery time.Duration
}

// Prepare makes the task's workspace: its cwd, or a clone in the scratch
// directory named after the session, so that every step, on any worker,
// finds it (when the scratch directory is shared).
func (a *Activities) Prepare(ctx context.Context, in PrepareInput) (fleet.Workspace, error) {
	return heartbeating(ctx, a.heartbeatEvery, nil, func() (fleet.Workspace, error) {
		t := in.Task
		if t.Git == nil {
			if _, err := os.Stat(t.Cwd); err != nil {
				return fleet.Workspace{}, temporal.NewNonRetryableApplicationError(
					fmt.Sprintf("the task's cwd is not on this worker: %v", err), errNoWorkspace, nil)
			}
		}
		dir := ""
		if t.Git != nil {
			dir = filepath.Join(cmp.Or(a.Config.ScratchDir, os.TempDir()), in.SessionID)
		}
		return fleet.Prepare(ctx, t, a.Config, dir)
	})
}

// Step runs one step of the task: one model call and its tool batch in the
// task's stored session (fleet.Step). At most one step of a session runs
// at a time: a retry that starts while an attempt its worker has not yet
// noticed is lost still runs (a worker cut off from the server) waits for
// it. The step's result goes beside the session (stepDir), named by its
// turn; the workflow gets what it needs to go on.
func (a *Activities) Step(ctx context.Context, in StepInput) (StepOutput, error) {
	ws := in.Workspace
	if _, err := os.Stat(ws.Dir); err != nil {
		what := "cwd"
		if ws.Scratch != "" {
			what = "clone (--scratch-dir must be storage every worker shares, at the same path)"
		}
		return StepOutput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("the task's %s is not on this worker: %v", what, err), errNoWorkspace, nil)
	}
	dir, err := a.stepDir(in.SessionID)
	if err != nil {
		return StepOutput{}, err
	}
	var turn, events atomic.Int64
	return heartbeating(ctx, a.heartbeatEvery, &events, func() (StepOutput, error) {
		unlock, err := lockDir(ctx, dir)
		if err != nil {
			return StepOutput{}, err
		}
		defer unlock()
		r, err := fleet.Step(ctx, in.Task, a.Config, ws, in.SessionID, func(e event.Event) {
			events.Add(1)
			if u, ok := e.(event.Usage); ok && int64(u.Turn) > turn.Load() {
				turn.Store(int64(u.Turn))
			}
		})
		if err != nil {
			return StepOutput{}, err
		}
		answers, err := a.answers(in.SessionID, ws.Dir)
		if err != nil {
			return StepOutput{}, err
		}
		out := StepOutput{Subtype: r.Subtype, Turn: int(turn.Load()), Answers: answers}
		if out.Turn > 0 {
			// Written even for a cancelled step: the calls it made are
			// the task's.
			if err := writeJSON(filepath.Join(dir, stepFile(out.Turn)), r); err != nil {
				return StepOutput{}, err
			}
		} else {
			out.Result = &r
		}
		if err := ctx.Err(); err != nil {
			return StepOutput{}, err // cancelled, or past start-to-close: not a step that ended
		}
		return out, nil
	})
}

// Finish joins the steps' results, takes a git task's diff and removes its
// clone (fleet.Finish). The result is kept beside the session until
// returned, so that a Finish retried after its worker died returns it
// rather than look for a clone already removed.
func (a *Activities) Finish(ctx context.Context, in FinishInput) (fleet.TaskResult, error) {
	return heartbeating(ctx, a.heartbeatEvery, nil, func() (fleet.TaskResult, error) {
		dir, err := a.stepDir(in.SessionID)
		if err != nil {
			return fleet.TaskResult{}, err
		}
		resultFile := filepath.Join(dir, "result.json")
		var res fleet.TaskResult
		if b, err := os.ReadFile(resultFile); err == nil && json.Unmarshal(b, &res) == nil {
			in.Workspace.Remove()
			return res, nil
		}
		steps, err := readSteps(dir)
		if err != nil {
			return fleet.TaskResult{}, err
		}
		if in.Last != nil {
			steps = append(steps, *in.Last)
		}
		t := in.Task
		r := fleet.JoinSteps(steps, t.MaxTurns)
		r.SessionID = in.SessionID
		// A step cut short by a worker's death while its tools ran left no
		// result, but its call's answer is the session's.
		r.NumTurns = max(r.NumTurns, in.Turns)
		ws := in.Workspace
		switch {
		case in.Failure != "":
			r.Subtype, r.IsError, r.Error = fleet.SubtypeError, true, in.Failure
		case in.Stopped == stoppedCancelled:
			r = fleet.Cancelled(r)
			ws.Base = "" // as the local pool: a task stopped from outside has no diff
		case in.Stopped == stoppedTimeout:
			r = fleet.TimedOut(t, r)
		}
		// The clone goes once the result is kept.
		keep := ws
		keep.Scratch = ""
		res = fleet.Finish(ctx, t, a.Config, keep, r)
		if err := writeJSON(resultFile, res); err != nil {
			return fleet.TaskResult{}, err
		}
		ws.Remove()
		for _, f := range stepFiles(dir) {
			_ = os.Remove(filepath.Join(dir, f))
		}
		return res, nil
	})
}

// answers counts the model's answers the task's transcript holds: the
// model calls the session completed, however many steps were cut short on
// the way. (The transcript's turn numbers can skip one: a first call cut
// short leaves its prompt recorded under its number.)
func (a *Activities) answers(sessionID, dir string) (int, error) {
	data, err := a.dataDir()
	if err != nil {
		return 0, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	st, err := session.Load(filepath.Join(session.ProjectDir(data, abs), sessionID+".jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil // nothing recorded yet: a run that failed before its prompt
	}
	if err != nil {
		return 0, fmt.Errorf("read the task's transcript: %w", err)
	}
	n := 0
	for _, r := range st.Live {
		if r.Type == session.TypeMessage && r.Message.Role == llm.RoleAssistant {
			n++
		}
	}
	return n, nil
}

func (a *Activities) dataDir() (string, error) {
	if d := a.Config.Options.DataDir; d != "" {
		return d, nil
	}
	return nova.DefaultDataDir()
}

// stepDir is where a task's step results are kept: beside the sessions in
// the data directory, which every worker shares.
func (a *Activities) stepDir(sessionID string) (string, error) {
	data, err := a.dataDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(data, "fleet", sessionID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("keep the task's step results: %w", err)
	}
	return dir, nil
}

// stepFile names the result of the step whose model call was turn n:
// names sort in turn order, and a step made again after a crash replaces
// the result it left, if any.
func stepFile(n int) string { return fmt.Sprintf("turn-%06d.json", n) }

// stepFiles are a task's step results in turn order.
func stepFiles(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "turn-") && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names
}

// readSteps reads a task's step results in turn order.
func readSteps(dir string) ([]fleet.Result, error) {
	var steps []fleet.Result
	for _, name := range stepFiles(dir) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read a step's result: %w", err)
		}
		var r fleet.Result
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("read a step's result %s: %w", name, err)
		}
		steps = append(steps, r)
	}
	return steps, nil
}

// writeJSON writes v to path whole or not at all: a worker killed in the
// middle leaves the old file or none.
func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}

// heartbeating runs f while a goroutine of its own records a heartbeat
// every interval (progress, when not nil, as its details): the server
// learns within the heartbeat timeout that this worker is gone, and this
// worker learns of a cancellation (the SDK delivers it in the heartbeat's
// answer and cancels ctx). The SDK sends at most one heartbeat per 80% of
// the timeout; recording more often costs nothing.
func heartbeating[T any](ctx context.Context, interval time.Duration, progress *atomic.Int64, f func() (T, error)) (T, error) {
	if interval <= 0 {
		interval = time.Second
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if progress != nil {
					activity.RecordHeartbeat(ctx, progress.Load())
				} else {
					activity.RecordHeartbeat(ctx)
				}
			}
		}
	})
	defer func() {
		close(done)
		wg.Wait()
	}()
	return f()
}

// errLocked is lockDir's error when ctx ends while another attempt holds
// the lock.
var errLocked = errors.New("another attempt of this step still runs")

// lockDir takes dir's lock file, waiting for it (within ctx), and returns
// its release. Released by the kernel when the process dies.
func lockDir(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock the session: %w", err)
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock the session: %w", err)
		}
		if ok {
			return func() { f.Close() }, nil // closing releases the lock
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("%w: %w", errLocked, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
