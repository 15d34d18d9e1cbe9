package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

const (
	idleSocket = "novabench-idle" // tmux -L: a private server, not the user's
	idleFor    = 30 * time.Second
	// clockTick is USER_HZ, the unit of /proc/PID/stat times: 100 on every
	// Linux architecture Go supports.
	clockTick = time.Second / 100
)

// idleTUI starts the interactive nova in a detached 80x24 tmux pane, waits
// for its status line, and measures the CPU it uses over idleFor with no
// input: a calm TUI sleeps until a key arrives, so the target is ~0. It
// returns the report section; without tmux the section says it was skipped.
func idleTUI(ctx context.Context, nova, baseline string) (string, error) {
	const head = "### Idle TUI (interactive nova in an 80x24 tmux pane, no input)\n\n"
	if _, err := exec.LookPath("tmux"); err != nil {
		return head + "Skipped: tmux is not installed.\n\n", nil
	}
	abs, err := filepath.Abs(nova)
	if err != nil {
		return "", err
	}
	home, err := os.MkdirTemp("", "novabench-idle")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	srv := llmtest.NewServer()
	defer srv.Close()

	tmux := func(args ...string) ([]byte, error) {
		out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", idleSocket}, args...)...).CombinedOutput()
		if err != nil {
			return out, fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
		}
		return out, nil
	}
	var sh strings.Builder
	fmt.Fprintf(&sh, "cd %s && exec env", shQuote(home))
	for _, kv := range novaEnv(srv, home) {
		sh.WriteString(" " + shQuote(kv))
	}
	sh.WriteString(" " + shQuote(abs))
	if _, err := tmux("new-session", "-d", "-x", "80", "-y", "24", sh.String()); err != nil {
		return "", err
	}
	defer exec.Command("tmux", "-L", idleSocket, "kill-server").Run()

	// The status line shows the permission mode once the first frame is drawn.
	var screen string
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(screen, "default") {
		if time.Now().After(deadline) {
			return "", fmt.Errorf("idle TUI: no status line after 30 s; pane:\n%s", screen)
		}
		time.Sleep(50 * time.Millisecond)
		out, err := tmux("capture-pane", "-p")
		if err != nil {
			return "", err
		}
		screen = string(out)
	}
	out, err := tmux("list-panes", "-F", "#{pane_pid}")
	if err != nil {
		return "", err
	}
	panePID, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return "", fmt.Errorf("pane pid %q: %v", out, err)
	}
	pid, err := findProc(panePID, abs)
	if err != nil {
		return "", err
	}
	before, err := cpuTime(pid)
	if err != nil {
		return "", err
	}
	time.Sleep(idleFor)
	after, err := cpuTime(pid)
	if err != nil {
		return "", err
	}
	novaIdle := after - before
	var baseIdle time.Duration
	if baseline != "" {
		if baseIdle, err = idleBaseline(ctx, baseline); err != nil {
			return "", fmt.Errorf("baseline: %w", err)
		}
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("| measure | nova | baseline (bare Bubble Tea v2 program, same size and frame rate) | nova / baseline | target |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| CPU (utime+stime) used over %.0f s idle | %.2f s | %.2f s | %.2f | ~0 |\n\n", idleFor.Seconds(), novaIdle.Seconds(), baseIdle.Seconds(), ratio(novaIdle, baseIdle))
	fmt.Fprintf(&b, "Read from /proc/PID/stat, in %s ticks.\n\n", clockTick)
	return b.String(), nil
}

// idleBaseline measures bench/idlebase the same way: the framework's own
// idle cost, which nova's TUI cannot go below.
func idleBaseline(ctx context.Context, bin string) (time.Duration, error) {
	abs, err := filepath.Abs(bin)
	if err != nil {
		return 0, err
	}
	const socket = "novabench-idlebase"
	tmux := func(args ...string) ([]byte, error) {
		return exec.CommandContext(ctx, "tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
	}
	if out, err := tmux("new-session", "-d", "-x", "80", "-y", "24", shQuote(abs)); err != nil {
		return 0, fmt.Errorf("tmux: %v: %s", err, out)
	}
	defer exec.Command("tmux", "-L", socket, "kill-server").Run()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _ := tmux("capture-pane", "-p")
		if strings.Contains(string(out), "idle baseline") {
			break
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("baseline never drew: %s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, err := tmux("list-panes", "-F", "#{pane_pid}")
	if err != nil {
		return 0, err
	}
	panePID, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		return 0, err
	}
	pid, err := findProc(panePID, abs)
	if err != nil {
		return 0, err
	}
	before, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	time.Sleep(idleFor)
	after, err := cpuTime(pid)
	return after - before, err
}

// findProc returns the pid, among root and its descendants, whose
// executable is bin: the pane's shell may have exec'd nova or forked it.
func findProc(root int, bin string) (int, error) {
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
			if argv0, _, _ := strings.Cut(string(cmd), "\x00"); argv0 == bin {
				return pid, nil
			}
		}
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
		for _, t := range tasks {
			b, _ := os.ReadFile(t)
			for _, f := range strings.Fields(string(b)) {
				if c, err := strconv.Atoi(f); err == nil {
					queue = append(queue, c)
				}
			}
		}
	}
	return 0, fmt.Errorf("no process running %s under pid %d", bin, root)
}

// cpuTime is utime+stime of pid.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which may contain spaces, in ( ).
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("bad /proc stat")
	}
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(ut+st) * clockTick, nil
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
