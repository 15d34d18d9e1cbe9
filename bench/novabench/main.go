//go:build linux

// Command novabench times the whole nova binary against the scripted model
// server (llm/llmtest) on loopback and prints a Markdown report. Every figure
// is set against a baseline measured in the same run, so the ratios hold on a
// noisy shared machine where absolute times do not.
//
// Usage: novabench -nova ./nova [-runs 5]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp/mcptest"
)

var idleBase, novaUpstream *string

func main() {
	// Re-run as a Go MCP server by the MCP start-up measurement.
	mcptest.MainIfServer()
	nova := flag.String("nova", "./nova", "path of the nova binary to measure")
	runs := flag.Int("runs", 5, "repetitions of each scenario (the median is reported)")
	baselineURL := flag.String("baseline-client", "", "internal: act as the baseline client against this server URL")
	turns := flag.Int("turns", 1, "internal: baseline turns")
	spawn := flag.Bool("spawn", false, "internal: baseline spawns bash -c 'echo hi' per tool turn")
	idleBase = flag.String("idlebase", "", "path of bench/idlebase, the idle-TUI baseline")
	novaUpstream = flag.String("nova-upstream", "", "path of nova built on upstream Bubble Tea (bench/run.sh), for the keystroke comparison")
	only := flag.String("only", "", "run one measurement only: keys (keystroke latency in tmux), idle (idle TUI), memory (TUI after 200 vs 2,000 messages), paced (the paced three-call turn), rss (process and binary size), subagents (three subagents side by side against one after another), mcp (time to the first request with MCP servers configured), batch (100 scripted tasks through nova batch against nova -p run 100 times) or search (Grep, Glob and Read against ripgrep; bench/search.sh)")
	novaOld := flag.String("nova-old", "", "an earlier build of nova, measured beside this one in the paced turn")
	flag.StringVar(&oldLabel, "nova-old-label", oldLabel, "how the paced table names the earlier build")
	cache := flag.String("cache", "as-is", "with -only rss, how the binary sits in the page cache: as-is, cold (evicted, paged in by the runs), reread (evicted, then read whole like cat) or all (as-is, then cold, then reread)")
	searchcall := flag.String("searchcall", "", "with -only search: path of bench/searchcall, the process that makes one tool call")
	searchTree := flag.String("search-tree", defaultSearchTree(), "with -only search: where the generated tree and log are (made once; outside the module, whose tools would take the tree's .go files for packages)")
	modCache := flag.Bool("modcache", true, "with -only search: also search the Go module cache (go env GOMODCACHE)")
	flag.Parse()
	if *only == "search" {
		out, err := searchReport(context.Background(), *searchcall, *searchTree, *runs, *modCache)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "paced" {
		out, err := pacedReport(context.Background(), *nova, *novaOld, *runs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "subagents" {
		out, err := subagentsReport(context.Background(), *nova, *runs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "batch" {
		out, err := batchReport(context.Background(), *nova, *runs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "mcp" {
		out, err := mcpStartReport(context.Background(), *nova, *runs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "rss" {
		out, err := rssReport(context.Background(), *nova, *runs, *cache)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "idle" {
		out, err := idleTUI(context.Background(), *nova, *idleBase)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "memory" {
		out, err := tuiMemoryReport(context.Background(), *nova)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *only == "keys" {
		out, err := keystrokeLatency(context.Background(), *nova, 20)
		if err != nil {
			fmt.Fprintln(os.Stderr, "novabench:", err)
			os.Exit(1)
		}
		fmt.Print(out)
		return
	}
	if *baselineURL != "" {
		if err := baselineClient(*baselineURL, *turns, *spawn); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if err := report(*nova, *novaOld, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "novabench:", err)
		os.Exit(1)
	}
}

// measured is one process's cost.
type measured struct {
	wall   time.Duration
	cpu    time.Duration // user+sys, including waited-for children
	maxRSS int64         // KiB, the largest of the process and its children
	// anonRSS is the peak sampled anonymous memory of the process (KiB).
	anonRSS int64
}

func runProc(ctx context.Context, env []string, name string, args ...string) (measured, []byte, error) {
	return runProcTo(ctx, env, os.Stderr, name, args...)
}

// runProcTo is runProc with the process's standard error going to stderr.
func runProcTo(ctx context.Context, env []string, stderr io.Writer, name string, args ...string) (measured, []byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measured{}, nil, err
	}
	// Sample the process's anonymous memory while it runs: ru_maxrss also
	// counts the pages of the binary itself, which some kernels map in 2 MB
	// pieces, so it says little about what the program allocates.
	stop := make(chan struct{})
	sampled := make(chan int64, 1)
	go func() {
		var peak int64
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if kb := rssAnon(cmd.Process.Pid); kb > peak {
				peak = kb
			}
			select {
			case <-stop:
				sampled <- peak
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	close(stop)
	m := measured{wall: time.Since(start), anonRSS: <-sampled}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		m.maxRSS = ru.Maxrss
	}
	return m, []byte(out.String()), err
}

// rssAnon reads RssAnon (KiB) of pid, 0 when it cannot.
func rssAnon(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssAnon:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

func novaEnv(srv *llmtest.Server, home string) []string {
	return []string{"ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL=" + srv.URL, "NOVA_HOME=" + home, "ANTHROPIC_MODEL="}
}

// pathWithout makes a directory of links to every program on PATH but the
// named ones, to be used as PATH; the caller removes it.
func pathWithout(names ...string) (string, error) {
	dir, err := os.MkdirTemp("", "novabench-path")
	if err != nil {
		return "", err
	}
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if !slices.Contains(names, e.Name()) {
				_ = os.Symlink(filepath.Join(p, e.Name()), filepath.Join(dir, e.Name())) // the first one wins, as in PATH
			}
		}
	}
	return dir, nil
}

func bashCall(id, command string) llmtest.Block {
	b, _ := json.Marshal(map[string]string{"command": command})
	return llmtest.ToolUse(id, "Bash", string(b))
}

func report(nova, novaOld string, runs int) error {
	ctx := context.Background()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, %d runs per scenario, medians.\n\n", time.Now().UTC().Format("2006-01-02"), hostDesc(), runs)

	// 1. The paced three-call turn, in three variants.
	paced, err := pacedReport(ctx, nova, novaOld, runs)
	if err != nil {
		return fmt.Errorf("paced turn: %w", err)
	}
	b.WriteString(paced)

	// 2. 50 turns of one echo call, against a baseline client doing the same
	// HTTP streams and process spawns with no agent around them.
	const turns = echoTurns
	echo := echoServer
	novaEchoOff, _, err := compare(ctx, runs, echo,
		func(srv *llmtest.Server, home string) (measured, error) {
			if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"sandbox":"off"}`), 0o644); err != nil {
				return measured{}, err
			}
			m, _, err := runProc(ctx, novaEnv(srv, home), nova, "-p", "--allowedTools", "Bash", "--output-format", "json", "run echo 50 times")
			return m, err
		},
		func(srv *llmtest.Server) (measured, error) { return measured{}, nil })
	if err != nil {
		return fmt.Errorf("echo turns without sandbox: %w", err)
	}
	// The same under Landlock: nova with a PATH that has no bwrap, and the
	// sandbox required, so that a machine without Landlock fails the run
	// instead of measuring unsandboxed commands.
	noBwrap, err := pathWithout("bwrap")
	if err != nil {
		return err
	}
	defer os.RemoveAll(noBwrap)
	novaEchoLL, _, err := compare(ctx, runs, echo,
		func(srv *llmtest.Server, home string) (measured, error) {
			if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"sandbox":"on"}`), 0o644); err != nil {
				return measured{}, err
			}
			env := append(novaEnv(srv, home), "PATH="+noBwrap)
			m, _, err := runProc(ctx, env, nova, "-p", "--allowedTools", "Bash", "--output-format", "json", "run echo 50 times")
			return m, err
		},
		func(srv *llmtest.Server) (measured, error) { return measured{}, nil })
	if err != nil {
		return fmt.Errorf("echo turns under Landlock: %w", err)
	}
	novaEcho, baseEcho, err := compare(ctx, runs, echo,
		func(srv *llmtest.Server, home string) (measured, error) {
			m, _, err := runProc(ctx, novaEnv(srv, home), nova, "-p", "--allowedTools", "Bash", "--output-format", "json", "run echo 50 times")
			return m, err
		},
		func(srv *llmtest.Server) (measured, error) {
			m, _, err := runProc(ctx, nil, self, "-baseline-client", srv.URL, "-turns", strconv.Itoa(turns+1), "-spawn")
			return m, err
		})
	if err != nil {
		return fmt.Errorf("echo turns: %w", err)
	}
	perTurn := novaEcho.cpu / (turns + 1)
	fmt.Fprintf(&b, "### 50 turns of one `echo` call\n\n")
	fmt.Fprintf(&b, "| measure | nova | baseline | nova / baseline | target |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| CPU per turn (incl. the tool's process), commands sandboxed (bubblewrap, the default where installed) | %s | %s | %.2f | ≤ 7.5 ms |\n", ms(perTurn), ms(baseEcho.cpu/(turns+1)), ratio(novaEcho.cpu, baseEcho.cpu))
	fmt.Fprintf(&b, "| CPU per turn, commands sandboxed with Landlock (no bwrap on PATH) | %s | %s | %.2f | ≤ 7.5 ms |\n", ms(novaEchoLL.cpu/(turns+1)), ms(baseEcho.cpu/(turns+1)), ratio(novaEchoLL.cpu, baseEcho.cpu))
	fmt.Fprintf(&b, "| CPU per turn, `\"sandbox\": \"off\"` | %s | %s | %.2f | ≤ 7.5 ms |\n", ms(novaEchoOff.cpu/(turns+1)), ms(baseEcho.cpu/(turns+1)), ratio(novaEchoOff.cpu, baseEcho.cpu))
	fmt.Fprintf(&b, "| peak anonymous memory (sampled RssAnon) | %.1f MiB | %.1f MiB | %.2f | |\n", mib(novaEcho.anonRSS), mib(baseEcho.anonRSS), float64(novaEcho.anonRSS)/float64(max(1, baseEcho.anonRSS)))
	fmt.Fprintf(&b, "| peak RSS (ru_maxrss, includes the binary's own pages) | %.1f MiB | %.1f MiB | %.2f | ≤ 30 MiB |\n", mib(novaEcho.maxRSS), mib(baseEcho.maxRSS), float64(novaEcho.maxRSS)/float64(baseEcho.maxRSS))
	fmt.Fprintf(&b, "| wall time | %s | %s | %.2f | |\n\n", ms(novaEcho.wall), ms(baseEcho.wall), ratio(novaEcho.wall, baseEcho.wall))

	// 3. A one-line answer.
	one := oneLineServer
	novaOne, baseOne, err := compare(ctx, runs, one,
		func(srv *llmtest.Server, home string) (measured, error) {
			m, _, err := runProc(ctx, novaEnv(srv, home), nova, "-p", "say hello")
			return m, err
		},
		func(srv *llmtest.Server) (measured, error) {
			m, _, err := runProc(ctx, nil, self, "-baseline-client", srv.URL, "-turns", "1")
			return m, err
		})
	if err != nil {
		return fmt.Errorf("one-line answer: %w", err)
	}
	fmt.Fprintf(&b, "### A one-line answer\n\n")
	fmt.Fprintf(&b, "| measure | nova | baseline | nova / baseline | target |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| CPU | %s | %s | %.2f | ≤ 100 ms |\n", ms(novaOne.cpu), ms(baseOne.cpu), ratio(novaOne.cpu, baseOne.cpu))
	fmt.Fprintf(&b, "| wall time | %s | %s | %.2f | |\n", ms(novaOne.wall), ms(baseOne.wall), ratio(novaOne.wall, baseOne.wall))
	fmt.Fprintf(&b, "| peak anonymous memory (sampled RssAnon) | %.1f MiB | %.1f MiB | %.2f | |\n", mib(novaOne.anonRSS), mib(baseOne.anonRSS), float64(novaOne.anonRSS)/float64(max(1, baseOne.anonRSS)))
	fmt.Fprintf(&b, "| peak RSS (ru_maxrss) | %.1f MiB | %.1f MiB | %.2f | |\n\n", mib(novaOne.maxRSS), mib(baseOne.maxRSS), float64(novaOne.maxRSS)/float64(baseOne.maxRSS))
	mcpStart, err := mcpStartReport(ctx, nova, runs)
	if err != nil {
		return fmt.Errorf("MCP start-up: %w", err)
	}
	b.WriteString("### Time to the first request with MCP servers configured\n\n")
	b.WriteString(mcpStart)
	size, err := rssReport(ctx, nova, runs, cacheAsIs)
	if err != nil {
		return fmt.Errorf("process size: %w", err)
	}
	b.WriteString("### Process size\n\n")
	b.WriteString(size)
	idle, err := idleTUI(ctx, nova, *idleBase)
	if err != nil {
		return fmt.Errorf("idle TUI: %w", err)
	}
	b.WriteString(idle)
	keys, err := keystrokeLatency(ctx, nova, 20)
	if err != nil {
		return fmt.Errorf("keystroke latency: %w", err)
	}
	b.WriteString(keys)
	mem, err := tuiMemoryReport(ctx, nova)
	if err != nil {
		return fmt.Errorf("TUI memory: %w", err)
	}
	b.WriteString(mem)
	fmt.Fprintf(&b, "Baseline: `novabench -baseline-client`, a plain Go program that makes the same streaming HTTP requests to the same server, reads every byte, and (for the echo scenario) spawns `bash -c 'echo hi'` once per tool turn — the work no agent can avoid.\n")
	_, err = io.WriteString(os.Stdout, b.String())
	return err
}

// echoTurns is the length of the tool session: echoServer scripts that many
// turns of one `echo hi` Bash call, then a closing answer.
const echoTurns = 50

func echoServer() *llmtest.Server {
	script := make([]llmtest.Turn, 0, echoTurns+1)
	for i := range echoTurns {
		script = append(script, llmtest.Turn{Blocks: []llmtest.Block{bashCall(fmt.Sprintf("t%d", i), "echo hi")}, Usage: usage()})
	}
	script = append(script, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}, Usage: usage()})
	return llmtest.NewServer(script...)
}

// oneLineServer scripts a one-line answer.
func oneLineServer() *llmtest.Server {
	return llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Hello there.")}, Usage: usage()})
}

// usage is what every scripted call reports: a typical turn of a session.
func usage() llm.Usage {
	return llm.Usage{InputTokens: 20, CacheReadTokens: 8000, OutputTokens: 40}
}

// compare runs nova and the baseline alternately, runs times each, on fresh
// servers, and returns the medians (by CPU).
func compare(ctx context.Context, runs int, newServer func() *llmtest.Server,
	novaRun func(*llmtest.Server, string) (measured, error), baseRun func(*llmtest.Server) (measured, error)) (measured, measured, error) {
	var ns, bs []measured
	for range runs {
		srv := newServer()
		home, _ := os.MkdirTemp("", "novabench-home-")
		m, err := novaRun(srv, home)
		srv.Close()
		os.RemoveAll(home)
		if err != nil {
			return measured{}, measured{}, err
		}
		ns = append(ns, m)
		srv = newServer()
		m, err = baseRun(srv)
		srv.Close()
		if err != nil {
			return measured{}, measured{}, err
		}
		bs = append(bs, m)
	}
	return medianM(ns), medianM(bs), nil
}

// baselineClient makes turns streaming requests and reads them to the end,
// spawning one `bash -c 'echo hi'` per turn but the last when spawn is set.
func baselineClient(url string, turns int, spawn bool) error {
	body := `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	for i := range turns {
		req, _ := http.NewRequest("POST", url+"/v1/messages", strings.NewReader(body))
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-api-key", "bench")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
		}
		resp.Body.Close()
		if spawn && i < turns-1 {
			if err := exec.Command("bash", "-c", "echo hi").Run(); err != nil {
				return err
			}
		}
	}
	return nil
}

func hostDesc() string {
	n := 0
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		n = strings.Count(string(b), "processor\t:")
	}
	return fmt.Sprintf("a %d-core machine", n)
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianF(f []float64) float64 {
	s := slices.Clone(f)
	slices.Sort(s)
	return s[len(s)/2]
}

func medianM(m []measured) measured {
	s := slices.Clone(m)
	slices.SortFunc(s, func(a, b measured) int { return int(a.cpu - b.cpu) })
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }
func mib(kib int64) float64     { return float64(kib) / 1024 }
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
