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
	abs, err := absBin(nova)
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

	p, err := startPane(ctx, "novabench-mem-"+strconv.Itoa(n), novaCommand(srv, home, abs, "check the notes step by step"))
	if err != nil {
		return zero, err
	}
	defer p.close()
	if _, err := p.waitFor("All steps finished.", 100*time.Millisecond, 10*time.Minute); err != nil {
		return zero, fmt.Errorf("session of %d messages: %w", n, err)
	}
	pid, err := p.pid(abs)
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
