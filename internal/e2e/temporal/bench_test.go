package temporal

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novacode/nova/fleet"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// TestEngineOverhead measures what the Temporal engine costs on top of the
// local pool, per task and per turn, on this machine (BENCHMARKS.md,
// "Fleets on Temporal"). It runs when NOVA_BENCH is set:
//
//	cd internal/e2e/temporal && NOVA_BENCH=1 go test -run TestEngineOverhead -v -timeout 30m
//
// The same scripted tasks go through nova batch (the local pool) and nova
// batch --engine temporal with one warm nova worker, both running P tasks
// at once: tasks of one turn (the answer) and of T turns (T-1 calls of
// Bash true, then the answer); the scripted model answers at once, so what
// is measured is each engine's own cost. Per task: the one-turn tasks'
// difference. Per turn: the difference of the differences, over the T-1
// extra turns. CPU is user+sys of every nova process of a variant (the
// batch, and the worker), plus, for Temporal, the server's (this process,
// less what the local variant's scripted model costs it).
func TestEngineOverhead(t *testing.T) {
	if os.Getenv("NOVA_BENCH") == "" {
		t.Skip("a benchmark: set NOVA_BENCH=1")
	}
	n := envInt("NOVA_BENCH_TASKS", 20)
	turns := envInt("NOVA_BENCH_TURNS", 10)
	runs := envInt("NOVA_BENCH_RUNS", 3)
	for _, parallel := range []int{1, 4} {
		var rows []benchRow
		for range runs {
			for _, shape := range []int{1, turns} {
				for _, engine := range []string{"local", "temporal"} {
					// A subtest each: its server and processes end with it.
					t.Run(fmt.Sprintf("%s-%dturns-parallel%d", engine, shape, parallel), func(t *testing.T) {
						rows = append(rows, runEngine(t, engine, n, shape, parallel))
					})
				}
			}
		}
		report(t, rows, n, turns, parallel)
	}
}

