//go:build linux

package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// The scan walks the writable directories once, at the start of a session
// and again when asked, and finds what the sandbox must know before it
// can promise anything about a command:
//
//   - files with more than one hard link: a write through a writable name
//     changes every other name of the file, and one may be outside (a file
//     in ~/.config linked into the workspace, pnpm's store). Neither mount
//     namespaces nor Landlock can stop that; bubblewrap binds them
//     read-only instead (see linkBinds).
//   - git directories (.git directories, directories laid out as one,
//     the git directories of submodules and worktrees inside them) and
//     .git files and symbolic links: what git reads as configuration or
//     runs lies there, and bubblewrap keeps it read-only (see
//     gitGuard.bindArgs).
//   - every directory with its change time, so that refresh can later tell
//     which directories a command changed without walking everything again
//     (see tree.refresh).
//
// It is one pass with one getdents per directory, one fstat per directory
// (its change time) and one fstatat per regular file (its link count); it
// follows no symbolic link and skips what cannot matter: special files, and
// the protected entries of git directories, which are read-only anyway.

// fileID is what tells two files apart.
type fileID struct{ dev, ino uint64 }

// dirKind says how a directory's entries are read.
type dirKind uint8

const (
	plainDir  dirKind = iota
	gitDirK           // a git directory: only its work entries are walked
	gitWork           // below a work entry of a git directory (objects/, refs/…)
	container         // modules/ or worktrees/ of a git directory: holds git directories
)

type dirStamp struct {
	id    fileID
	ctime unix.Timespec
	kind  dirKind
	// files counts the regular files directly in the directory (linkBinds
	// binds a directory whole when all of them have outside links).
	files int
}

// tree is what a scan found. It is not safe for concurrent use: its owner
// (gitGuard) holds a lock.
type tree struct {
	roots []string
	// complete is false when a walk stopped at its entry limit or
	// deadline: then nothing can be said about what it did not see.
	// refreshComplete says the same of the last refresh alone.
	complete, refreshComplete bool
	entries                   int
	limit                     int
	dirs                      map[string]*dirStamp
	// gitDirs are the git directories found, gitLinks the .git files and
	// symbolic links, both by path with their identity.
	gitDirs  map[string]fileID
	gitLinks map[string]linkID
	// linked are regular files with more than one link, by identity, with
	// their names seen in the walk and the link count. Only a full walk
	// (scanTree) collects them; refresh leaves them alone.
	linked       map[fileID]*linkedFile
	collectLinks bool
}

// linkID identifies a .git file or symbolic link: the file, and what it
// points to (a link cannot be bound read-only, and a file that is not, over
// the bind limit, can be rewritten in place; a replacement can get the
// same inode number).
type linkID struct {
	id     fileID
	target string
}

type linkedFile struct {
	names []string
	nlink uint64
	inGit bool // a name lies in a git directory's work entries
}

// errScanLimit ends a walk that reached its entry limit.
var errScanLimit = errors.New("entry limit reached")

// scanTree walks roots (resolved directories; missing ones are left out).
// It stops after limit entries or when ctx ends, with complete false.
func scanTree(ctx context.Context, roots []string, limit int) *tree {
	t := &tree{
		roots: roots, complete: true, limit: limit,
		dirs:    map[string]*dirStamp{},
		gitDirs: map[string]fileID{}, gitLinks: map[string]linkID{},
		linked: map[fileID]*linkedFile{}, collectLinks: true,
	}
	for _, r := range roots {
		if err := t.walk(ctx, r, plainDir); err != nil {
			t.complete = false
			break
		}
	}
	t.collectLinks = false
	return t
}

type walkItem struct {
	path string
	kind dirKind
}

// walk reads the tree at dir, recording what it finds.
func (t *tree) walk(ctx context.Context, dir string, kind dirKind) error {
	stack := []walkItem{{dir, kind}}
	for n := 0; len(stack) > 0; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		more, err := t.readDir(it.path, it.kind)
		if err != nil {
			return err
		}
		stack = append(stack, more...)
	}
	return ctx.Err()
}

