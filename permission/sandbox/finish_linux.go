//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// endWait bounds how long Finish waits for the processes it killed to be
// gone. A SIGKILLed process is not gone at once: it must be scheduled to
// act on the signal, which on a loaded machine takes a while, and until it
// has released its memory it is still listed in /proc with its command
// line. Only a process stuck in the kernel (uninterruptible sleep on a
// hung network filesystem, a FUSE server that does not answer) takes
// longer than this; Finish then returns anyway, with a note that says so
// (leftNote), rather than hang the session.
const endWait = 5 * time.Second

// Pauses between two looks at processes that were killed and have not
// exited yet: short at first, as most exit within a millisecond or two.
const (
	firstPause = time.Millisecond
	maxPause   = 50 * time.Millisecond
)

// leftNote is Finish's note when processes it killed outlive endWait;
// pids may be empty when they are not known one by one.
func leftNote(pids []int) string {
	which := "Some processes"
	if len(pids) > 0 {
		s := make([]string, len(pids))
		for i, p := range pids {
			s[i] = strconv.Itoa(p)
		}
		which = "Processes (PIDs " + strings.Join(s, ", ") + ")"
	}
	return fmt.Sprintf("%s that the command left behind were killed but had not exited %s later (stuck in the kernel?); they may still hold files open.", which, endWait)
}

// nsInit is the first process of a bubblewrap command's PID namespace
// (bwrap's pid 1 inside, which reaps the others), held by a pidfd so that
// neither a reused PID nor its parent's exit can make NovaCode signal or
// wait for another process.
//
// bwrap, the process NovaCode starts and waits for, exits as soon as the
// command's first process has, and leaves that pid 1 running as long as
// anything the command left runs; --die-with-parent kills it then, but
// asynchronously: cmd.Wait returns before anything in the namespace is
// dead. When pid 1 of a namespace exits, the kernel kills every other
// process in it and waits until they have all been reaped before pid 1
// itself becomes a zombie, which is when its pidfd becomes readable. So a
// readable pidfd means the namespace is empty.
type nsInit struct{ fd int }

// openInit takes hold of pid, which bwrap (PID parent) reported as the
// namespace's first process, while bwrap still holds back the command
// (--block-fd), so before anything of the command has run. It returns nil
// when it cannot (no pidfd on kernels before 5.3), or when pid is no
// longer bwrap's child: then that process has already been killed
// (--die-with-parent, or the group was killed) before it started the
// command, and nothing of the command can run in its namespace.
func openInit(pid, parent int) *nsInit {
	if pid <= 0 {
		return nil
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	// The pidfd names whichever process had the PID when it was opened.
	// If that process is bwrap's child now, it is the one bwrap
	// reported: bwrap forks once, and its PID cannot be reused while we
	// have not waited for it.
	if _, ppid, _, ok := procStat(pid); !ok || ppid != parent {
		unix.Close(fd)
		return nil
	}
	return &nsInit{fd: fd}
}

// end kills the namespace's first process, and with it every process
// left in the namespace, and waits up to endWait until they are all gone.
// It returns "" once they are, else a note for the model.
func (n *nsInit) end() string {
	if n == nil || n.fd < 0 {
		return ""
	}
	defer func() { unix.Close(n.fd); n.fd = -1 }()
	// bwrap's exit has killed it already (--die-with-parent), unless the
	// command ended otherwise: this does not depend on that.
	_ = unix.PidfdSendSignal(n.fd, unix.SIGKILL, nil, 0)
	deadline := time.Now().Add(endWait)
	for {
		wait := time.Until(deadline)
		if wait <= 0 {
			return leftNote(nil)
		}
		fds := []unix.PollFd{{Fd: int32(n.fd), Events: unix.POLLIN}}
		got, err := unix.Poll(fds, int(wait.Milliseconds())+1)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			// Not expected of a pidfd; fall back on looking.
			return n.endByLooking(deadline)
		case got > 0:
			return ""
		}
	}
}

