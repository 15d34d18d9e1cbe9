package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/printmode"
)

// BatchOptions are the flags and inputs of `nova batch`.
type BatchOptions struct {
	IO *iostreams.IOStreams

	// TasksFile is the JSONL task file; "-" reads standard input.
	TasksFile string
	Parallel  int
	// Out is the results file ("" writes to standard output); PatchDir
	// receives diffs too large for a result line.
	Out      string
	PatchDir string

	// The defaults of the tasks' own fields.
	Provider       string
	Model          string
	PermissionMode string
	AllowedTools   []string
	MaxTurns       int
	Timeout        time.Duration

	// Engine is "local" (the default: a worker pool here) or "temporal"
	// (workflows on a Temporal cluster, run by nova worker).
	Engine   string
	Temporal TemporalOptions
}

func newCmdBatch(ios *iostreams.IOStreams, runF func(context.Context, *BatchOptions) error) *cobra.Command {
	opts := &BatchOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "batch TASKS.jsonl",
		Short: "Run many tasks at once, each as a print-mode session",
		Long: `nova batch runs every task of a JSONL file, one task per line, each as a full
print-mode session (nova -p) with its own transcript, several at once:

  {"id": "t1", "prompt": "fix the flaky test", "cwd": "/src/app"}
  {"id": "t2", "prompt": "bump Go to 1.26", "git": {"url": "https://…/repo.git", "ref": "main"}}

A git task works in a scratch clone of the repository, removed afterwards; its
result carries the diff of what it changed. Optional fields: model, provider,
max_turns, permission_mode, allowed_tools, timeout ("10m"); the flags below are
their defaults. A line that is not a valid task is reported and skipped.

Results go to --out (default: standard output), one JSON line per task as it
ends: print mode's result object with the task's id. Run the same command again
after Ctrl-C or a crash: the tasks the file holds as done are skipped. The exit
code is 0 when every task ran and succeeded, 1 otherwise, 130 when interrupted.

With --engine temporal each task is a workflow on a Temporal cluster, its id
the task's, run by nova worker processes on any machines (see nova worker
--help), which also decide --parallel and --patch-dir. Ctrl-C stops collecting,
not the tasks: run the command again to collect them. A task id runs once: a
task submitted again collects its first run's result. The Temporal engine is in
nova-temporal, nova built with the Temporal SDK, which nova hands the command
over to (go install github.com/novacode/nova/cmd/nova-temporal@latest).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.TasksFile = args[0]
			if opts.Parallel < 0 {
				return fmt.Errorf("--parallel must be 1 or more (0: the CPU count), got %d", opts.Parallel)
			}
			if err := checkRunFlags(opts.PermissionMode, "", opts.MaxTurns); err != nil {
				return err
			}
			if err := nova.ValidProvider(opts.Provider); err != nil {
				return err
			}
			if opts.Timeout < 0 {
				return fmt.Errorf("--timeout must be positive, got %s", opts.Timeout)
			}
			switch opts.Engine {
			case "", "local", "temporal":
			default:
				return fmt.Errorf("unknown --engine %q (local or temporal)", opts.Engine)
			}
			if opts.Engine != "temporal" {
				for _, name := range []string{"temporal-address", "namespace", "task-queue"} {
					if cmd.Flags().Changed(name) {
						return fmt.Errorf("--%s needs --engine temporal", name)
					}
				}
			}
			switch {
			case runF != nil:
				return runF(cmd.Context(), opts)
			case opts.Engine == "temporal" && companionOf(cmd.Context()) == nil:
				return handOver(cmd.Context())
			}
			return runBatch(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.Parallel, "parallel", 0, "Tasks run at once (default: the CPU count)")
	f.StringVarP(&opts.Out, "out", "o", "", "Results file, appended to; tasks it holds as done are skipped (default: standard output)")
	f.StringVar(&opts.PatchDir, "patch-dir", "", "Where diffs over 64 KiB go, as ID.patch (default: beside --out, OUT.patches)")
	f.StringVar(&opts.Provider, "provider", "", "Default provider: anthropic, openai or openai-chat")
	f.StringVar(&opts.Model, "model", "", "Default model")
	f.StringVar(&opts.PermissionMode, "permission-mode", "", "Default permission mode: default, acceptEdits, plan or bypassPermissions")
	f.StringArrayVar(&opts.AllowedTools, "allowedTools", nil, "Default rules allowed without asking, e.g. \"Bash(go test:*),Edit\"")
	f.IntVar(&opts.MaxTurns, "max-turns", 0, "Default limit of model calls per task (0: no limit)")
	f.DurationVar(&opts.Timeout, "timeout", 0, "Default time limit per task, e.g. 10m (0: none)")
	f.StringVar(&opts.Engine, "engine", "local", "Where tasks run: local (a worker pool here) or temporal (nova worker processes, via a Temporal cluster)")
	opts.Temporal.addFlags(f)
	return cmd
}

func runBatch(ctx context.Context, opts *BatchOptions) error {
	errOut := opts.IO.ErrOut
	tasks, invalid, err := readTasks(opts)
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return fmt.Errorf("%s holds no valid task", opts.TasksFile)
	}
	res, err := openResults(opts)
	if err != nil {
		return err
	}
	patchDir := opts.PatchDir
	if patchDir == "" {
		patchDir = "nova-batch-patches"
		if opts.Out != "" {
			patchDir = strings.TrimSuffix(opts.Out, filepath.Ext(opts.Out)) + ".patches"
		}
	}
	cfg := fleet.Config{
		Defaults: fleet.Task{Provider: opts.Provider, Model: opts.Model, PermissionMode: opts.PermissionMode,
			AllowedTools: opts.AllowedTools, MaxTurns: opts.MaxTurns, Timeout: fleet.Duration(opts.Timeout)},
		PatchDir: patchDir,
	}
	engine, closeEngine, err := batchEngine(ctx, opts, cfg)
	if err != nil {
		_ = res.Close()
		return err
	}
	defer closeEngine()
	prog := newBatchProgress(errOut, opts.IO.StderrIsTTY, len(tasks))
	stop := prog.start()
	sum, runErr := (&fleet.Batch{Engine: engine, Results: res, Progress: prog.update}).Run(ctx, tasks)
	stop()
	if err := res.Close(); err != nil && runErr == nil {
		runErr = err
	}
	writeSummary(errOut, opts, sum, invalid, ctx.Err() != nil)
	switch {
	case runErr != nil:
		return runErr
	case sum.NotRun > 0 && ctx.Err() != nil:
		return exitError{printmode.ExitCancelled}
	case sum.Failed > 0 || sum.NotRun > 0 || invalid > 0:
		return exitError{printmode.ExitError}
	}
	return nil
}

// batchEngine is the engine the tasks run on, and what closes it: the
// local worker pool, or (--engine temporal) the Temporal engine of the
// companion (nova-temporal), whose workers run each task with fleet's
// pieces, their own settings and directories; the defaults travel with
// each task.
func batchEngine(ctx context.Context, opts *BatchOptions, cfg fleet.Config) (fleet.Engine, func(), error) {
	if opts.Engine == "temporal" {
		return companionOf(ctx).Engine(ctx, opts.Temporal, cfg.Defaults, opts.IO.ErrOut)
	}
	return &fleet.Pool{Parallel: opts.Parallel, Config: cfg}, func() {}, nil
}

// readTasks parses the task file, reporting each invalid line.
func readTasks(opts *BatchOptions) (tasks []fleet.Task, invalid int, err error) {
	var in io.Reader = opts.IO.In
	if opts.TasksFile != "-" {
		f, err := os.Open(opts.TasksFile)
		if err != nil {
			return nil, 0, fmt.Errorf("read the tasks: %w", err)
		}
		defer f.Close()
		in = f
	}
	for t, err := range fleet.ParseTasks(in) {
		if le, ok := errors.AsType[*fleet.LineError](err); ok {
			fmt.Fprintf(opts.IO.ErrOut, "nova: %s:%d: %v; skipped\n", opts.TasksFile, le.Line, le.Err)
			invalid++
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", opts.TasksFile, err)
		}
		tasks = append(tasks, t)
	}
	return tasks, invalid, nil
}

// openResults opens --out (or standard output) and says what resuming
// found.
func openResults(opts *BatchOptions) (*fleet.Results, error) {
	if opts.Out == "" {
		return fleet.NewResults(opts.IO.Out), nil
	}
	res, err := fleet.OpenResults(opts.Out)
	if err != nil {
		return nil, err
	}
	if res.Torn {
		fmt.Fprintf(opts.IO.ErrOut, "nova: %s ended in a partial line (a write cut short); removed it\n", opts.Out)
	}
	for _, n := range res.Unreadable {
		fmt.Fprintf(opts.IO.ErrOut, "nova: %s:%d is not a result line; left as it is\n", opts.Out, n)
	}
	return res, nil
}

// writeSummary says what the batch came to, on standard error.
func writeSummary(w io.Writer, opts *BatchOptions, s fleet.Summary, invalid int, interrupted bool) {
	how := "finished"
	if interrupted {
		how = "interrupted"
	}
	fmt.Fprintf(w, "nova: batch %s in %s: %s, %d done, %d failed, %d skipped (done before)", how, s.Wall.Round(100*time.Millisecond),
		plural(s.Tasks, "task"), s.Done, s.Failed, s.Skipped)
	if s.NotRun > 0 {
		fmt.Fprintf(w, ", %d not run", s.NotRun)
	}
	fmt.Fprintf(w, "\nnova: %s tokens (%s in, %s out), $%.4f\n", count(s.Tokens()),
		count(s.Usage.InputTokens+s.Usage.CacheReadInputTokens+s.Usage.CacheCreationInputTokens), count(s.Usage.OutputTokens), s.CostUSD)
	where := "standard output"
	if opts.Out != "" {
		where = opts.Out
	}
	if s.Failed > 0 {
		fmt.Fprintf(w, "nova: %s failed; each one's line in %s says why\n", plural(s.Failed, "task"), where)
	}
	if invalid > 0 {
		fmt.Fprintf(w, "nova: %s of %s invalid and skipped (see above)\n", plural(invalid, "line"), opts.TasksFile)
	}
	if s.NotRun > 0 {
		switch {
		case opts.Engine == "temporal":
			// Stopping the batch stopped collecting, not the workflows.
			fmt.Fprintf(w, "nova: %d tasks not collected go on on the workers; run the same command again to collect them\n", s.NotRun)
		case opts.Out != "":
			fmt.Fprintf(w, "nova: run the same command again to run the %d tasks not run; those done are skipped\n", s.NotRun)
		default:
			fmt.Fprintf(w, "nova: %d tasks not run; with --out FILE, running the command again runs only those\n", s.NotRun)
		}
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// count writes a token count short: 950, 12.3k, 4.5M.
func count(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// batchProgress shows a batch's progress on standard error: on a terminal
// one line redrawn in place (a failure printed above it), else a plain
// line per task that ends.
type batchProgress struct {
	mu   sync.Mutex
	w    io.Writer
	tty  bool
	last fleet.Progress
	t0   time.Time
	bar  bool // a bar is on the screen
	// now and every are the clock and the redraw interval (tests fix
	// them).
	now   func() time.Time
	every time.Duration
}

func newBatchProgress(w io.Writer, tty bool, tasks int) *batchProgress {
	p := &batchProgress{w: w, tty: tty, t0: time.Now(), now: time.Now, every: time.Second}
	p.last.Tasks = tasks
	return p
}

// start redraws the bar every second, so that its clock moves while tasks
// run; the returned func stops that and clears the bar.
func (p *batchProgress) start() (stop func()) {
	if !p.tty {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				p.mu.Lock()
				p.draw()
				p.mu.Unlock()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		p.mu.Lock()
		defer p.mu.Unlock()
		p.clear()
	}
}

func (p *batchProgress) update(u fleet.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = u
	if r := u.Ended; r != nil && (!p.tty || !r.Succeeded()) {
		p.clear()
		fmt.Fprintln(p.w, endLine(r))
	}
	if p.tty {
		p.draw()
	}
}

// endLine is the line of a task that ended: "t3 done in 2.1s, $0.0123",
// "t5 failed: why".
func endLine(r *fleet.TaskResult) string {
	if r.Succeeded() {
		return fmt.Sprintf("%s done in %.1fs, $%.4f", r.ID, float64(r.DurationMS)/1000, r.TotalCostUSD)
	}
	why := r.Error
	if why == "" {
		why = r.Subtype
	}
	why, _, _ = strings.Cut(strings.TrimSpace(why), "\n")
	if rs := []rune(why); len(rs) > 200 {
		why = string(rs[:199]) + "…"
	}
	return fmt.Sprintf("%s failed: %s", r.ID, why)
}

func (p *batchProgress) draw() {
	u := p.last
	el := p.now().Sub(p.t0).Round(time.Second)
	fmt.Fprintf(p.w, "\r\x1b[2Knova batch: %d/%d done, %d failed, %d running · %s tokens · $%.4f · %s",
		u.Done+u.Skipped, u.Tasks, u.Failed, u.Running, count(u.Tokens()), u.CostUSD, el)
	p.bar = true
}

func (p *batchProgress) clear() {
	if p.bar {
		fmt.Fprint(p.w, "\r\x1b[2K")
		p.bar = false
	}
}
