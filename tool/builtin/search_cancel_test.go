package builtin

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// TestGrepCancelStopsWalk cancels a search from inside it (after some files
// were opened) and checks that the walk stops at once: no more than one
// file per worker is opened after the cancellation, and the call says it
// was cancelled. goleak (TestMain) checks that no worker outlives it.
func TestGrepCancelStopsWalk(t *testing.T) {
	env := newEnv(t)
	files := map[string]string{}
	for i := range 400 {
		files[fmt.Sprintf("d%d/e%d/f%d.txt", i%9, i%5, i)] = "needle\n"
	}
	writeFiles(t, env.Dir, files)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var opened, after atomic.Int64
	var cancelled atomic.Bool
	beforeOpen = func(string) {
		if cancelled.Load() {
			after.Add(1)
		}
		if opened.Add(1) == 50 {
			cancel()
			cancelled.Store(true)
		}
	}
	defer func() { beforeOpen = nil }()
	res := runCtx(ctx, t, NewGrep(), env, GrepInput{Pattern: "needle"})
	check(t, res, env.Dir, true, "Grep was cancelled.")
	if n := after.Load(); n > int64(walkWorkers()) {
		t.Errorf("%d files were opened after the cancellation; at most one per worker (%d) may be", n, walkWorkers())
	}
}

// endless is a file that never ends.
type endless struct{ reads atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	e.reads.Add(1)
	line := []byte("a line that never matches\n")
	n := 0
	for n+len(line) <= len(p) {
		n += copy(p[n:], line)
	}
	return n, nil
}

// TestScanStops: a scan of a file that never ends stops when the search is
// cancelled, before its next read.
func TestScanStops(t *testing.T) {
	m, err := newMatcher("needle", false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{modeFiles, modeCount, modeContent} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r := &endlessStopping{stopAt: 100, cancel: cancel}
			sc := newScanner(ctx, m, scanOpts{mode: mode, keepLines: 10, keepBytes: 1000})
			var res scanResult
			found, err := sc.scan(r, &res, -1)
			if found || err != errStopped {
				t.Fatalf("scan = %v, %v; want it stopped", found, err)
			}
			if n := r.reads.Load(); n != 100 {
				t.Errorf("%d reads, want 100: it read on after the stop", n)
			}
		})
	}
}

// endlessStopping is endless, and cancels the search at its stopAt-th read.
type endlessStopping struct {
	endless
	stopAt int64
	cancel func()
}

func (e *endlessStopping) Read(p []byte) (int, error) {
	n, err := e.endless.Read(p)
	if e.reads.Load() == e.stopAt {
		e.cancel()
	}
	return n, err
}
