package builtin

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// waitJob waits for a background command's shell to exit, ends what it
// left running in its process group, and then reaps it: until it is
// reaped, the shell's pid, which is the group's id, cannot be taken by
// another process, so the group signalled is still the command's.
func waitJob(cmd *exec.Cmd) error {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	endGroup(cmd.Process.Pid)
	return cmd.Wait()
}
