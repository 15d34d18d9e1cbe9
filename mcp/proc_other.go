//go:build !unix

package mcp

import (
	"os"
	"os/exec"
)

var (
	sigTerm os.Signal = os.Kill
	sigKill os.Signal = os.Kill
)

func setProcAttr(*exec.Cmd) {}

func waitExited(*exec.Cmd) {}

func killGroup(*exec.Cmd) {}

func afterWait(*exec.Cmd) {}

// signalGroup kills the process itself: there are no process groups here.
func signalGroup(cmd *exec.Cmd, _ os.Signal) { _ = cmd.Process.Kill() }

type spawner struct{}

func newSpawner() *spawner { return &spawner{} }

func (*spawner) start(cmd *exec.Cmd) error { return cmd.Start() }

func (*spawner) stop() {}
