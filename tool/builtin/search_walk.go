package builtin

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sync/errgroup"

	"github.com/novacode/nova/tool"
)

// The search walk: Grep and Glob over a tree, in parallel, with ripgrep's
// filters (search_ignore.go). Workers take directories from a shared stack,
// list each in full, decide its entries, search (or list) its files at once
// and push its subdirectories: ripgrep's own design, which keeps every
// worker busy without a hand-off per file. A subdirectory is opened relative
// to its parent's descriptor (search_fs_at.go), which stays open until its
// last waiting subdirectory is.

// walkFilter decides which entries a walk keeps, in ripgrep's order: the
// overrides (Grep's globs), then the ignore files, then the file type, and
// hidden names last unless something let them in explicitly.
type walkFilter struct {
	overrides *ruleSet
	// pattern is Glob's pattern, which decides like an override whose only
	// glob lets files in: a file it does not match is left out.
	pattern   func(rel string) bool
	typeGlobs []string
}

func (f *walkFilter) keep(level *ignoreLevel, rel, name string, isDir bool) bool {
	if f.overrides != nil {
		switch f.overrides.match(name, func() string { return rel }, isDir) {
		case matchWhitelist:
			return true
		case matchIgnore:
			return false
		}
		if f.overrides.whitelist && !isDir {
			return false
		}
	}
	if f.pattern != nil {
		if f.pattern(rel) {
			return true
		}
		if !isDir {
			return false
		}
	}
	m := level.match(rel, name, isDir)
	if m == matchIgnore {
		return false
	}
	kept := m == matchWhitelist
	if f.typeGlobs != nil && !isDir {
		if !slices.ContainsFunc(f.typeGlobs, func(g string) bool { return doublestar.MatchUnvalidated(g, name) }) {
			return false
		}
		kept = true
	}
	return kept || name[0] != '.'
}

// overrideRules compiles Grep's globs as ripgrep's --glob overrides: a glob
// lets in what it matches (and, if there is one, leaves out every other
// file), a "!glob" leaves out what it matches; the last matching one wins.
func overrideRules(globs []string) *ruleSet {
	var rules []ignoreRule
	for _, g := range globs {
		ignore := len(g) > 0 && g[0] == '!'
		if ignore {
			g = g[1:]
		}
		r, ok := parseRule(g, true)
		if !ok {
			continue
		}
		r.negate = !ignore // a whitelist, as "!" is in an ignore file
		rules = append(rules, r)
	}
	s := compileRules(rules)
	if s != nil {
		s.whitelist = slices.ContainsFunc(rules, func(r ignoreRule) bool { return r.negate })
	}
	return s
}

// walkVisitor is what a walk does with the files it keeps; each worker has
// its own.
type walkVisitor interface {
	file(d *wdir, e *dirent, rel string)
}

// searchWalk is one walk.
type searchWalk struct {
	filter walkFilter
	// check judges every entry (tool.WalkGuard); nil without a guard.
	check tool.WalkCheck
	// maxDepth bounds the directories entered, by their number of
	// components below the root (-1: no bound).
	maxDepth   int
	workers    int
	newVisitor func(w *searchWalk) walkVisitor

	// ctx is the call's: its end stops the walk at the next entry, and the
	// scans at their next read.
	ctx    context.Context
	mu     sync.Mutex
	cond   sync.Cond
	stack  []walkJob
	active int // jobs pushed and not yet done

	refusedFiles, refusedDirs, changed atomic.Int64
	refusedMu                          sync.Mutex
	firstRefusal                       string
}

// walkJob is a directory to walk.
type walkJob struct {
	dir    *wdir // the root, already open; else opened from parent
	parent *wdir
	name   string
	ino    uint64
	rel    string
	level  *ignoreLevel // the rules in force in the parent
	depth  int
}

// walkWorkers is how many workers walk at once: ripgrep's choice (one per
// CPU, at most 12), also what bounds a search's memory (a buffer each).
func walkWorkers() int { return min(max(runtime.GOMAXPROCS(0), 2), 12) }

// run walks from root, whose ignore rules from above are level. It returns
// once every worker has ended: at once when ctx ends (ctx.Err()).
func (w *searchWalk) run(ctx context.Context, root *wdir, level *ignoreLevel) error {
	w.cond.L = &w.mu
	w.ctx = ctx
	w.stack = append(w.stack, walkJob{dir: root, level: level})
	w.active = 1
	// Workers waiting for a directory learn of the end here; working ones
	// look at ctx themselves, so as not to wait for this function to run.
	stopWatch := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer stopWatch()
	var g errgroup.Group
	for range max(w.workers, 1) {
		g.Go(func() error {
			v := w.newVisitor(w)
			buf := make([]byte, 32<<10)
			var entries []dirent
			for {
				j, ok := w.pop()
				if !ok {
					return nil
				}
				entries = w.dir(v, j, buf, entries[:0])
				w.done()
			}
		})
	}
	_ = g.Wait()
	// Jobs a cancelled walk never took: their holds on their parents.
	for _, j := range w.stack {
		if j.dir != nil {
			j.dir.release()
		}
		if j.parent != nil {
			j.parent.release()
		}
	}
	w.stack = nil
	return ctx.Err()
}

