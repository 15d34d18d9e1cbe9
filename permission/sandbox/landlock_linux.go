//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// landlockABI is the kernel's Landlock ABI version, 0 without Landlock.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// landlockConfigs are the go-landlock presets by ABI version (index+1).
// The helper picks the one the kernel has instead of asking for best
// effort: best effort silently drops to no restriction at all when a rule
// needs more than the kernel offers, and a sandbox that confines nothing
// must fail, not pretend.
var landlockConfigs = []landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

// devFiles are the device files commands write to all the time.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// restrictLandlock confines this process (and what it executes) to
// reading everywhere and writing only in spec.Writable.
func restrictLandlock(spec helperSpec) error {
	abi := landlockABI()
	if abi < 1 {
		return fmt.Errorf("apply Landlock: the kernel has no Landlock")
	}
	cfg := landlockConfigs[min(abi, len(landlockConfigs))-1]
	read := landlock.RODirs("/")
	if spec.AllowNetwork {
		// Not handling the network rights leaves TCP (and, from ABI 10,
		// UDP) open, and unix sockets, abstract or with a path. With the
		// network off, the seccomp filter (installSocketFilter) does what
		// the kernel's Landlock cannot.
		cfg.HandledAccessNet = 0
		cfg.Scoped &^= llsys.ScopeAbstractUnixSocket
		read = read.WithResolveUnix()
	}
	// The signal scope stays on: a command may signal only processes in
	// its own sandbox, so `kill -9 -1` cannot end NovaCode or the user's
	// session. NovaCode, outside, can still signal the command.
	write := landlock.RWDirs(spec.Writable...).IgnoreIfMissing()
	if abi >= 2 {
		// Moving a file from one directory to another ("refer") is denied
		// unless granted; builds and git do it within the workspace.
		write = write.WithRefer()
	}
	rules := []landlock.Rule{read, write, landlock.RWFiles(devFiles...).IgnoreIfMissing()}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("apply Landlock (ABI %d): %w", abi, err)
	}
	return nil
}

// execLandlock confines the process with Landlock (and, without network,
// the socket filter) and executes argv in its place.
func execLandlock(spec helperSpec, argv []string) error {
	// Keep the chdir, the restrictions and the exec on one thread; Landlock
	// and the filter cover the other threads too, but exec keeps only this one.
	runtime.LockOSThread()
	if spec.Dir != "" {
		if err := os.Chdir(spec.Dir); err != nil {
			return fmt.Errorf("sandboxed command: %w", err)
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandboxed command: %w", err)
	}
	env := os.Environ()
	if spec.TempDir != "" {
		env = setEnv(env, "TMPDIR", spec.TempDir)
	}
	if err := restrictLandlock(spec); err != nil {
		return err
	}
	if !spec.AllowNetwork {
		if err := installSocketFilter(landlockSocketRule); err != nil {
			return err
		}
	}
	closeInheritedFDs()
	if err := syscall.Exec(path, argv, env); err != nil {
		return fmt.Errorf("sandboxed command: exec %s: %w", path, err)
	}
	return nil
}
