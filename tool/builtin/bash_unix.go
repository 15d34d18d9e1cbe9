//go:build unix

package builtin

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// setProcessGroup puts the command in a process group of its own, led by
// the shell, so that killGroup reaches everything the command started
// (pipelines, background jobs), not just the shell.
//
// It does so by starting a new session (setsid), which also creates a new
// group, rather than only a new group (setpgid): that also detaches the
// command from NovaCode's controlling terminal. In a mere background group
// of that terminal, a program that opens /dev/tty to prompt (ssh, sudo, git
// asking for a password) would be stopped by SIGTTIN and hang until the
// timeout; without a terminal the open fails at once and the program
// reports an error the model can act on. It also keeps such a program from
// writing over NovaCode's own screen.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// killGroup ends the command's process group: SIGTERM first so programs can
// clean up, SIGKILL for whatever is still alive after bashKillGrace. It
// returns the result of cmd.Wait, which done delivers.
func killGroup(cmd *exec.Cmd, done <-chan error) error {
	pgid := cmd.Process.Pid // setsid makes the shell the group leader.
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	var waitErr error
	waited := false
	deadline := time.Now().Add(bashKillGrace)
	for time.Now().Before(deadline) {
		if !waited {
			select {
			case waitErr = <-done:
				waited = true
			default:
			}
		}
		if waited && !groupAlive(pgid) {
			return waitErr
		}
		time.Sleep(20 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if !waited {
		waitErr = <-done
	}
	return waitErr
}

// endGroup ends what is left of process group pgid once its leader has
// exited: SIGTERM, then SIGKILL after bashKillGrace for whatever is still
// alive. A command that ran in the background is over when its shell
// exits; what it left running would otherwise go on unwatched.
func endGroup(pgid int) {
	if !groupAlive(pgid) {
		return
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(bashKillGrace)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// groupAlive reports whether any process of group pgid is still running.
// kill(-pgid, 0) alone is not enough: orphaned children that died are
// zombies until init reaps them, and an init that never reaps (common in
// containers) would keep the group "alive" forever. Where /proc exists,
// zombies are told apart there.
func groupAlive(pgid int) bool {
	if err := syscall.Kill(-pgid, 0); err == syscall.ESRCH {
		return false
	}
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return true
	}
	for _, p := range stats {
		state, pg, ok := procState(p)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procState parses the state and process group out of /proc/PID/stat:
// "pid (comm) state ppid pgrp ...", where comm may contain spaces and ")".
func procState(path string) (state byte, pgrp int, ok bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pg, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pg, true
}
