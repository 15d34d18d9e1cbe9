package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/internal/iostreams"
)

// Companion is what nova-temporal (cmd/nova-temporal) adds to this command
// line: the Temporal engine of nova batch and nova worker. The Temporal SDK
// is not linked into nova: its reflection makes the linker keep every
// exported method of every reachable type, which more than doubles the
// binary (internal/archtest.TestLinkerDropsUnusedMethods; BENCHMARKS.md).
// Without a companion, nova hands those commands over to nova-temporal.
type Companion struct {
	// Engine connects to the cluster o names and returns the engine of a
	// batch whose tasks take defaults, and what closes it; the SDK logs to
	// errOut.
	Engine func(ctx context.Context, o TemporalOptions, defaults fleet.Task, errOut io.Writer) (fleet.Engine, func(), error)
	// Worker runs nova worker until ctx ends.
	Worker func(ctx context.Context, o *WorkerOptions) error
}

// companionKey keys the build's Companion (RunWith) in the commands'
// context; none in nova itself.
type companionKey struct{}

func companionOf(ctx context.Context) *Companion {
	c, _ := ctx.Value(companionKey{}).(*Companion)
	return c
}

// companionName is the program nova hands the Temporal commands to.
const companionName = "nova-temporal"

// argsKey keys the command line's arguments in the context Run gives the
// commands, so that a command can hand the whole line over.
type argsKey struct{}

// handOver runs the command line of ctx in nova-temporal, found beside
// nova or on PATH, in place of this process (elsewhere than Unix, as a
// child whose exit code becomes nova's).
func handOver(ctx context.Context) error {
	path := ""
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), companionName+exeSuffix); isFile(p) {
			path = p
		}
	}
	if path == "" {
		p, err := exec.LookPath(companionName)
		if err != nil {
			return fmt.Errorf("the Temporal engine (nova batch --engine temporal, nova worker) is in %s, nova built with the Temporal SDK, "+
				"which nova leaves out (it doubles the binary): install it beside nova with "+
				"go install github.com/novacode/nova/cmd/nova-temporal@latest", companionName)
		}
		path = p
	}
	args, _ := ctx.Value(argsKey{}).([]string)
	code, err := execCompanion(path, args)
	if err != nil {
		return fmt.Errorf("run %s: %w", path, err)
	}
	return exitError{code}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// TemporalOptions name a Temporal cluster and the task queue of a fleet
// (nova batch --engine temporal, nova worker).
type TemporalOptions struct {
	Address   string
	Namespace string
	TaskQueue string
}

// The Temporal flags' defaults: the SDK's (client.DefaultHostPort,
// client.DefaultNamespace) and fleet/temporal's DefaultTaskQueue, which
// internal/temporalcli's tests hold them to.
const (
	defaultTemporalAddress = "localhost:7233"
	defaultNamespace       = "default"
	defaultTaskQueue       = "nova-fleet"
)

func (o *TemporalOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Address, "temporal-address", defaultTemporalAddress, "Temporal frontend, HOST:PORT")
	f.StringVar(&o.Namespace, "namespace", defaultNamespace, "Temporal namespace")
	f.StringVar(&o.TaskQueue, "task-queue", defaultTaskQueue, "Temporal task queue the workers poll")
}

// WorkerOptions are the flags of `nova worker`.
type WorkerOptions struct {
	IO       *iostreams.IOStreams
	Temporal TemporalOptions
	Parallel int
	// ScratchDir is where git tasks are cloned; PatchDir where diffs too
	// large for a result go.
	ScratchDir string
	PatchDir   string
}

func newCmdWorker(ios *iostreams.IOStreams, runF func(context.Context, *WorkerOptions) error) *cobra.Command {
	opts := &WorkerOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run the tasks nova batch --engine temporal submits",
		Long: `nova worker runs the tasks of batches submitted with nova batch --engine temporal:
it polls the task queue of a Temporal cluster and runs each task, one model call
and its tools at a time, as a session of this machine's nova (its settings,
credentials and model). Run as many workers, on as many machines, as you like;
a task whose worker dies goes on on another where it stopped.

Every worker must see the same data directory (NOVA_HOME: the tasks' sessions)
and the same workspaces — the tasks' cwd and --scratch-dir, where git tasks are
cloned — at the same paths: on several machines, shared storage. Stop a worker
with Ctrl-C: its running steps are handed to the other workers.

nova worker runs in nova-temporal, nova built with the Temporal SDK, which
nova hands it over to (go install github.com/novacode/nova/cmd/nova-temporal@latest).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Parallel < 0 {
				return fmt.Errorf("--parallel must be 1 or more (0: the CPU count), got %d", opts.Parallel)
			}
			c := companionOf(cmd.Context())
			switch {
			case runF != nil:
				return runF(cmd.Context(), opts)
			case c == nil:
				return handOver(cmd.Context())
			}
			return c.Worker(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	opts.Temporal.addFlags(f)
	f.IntVar(&opts.Parallel, "parallel", 0, "Steps run at once (default: the CPU count)")
	f.StringVar(&opts.ScratchDir, "scratch-dir", "", "Where git tasks are cloned; shared by every worker (default: $TMPDIR)")
	f.StringVar(&opts.PatchDir, "patch-dir", "", "Where diffs over 64 KiB go, as ID.patch (default: $NOVA_HOME/fleet/patches)")
	return cmd
}