// endByLooking waits for the first process to exit by asking the pidfd
// whether it can still be signalled, where poll failed.
func (n *nsInit) endByLooking(deadline time.Time) string {
	for pause := firstPause; ; pause = min(2*pause, maxPause) {
		if err := unix.PidfdSendSignal(n.fd, 0, nil, 0); errors.Is(err, unix.ESRCH) {
			return "" // reaped; a zombie still counts as alive here, so this is late, not early
		}
		if time.Now().After(deadline) {
			return leftNote(nil)
		}
		time.Sleep(pause)
	}
}

// endDomain kills every process left in the Landlock domain of the calling
// thread, which must be the confined thread that started the command, and
// waits up to endWait until they have all exited; it returns those that
// have not. With the signal scope (Landlock ABI 6, Linux 6.12), kill(-1)
// from inside the domain reaches the processes of that domain and of
// domains nested in it, and no other (not NovaCode, which is not in it,
// not the user's other processes); a process cannot leave a domain,
// whatever session or group it moves to.
//
// kill(-1) cannot say whether it reached anything: it returns 0 as long as
// the system has any other process, signalled or refused. So after each
// sweep the thread looks in /proc for processes it may signal that have
// not exited, and sweeps again while it finds any: one that forked during
// a sweep, or one killed that has not yet been scheduled to die.
func endDomain() []int {
	deadline := time.Now().Add(endWait)
	for pause := firstPause; ; pause = min(2*pause, maxPause) {
		_ = unix.Kill(-1, unix.SIGKILL)
		left := domainMembers()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(pause)
	}
}

// domainMembers lists the processes other than NovaCode that the calling
// thread may signal and that have not exited (a zombie has: it runs
// nothing and holds nothing but its PID until its parent reaps it). Called
// from the confined thread with the signal scope, those are the command's
// processes: kill(pid, 0) is refused for every process outside its domain.
func domainMembers() []int {
	self := os.Getpid()
	var left []int
	for _, pid := range procPIDs() {
		if pid == self || unix.Kill(pid, 0) != nil {
			continue
		}
		if state, _, _, ok := procStat(pid); ok && state != 'Z' && state != 'X' {
			left = append(left, pid)
		}
	}
	return left
}

// killSession kills every process left in session sid, the session a
// Landlock command's first process started (Start makes it a session
// leader), once that first process has ended and been waited for, and
// waits up to endWait until they have all exited; it returns those that
// have not. It is the cleanup where Landlock has no signal scope (before
// ABI 6, where endDomain cannot be used: kill(-1) would reach every
// process of the user): a process that started a session of its own
// escapes it.
//
// The session is found in /proc, again after each round of kills, until
// no live process is left in it: a killed process stays in /proc until it
// has been scheduled to die, and one may have forked meanwhile. Its ID is
// the first process's PID, which the kernel does not give to another
// process while any process is still in the session; if a live process has
// that PID as its own (the ID was free and reused), the session is gone
// and nothing is killed.
func killSession(sid int) []int {
	deadline := time.Now().Add(endWait)
	for pause := firstPause; ; pause = min(2*pause, maxPause) {
		members, reused := sessionMembers(sid)
		if reused || len(members) == 0 {
			return nil
		}
		for _, pid := range members {
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		if time.Now().After(deadline) {
			return members
		}
		time.Sleep(pause)
	}
}

// sessionMembers lists the live (not zombie) processes of session sid
// other than its leader, and whether a process with PID sid is alive.
func sessionMembers(sid int) (members []int, reused bool) {
	for _, pid := range procPIDs() {
		state, _, session, ok := procStat(pid)
		if !ok || state == 'Z' || state == 'X' {
			continue
		}
		if pid == sid {
			return nil, true
		}
		if session == sid {
			members = append(members, pid)
		}
	}
	return members, false
}

// procPIDs lists the processes in /proc, in order.
func procPIDs() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// procStat reads the state, parent and session of a process from
// /proc/PID/stat: "pid (comm) state ppid pgrp session ...", where comm may
// hold spaces and parentheses.
func procStat(pid int) (state byte, ppid, session int, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 4 || len(f[0]) != 1 {
		return 0, 0, 0, false
	}
	pp, err1 := strconv.Atoi(f[1])
	s, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil {
		return 0, 0, 0, false
	}
	return f[0][0], pp, s, true
}
