package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novacode/nova/tool"
)

// The file tools and the path guard (tool.Env.Guard). The permission chain
// judged the path the model named; what a tool opens may differ by the time
// it opens it (a symlink swapped in, a path that resolves differently than
// it reads). So, when a guard is set, every file and directory a tool reads
// or writes is opened first, the guard names what was really opened (its
// RealPath: the kernel's answer) and re-checks that before a byte is read or
// written. Writes go further: the guard resolves the path first (its
// ResolvePath, the resolution its checks use) and the resolved file is
// opened without following a final symlink, so a dangling link can never
// create a file outside. The guard does all the path work, so the tools need
// no path code of the permission layer's.
//
// With no guard the tools behave as they always did.

// refusal is a path the guard refused. Its text is for the model.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// ioResult turns an error from the helpers below into the tool's error
// Result: a refusal says so plainly, anything else is "Cannot <verb>".
func ioResult(verb, path string, err error) tool.Result {
	if r, ok := errors.AsType[*refusal](err); ok {
		return tool.Errorf("Refused to %s %s: %v. File tools may only touch the workspace, the additional directories and paths approved for this call; if this path is really needed, ask the user.", verb, path, r.err)
	}
	return tool.Errorf("Cannot %s %s: %v", verb, path, err)
}

// recheck asks the guard about the file f really is.
func recheck(ctx context.Context, env *tool.Env, f *os.File, write bool) error {
	if env.Guard == nil {
		return nil
	}
	real, err := env.Guard.RealPath(f)
	if err != nil {
		return &refusal{fmt.Errorf("cannot tell which file was really opened, so it was refused for safety: %w", err)}
	}
	if err := env.Guard.Recheck(real, write, tool.ApprovedPaths(ctx)); err != nil {
		return &refusal{err}
	}
	return nil
}

// openRead opens a file or directory for reading and re-checks it. It
// never blocks on a FIFO swapped in for a file (O_NONBLOCK).
func openRead(ctx context.Context, env *tool.Env, path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openReadFlags, 0)
	if err != nil {
		return nil, err
	}
	if err := recheck(ctx, env, f, false); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readChecked reads a whole regular file, re-checked.
func readChecked(ctx context.Context, env *tool.Env, path string) ([]byte, error) {
	if env.Guard == nil {
		return os.ReadFile(path)
	}
	f, err := openRead(ctx, env, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		// It was a regular file when the tool looked; it is not now.
		return nil, fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	}
	return io.ReadAll(f)
}

// readDirChecked lists a directory, re-checked, sorted by name like
// os.ReadDir.
func readDirChecked(ctx context.Context, env *tool.Env, dir string) ([]fs.DirEntry, error) {
	if env.Guard == nil {
		return os.ReadDir(dir)
	}
	f, err := openRead(ctx, env, dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// openWrite opens path for reading and writing under the guard, creating
// it (and its parent directories) when create is set and it does not
// exist; created says whether it did. It never truncates: the caller reads
// the old content first, then replaces it (replaceContent).
//
// The path is resolved first (a final symlink, even a dangling one, to
// where it points) and judged before anything is created. The resolved file
// is then opened relative to its directory without following a final
// symlink out of it (os.Root), a new file with O_EXCL so that no link can
// redirect the creation, and what was opened is re-checked. A refused file
// that this call created is removed again.
func openWrite(ctx context.Context, env *tool.Env, path string, create bool) (f *os.File, created bool, err error) {
	target, err := env.Guard.ResolvePath(path)
	if err != nil {
		return nil, false, &refusal{fmt.Errorf("the path cannot be resolved safely, so it was refused for safety: %w", err)}
	}
	if err := env.Guard.Recheck(target, true, tool.ApprovedPaths(ctx)); err != nil {
		return nil, false, &refusal{err}
	}
	dir, base := filepath.Split(target)
	if create {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, false, fmt.Errorf("create the directory: %w", err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, false, err
	}
	defer root.Close()
	flags := os.O_RDWR | openReadFlags
	if create {
		f, err = root.OpenFile(base, flags|os.O_CREATE|os.O_EXCL, 0o644)
		created = err == nil
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, false, err
		}
	}
	if f == nil {
		if f, err = root.OpenFile(base, flags, 0); err != nil {
			return nil, false, err
		}
	}
	undo := func() {
		f.Close()
		if created {
			_ = root.Remove(base)
		}
	}
	fi, err := f.Stat()
	if err != nil {
		undo()
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		undo()
		return nil, false, fmt.Errorf("it is not a regular file (%s)", fi.Mode().Type())
	}
	if err := recheck(ctx, env, f, true); err != nil {
		undo()
		return nil, false, err
	}
	return f, created, nil
}

// readAllFrom reads f from the start.
func readAllFrom(f *os.File) ([]byte, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

// replaceContent makes data the whole content of f and closes it. Writing
// in place keeps the file's mode, owner and (already checked) identity.
func replaceContent(f *os.File, data []byte) error {
	err := f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(data, 0)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