// readDir records one directory and returns the subdirectories to walk.
// A directory that cannot be read is left out: a command could not read
// it either, but it might write into it, so the scan is not complete.
func (t *tree) readDir(dir string, kind dirKind) ([]walkItem, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return nil, nil // gone, or replaced by something else, since it was listed
		}
		t.complete = false
		return nil, nil
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.complete = false
		return nil, nil
	}
	stamp := &dirStamp{id: fileID{st.Dev, st.Ino}, ctime: st.Ctim, kind: kind}
	t.dirs[dir] = stamp
	ents, err := f.ReadDir(-1)
	if err != nil && !errors.Is(err, io.EOF) {
		t.complete = false
	}
	if kind == plainDir && laidOutAsGitDir(ents) {
		kind = gitDirK
		stamp.kind = kind
		t.gitDirs[dir] = stamp.id
	}
	var more []walkItem
	for _, e := range ents {
		t.entries++
		if t.entries > t.limit {
			return nil, errScanLimit
		}
		name := e.Name()
		p := dir + string(filepath.Separator) + name
		typ := e.Type()
		switch kind {
		case gitDirK:
			if isContainer(name) && typ.IsDir() {
				more = append(more, walkItem{p, container})
				continue
			}
			if !workEntry(name) {
				continue // protected: read-only inside, nothing to find
			}
			if typ.IsDir() {
				more = append(more, walkItem{p, gitWork})
				continue
			}
		case container:
			if typ.IsDir() {
				// A git directory has HEAD; else a submodule's name has
				// slashes and its git directory lies deeper.
				if fileExists(p + "/HEAD") {
					var cst unix.Stat_t
					if unix.Lstat(p, &cst) == nil {
						t.gitDirs[p] = fileID{cst.Dev, cst.Ino}
					}
					more = append(more, walkItem{p, gitDirK})
				} else {
					more = append(more, walkItem{p, container})
				}
			}
			continue
		}
		if name == ".git" && kind == plainDir {
			var gst unix.Stat_t
			if err := unix.Fstatat(fd, name, &gst, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				continue
			}
			id := fileID{gst.Dev, gst.Ino}
			if typ.IsDir() {
				t.gitDirs[p] = id
				more = append(more, walkItem{p, gitDirK})
			} else {
				t.gitLinks[p] = linkID{id, gitLinkText(p, gst.Mode)}
			}
			continue
		}
		switch {
		case typ.IsDir():
			sub := plainDir
			if kind == gitWork {
				sub = gitWork
			}
			more = append(more, walkItem{p, sub})
		case typ.IsRegular() && t.collectLinks:
			stamp.files++
			var fst unix.Stat_t
			if err := unix.Fstatat(fd, name, &fst, unix.AT_SYMLINK_NOFOLLOW); err != nil || fst.Nlink <= 1 {
				continue
			}
			id := fileID{fst.Dev, fst.Ino}
			lf := t.linked[id]
			if lf == nil {
				lf = &linkedFile{nlink: uint64(fst.Nlink)}
				t.linked[id] = lf
			}
			lf.names = append(lf.names, p)
			lf.inGit = lf.inGit || kind != plainDir
		}
	}
	return more, nil
}

// laidOutAsGitDir reports whether a directory's entries make it a git
// directory git would use: HEAD with objects/ and refs/ (a bare repository,
// the target of a gitdir: file), or HEAD with a commondir file (a linked
// worktree's). d_type tells files from directories without a stat.
func laidOutAsGitDir(ents []os.DirEntry) bool {
	var head, objects, refs, common bool
	for _, e := range ents {
		switch e.Name() {
		case "HEAD":
			head = e.Type().IsRegular() || e.Type()&os.ModeSymlink != 0
		case "objects":
			objects = e.Type().IsDir()
		case "refs":
			refs = e.Type().IsDir()
		case "commondir":
			common = e.Type().IsRegular()
		}
	}
	return head && (objects && refs || common)
}

func fileExists(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil
}

// outsideLinks returns the files with more than one link of which some
// name was not found in the walk: another name may be outside the
// writable directories (or inside a git directory's protected entries),
// so a write through the one found would change it. Files all of whose
// names lie in the writable directories (a copy made with cp -l, pnpm's
// store kept in the workspace) are left out: writing them changes nothing
// a command could not change anyway. The walk must have been complete for
// the count to mean anything; on an incomplete tree every linked file is
// returned.
func (t *tree) outsideLinks() []*linkedFile {
	var out []*linkedFile
	for _, lf := range t.linked {
		if !t.complete || uint64(len(lf.names)) < lf.nlink {
			out = append(out, lf)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].names[0] < out[j].names[0] })
	return out
}

