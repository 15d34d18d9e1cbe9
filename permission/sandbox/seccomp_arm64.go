//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

const (
	seccompSupported = true
	seccompArch      = unix.AUDIT_ARCH_AARCH64
	// arm64 has no x32-like ABI; no syscall number reaches this value.
	seccompX32 = 0xffffffff
)
