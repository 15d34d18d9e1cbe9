package fleet

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/printmode"
)

// Config is how RunTask runs tasks: the same for every task of a batch.
type Config struct {
	// Options are the session options each task's session starts from
	// (DataDir, Getenv, Client, SettingSources, TrustWorkspace, Sandbox,
	// Allow, …). The task sets Dir, Provider, Model, PermissionMode and
	// MaxTurns, and adds its allowed_tools to Allow; every session is a new
	// one (no Resume, no Continue) that nobody answers (not Interactive),
	// as print mode's.
	Options nova.Options
	// Defaults fill the fields a task leaves empty (nova batch's flags):
	// Cwd or Git, Model, Provider, MaxTurns, PermissionMode, AllowedTools,
	// Timeout.
	Defaults Task
	// ScratchDir is where git tasks are cloned, each into a directory of
	// its own that is removed when the task ends; empty means
	// os.TempDir().
	ScratchDir string
	// PatchDir receives a git task's diff as <id>.patch when it is larger
	// than MaxDiff; empty keeps every diff in the result line.
	PatchDir string
	// MaxDiff is the largest diff, in bytes, kept in the result line; 0
	// means DefaultMaxDiff.
	MaxDiff int
}

// DefaultMaxDiff keeps result lines small enough to read with jq; a larger
// diff goes to a patch file (Config.PatchDir).
const DefaultMaxDiff = 64 << 10

// diffTimeout bounds taking a task's diff once its session ended; it runs
// even after the task's own timeout, since the work done so far is what a
// timed-out task leaves.
const diffTimeout = 2 * time.Minute

// RunTask runs one task as a full print-mode session and returns its
// result, which says what went wrong, if anything: RunTask has no error of
// its own. It prepares the workspace (the task's cwd, or a scratch clone of
// its git url at its ref), opens a nova.Session with the task's options
// and a transcript of its own, sends the prompt, collects the result as
// `nova -p --output-format json` does, takes the diff of a git task and
// removes the scratch clone.
//
// A task past its timeout fails (subtype error_during_execution). When ctx
// ends first, the result has subtype cancelled: the task did not run to its
// end, and an engine reports it as not run.
//
// RunTask is Prepare, one Send collected by Collect, and Finish. The local
// Pool runs each task through it; an engine that runs a task in steps on
// several machines (fleet/temporal) calls the same pieces itself: Prepare,
// Step until the session ends, JoinSteps and Finish.
func RunTask(ctx context.Context, t Task, cfg Config) (res TaskResult) {
	t = t.WithDefaults(cfg.Defaults)
	defer func() {
		// One task's bug must not take down the other tasks of a batch.
		if p := recover(); p != nil {
			res = failed(t, SubtypeError, fmt.Errorf("internal error: %v; this is a bug in NovaCode, please report it", p))
		}
	}()
	if err := ctx.Err(); err != nil {
		return failed(t, SubtypeCancelled, err)
	}
	outer := ctx
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(t.Timeout))
		defer cancel()
	}
	res = runTask(ctx, outer, t, cfg)
	switch {
	case res.Succeeded():
	case outer.Err() != nil:
		// Stopped from outside: whatever the session made of it, the task
		// did not end.
		res.Result = Cancelled(res.Result)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.Result = TimedOut(t, res.Result)
	}
	return res
}

// Cancelled is r as the result of a task stopped from outside before its
// end: whatever its session made of it, the task did not end.
func Cancelled(r Result) Result {
	r.Subtype, r.IsError, r.Error = SubtypeCancelled, true, "cancelled"
	return r
}

// TimedOut is r as the result of task t stopped by its timeout: failed,
// saying so.
func TimedOut(t Task, r Result) Result {
	r.Subtype, r.IsError = SubtypeError, true
	r.Error = fmt.Sprintf("timed out after %s (the task's timeout)", time.Duration(t.Timeout))
	return r
}

// runTask is RunTask within the task's timeout (ctx); outer is the batch's
// context, which bounds taking the diff.
func runTask(ctx, outer context.Context, t Task, cfg Config) TaskResult {
	ws, err := Prepare(ctx, t, cfg, "")
	if err != nil {
		return failed(t, SubtypeError, err)
	}
	s, err := nova.Open(ctx, SessionOptions(t, cfg, ws))
	if err != nil {
		ws.Remove()
		return failed(t, SubtypeError, fmt.Errorf("open a session in %s: %w", ws.Dir, err))
	}
	r := Collect(s.Send(ctx, t.Prompt), s.ID(), nil)
	// Closed before the diff: background commands and subagents stop
	// writing to the clone.
	_ = s.Close()
	if outer.Err() != nil {
		ws.Remove()
		return TaskResult{ID: t.ID, Result: r}
	}
	dctx, cancel := context.WithTimeout(outer, diffTimeout)
	defer cancel()
	return Finish(dctx, t, cfg, ws, r)
}

