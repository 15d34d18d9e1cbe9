//go:build !unix

package builtin

import "os/exec"

// setProcessGroup is a no-op where process groups do not exist.
func setProcessGroup(*exec.Cmd) {}

// killGroup kills the shell; without process groups its children may
// survive it.
func killGroup(cmd *exec.Cmd, done <-chan error) error {
	_ = cmd.Process.Kill()
	return <-done
}

// waitJob waits for a background command's shell; without process groups
// what it started is not reached.
func waitJob(cmd *exec.Cmd) error { return cmd.Wait() }
