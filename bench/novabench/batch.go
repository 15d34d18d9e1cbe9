//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// batchTasks is how many tasks each variant of the batch measurement runs,
// and batchParallel how many at once.
const (
	batchTasks    = 100
	batchParallel = 8
)

// batchCost is what one variant cost for all its tasks: wall time from the
// first start to the last exit, and the CPU time of every nova process
// (user+sys, children included).
type batchCost struct {
	wall, cpu time.Duration
}

// batchScripts are the tasks' conversations: a Read of notes.txt, then the
// answer, each in its own conversation marked [task-NNN].
func batchScripts() map[string][]llmtest.Turn {
	read, _ := json.Marshal(map[string]any{"file_path": "notes.txt"})
	scripts := map[string][]llmtest.Turn{}
	for i := range batchTasks {
		scripts[fmt.Sprintf("[task-%03d]", i)] = []llmtest.Turn{
			{Blocks: []llmtest.Block{llmtest.ToolUse("", "Read", string(read))}, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 50}},
			{Blocks: []llmtest.Block{llmtest.Text(fmt.Sprintf("answer %03d", i))}, Usage: llm.Usage{InputTokens: 1100, OutputTokens: 20}},
		}
	}
	return scripts
}

func batchPrompt(i int) string { return fmt.Sprintf("[task-%03d] what do the notes say?", i) }

// batchOnce runs the tasks one way: "batch" (nova batch --parallel 8),
// "print-8" (nova -p, eight processes at a time, as xargs -P 8 would) or
// "print-1" (nova -p, one after another).
func batchOnce(ctx context.Context, nova, how string) (batchCost, error) {
	var zero batchCost
	dir, err := os.MkdirTemp("", "novabench-batch-")
	if err != nil {
		return zero, err
	}
	defer os.RemoveAll(dir)
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return zero, err
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		return zero, err
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(batchScripts()))
	env := novaEnv(srv, filepath.Join(dir, "home"))
	start := time.Now()
	var cpu time.Duration
	switch how {
	case "batch":
		var b strings.Builder
		for i := range batchTasks {
			line, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("t%03d", i), "prompt": batchPrompt(i), "cwd": ws})
			b.Write(append(line, '\n'))
		}
		tasks := filepath.Join(dir, "tasks.jsonl")
		if err := os.WriteFile(tasks, []byte(b.String()), 0o644); err != nil {
			return zero, err
		}
		// Its progress lines (a line per task) are not the report's.
		var stderr strings.Builder
		m, _, err := runProcTo(ctx, env, &stderr, nova, "batch", "--parallel", fmt.Sprint(batchParallel), "--out", filepath.Join(dir, "results.jsonl"), tasks)
		if err != nil {
			return zero, fmt.Errorf("nova batch: %w: %s", err, stderr.String())
		}
		cpu = m.cpu
	default:
		at := 1
		if how == "print-8" {
			at = batchParallel
		}
		var mu sync.Mutex
		g, ctx := errgroup.WithContext(ctx)
		g.SetLimit(at)
		for i := range batchTasks {
			g.Go(func() error {
				m, out, err := runProc(ctx, env, nova, "-p", "--cwd", ws, "--output-format", "json", batchPrompt(i))
				if err != nil {
					return fmt.Errorf("nova -p: %w: %s", err, out)
				}
				mu.Lock()
				cpu += m.cpu
				mu.Unlock()
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			return zero, err
		}
	}
	wall := time.Since(start)
	// Every task had its two model calls: the variants did the same work.
	if n := len(modelCallsOf(srv)); n != 2*batchTasks {
		return zero, fmt.Errorf("%s: %d model calls, want %d", how, n, 2*batchTasks)
	}
	return batchCost{wall: wall, cpu: cpu}, nil
}

// modelCallsOf are the model requests srv answered (not the models list).
func modelCallsOf(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}

// batchReport measures nova batch against nova -p run 100 times, runs
// times each, interleaved so that the machine's load falls on every
// variant alike, and prints a table of medians with the ratios to nova
// batch.
func batchReport(ctx context.Context, nova string, runs int) (string, error) {
	variants := []struct{ how, name string }{
		{"batch", fmt.Sprintf("`nova batch --parallel %d`", batchParallel)},
		{"print-8", fmt.Sprintf("`nova -p` × %d, %d at a time", batchTasks, batchParallel)},
		{"print-1", fmt.Sprintf("`nova -p` × %d, one after another", batchTasks)},
	}
	walls := map[string][]time.Duration{}
	cpus := map[string][]time.Duration{}
	for range runs {
		for _, v := range variants {
			c, err := batchOnce(ctx, nova, v.how)
			if err != nil {
				return "", err
			}
			walls[v.how] = append(walls[v.how], c.wall)
			cpus[v.how] = append(cpus[v.how], c.cpu)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "### %d scripted tasks (`novabench -only batch`)\n\n", batchTasks)
	fmt.Fprintf(&b, "Measured %s on %s; median of %d runs of each variant, interleaved. Each task is a Read and an answer from the scripted model "+
		"(no model latency: what is measured is nova's own cost per task). CPU is user+sys of every nova process.\n\n", time.Now().UTC().Format("2006-01-02"), hostDesc(), runs)
	fmt.Fprintf(&b, "| variant | wall | tasks/s | CPU per task | tasks/s ÷ batch's | CPU per task ÷ batch's |\n|---|---|---|---|---|---|\n")
	for _, v := range variants {
		// Ratios run by run (the variants of a run saw the same load),
		// then their median.
		var speed, cost []float64
		for i := range runs {
			speed = append(speed, walls["batch"][i].Seconds()/walls[v.how][i].Seconds())
			cost = append(cost, float64(cpus[v.how][i])/float64(cpus["batch"][i]))
		}
		w, c := median(walls[v.how]), median(cpus[v.how])
		fmt.Fprintf(&b, "| %s | %s | %.1f | %s | %.2f | %.2f |\n", v.name, w.Round(10*time.Millisecond),
			float64(batchTasks)/w.Seconds(), ms(c/batchTasks), medianF(speed), medianF(cost))
	}
	return b.String(), nil
}
