//go:build unix

package nova

import (
	"context"
	"os/exec"
	"syscall"
)

// hookShell is the command for a hook's command line: POSIX sh, as Claude
// Code runs hooks, in a session (and so a process group) of its own, all
// of it killed when ctx ends. A new session also detaches the hook from
// NovaCode's terminal: a hook cannot draw on the TUI's screen or stop on
// reading it.
func hookShell(ctx context.Context, command string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Cancel = func() error {
		// The shell leads the group (setsid): everything it started dies
		// with it.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return cmd
}
