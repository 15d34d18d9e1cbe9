package pathguard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// maxHops is how many symbolic links one resolution may follow; Linux
// gives up (ELOOP) after 40 too.
const maxHops = 40

// resolution is the outcome of resolve.
type resolution struct {
	path string
	// viaProc is the first link under /proc the walk followed: what such a
	// magic link names depends on the process that looks, and its readlink
	// text is not always a path.
	viaProc string
	// info is the Lstat of path, nil when it does not exist.
	info fs.FileInfo
	err  error
}

// ResolvePath resolves every symbolic link in the absolute path p the way
// Inspect does: component by component, `..` applied to what the previous
// components resolved to (as the kernel does), a dangling link followed to
// where it points, and a missing tail kept as written. The file tools use it
// to open, for writing, the file the check saw rather than whatever a final
// symlink points to by then.
func ResolvePath(p string) (string, error) {
	if !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("pathguard: resolve %q: not an absolute path", p)
	}
	r := resolve(p)
	if r.err != nil {
		return r.path, fmt.Errorf("pathguard: %w", r.err)
	}
	return r.path, nil
}

// resolve walks abs one component at a time with Lstat and Readlink rather
// than calling EvalSymlinks, which fails on a dangling link and on a missing
// tail, exactly the cases where a checker that falls back to the lexical
// path is fooled: creating the file follows the dangling link.
func resolve(abs string) resolution {
	var r resolution
	vol := filepath.VolumeName(abs)
	top := vol + string(filepath.Separator)
	cur := top
	rest := components(abs[len(vol):])
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case ".":
			continue
		case "..":
			// cur is already resolved, so its parent is the physical one.
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if missing(err) {
				// Nothing here (yet): the rest is taken as written, but
				// still walked, since a later `..` may climb back into
				// existing directories.
				cur = next
				continue
			}
			r.err = fmt.Errorf("resolve %s: %w", next, err)
			cur = filepath.Join(append([]string{next}, rest...)...)
			break
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		hops++
		if hops > maxHops {
			r.err = fmt.Errorf("resolve %s: more than %d symbolic links (a loop?)", abs, maxHops)
			cur = filepath.Join(append([]string{next}, rest...)...)
			break
		}
		target, err := os.Readlink(next)
		if err != nil {
			r.err = fmt.Errorf("resolve %s: %w", next, err)
			cur = filepath.Join(append([]string{next}, rest...)...)
			break
		}
		if r.viaProc == "" && isProc(next) {
			r.viaProc = next
		}
		if strings.ContainsRune(target, 0) || target == "" {
			r.err = fmt.Errorf("resolve %s: unusable link target %q", next, target)
			cur = filepath.Join(append([]string{next}, rest...)...)
			break
		}
		tv := filepath.VolumeName(target)
		if filepath.IsAbs(target) {
			cur = top
			if tv != "" {
				cur = tv + string(filepath.Separator)
			}
		}
		// The link's own components go first; a relative target is taken
		// from the directory holding the link, which cur still is.
		rest = append(components(target[len(tv):]), rest...)
	}
	r.path = cur
	if r.err == nil {
		if fi, err := os.Lstat(cur); err == nil {
			r.info = fi
		}
	}
	return r
}

// missing reports whether err means "not there": ENOENT, or ENOTDIR when a
// component is a file.
func missing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// isProc reports whether p is under /proc on Linux.
func isProc(p string) bool {
	return runtime.GOOS == "linux" && within(p, "/proc", false)
}
