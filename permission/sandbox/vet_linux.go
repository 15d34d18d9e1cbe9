//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// What the sandbox does, after a command, to git metadata the command
// created that no bind could cover: checks it, and moves aside what git
// would run or obey (see gitGuard.end). Nothing is deleted.

// vetLink checks a .git file or link the command created or changed: what
// it points to must be a known git directory, one outside every writable
// directory (which no command could have made), or one the command made,
// which is then checked as such. A link to a missing place that a command
// could fill later is moved aside.
func (g *gitGuard) vetLink(l string, q *quarantiner, newDirs map[string]fileID) []string {
	targets := linkTargets(l)
	if len(targets) == 0 {
		fi, err := os.Lstat(l)
		if err == nil && fi.IsDir() {
			return nil // a .git directory: checked as one
		}
		if err == nil {
			return []string{q.moveAside(filepath.Dir(l), filepath.Base(l), "") + " (it names no git directory)"}
		}
		return nil
	}
	var notes []string
	for _, d := range targets {
		if _, known := g.tree.gitDirs[d]; known {
			continue
		}
		if !under(d, g.writable) {
			continue
		}
		if !isGitDir(d) {
			return append(notes, q.moveAside(filepath.Dir(l), filepath.Base(l), "")+" (it names "+q.rel(d)+", which is no git directory yet but a command could make one)")
		}
		var st unix.Stat_t
		if unix.Lstat(d, &st) == nil {
			g.tree.gitDirs[d] = fileID{st.Dev, st.Ino}
			newDirs[d] = fileID{st.Dev, st.Ino}
		}
	}
	return notes
}

// linkTargets returns, resolved, the git directory a .git file or symbolic
// link names and that directory's common directory, or nil.
func linkTargets(l string) []string {
	fi, err := os.Lstat(l)
	if err != nil {
		return nil
	}
	var target string
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, err := os.Readlink(l)
		if err != nil {
			return nil
		}
		target = t
	case fi.Mode().IsRegular():
		line := firstLineOf(l)
		t, ok := strings.CutPrefix(line, "gitdir:")
		if !ok {
			return nil
		}
		target = strings.TrimSpace(t)
	default:
		return nil
	}
	if target == "" {
		return nil
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(l), target)
	}
	target = resolveLexical(target)
	out := []string{target}
	if c := strings.TrimSpace(firstLineOf(filepath.Join(target, "commondir"))); c != "" {
		if !filepath.IsAbs(c) {
			c = filepath.Join(target, c)
		}
		out = append(out, resolveLexical(c))
	}
	return out
}

// resolveLexical resolves symbolic links in p as far as it exists.
func resolveLexical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, base := filepath.Split(p)
	if dir == "" || filepath.Clean(dir) == p {
		return p
	}
	return filepath.Join(resolveLexical(filepath.Clean(dir)), base)
}

// firstLineOf reads the first line of a small regular file, without
// following a symbolic link or blocking on a FIFO.
func firstLineOf(p string) string {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return ""
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	sc := bufio.NewScanner(io.LimitReader(f, 4096))
	if sc.Scan() {
		return strings.TrimRight(sc.Text(), "\r")
	}
	return ""
}

// isGitDir reports whether d is laid out as a git directory.
func isGitDir(d string) bool {
	ents, err := os.ReadDir(d)
	return err == nil && laidOutAsGitDir(ents)
}

// vetGitDir makes a git directory a command created safe to leave: its
// config (and config.worktree) keeps only variables that run nothing,
// hooks other than git's *.sample files are moved aside, and so is a
// commondir that names anything but the repository holding a worktree's
// git directory.
func vetGitDir(d string, q *quarantiner) []string {
	var notes []string
	bare := filepath.Base(d) != ".git" && !strings.Contains(d, "/modules/") && !strings.Contains(d, "/worktrees/")
	for _, name := range []string{"config", "config.worktree"} {
		notes = append(notes, vetConfig(d, name, bare, q)...)
	}
	hooks := filepath.Join(d, "hooks")
	if fi, err := os.Lstat(hooks); err == nil {
		if !fi.IsDir() {
			notes = append(notes, q.moveAside(d, "hooks", d))
		} else {
			ents, _ := os.ReadDir(hooks)
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".sample") {
					notes = append(notes, q.moveAside(hooks, e.Name(), d))
				}
			}
		}
	}
	if c := firstLineOf(filepath.Join(d, "commondir")); c != "" || fileExists(filepath.Join(d, "commondir")) {
		c = strings.TrimSpace(c)
		if !filepath.IsAbs(c) {
			c = filepath.Join(d, c)
		}
		holder := filepath.Dir(filepath.Dir(d)) // X for X/worktrees/id
		if filepath.Base(filepath.Dir(d)) != "worktrees" || resolveLexical(c) != resolveLexical(holder) {
			notes = append(notes, q.moveAside(d, "commondir", d))
		}
	}
	return notes
}

