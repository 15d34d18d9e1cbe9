//go:build linux

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
	abs, err := absBin(nova)
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

	p, err := startPane(ctx, idleSocket, novaCommand(srv, home, abs))
	if err != nil {
		return "", err
	}
	defer p.close()
	// The status line shows the permission mode once the first frame is drawn.
	if _, err := p.waitFor("default", 50*time.Millisecond, 30*time.Second); err != nil {
		return "", fmt.Errorf("idle TUI: %w", err)
	}
	pid, err := p.pid(abs)
	if err != nil {
		return "", err
	}
	nova0, err := idleSample(pid)
	if err != nil {
		return "", err
	}
	time.Sleep(idleFor)
	nova1, err := idleSample(pid)
	if err != nil {
		return "", err
	}
	novaIdle := nova1.sub(nova0)
	var baseIdle idleUse
	if baseline != "" {
		if baseIdle, err = idleBaseline(ctx, baseline); err != nil {
			return "", fmt.Errorf("baseline: %w", err)
		}
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("| measure over 30 s idle | nova | baseline: bare Bubble Tea v2.1.1 program (upstream renderer) | nova / baseline | target |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| CPU time on a core (schedstat) | %.4f s | %.4f s | %.3f | ~0 |\n", novaIdle.cpu.Seconds(), baseIdle.cpu.Seconds(), ratio(novaIdle.cpu, baseIdle.cpu))
	fmt.Fprintf(&b, "| CPU (utime+stime, %s ticks) | %.2f s | %.2f s | | |\n", clockTick, novaIdle.ticks.Seconds(), baseIdle.ticks.Seconds())
	fmt.Fprintf(&b, "| wake-ups (context switches, all threads) | %d | %d | %.3f | |\n\n", novaIdle.switches, baseIdle.switches, float64(novaIdle.switches)/float64(max(baseIdle.switches, 1)))
	b.WriteString("CPU time is the sum of /proc/PID/task/*/schedstat (nanoseconds on a CPU); wake-ups are the sum of\n" +
		"voluntary and involuntary context switches of every thread. The baseline is bench/idlebase built against\n" +
		"upstream Bubble Tea (bench/run.sh takes our copy's novacode.patch back for it); nova runs our patched copy\n" +
		"(third_party/bubbletea/NOVACODE.md), which flushes frames on demand instead of on a 60 Hz ticker.\n\n")
	return b.String(), nil
}

// idleUse is what a process used over a span: CPU time and wake-ups.
type idleUse struct {
	cpu      time.Duration // time on a CPU, from schedstat (ns)
	ticks    time.Duration // utime+stime, from stat (clock ticks)
	switches int64         // voluntary + involuntary context switches
}

func (u idleUse) sub(v idleUse) idleUse {
	return idleUse{cpu: u.cpu - v.cpu, ticks: u.ticks - v.ticks, switches: u.switches - v.switches}
}

// idleSample sums, over every thread of pid, the time on a CPU and the
// context switches so far, and reads utime+stime.
func idleSample(pid int) (idleUse, error) {
	var u idleUse
	ticks, err := cpuTime(pid)
	if err != nil {
		return u, err
	}
	u.ticks = ticks
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil || len(tasks) == 0 {
		return u, fmt.Errorf("no threads of %d", pid)
	}
	for _, t := range tasks {
		b, err := os.ReadFile(t + "/schedstat")
		if err != nil {
			continue // the thread ended
		}
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			u.cpu += time.Duration(ns)
		}
		st, err := os.ReadFile(t + "/status")
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(st), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				u.switches += n
			}
		}
	}
	return u, nil
}

// idleBaseline measures bench/idlebase the same way: a bare program on
// upstream Bubble Tea, whose renderer ticks at its frame rate for life.
func idleBaseline(ctx context.Context, bin string) (idleUse, error) {
	var zero idleUse
	abs, err := absBin(bin)
	if err != nil {
		return zero, err
	}
	p, err := startPane(ctx, "novabench-idlebase", shQuote(abs))
	if err != nil {
		return zero, err
	}
	defer p.close()
	if _, err := p.waitFor("idle baseline", 50*time.Millisecond, 30*time.Second); err != nil {
		return zero, err
	}
	pid, err := p.pid(abs)
	if err != nil {
		return zero, err
	}
	before, err := idleSample(pid)
	if err != nil {
		return zero, err
	}
	time.Sleep(idleFor)
	after, err := idleSample(pid)
	return after.sub(before), err
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
