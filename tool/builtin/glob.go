package builtin

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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

type fileHit struct {
	path  string
	mtime time.Time
}

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
	// deeper than its segments can reach when it has no "**".
	top := root
	base, rest := doublestar.SplitPattern(pattern)
	if filepath.IsAbs(base) {
		root = filepath.Clean(base)
	} else {
		root = filepath.Join(root, filepath.FromSlash(base))
	}
	// The walk starts at root, which the pattern may have moved out of
	// path ("../**", "/etc/*"): that is the directory to re-check.
	if err := checkDir(ctx, env, root); err != nil {
		return ioResult("search", root, err), nil
	}
	maxDepth := -1
	if !strings.Contains(rest, "**") && !strings.Contains(rest, "{") {
		maxDepth = strings.Count(rest, "/")
	}

	var hits []fileHit
	err := walkTree(ctx, root, walkOptions{top: top}, func(path, rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if maxDepth >= 0 && strings.Count(rel, "/") >= maxDepth {
				return fs.SkipDir
			}
			return nil
		}
		if doublestar.MatchUnvalidated(rest, rel) {
			var mt time.Time
			if fi, err := d.Info(); err == nil {
				mt = fi.ModTime()
			}
			hits = append(hits, fileHit{path, mt})
		}
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return tool.Errorf("Glob was cancelled."), nil
	}
	if len(hits) == 0 {
		return tool.Result{Content: "No files found"}, nil
	}
	sortByMtime(hits)
	var b strings.Builder
	for _, h := range hits[:min(len(hits), globMaxResults)] {
		b.WriteString(h.path)
		b.WriteByte('\n')
	}
	if len(hits) > globMaxResults {
		fmt.Fprintf(&b, "(Results are truncated: showing the %d most recently modified of %d files. Use a more specific pattern or path.)\n", globMaxResults, len(hits))
	}
	return tool.Result{Content: b.String()}, nil
}

// sortByMtime orders hits newest first; ties, common for files written by
// one checkout, go by path so the order is stable.
func sortByMtime(hits []fileHit) {
	slices.SortFunc(hits, func(a, b fileHit) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return cmp.Compare(a.path, b.path)
	})
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
