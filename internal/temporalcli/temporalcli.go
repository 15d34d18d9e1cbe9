// Package temporalcli is what nova-temporal adds to nova's command line:
// the Temporal engine of nova batch and nova worker, on fleet/temporal and
// the Temporal SDK, which nova itself does not link (see cli.Companion).
package temporalcli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"runtime"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"

	"github.com/novacode/nova"
	"github.com/novacode/nova/fleet"
	fleettemporal "github.com/novacode/nova/fleet/temporal"
	"github.com/novacode/nova/internal/cli"
)

// Companion returns the commands' Temporal side.
func Companion() *cli.Companion {
	return &cli.Companion{Engine: engine, Worker: runWorker}
}

// dial connects to the cluster; the SDK's own log goes to errOut, its
// warnings and errors only (nova batch's standard output may be its
// results).
func dial(ctx context.Context, o cli.TemporalOptions, errOut io.Writer) (client.Client, error) {
	logger := log.NewStructuredLogger(slog.New(slog.NewTextHandler(errOut, &slog.HandlerOptions{Level: slog.LevelWarn})))
	c, err := client.DialContext(ctx, client.Options{HostPort: o.Address, Namespace: o.Namespace, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("connect to Temporal at %s (namespace %s): %w; "+
			"check that a Temporal server is running there and give its address with --temporal-address "+
			"(for a local one: temporal server start-dev, then localhost:7233)", o.Address, o.Namespace, err)
	}
	return c, nil
}

func engine(ctx context.Context, o cli.TemporalOptions, defaults fleet.Task, errOut io.Writer) (fleet.Engine, func(), error) {
	c, err := dial(ctx, o, errOut)
	if err != nil {
		return nil, nil, err
	}
	return &fleettemporal.Engine{Client: c, TaskQueue: o.TaskQueue, Defaults: defaults}, c.Close, nil
}

func runWorker(ctx context.Context, opts *cli.WorkerOptions) error {
	errOut := opts.IO.ErrOut
	patchDir := opts.PatchDir
	if patchDir == "" {
		// A result travels in the workflow's history: a large diff goes
		// to a file the workers share instead.
		data, err := nova.DefaultDataDir()
		if err != nil {
			return err
		}
		patchDir = filepath.Join(data, "fleet", "patches")
	}
	c, err := dial(ctx, opts.Temporal, errOut)
	if err != nil {
		return err
	}
	defer c.Close()
	w := fleettemporal.NewWorker(c, fleettemporal.WorkerOptions{
		TaskQueue: opts.Temporal.TaskQueue,
		Parallel:  opts.Parallel,
		Config:    fleet.Config{ScratchDir: opts.ScratchDir, PatchDir: patchDir},
	})
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker: %w", err)
	}
	parallel := opts.Parallel
	if parallel <= 0 {
		parallel = runtime.NumCPU()
	}
	fmt.Fprintf(errOut, "nova worker: running tasks of queue %s at %s (namespace %s), %d steps at once; Ctrl-C stops\n",
		opts.Temporal.TaskQueue, opts.Temporal.Address, opts.Temporal.Namespace, parallel)
	<-ctx.Done()
	// Running steps are cancelled (their tools stop) and retried by the
	// other workers.
	w.Stop()
	fmt.Fprintln(errOut, "nova worker: stopped")
	return nil
}