// linkBinds returns what bubblewrap must bind read-only so that no file
// with an outside link can be written through the writable directories,
// and whether that fits in max binds. Each bind costs bwrap time at every
// command (it rereads the mount table for each: 100 binds take some 30 ms,
// 500 take 350), so a directory in which every regular file, down to the
// bottom, is such a file (pnpm's node_modules/.pnpm, linked from its store)
// is bound whole; git directories are never bound whole (commits must add
// objects). When even that is more than max binds, ok is false and the
// sandbox does not promise to stop writes through hard links.
func (t *tree) linkBinds(max int) (binds []string, ok bool) {
	links := t.outsideLinks()
	if len(links) == 0 {
		return nil, true
	}
	// Count, per directory and everything below it, regular files and
	// those among them with an outside link.
	type count struct{ files, linked int }
	below := map[string]*count{}
	for dir, st := range t.dirs {
		if st.kind != plainDir {
			continue
		}
		c := &count{files: st.files}
		below[dir] = c
	}
	outside := map[string]bool{}
	for _, lf := range links {
		for _, n := range lf.names {
			outside[n] = true
			if c := below[filepath.Dir(n)]; c != nil && !lf.inGit {
				c.linked++
			}
		}
	}
	dirs := make([]string, 0, len(below))
	for d := range below {
		dirs = append(dirs, d)
	}
	// Deepest first, so that each directory adds its counts to its
	// parent's after its own are complete.
	sort.Slice(dirs, func(i, j int) bool {
		if a, b := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/"); a != b {
			return a > b
		}
		return dirs[i] < dirs[j]
	})
	gitBelow := map[string]bool{} // a git directory lies below: never bound whole
	for d := range t.gitDirs {
		for p := filepath.Dir(d); p != filepath.Dir(p); p = filepath.Dir(p) {
			gitBelow[p] = true
		}
	}
	isRoot := func(d string) bool { return slices.Contains(t.roots, d) }
	for _, d := range dirs {
		if isRoot(d) {
			continue
		}
		if p := below[filepath.Dir(d)]; p != nil {
			p.files += below[d].files
			p.linked += below[d].linked
		}
	}
	whole := func(d string) bool {
		c := below[d]
		return c != nil && c.files > 0 && c.files == c.linked && !gitBelow[d] && !isRoot(d)
	}
	covered := func(n string) bool {
		for p := filepath.Dir(n); ; p = filepath.Dir(p) {
			if whole(p) && !whole(filepath.Dir(p)) {
				return true
			}
			if isRoot(p) || p == filepath.Dir(p) {
				return false
			}
		}
	}
	seen := map[string]bool{}
	for n := range outside {
		var bind string
		if covered(n) {
			// The topmost directory that is wholly linked files.
			for p := filepath.Dir(n); whole(p); p = filepath.Dir(p) {
				bind = p
			}
		} else {
			bind = n
		}
		if !seen[bind] {
			seen[bind] = true
			binds = append(binds, bind)
		}
	}
	sort.Strings(binds)
	if len(binds) > max {
		return nil, false
	}
	return binds, true
}