// SessionOptions are the options of t's session in ws: cfg.Options with
// the task's directory, provider, model, permission mode, turn limit and
// allowed tools; a new session (no Resume, no Continue) that nobody
// answers (not Interactive), as print mode's.
func SessionOptions(t Task, cfg Config, ws Workspace) nova.Options {
	o := cfg.Options
	o.Dir = ws.Dir
	o.Provider = cmp.Or(t.Provider, o.Provider)
	o.Model = cmp.Or(t.Model, o.Model)
	o.PermissionMode = cmp.Or(t.PermissionMode, o.PermissionMode)
	if t.MaxTurns > 0 {
		o.MaxTurns = t.MaxTurns
	}
	o.Allow = append(slices.Clip(o.Allow), t.AllowedTools...)
	o.Interactive, o.Resume, o.Continue = false, "", false
	return o
}

// Collect ranges over a Send or Continue of the session sessionID to its
// end and returns its result as `nova -p --output-format json` collects
// it. each, when not nil, sees every event first (an engine's heartbeat).
func Collect(run iter.Seq2[event.Event, error], sessionID string, each func(event.Event)) Result {
	// What print mode writes on standard error (retries, warnings, the
	// denials' summary) is in the result and the transcript; a hundred
	// tasks' worth of it would bury the batch's progress.
	p := printmode.New(io.Discard, io.Discard, printmode.FormatJSON, sessionID)
	for e := range run {
		if e == nil {
			continue // the error is the loop_complete's, already handled
		}
		if each != nil {
			each(e)
		}
		_ = p.Handle(e) // io.Discard: no write fails
	}
	return p.Result()
}

// Finish ends task t, whose session came to r in ws: for a git task it
// takes the diff of the clone (within ctx; into a patch file past
// cfg.MaxDiff) and removes the clone. It returns the task's result line.
func Finish(ctx context.Context, t Task, cfg Config, ws Workspace, r Result) TaskResult {
	defer ws.Remove()
	res := TaskResult{ID: t.ID, Result: r}
	if ws.Base == "" {
		return res
	}
	diff, err := ws.diff(ctx)
	if err != nil {
		// For a git task the diff is the work: without it the task did
		// not deliver.
		res.Subtype, res.IsError = SubtypeError, true
		res.Error = strings.TrimSpace(res.Error + "\n" + err.Error())
		return res
	}
	maxDiff := cmp.Or(cfg.MaxDiff, DefaultMaxDiff)
	if cfg.PatchDir == "" || len(diff) <= maxDiff {
		res.Diff = diff
		return res
	}
	if res.Patch, err = writePatch(cfg.PatchDir, t.ID, diff); err != nil {
		res.Subtype, res.IsError = SubtypeError, true
		res.Error = strings.TrimSpace(res.Error + "\n" + err.Error())
	}
	return res
}

// Workspace is where a task runs. Its fields are plain values (and JSON),
// so that an engine running a task in steps, on any of several machines,
// can carry it from step to step.
type Workspace struct {
	// Dir is the session's working directory: the task's cwd, or the
	// clone.
	Dir string `json:"dir"`
	// Base is the commit a git task's clone started from; "" without git.
	Base string `json:"base,omitempty"`
	// Scratch is the clone's directory, which Finish removes; "" without
	// git.
	Scratch string `json:"scratch,omitempty"`
}

// Prepare returns the workspace of t (its defaults applied): its cwd, or a
// fresh clone of its repository checked out at its ref. The clone goes
// into a new directory under cfg.ScratchDir or, when dir is not "", into
// dir itself, made afresh (what an earlier attempt left there is removed
// first): an engine that retries a step on another machine names the
// clone so that it finds it again.
func Prepare(ctx context.Context, t Task, cfg Config, dir string) (Workspace, error) {
	if t.Git == nil {
		return Workspace{Dir: t.Cwd}, nil
	}
	if dir == "" {
		root := cmp.Or(cfg.ScratchDir, os.TempDir())
		var err error
		if dir, err = os.MkdirTemp(root, "nova-task-"+fileName(t.ID)+"-"); err != nil {
			return Workspace{}, fmt.Errorf("make a scratch workspace: %w", err)
		}
	} else {
		Workspace{Scratch: dir}.Remove()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return Workspace{}, fmt.Errorf("make a scratch workspace: %w", err)
		}
	}
	ws := Workspace{Dir: dir, Scratch: dir}
	if err := ws.clone(ctx, t.Git); err != nil {
		ws.Remove()
		return Workspace{}, err
	}
	return ws, nil
}

