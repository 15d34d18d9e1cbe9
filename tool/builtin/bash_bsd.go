//go:build unix && !linux

package builtin

import "os/exec"

// waitJob waits for a background command's shell, then ends what it left
// running in its process group. (Without waitid's WNOWAIT the shell is
// reaped first; its pid could in principle be taken again in between.)
func waitJob(cmd *exec.Cmd) error {
	err := cmd.Wait()
	endGroup(cmd.Process.Pid)
	return err
}
