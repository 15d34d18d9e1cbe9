//go:build unix && !linux

package mcp

import (
	"os/exec"
	"syscall"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// setProcAttr puts the server in a process group of its own: the
// terminal's Ctrl-C does not reach it, and Close ends the whole group.
// (There is no Pdeathsig here: a NovaCode killed outright leaves its
// servers to notice their closed standard input.)
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func waitExited(*exec.Cmd) {}

func killGroup(*exec.Cmd) {}

// afterWait kills what is left of the group once the leader is reaped.
func afterWait(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) { _ = syscall.Kill(-cmd.Process.Pid, sig) }

// spawner starts commands directly: no Pdeathsig ties a child to a thread.
type spawner struct{}

func newSpawner() *spawner { return &spawner{} }

func (*spawner) start(cmd *exec.Cmd) error { return cmd.Start() }

func (*spawner) stop() {}