// clone clones g into ws.Dir and checks out its ref: a branch of the
// remote as a local branch of that name (as `git clone --branch` would),
// a tag or commit detached. A full clone: the model may read the history.
func (ws *Workspace) clone(ctx context.Context, g *Git) error {
	if _, err := git(ctx, "", "clone", "--quiet", "--no-checkout", "--", g.URL, ws.Dir); err != nil {
		return fmt.Errorf("clone %s: %w", g.URL, err)
	}
	var err error
	switch {
	case g.Ref == "":
		_, err = git(ctx, ws.Dir, "checkout", "--quiet")
	case revParse(ctx, ws.Dir, "refs/remotes/origin/"+g.Ref) != "":
		_, err = git(ctx, ws.Dir, "checkout", "--quiet", "-B", g.Ref, "refs/remotes/origin/"+g.Ref)
	default:
		sha := revParse(ctx, ws.Dir, g.Ref)
		if sha == "" {
			return fmt.Errorf("clone %s: no branch, tag or commit %q", g.URL, g.Ref)
		}
		_, err = git(ctx, ws.Dir, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", sha)
	}
	if err != nil {
		return fmt.Errorf("check out %s of %s: %w", cmp.Or(g.Ref, "the default branch"), g.URL, err)
	}
	if ws.Base = revParse(ctx, ws.Dir, "HEAD"); ws.Base == "" {
		return fmt.Errorf("clone %s: no commit checked out", g.URL)
	}
	return nil
}

// diff is everything the task changed against the commit it started from:
// new files, edits and deletions (staged in the scratch clone, which nobody
// else uses) and commits the model made.
func (ws Workspace) diff(ctx context.Context) (string, error) {
	if _, err := git(ctx, ws.Dir, "add", "--all"); err != nil {
		return "", fmt.Errorf("take the diff: %w", err)
	}
	// The user's configuration must not change the patch's form.
	out, err := git(ctx, ws.Dir, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--no-renames",
		"--src-prefix=a/", "--dst-prefix=b/", ws.Base)
	if err != nil {
		return "", fmt.Errorf("take the diff: %w", err)
	}
	return out, nil
}

// Remove deletes the scratch clone, if any; a task may have left read-only
// directories in it (Go's module cache does).
func (ws Workspace) Remove() {
	if ws.Scratch == "" {
		return
	}
	if os.RemoveAll(ws.Scratch) == nil {
		return
	}
	_ = filepath.WalkDir(ws.Scratch, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(path, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(ws.Scratch)
}

// git runs git in dir and returns its standard output; its error carries
// what git said on standard error.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// Never wait for a password nobody will type.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// git's helpers (ssh, remote helpers) may outlive git killed at the
	// end of ctx while holding its pipes.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("git %s: %w: %s", args[0], err, msg)
		}
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	return stdout.String(), nil
}

// revParse is the commit rev names in dir, "" if none.
func revParse(ctx context.Context, dir, rev string) string {
	out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// writePatch writes a diff too large for the result line to
// dir/<id>.patch and returns its absolute path.
func writePatch(dir, id, diff string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write the patch: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, fileName(id)+".patch"))
	if err != nil {
		return "", fmt.Errorf("write the patch: %w", err)
	}
	if err := os.WriteFile(path, []byte(diff), 0o644); err != nil {
		return "", fmt.Errorf("write the patch: %w", err)
	}
	return path, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// fileName is id as a file name: itself when it is a safe and short one,
// else its first safe characters and a hash of it, so that two ids never
// share a file.
func fileName(id string) string {
	safe := unsafeName.ReplaceAllString(id, "_")
	if safe == id && !strings.HasPrefix(id, ".") && len(id) <= 100 {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return strings.TrimLeft(safe[:min(len(safe), 64)], ".") + "-" + hex.EncodeToString(sum[:4])
}
