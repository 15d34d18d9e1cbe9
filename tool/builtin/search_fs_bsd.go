//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package builtin

import (
	"os"

	"golang.org/x/sys/unix"
)

// list reads the whole directory through the os package, which knows each
// platform's dirent layout; inodes are left unknown (0), so openFile stats
// an entry before opening it to tell whether it changed.
func (d *wdir) list(_ []byte, out []dirent) ([]dirent, error) {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return out, err
	}
	f := os.NewFile(uintptr(fd), "")
	defer f.Close()
	entries, err := f.ReadDir(-1)
	return appendEntries(out, entries), err
}