// refresh looks for what changed since the walk: it re-stats every
// directory the walk saw and reads again those whose change time moved (a
// directory's change time moves whenever an entry is created, removed or
// renamed in it, and a command cannot set it back), walking any new
// subdirectory in full. It returns the git directories and .git entries that
// are new: not at their path before, or another file there now.
func (t *tree) refresh(ctx context.Context) (newDirs map[string]fileID, newLinks map[string]linkID) {
	newDirs, newLinks = map[string]fileID{}, map[string]linkID{}
	t.entries = 0 // the limit bounds each walk, this one too
	wasComplete := t.complete
	t.complete = true
	defer func() {
		t.refreshComplete = t.complete
		t.complete = wasComplete && t.complete
	}()
	oldDirs, oldLinks := t.gitDirs, t.gitLinks
	// A git directory is bound onto itself, so it cannot be replaced: its
	// inode tells a moved one from a new one. A link is known by its
	// target too.
	known := map[fileID]bool{}
	for _, id := range oldDirs {
		known[id] = true
	}
	knownLinks := map[linkID]bool{}
	for _, id := range oldLinks {
		knownLinks[id] = true
	}
	t.gitDirs, t.gitLinks = map[string]fileID{}, map[string]linkID{}
	for p, id := range oldDirs {
		t.gitDirs[p] = id
	}
	for p, id := range oldLinks {
		t.gitLinks[p] = id
	}
	paths := make([]string, 0, len(t.dirs))
	for p := range t.dirs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		old := t.dirs[p]
		if old == nil {
			continue // removed below a changed parent
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			t.forget(p)
			continue
		}
		if (fileID{st.Dev, st.Ino}) == old.id && st.Ctim == old.ctime {
			continue
		}
		// Read it again; subdirectories the walk knew stay known, new
		// ones are walked.
		kind := old.kind
		if kind == gitDirK && !t.isGitDir(p) {
			kind = plainDir
		}
		t.forgetGitBelow(p)
		more, err := t.readDir(p, kind)
		if err != nil {
			t.dirs[p] = stale(old)
			t.complete = false
			break
		}
		for _, m := range more {
			if _, seen := t.dirs[m.path]; seen {
				continue
			}
			if err := t.walkNew(ctx, m.path, m.kind); err != nil {
				t.dirs[p] = stale(t.dirs[p])
				t.complete = false
				break
			}
		}
		if !t.complete {
			break
		}
	}
	for p, id := range t.gitDirs {
		if oid, ok := oldDirs[p]; (!ok || oid != id) && !known[id] {
			newDirs[p] = id
		}
	}
	for p, id := range t.gitLinks {
		if oid, ok := oldLinks[p]; (!ok || oid != id) && !knownLinks[id] {
			newLinks[p] = id
		}
	}
	return newDirs, newLinks
}

// walkNew walks a directory new since the last look. If the walk cannot
// finish, it forgets every directory it read, so that the next refresh
// walks the whole of it again rather than trusting what it saw of it.
func (t *tree) walkNew(ctx context.Context, dir string, kind dirKind) error {
	before := map[string]bool{}
	for d := range t.dirs {
		if d == dir || strings.HasPrefix(d, dir+string(filepath.Separator)) {
			before[d] = true
		}
	}
	err := t.walk(ctx, dir, kind)
	if err != nil {
		for d := range t.dirs {
			if (d == dir || strings.HasPrefix(d, dir+string(filepath.Separator))) && !before[d] {
				delete(t.dirs, d)
			}
		}
	}
	return err
}

// stale returns s with a change time no directory has, so that the next
// refresh reads the directory again.
func stale(s *dirStamp) *dirStamp {
	c := *s
	c.ctime = unix.Timespec{Sec: -1}
	return &c
}

// isGitDir reports whether p was known as a git directory of its own (not
// because its parent is one).
func (t *tree) isGitDir(p string) bool {
	_, ok := t.gitDirs[p]
	return ok
}

// forget drops a directory that is gone, and everything known below it.
func (t *tree) forget(p string) {
	prefix := p + string(filepath.Separator)
	for d := range t.dirs {
		if d == p || strings.HasPrefix(d, prefix) {
			delete(t.dirs, d)
		}
	}
	for d := range t.gitDirs {
		if d == p || strings.HasPrefix(d, prefix) {
			delete(t.gitDirs, d)
		}
	}
	for d := range t.gitLinks {
		if strings.HasPrefix(d, prefix) {
			delete(t.gitLinks, d)
		}
	}
}

// forgetGitBelow drops the .git entries directly in p, which readDir is
// about to find again (or not).
func (t *tree) forgetGitBelow(p string) {
	dot := p + string(filepath.Separator) + ".git"
	delete(t.gitLinks, dot)
	if _, ok := t.gitDirs[dot]; ok {
		if fi, err := os.Lstat(dot); err != nil || !fi.IsDir() {
			delete(t.gitDirs, dot)
		}
	}
}

// gitLinkText is what a .git file or link says: the link's target, or the
// file's first line.
func gitLinkText(p string, mode uint32) string {
	if mode&unix.S_IFMT == unix.S_IFLNK {
		t, _ := os.Readlink(p)
		return t
	}
	return firstLineOf(p)
}
