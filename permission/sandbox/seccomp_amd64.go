//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

const (
	seccompSupported = true
	seccompArch      = unix.AUDIT_ARCH_X86_64
	// x32 syscalls share the x86-64 architecture value and carry this bit
	// in their number.
	seccompX32 = 0x40000000
)
