//go:build unix

package builtin

import "syscall"

// openReadFlags keep an open from blocking on a FIFO (O_NONBLOCK, no
// effect on regular files) and from making a terminal the controlling one.
const openReadFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// openNoFollow makes an open fail on a symbolic link rather than follow it.
const openNoFollow = syscall.O_NOFOLLOW
