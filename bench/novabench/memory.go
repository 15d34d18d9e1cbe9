//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

// tuiMemory runs the interactive nova through a scripted session of n
// messages (n/2 turns, each a line of text and a Read call, so an
// assistant message and a tool result) in an 80x24 tmux pane, and reads
// the process's resident memory once the last answer is on screen.
func tuiMemory(ctx context.Context, nova string, n int) (procMem, error) {
	var zero procMem
	abs, err := filepath.Abs(nova)
	if err != nil {
		return zero, err
	}
	home, err := os.MkdirTemp("", "novabench-mem")
	if err != nil {
		return zero, err
	}
	defer os.RemoveAll(home)
	notes := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(notes, []byte("line one of the notes\nline two\nline three\n"), 0o644); err != nil {
		return zero, err
	}
	input, _ := json.Marshal(map[string]string{"file_path": notes})
	turns := make([]llmtest.Turn, 0, n/2+1)
	for i := range n / 2 {
		turns = append(turns, llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Text(fmt.Sprintf("Step %d: reading the notes again to check the **details**.", i)),
			llmtest.ToolUse("", "Read", string(input)),
		}})
	}
	turns = append(turns, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("All steps finished.")}})
	srv := llmtest.NewServer(turns...)
	defer srv.Close()

	socket := "novabench-mem-" + strconv.Itoa(n)
	tmux := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			return string(out), fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
		}
		return string(out), nil
	}
	var sh strings.Builder
	fmt.Fprintf(&sh, "cd %s && exec env", shQuote(home))
	for _, kv := range novaEnv(srv, home) {
		sh.WriteString(" " + shQuote(kv))
	}
	sh.WriteString(" " + shQuote(abs) + " " + shQuote("check the notes step by step"))
	if _, err := tmux("new-session", "-d", "-x", "80", "-y", "24", sh.String()); err != nil {
		return zero, err
	}
	defer exec.Command("tmux", "-L", socket, "kill-server").Run()
	deadline := time.Now().Add(10 * time.Minute)
	for {
		scr, err := tmux("capture-pane", "-p")
		if err != nil {
			return zero, err
		}
		if strings.Contains(scr, "All steps finished.") {
			break
		}
		if time.Now().After(deadline) {
			return zero, fmt.Errorf("session of %d messages did not finish in 10 min; pane:\n%s", n, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, err := tmux("list-panes", "-F", "#{pane_pid}")
	if err != nil {
		return zero, err
	}
	panePID, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return zero, err
	}
	pid, err := findProc(panePID, abs)
	if err != nil {
		return zero, err
	}
	time.Sleep(2 * time.Second) // let the last frame and the transcript's fsync settle
	return readProcMem(pid)
}

// procMem is a process's memory as /proc/PID/status reports it.
type procMem struct {
	rss, anon, hwm int64 // VmRSS, RssAnon, VmHWM in KiB
}

func readProcMem(pid int) (procMem, error) {
	var m procMem
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		kb, _ := strconv.ParseInt(f[0], 10, 64)
		switch k {
		case "VmRSS":
			m.rss = kb
		case "RssAnon":
			m.anon = kb
		case "VmHWM":
			m.hwm = kb
		}
	}
	return m, nil
}

// tuiMemoryReport compares a 2,000-message session with a 200-message one.
func tuiMemoryReport(ctx context.Context, nova string) (string, error) {
	const head = "### TUI memory after a long session (interactive nova, 80x24 tmux pane)\n\n"
	if _, err := exec.LookPath("tmux"); err != nil {
		return head + "Skipped: tmux is not installed.\n\n", nil
	}
	small, err := tuiMemory(ctx, nova, 200)
	if err != nil {
		return "", err
	}
	large, err := tuiMemory(ctx, nova, 2000)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("| measure | 2,000 messages | baseline: 200 messages | 2,000 / 200 |\n|---|---|---|---|\n")
	row := func(name string, l, s int64) {
		fmt.Fprintf(&b, "| %s | %.1f MiB | %.1f MiB | %.2f |\n", name, mib(l), mib(s), float64(l)/float64(max(s, 1)))
	}
	row("anonymous resident memory (RssAnon: heap, stacks)", large.anon, small.anon)
	row("resident memory (VmRSS, incl. the binary's mapped pages)", large.rss, small.rss)
	row("peak resident memory (VmHWM)", large.hwm, small.hwm)
	b.WriteString("\nEach scripted turn is a line of Markdown and a Read call (an assistant message and a tool\n" +
		"result); read from /proc/PID/status two seconds after the last answer is on screen.\n\n")
	return b.String(), nil
}
