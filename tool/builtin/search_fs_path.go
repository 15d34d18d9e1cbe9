//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package builtin

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// walkBeneath is false: without openat, an entry is opened by its path, and
// a symbolic link swapped into that path in between would be followed. So
// every file the walk opens is re-checked by the guard (RealPath and
// Recheck), as the file tools re-check what they open.
const walkBeneath = false

// wdir is a directory of a walk, by path.
type wdir struct{ path string }

func newRootDir(f *os.File) (*wdir, error) { return &wdir{path: f.Name()}, nil }

func (d *wdir) acquire() {}
func (d *wdir) release() {}

func (d *wdir) list(_ []byte, out []dirent) ([]dirent, error) {
	entries, err := os.ReadDir(d.path)
	return appendEntries(out, entries), err
}

func statOf(fi fs.FileInfo) fileStat {
	return fileStat{size: fi.Size(), mtime: fi.ModTime().UnixNano(), links: 1, typ: entTypeOf(fi.Mode())}
}

func (d *wdir) openDir(name string, _ uint64) (*wdir, error) {
	p := filepath.Join(d.path, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &errChanged{"it is no longer a directory"}
	}
	return &wdir{path: p}, nil
}

func (d *wdir) openFile(name string, _ uint64) (wfile, fileStat, error) {
	p := filepath.Join(d.path, name)
	before, err := os.Lstat(p)
	if err != nil {
		return wfile{}, fileStat{}, err
	}
	if !before.Mode().IsRegular() {
		return wfile{}, fileStat{}, &errChanged{"it is no longer a regular file"}
	}
	f, err := os.Open(p)
	if err != nil {
		return wfile{}, fileStat{}, err
	}
	after, err := f.Stat()
	if err != nil || !os.SameFile(before, after) {
		f.Close()
		return wfile{}, fileStat{}, &errChanged{"it was replaced after it was listed"}
	}
	return wfile{f}, statOf(after), nil
}

func (d *wdir) stat(name string) (fileStat, error) {
	fi, err := os.Lstat(filepath.Join(d.path, name))
	if err != nil {
		return fileStat{}, err
	}
	return statOf(fi), nil
}

func (d *wdir) readSmall(name string, max int64) ([]byte, error) {
	p := filepath.Join(d.path, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, errors.New("not a small regular file")
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// wfile is an open file of a walk.
type wfile struct{ *os.File }

func (f wfile) osFile() *os.File { return f.File }
