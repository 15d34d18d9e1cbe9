package mcp

import (
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	sigTerm = syscall.SIGTERM
	sigKill = syscall.SIGKILL
)

// setProcAttr puts the server in a process group of its own (the
// terminal's Ctrl-C does not reach it; Close ends the whole group) and has
// the kernel kill it when NovaCode dies without closing it (Pdeathsig).
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitExited returns once the process has exited, without reaping it: its
// pid, the group's id, stays taken until cmd.Wait.
func waitExited(cmd *exec.Cmd) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return
		}
	}
}

// killGroup kills what is left of the process's group once the leader
// has exited (and before it is reaped).
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

func afterWait(*exec.Cmd) {}

// signalGroup sends sig to the process's group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) { _ = syscall.Kill(-cmd.Process.Pid, sig) }

// spawner starts commands from one OS thread that lives as long as it
// does: Pdeathsig fires when the thread that forked a child ends, not the
// process, and the runtime ends threads (a goroutine that exits while
// locked to one, as the Landlock sandbox's do). Holding this thread locked
// keeps it out of any other goroutine's hands until every child is gone.
type spawner struct {
	reqs chan spawnReq
	done chan struct{}
}

type spawnReq struct {
	cmd *exec.Cmd
	res chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		for r := range s.reqs {
			r.res <- r.cmd.Start()
		}
		runtime.UnlockOSThread() // every child is gone: the thread may go back
		close(s.done)
	}()
	return s
}

// start starts cmd from the spawner's thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	res := make(chan error, 1)
	s.reqs <- spawnReq{cmd, res}
	return <-res
}

// stop ends the spawner; no start may follow.
func (s *spawner) stop() {
	close(s.reqs)
	<-s.done
}