// vetConfig rewrites d/name without the variables a new repository may
// not keep, moving the original aside.
func vetConfig(d, name string, bare bool, q *quarantiner) []string {
	p := filepath.Join(d, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	var data []byte
	if fi.Mode().IsRegular() {
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			f := os.NewFile(uintptr(fd), p)
			data, err = io.ReadAll(io.LimitReader(f, 1<<20))
			f.Close()
		}
		if err != nil {
			data = nil
		}
	}
	var clean []byte
	var removed []string
	if fi.Mode().IsRegular() && data != nil {
		clean, removed = sanitizeGitConfig(data, bare)
	} else {
		clean, removed = minimalGitConfig(bare), []string{"everything (it is not a regular file)"}
	}
	if len(removed) == 0 {
		return nil
	}
	if name == "config.worktree" && len(clean) == 0 {
		return []string{q.moveAside(d, name, d)}
	}
	moved := q.moveAside(d, name, d)
	if err := writeNew(p, clean); err != nil {
		return []string{moved, fmt.Sprintf("could not write a clean %s (%v)", q.rel(p), err)}
	}
	return []string{fmt.Sprintf("took %s out of %s (%s)", strings.Join(removed, ", "), q.rel(p), moved)}
}

// writeNew creates p, which must not exist, with data.
func writeNew(p string, data []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// quarantineDir is where, in a git directory, what a command put there is
// moved: one directory, so that however much a command creates, it costs
// one read-only bind from then on. Git ignores it.
const quarantineDir = "nova-quarantine"

// quarantiner moves entries aside. It renames through descriptors of the
// directories opened without following a symbolic link, so that a link
// swapped in by a command still running cannot redirect a rename.
type quarantiner struct {
	seq  uint64
	base string // paths in notes are relative to it (the workspace)
}

// rel shortens p for a note.
func (q *quarantiner) rel(p string) string {
	if r, err := filepath.Rel(q.base, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// moveAside moves dir/name into the quarantine directory of git directory
// gitDir, as "N-name" (N the command's number), or with gitDir "" renames
// it in dir to "name.nova-quarantine-N". It returns a note.
func (q *quarantiner) moveAside(dir, name, gitDir string) string {
	p := filepath.Join(dir, name)
	fail := func(err error) string {
		return fmt.Sprintf("could not move %s aside (%v): remove it yourself", q.rel(p), err)
	}
	from, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fail(err)
	}
	defer unix.Close(from)
	to, toName, where := from, name+".nova-quarantine-"+strconv.FormatUint(q.seq, 10), dir
	if gitDir != "" {
		if qfd, err := openQuarantine(gitDir); err == nil {
			defer unix.Close(qfd)
			to, toName, where = qfd, strconv.FormatUint(q.seq, 10)+"-"+name, filepath.Join(gitDir, quarantineDir)
		}
	}
	target := toName
	for i := 2; ; i++ {
		err = unix.Renameat2(from, name, to, target, unix.RENAME_NOREPLACE)
		if !errors.Is(err, unix.EEXIST) || i > 100 {
			break
		}
		target = toName + "-" + strconv.Itoa(i)
	}
	if err != nil {
		return fail(err)
	}
	return fmt.Sprintf("moved %s aside to %s", q.rel(p), q.rel(filepath.Join(where, target)))
}

// openQuarantine opens (creating it) the quarantine directory of gitDir.
func openQuarantine(gitDir string) (int, error) {
	gfd, err := unix.Open(gitDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(gfd)
	if err := unix.Mkdirat(gfd, quarantineDir, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, err
	}
	return unix.Openat(gfd, quarantineDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
}

// readSmall reads a regular file of at most 1 MiB without following a
// final symbolic link; nil if it cannot.
func readSmall(p string) []byte {
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), p)
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return nil
	}
	return data
}
