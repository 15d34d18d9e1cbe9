//go:build linux

package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The socket filter is a classic BPF seccomp program that makes some
// socket(2) calls fail with EPERM; it applies only with the network off.
//
// Under bubblewrap the network namespace already cuts off IP; what it does
// not cut off are unix-domain sockets with a path, which is how a confined
// command would reach a daemon outside the sandbox: the Docker socket (a
// root shell on the host), the session bus (systemd-run), an ssh agent.
// Nor vsock, which reaches the hypervisor. Those families are refused.
//
// Under Landlock nothing isolates the network: Landlock restricts TCP from
// ABI 4 and UDP only from ABI 10, and never multipath TCP. There every
// family but netlink (local interface queries) is refused, so the network
// is off whatever the kernel's Landlock.
//
// Pairs from socketpair(2) stay allowed: they connect nothing outside.
// io_uring is refused, since its operations bypass seccomp. Syscalls of
// another architecture (32-bit ones on a 64-bit kernel, where socketcall's
// arguments cannot be inspected) are refused wholesale.
//
// seccompArch, seccompX32 and seccompSupported come from the per-arch
// files.

const (
	bpfLoadWord = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJumpEq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfJumpGE   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	bpfRet      = unix.BPF_RET | unix.BPF_K

	// Offsets in struct seccomp_data; args[0]'s low word on little-endian
	// machines (both supported ones are). The kernel reads socket's
	// family as an int, so the low word is all that counts.
	offNr   = 0
	offArch = 4
	offArg0 = 16

	retAllow = unix.SECCOMP_RET_ALLOW
	retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
)

// socketRule says which socket families a filter refuses: those listed
// (deny), or all but those listed (!deny).
type socketRule struct {
	deny     bool
	families []uint32
}

var (
	// bwrapSocketRule: what the network namespace does not isolate.
	bwrapSocketRule = socketRule{deny: true, families: []uint32{unix.AF_UNIX, unix.AF_VSOCK}}
	// landlockSocketRule: everything that can leave the machine or the
	// sandbox.
	landlockSocketRule = socketRule{deny: false, families: []uint32{unix.AF_NETLINK}}
)

// bpfInsn is an instruction whose jumps name labels ("" is the next
// instruction), resolved by assemble.
type bpfInsn struct {
	label  string
	code   uint16
	k      uint32
	jt, jf string
}

// socketFilter returns the program, or nil where the architecture is not
// supported (the filter is then left out).
func socketFilter(rule socketRule) []unix.SockFilter {
	if !seccompSupported {
		return nil
	}
	prog := []bpfInsn{
		{code: bpfLoadWord, k: offArch},
		{code: bpfJumpEq, k: seccompArch, jf: "deny"},
		{code: bpfLoadWord, k: offNr},
		{code: bpfJumpGE, k: seccompX32, jt: "deny"},
		{code: bpfJumpEq, k: unix.SYS_SOCKET, jt: "socket"},
	}
	uring := []uint32{unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER}
	for i, nr := range uring {
		in := bpfInsn{code: bpfJumpEq, k: nr, jt: "deny"}
		if i == len(uring)-1 {
			in.jf = "allow" // no other syscall is filtered
		}
		prog = append(prog, in)
	}
	prog = append(prog, bpfInsn{code: bpfLoadWord, k: offArg0, label: "socket"})
	match, otherwise := "allow", "deny"
	if rule.deny {
		match, otherwise = otherwise, match
	}
	for i, f := range rule.families {
		in := bpfInsn{code: bpfJumpEq, k: f, jt: match}
		if i == len(rule.families)-1 {
			in.jf = otherwise
		}
		prog = append(prog, in)
	}
	// Jumps only go forward, so both returns come last.
	prog = append(prog,
		bpfInsn{code: bpfRet, k: retAllow, label: "allow"},
		bpfInsn{code: bpfRet, k: retEPERM, label: "deny"},
	)
	out, err := assemble(prog)
	if err != nil {
		panic(err) // the program above is fixed; an error is a bug
	}
	return out
}

// assemble resolves labels into the forward offsets BPF jumps take.
func assemble(prog []bpfInsn) ([]unix.SockFilter, error) {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	offset := func(i int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := at[label]
		if !ok || to <= i || to-i-1 > 255 {
			return 0, fmt.Errorf("bpf: bad jump from %d to %q", i, label)
		}
		return uint8(to - i - 1), nil
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		jt, err := offset(i, in.jt)
		if err != nil {
			return nil, err
		}
		jf, err := offset(i, in.jf)
		if err != nil {
			return nil, err
		}
		out[i] = unix.SockFilter{Code: in.code, K: in.k, Jt: jt, Jf: jf}
	}
	return out, nil
}

// filterBytes is the program as bwrap's --seccomp reads it: struct
// sock_filter after struct sock_filter, in native byte order.
func filterBytes(prog []unix.SockFilter) []byte {
	var out []byte
	for _, f := range prog {
		out = binary.NativeEndian.AppendUint16(out, f.Code)
		out = append(out, f.Jt, f.Jf)
		out = binary.NativeEndian.AppendUint32(out, f.K)
	}
	return out
}

// installSocketFilter applies the filter to the calling thread only (no
// TSYNC): that thread starts the command, which inherits it, and the rest
// of NovaCode stays unfiltered. The thread must have no_new_privs.
func installSocketFilter(rule socketRule) error {
	prog := socketFilter(rule)
	if prog == nil {
		return nil
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("install seccomp filter: %w", errno)
	}
	return nil
}

// seccompFile returns the read end of a pipe holding the socket filter,
// for bwrap's --seccomp (bwrap reads it, then closes it), or nil where the
// architecture has no filter. The filter is a few hundred bytes, far below
// a pipe's buffer, so the write cannot block.
func seccompFile() (*os.File, error) {
	prog := socketFilter(bwrapSocketRule)
	if prog == nil {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("seccomp pipe: %w", err)
	}
	_, err = w.Write(filterBytes(prog))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("seccomp pipe: %w", err)
	}
	return r, nil
}

// closeInheritedFDs marks every descriptor above stderr close-on-exec.
// NovaCode's own are already; these are the ones its parent left open
// (a shell, an IDE). Go's os/exec hands every descriptor without the flag
// down to the commands it starts, and a descriptor open on a file outside
// the sandbox would let a command write through it whatever the mounts or
// Landlock say. InitProcess calls it once at start.
func closeInheritedFDs() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	// Before Linux 5.11: walk the descriptors.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
