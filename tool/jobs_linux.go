package tool

import (
	"os/exec"
	"runtime"
	"syscall"
)

// setParentDeath has the kernel kill the command's first process when
// NovaCode dies without closing Jobs (Pdeathsig). What the command started
// beside it is not reached this way; a sandbox kills that too (bubblewrap's
// --die-with-parent). Pdeathsig fires when the thread that forked the
// process ends, so Jobs starts commands from its spawner's thread.
func setParentDeath(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}

// spawner starts commands from one OS thread that it holds until stop:
// Pdeathsig fires when the thread that forked a child ends, not the
// process, and the runtime ends threads (a goroutine that exits while
// locked to one, as the Landlock sandbox's do). Held locked, this thread
// is in no other goroutine's hands; Jobs stops the spawner only once every
// job is over.
type spawner struct {
	reqs chan spawnReq
	done chan struct{}
}

type spawnReq struct {
	start func() error
	res   chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		for r := range s.reqs {
			r.res <- r.start()
		}
		runtime.UnlockOSThread() // every child is gone: the thread may go back
		close(s.done)
	}()
	return s
}

// start calls fn, which starts a command, on the spawner's thread.
func (s *spawner) start(fn func() error) error {
	res := make(chan error, 1)
	s.reqs <- spawnReq{fn, res}
	return <-res
}

// stop ends the spawner; no start may follow.
func (s *spawner) stop() {
	close(s.reqs)
	<-s.done
}
