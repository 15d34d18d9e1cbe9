//go:build linux

package sandbox

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// osSandbox: both backends, bubblewrap and Landlock, are Linux's.
const osSandbox = true

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// landlockConfigs are the go-landlock presets by ABI version (index+1).
// The sandbox picks the one the kernel has instead of asking for best
// effort: best effort silently drops to no restriction at all when a rule
// needs more than the kernel offers, and a sandbox that confines nothing
// must fail, not pretend.
var landlockConfigs = []landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

// devFiles are the device files commands write to all the time.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// rulesetFD is a Landlock ruleset ready to enforce, with its flags.
// signalScope says the domain it makes is scoped for signals (ABI 6): a
// process in it can signal only processes in it.
type rulesetFD struct {
	fd          int
	flags       uint32
	signalScope bool
}

func (r rulesetFD) close() { unix.Close(r.fd) }

// landlockRuleset builds the ruleset for commands: read everywhere, write
// only in writable (the directories that are missing are left out).
func landlockRuleset(writable []string, allowNetwork bool) (rulesetFD, error) {
	abi := landlockABI()
	if abi < 1 {
		return rulesetFD{}, fmt.Errorf("apply Landlock: the kernel has no Landlock")
	}
	cfg := landlockConfigs[min(abi, len(landlockConfigs))-1]
	read := landlock.RODirs("/")
	if allowNetwork {
		// Not handling the network rights leaves TCP (and, from ABI 10,
		// UDP) open, and unix sockets, abstract or with a path. With the
		// network off, the socket filter does what the kernel's Landlock
		// cannot.
		cfg.HandledAccessNet = 0
		cfg.Scoped &^= llsys.ScopeAbstractUnixSocket
		read = read.WithResolveUnix()
	}
	// The signal scope stays on: a command may signal only processes in
	// its own sandbox, so `kill -9 -1` cannot end NovaCode or the user's
	// session. NovaCode, outside, can still signal the command.
	write := landlock.RWDirs(writable...).IgnoreIfMissing()
	if abi >= 2 {
		// Moving a file from one directory to another ("refer") is denied
		// unless granted; builds and git do it within the workspace.
		write = write.WithRefer()
	}
	rules := []landlock.Rule{read, write, landlock.RWFiles(devFiles...).IgnoreIfMissing()}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return rulesetFD{}, fmt.Errorf("apply Landlock (ABI %d): %w", abi, err)
	}
	if fd < 0 {
		// A strict config always restricts something; nothing to enforce
		// would mean a sandbox that confines nothing.
		return rulesetFD{}, fmt.Errorf("apply Landlock (ABI %d): the ruleset restricts nothing", abi)
	}
	return rulesetFD{fd: fd, flags: flags, signalScope: cfg.Scoped&llsys.ScopeSignal != 0}, nil
}

// confinedCmd is a command started by a confined thread, which stays
// until Finish (or Close) ends what is left of the command.
type confinedCmd struct {
	once   sync.Once
	finish chan struct{}
	done   chan struct{}
	left   []int // set before done is closed: what cleanup could not end
}

// end tells the thread to end what is left of the command and waits for
// it; it returns "" once every process the command left is gone, else a
// note for the model (see endWait).
func (c *confinedCmd) end() string {
	c.once.Do(func() { close(c.finish) })
	<-c.done
	if len(c.left) == 0 {
		return ""
	}
	return leftNote(c.left)
}

// startOnConfinedThread starts cmd from a thread of its own that takes the
// confinement first, and keeps that thread until c.end, when it calls
// cleanup(pid of the command) from it: from inside the command's Landlock
// domain, kill(-1) reaches exactly the processes of that domain (see
// endDomain). cleanup returns once what it killed is gone, or with the
// processes that are not after endWait. The goroutines it starts are owned here: the one that
// confines is waited for by c.end (or returns at once on an error); a
// helper on the main thread ends with the result it sends.
//
// The thread is locked to its goroutine and never unlocked, so the runtime
// ends it when the goroutine returns instead of running anything else on
// it. Except the main thread: Go never ends that one, only parks it, and a
// parked main thread carrying a filter would still be the one /proc and
// signal delivery see. So a goroutine that finds itself there holds the
// main thread (which no other goroutine can then take) while a second one,
// necessarily elsewhere, does the work.
func startOnConfinedThread(cmd *exec.Cmd, r rulesetFD, allowNetwork bool, cleanup func(pid int) []int) (*confinedCmd, error) {
	// The command leads a session of its own: the caller's session may
	// be the user's terminal, and the fallback cleanup (killSession) goes
	// by session.
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Foreground = true, false, false
	c := &confinedCmd{finish: make(chan struct{}), done: make(chan struct{})}
	run := func(started chan<- error) {
		defer close(c.done)
		err := confineThreadAndStart(cmd, r, allowNetwork)
		started <- err
		if err == nil {
			<-c.finish
			c.left = cleanup(cmd.Process.Pid)
		}
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			run(started)
			return // with the thread locked: the runtime ends it
		}
		inner := make(chan error, 1)
		go func() {
			runtime.LockOSThread()
			run(inner)
		}()
		err := <-inner
		runtime.UnlockOSThread() // the main thread was never confined
		started <- err
	}()
	if err := <-started; err != nil {
		<-c.done
		return nil, err
	}
	return c, nil
}

// confineThreadAndStart confines the calling thread, which the caller has
// locked to its goroutine for good, and starts cmd from it: the fork copies
// this thread's no_new_privs, Landlock domain and seccomp filter into the
// command. Only this thread is confined; the runtime ends it when its
// goroutine returns, and creates new threads from a clean template thread
// rather than from a locked one.
func confineThreadAndStart(cmd *exec.Cmd, r rulesetFD, allowNetwork bool) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("start command: no_new_privs: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("start command: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(r.fd, r.flags); err != nil {
		return fmt.Errorf("start command: enforce Landlock: %w", err)
	}
	if !allowNetwork {
		if err := installSocketFilter(landlockSocketRule); err != nil {
			return fmt.Errorf("start command: %w", err)
		}
	}
	return cmd.Start()
}

// dropCapabilities empties the calling thread's capabilities, its bounding
// set included, so that a program the command runs as root gains none at
// exec. Landlock confines root's file access too, but not what capabilities
// allow beside it: rebooting, reconfiguring the network over netlink,
// loading kernel modules. Capabilities are per thread: NovaCode's other
// threads keep theirs. A thread without capabilities (NovaCode not run as
// root) has nothing to drop, and under no_new_privs cannot gain any.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("read capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 && data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		return nil
	}
	// Without the bounding set emptied, exec as uid 0 would grant every
	// capability again.
	for c := 0; c < 64; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if err == unix.EINVAL {
				break // past the kernel's last capability
			}
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}

// killGroup kills process group pgid, or the process if it leads none.
func killGroup(pid int) {
	if err := unix.Kill(-pid, unix.SIGKILL); err != nil {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
}
