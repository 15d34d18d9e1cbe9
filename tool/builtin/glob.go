package builtin

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/novacode/nova/tool"
)

// GlobInput is the input of the Glob tool.
type GlobInput struct {
	Pattern string `json:"pattern" jsonschema:"The glob pattern to match files against"`
	Path    string `json:"path,omitempty" jsonschema:"The directory to search in. Defaults to the working directory. Omit it rather than passing null or \"undefined\""`
}

// globMaxResults caps the file list: past it the model should narrow the
// pattern rather than page through names.
const globMaxResults = 1000

// NewGlob returns the Glob tool.
func NewGlob() *tool.Typed[GlobInput] {
	return tool.New("Glob", globDesc, true, nil, runGlob).WithEffects(func(env *tool.Env, in GlobInput) tool.Effects {
		return tool.Effects{Reads: []string{env.Abs(cmp.Or(in.Path, "."))}}
	})
}

const globDesc = `Fast file pattern matching that works with any codebase size.

Usage:
- Supports glob patterns like "**/*.js" or "src/**/*.ts": * matches within one path segment, ** across directories, {a,b} either alternative.
- The pattern is matched against paths relative to path (default: the working directory).
- Returns matching file paths, absolute, most recently modified first.
- Files excluded by .gitignore and the .git directory are skipped.
- Use this to find files by name. To search file contents, use Grep.`

func runGlob(ctx context.Context, env *tool.Env, in GlobInput) (tool.Result, error) {
	if strings.TrimSpace(in.Pattern) == "" {
		return tool.Errorf(`pattern is empty. Give a glob pattern such as "**/*.go".`), nil
	}
	root, res, ok := searchDir(env, in.Path)
	if !ok {
		return res, nil
	}
	pattern := filepath.ToSlash(in.Pattern)
	if !doublestar.ValidatePattern(pattern) {
		return tool.Errorf("Invalid glob pattern %q: check for an unclosed [ or {.", in.Pattern), nil
	}
	// Walk only the literal leading directories of the pattern, and no
	// deeper than its segments can reach when it has no "**". Those
	// directories are named, as path is: like a path given to ripgrep,
	// they are walked whatever the filters say about them.
	base, rest := doublestar.SplitPattern(pattern)
	if filepath.IsAbs(base) {
		root = filepath.Clean(base)
	} else {
		root = filepath.Join(root, filepath.FromSlash(base))
	}
	// The walk starts at root, which the pattern may have moved out of
	// path ("../**", "/etc/*"): that is the directory to re-check.
	f, err := openRead(ctx, env, root)
	if err != nil {
		if _, ok := errors.AsType[*refusal](err); ok {
			return ioResult("search", root, err), nil
		}
		return tool.Result{Content: "No files found"}, nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return tool.Result{Content: "No files found"}, nil
	}
	w, rd, level, err := startWalk(ctx, env, f, root)
	if err != nil {
		return ioResult("search", root, err), nil
	}
	if !strings.Contains(rest, "**") && !strings.Contains(rest, "{") {
		w.maxDepth = strings.Count(rest, "/")
	}
	// The pattern decides as ripgrep's --glob: what it matches is listed
	// even if an ignore file or the hidden rule would leave it out.
	w.filter = walkFilter{pattern: func(rel string) bool { return doublestar.MatchUnvalidated(rest, rel) }}
	hits := &globHits{heap: grepHeap{less: func(a, b *grepFile) bool {
		if a.mtime != b.mtime {
			return a.mtime < b.mtime
		}
		return a.path > b.path
	}}}
	w.newVisitor = func(*searchWalk) walkVisitor { return &globVisitor{root: root, hits: hits} }
	if err := w.run(ctx, rd, level); err != nil {
		return tool.Errorf("Glob was cancelled."), nil
	}
	if hits.total == 0 {
		out := "No files found"
		if n := w.guardNote("listed"); n != "" {
			out += "\n" + n
		}
		return tool.Result{Content: out}, nil
	}
	var b strings.Builder
	for _, h := range hits.heap.sorted(func(a, b *grepFile) int {
		if a.mtime != b.mtime {
			return cmp.Compare(b.mtime, a.mtime)
		}
		return cmp.Compare(a.path, b.path)
	}) {
		b.WriteString(h.path)
		b.WriteByte('\n')
	}
	if hits.total > globMaxResults {
		fmt.Fprintf(&b, "(Results are truncated: showing the %d most recently modified of %d files. Use a more specific pattern or path.)\n", globMaxResults, hits.total)
	}
	b.WriteString(w.guardNote("listed"))
	return tool.Result{Content: b.String()}, nil
}

// globHits keeps the globMaxResults newest files a Glob finds and counts
// them all.
type globHits struct {
	mu    sync.Mutex
	heap  grepHeap // the oldest on top
	total int
}

// globVisitor lists the files one worker of a walk keeps: its filter has
// matched them with the pattern.
type globVisitor struct {
	root string
	hits *globHits
}

func (v *globVisitor) file(d *wdir, e *dirent, rel string) {
	var mtime int64
	if st, err := d.stat(e.name); err == nil {
		mtime = st.mtime
	}
	f := &grepFile{path: filepath.Join(v.root, filepath.FromSlash(rel)), mtime: mtime}
	h := v.hits
	h.mu.Lock()
	defer h.mu.Unlock()
	h.total++
	heap.Push(&h.heap, f)
	if h.heap.Len() > globMaxResults {
		heap.Pop(&h.heap)
	}
}

// searchDir resolves the optional path argument of the search tools to an
// existing directory, the working directory when p is empty.
func searchDir(env *tool.Env, p string) (string, tool.Result, bool) {
	if p = strings.TrimSpace(p); p == "" || p == "undefined" || p == "null" {
		return env.Dir, tool.Result{}, true
	}
	dir := env.Abs(p)
	fi, err := os.Stat(dir)
	switch {
	case os.IsNotExist(err):
		return "", tool.Errorf("%s", notExist("Directory", dir)), false
	case err != nil:
		return "", tool.Errorf("Cannot access %s: %v", dir, err), false
	case !fi.IsDir():
		return "", tool.Errorf("%s is a file, not a directory. Give a directory as path, or use Read to read the file.", dir), false
	}
	return dir, tool.Result{}, true
}