func (w *searchWalk) pop() (walkJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.stack) == 0 && w.active > 0 && w.ctx.Err() == nil {
		w.cond.Wait()
	}
	if w.ctx.Err() != nil || len(w.stack) == 0 {
		return walkJob{}, false
	}
	j := w.stack[len(w.stack)-1]
	w.stack[len(w.stack)-1] = walkJob{}
	w.stack = w.stack[:len(w.stack)-1]
	return j, true
}

func (w *searchWalk) push(j walkJob) {
	w.mu.Lock()
	w.stack = append(w.stack, j)
	w.active++
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *searchWalk) done() {
	w.mu.Lock()
	w.active--
	if w.active == 0 {
		w.cond.Broadcast()
	}
	w.mu.Unlock()
}

// refuse notes an entry the guard refused.
func (w *searchWalk) refuse(rel string, isDir bool, err error) {
	if isDir {
		w.refusedDirs.Add(1)
	} else {
		w.refusedFiles.Add(1)
	}
	w.refusedMu.Lock()
	if w.firstRefusal == "" {
		w.firstRefusal = err.Error()
	}
	w.refusedMu.Unlock()
}

// skipped notes an entry that could not be opened as listed.
func (w *searchWalk) skipped(err error) {
	if _, ok := errors.AsType[*errChanged](err); ok {
		w.changed.Add(1)
	}
}

// dir walks one directory; entries is the worker's scratch space, returned
// for reuse.
func (w *searchWalk) dir(v walkVisitor, j walkJob, buf []byte, entries []dirent) []dirent {
	d := j.dir
	if d == nil {
		var err error
		d, err = j.parent.openDir(j.name, j.ino)
		j.parent.release()
		if err != nil {
			w.skipped(err)
			return entries
		}
	}
	defer d.release()
	entries, _ = d.list(buf, entries)
	var files levelFiles
	hasGit := false
	for i := range entries {
		e := &entries[i]
		switch e.name {
		case ".rgignore":
			files.rg, _ = d.readSmall(e.name, maxIgnoreFile)
		case ".ignore":
			files.ignore, _ = d.readSmall(e.name, maxIgnoreFile)
		case ".gitignore":
			files.git, _ = d.readSmall(e.name, maxIgnoreFile)
		case ".git":
			hasGit = true
			if e.typ == entDir || e.typ == entUnknown {
				files.exclude, _ = d.readSmall(".git/info/exclude", maxIgnoreFile)
			}
		}
	}
	strip := 0
	if j.rel != "" {
		strip = len(j.rel) + 1
	}
	level := newLevel(j.level, files, hasGit, "", strip)
	for i := range entries {
		if w.ctx.Err() != nil {
			return entries
		}
		e := &entries[i]
		if vcsDirs[e.name] {
			continue
		}
		if e.typ == entUnknown {
			st, err := d.stat(e.name)
			if err != nil {
				continue
			}
			e.typ = st.typ
			if e.ino == 0 {
				e.ino = st.ino
			}
		}
		if e.typ != entFile && e.typ != entDir {
			continue // symbolic links are not followed, FIFOs and the like not read
		}
		isDir := e.typ == entDir
		rel := e.name
		if j.rel != "" {
			rel = j.rel + "/" + e.name
		}
		if !w.filter.keep(level, rel, e.name, isDir) {
			continue
		}
		if !isDir {
			v.file(d, e, rel)
			continue
		}
		if w.maxDepth >= 0 && j.depth+1 > w.maxDepth {
			continue
		}
		if w.check != nil {
			if err := w.check(rel, true, 0); err != nil {
				w.refuse(rel, true, err)
				continue
			}
		}
		d.acquire()
		w.push(walkJob{parent: d, name: e.name, ino: e.ino, rel: rel, level: level, depth: j.depth + 1})
	}
	return entries
}

// guardNote says what the guard kept a walk from reading or entering, for
// the model; "" when nothing.
func (w *searchWalk) guardNote(verb string) string {
	files, dirs := w.refusedFiles.Load(), w.refusedDirs.Load()
	if files == 0 && dirs == 0 {
		return ""
	}
	var what string
	switch {
	case dirs == 0 && files == 1:
		what = "1 file was"
	case dirs == 0:
		what = fmt.Sprintf("%d files were", files)
	case files == 0 && dirs == 1:
		what = "1 directory was"
	case files == 0:
		what = fmt.Sprintf("%d directories were", dirs)
	default:
		what = fmt.Sprintf("%s and %s were", plural(int(files), "file"), plural(int(dirs), "directory"))
		if dirs > 1 {
			what = fmt.Sprintf("%s and %d directories were", plural(int(files), "file"), dirs)
		}
	}
	w.refusedMu.Lock()
	example := w.firstRefusal
	w.refusedMu.Unlock()
	return fmt.Sprintf("(%s not %s: the path guard refused them, as they lead outside the workspace or may hold secrets such as .env files (for one: %s). Give one as path to ask the user for it.)\n", what, verb, example)
}