// benchRow is one variant's run.
type benchRow struct {
	engine string
	turns  int
	wall   time.Duration
	cpu    time.Duration
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// runEngine runs n tasks of the given turns through engine, parallel at
// once, and returns its wall time and CPU.
func runEngine(t *testing.T, engine string, n, turns, parallel int) benchRow {
	t.Helper()
	scripts := map[string][]llmtest.Turn{}
	var tasks []fleet.Task
	usage := llm.Usage{InputTokens: 100, OutputTokens: 10}
	for i := range n {
		id := fmt.Sprintf("b%d-%s-%d-%d", turns, engine, i, time.Now().UnixNano())
		var script []llmtest.Turn
		for range turns - 1 {
			script = append(script, llmtest.Turn{Usage: usage, Blocks: []llmtest.Block{llmtest.ToolUse("", "Bash", `{"command":"true"}`)}})
		}
		scripts[marker(id)] = append(script, llmtest.Turn{Usage: usage, Blocks: []llmtest.Block{llmtest.Text("done")}})
		tasks = append(tasks, fleet.Task{ID: id, Prompt: marker(id) + " go", Cwd: t.TempDir()})
	}
	c := newCluster(t, scripts)
	file := c.writeTasks("tasks.jsonl", tasks)
	out := filepath.Join(t.TempDir(), "results.jsonl")
	var worker *proc
	if engine == "temporal" {
		worker = c.worker("bench-worker", parallel)
		// Warm: the worker polls, the server has its queues, before the
		// clock starts.
		warm := c.writeTasks("warm.jsonl", []fleet.Task{{ID: "warm-" + strconv.FormatInt(time.Now().UnixNano(), 10), Prompt: "[warm]", Cwd: t.TempDir()}})
		c.model.SetFallback(llmtest.ConversationTurns(map[string][]llmtest.Turn{"[warm]": {{Blocks: []llmtest.Block{llmtest.Text("ok")}}}}))
		c.batch("warm", warm, filepath.Join(t.TempDir(), "warm.jsonl")).wait(t, time.Minute)
		c.model.SetFallback(llmtest.ConversationTurns(scripts))
	}
	self0 := selfCPU()
	start := time.Now()
	var b *proc
	if engine == "temporal" {
		b = c.batch("bench-batch", file, out)
	} else {
		b = c.start("bench-batch", nil, "batch", "--parallel", strconv.Itoa(parallel), "--permission-mode", "bypassPermissions", "--out", out, file)
	}
	if code := b.wait(t, 10*time.Minute); code != 0 {
		t.Fatalf("%s batch: exit %d", engine, code)
	}
	wall := time.Since(start)
	server := selfCPU() - self0
	cpu := procCPU(b)
	if worker != nil {
		_ = worker.cmd.Process.Signal(syscall.SIGTERM)
		worker.wait(t, time.Minute)
		cpu += procCPU(worker)
		t.Logf("%d tasks of %d turns: CPU of the batch %s, the worker %s, this process (server and model) %s",
			n, turns, procCPU(b).Round(time.Millisecond), procCPU(worker).Round(time.Millisecond), server.Round(time.Millisecond))
	} else {
		t.Logf("%d tasks of %d turns: CPU of the batch %s, this process (model) %s",
			n, turns, procCPU(b).Round(time.Millisecond), server.Round(time.Millisecond))
	}
	res := readResults(t, out)
	for _, task := range tasks {
		if r := res[task.ID]; !r.Succeeded() || r.NumTurns != turns {
			t.Fatalf("%s: %+v", task.ID, r)
		}
	}
	if got := len(modelCalls(c.model)); got != n*turns+boolInt(engine == "temporal") {
		t.Fatalf("%d model calls, want %d", got, n*turns)
	}
	return benchRow{engine: engine, turns: turns, wall: wall, cpu: cpu + server}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func procCPU(p *proc) time.Duration {
	st := p.cmd.ProcessState
	return st.UserTime() + st.SystemTime()
}

func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// report logs the medians and the overheads derived from them, and writes
// them as JSON to $NOVA_BENCH_OUT when set.
func report(t *testing.T, rows []benchRow, n, turns, parallel int) {
	med := func(engine string, shape int, f func(benchRow) time.Duration) time.Duration {
		var xs []time.Duration
		for _, r := range rows {
			if r.engine == engine && r.turns == shape {
				xs = append(xs, f(r))
			}
		}
		slices.Sort(xs)
		return xs[len(xs)/2]
	}
	wall := func(r benchRow) time.Duration { return r.wall }
	cpu := func(r benchRow) time.Duration { return r.cpu }
	var b strings.Builder
	fmt.Fprintf(&b, "%d tasks, %d at once; medians of %d runs\n", n, parallel, len(rows)/4)
	fmt.Fprintf(&b, "| engine | turns per task | wall | per task | CPU per task | CPU per turn |\n|---|---|---|---|---|---|\n")
	for _, shape := range []int{1, turns} {
		for _, e := range []string{"local", "temporal"} {
			w, c := med(e, shape, wall), med(e, shape, cpu)
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s |\n", e, shape, w.Round(time.Millisecond),
				(w / time.Duration(n)).Round(100*time.Microsecond), (c / time.Duration(n)).Round(100*time.Microsecond),
				(c / time.Duration(n*shape)).Round(100*time.Microsecond))
		}
	}
	perTask := (med("temporal", 1, wall) - med("local", 1, wall)) * time.Duration(parallel) / time.Duration(n)
	perTurn := ((med("temporal", turns, wall) - med("local", turns, wall)) - (med("temporal", 1, wall) - med("local", 1, wall))) *
		time.Duration(parallel) / time.Duration(n*(turns-1))
	cpuTask := (med("temporal", 1, cpu) - med("local", 1, cpu)) / time.Duration(n)
	cpuTurn := ((med("temporal", turns, cpu) - med("local", turns, cpu)) - (med("temporal", 1, cpu) - med("local", 1, cpu))) / time.Duration(n*(turns-1))
	fmt.Fprintf(&b, "Temporal's overhead: %s per task and %s per turn of latency (wall × %d at once ÷ tasks); %s per task and %s per turn of CPU\n",
		perTask.Round(100*time.Microsecond), perTurn.Round(100*time.Microsecond), parallel, cpuTask.Round(100*time.Microsecond), cpuTurn.Round(100*time.Microsecond))
	t.Log("\n" + b.String())
	if path := os.Getenv("NOVA_BENCH_OUT"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_ = json.NewEncoder(f).Encode(map[string]any{"parallel": parallel, "tasks": n, "turns": turns, "report": b.String()})
			f.Close()
		}
	}
}
