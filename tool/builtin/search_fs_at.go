//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package builtin

import (
	"errors"
	"io"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// walkBeneath: entries are opened relative to their directory's descriptor
// with O_NOFOLLOW, so what a walk opens is the entry its listing named, in
// the directory it listed, and nothing a symbolic link points to. The guard
// judges the walk's entries by their relative paths (tool.WalkGuard).
const walkBeneath = true

// wdir is an open directory of a walk. Its descriptor stays open while
// subdirectories found in it wait to be opened relative to it: refs counts
// the walk's own hold and each waiting subdirectory.
type wdir struct {
	fd   int
	refs atomic.Int32
}

// newRootDir takes the directory f (opened and re-checked by the caller)
// as the start of a walk; f stays the caller's.
func newRootDir(f *os.File) (*wdir, error) {
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := sc.Control(func(raw uintptr) { fd, dupErr = unix.Dup(int(raw)) }); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	unix.CloseOnExec(fd)
	d := &wdir{fd: fd}
	d.refs.Store(1)
	return d, nil
}

func (d *wdir) acquire() { d.refs.Add(1) }

func (d *wdir) release() {
	if d.refs.Add(-1) == 0 {
		unix.Close(d.fd)
	}
}

func (d *wdir) openat(name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(d.fd, name, flags|unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func statOf(st *unix.Stat_t) fileStat {
	fs := fileStat{ino: uint64(st.Ino), links: uint64(st.Nlink), size: st.Size, mtime: st.Mtim.Nano()}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		fs.typ = entFile
	case unix.S_IFDIR:
		fs.typ = entDir
	case unix.S_IFLNK:
		fs.typ = entLink
	default:
		fs.typ = entOther
	}
	return fs
}

// openDir opens the subdirectory name, which the listing gave inode ino
// (0: unknown).
func (d *wdir) openDir(name string, ino uint64) (*wdir, error) {
	fd, err := d.openat(name, unix.O_DIRECTORY)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if ino != 0 && uint64(st.Ino) != ino {
		unix.Close(fd)
		return nil, &errChanged{"it was replaced after it was listed"}
	}
	sub := &wdir{fd: fd}
	sub.refs.Store(1)
	return sub, nil
}

// openFile opens the regular file name for reading; ino is the inode its
// listing gave (0: unknown, then it is stat'ed first).
func (d *wdir) openFile(name string, ino uint64) (wfile, fileStat, error) {
	if ino == 0 {
		st, err := d.stat(name)
		if err != nil {
			return -1, fileStat{}, err
		}
		ino = st.ino
	}
	fd, err := d.openat(name, 0)
	if err != nil {
		if err == unix.ELOOP {
			return -1, fileStat{}, &errChanged{"it became a symbolic link after it was listed"}
		}
		return -1, fileStat{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, fileStat{}, err
	}
	fs := statOf(&st)
	switch {
	case fs.typ != entFile:
		unix.Close(fd)
		return -1, fileStat{}, &errChanged{"it is no longer a regular file"}
	case fs.ino != ino:
		unix.Close(fd)
		return -1, fileStat{}, &errChanged{"it was replaced after it was listed"}
	}
	return wfile(fd), fs, nil
}

// stat stats the entry name itself (a symbolic link is not followed).
func (d *wdir) stat(name string) (fileStat, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			return statOf(&st), nil
		}
		if err != unix.EINTR {
			return fileStat{}, err
		}
	}
}

// readSmall reads the regular file name (an ignore file) if it is at most
// max bytes.
func (d *wdir) readSmall(name string, max int64) ([]byte, error) {
	fd, err := d.openat(name, 0)
	if err != nil {
		return nil, err
	}
	f := wfile(fd)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if fs := statOf(&st); fs.typ != entFile || fs.size > max {
		return nil, errors.New("not a small regular file")
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// wfile is an open file of a walk.
type wfile int

func (f wfile) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), p)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f wfile) Close() error { return unix.Close(int(f)) }

// osFile is for the path-based walk's per-file re-check only.
func (f wfile) osFile() *os.File { return nil }
