//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package builtin

import (
	"io/fs"
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
	for _, de := range entries {
		e := dirent{name: de.Name()}
		switch t := de.Type(); {
		case t.IsRegular():
			e.typ = entFile
		case t.IsDir():
			e.typ = entDir
		case t&fs.ModeSymlink != 0:
			e.typ = entLink
		default:
			e.typ = entOther
		}
		out = append(out, e)
	}
	return out, err
}
