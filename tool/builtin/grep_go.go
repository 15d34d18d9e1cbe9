package builtin

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"golang.org/x/sync/errgroup"
)

// The built-in back-end, for machines without ripgrep. It follows ripgrep's
// rules wherever they show in the output: which files are searched (the
// filter below), what counts as a matching line, and what counts as binary.

// goSearch runs q with a walker feeding a pool of searching goroutines.
func goSearch(ctx context.Context, q *grepQuery) ([]grepFile, error) {
	re, err := compileGrep(q)
	if err != nil {
		return nil, err
	}
	s := &goSearcher{re: re, q: q}
	if q.isFile {
		// ripgrep searches a file named on its command line whatever the
		// ignore rules and filters say.
		if f, ok := s.searchFile(q.root); ok {
			return []grepFile{f}, nil
		}
		return nil, nil
	}
	filter, err := newGrepFilter(q)
	if err != nil {
		return nil, err
	}

	g, gctx := errgroup.WithContext(ctx)
	paths := make(chan string, 256)
	g.Go(func() error {
		defer close(paths)
		return walkTree(gctx, q.root, walkOptions{keep: filter.keep}, func(path, _ string, d fs.DirEntry) error {
			// Only regular files: ripgrep does not follow symbolic links,
			// and opening a FIFO would block.
			if !d.Type().IsRegular() {
				return nil
			}
			select {
			case paths <- path:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
	})
	var mu sync.Mutex
	var found []grepFile
	for range max(2, runtime.GOMAXPROCS(0)) {
		g.Go(func() error {
			for path := range paths {
				if f, ok := s.searchFile(path); ok {
					mu.Lock()
					found = append(found, f)
					mu.Unlock()
				}
			}
			return gctx.Err()
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return found, nil
}

type goSearcher struct {
	re *regexp.Regexp
	q  *grepQuery
}

// searchFile searches one file; ok is false when it has no match, cannot be
// read or is binary.
func (s *goSearcher) searchFile(path string) (grepFile, bool) {
	read := os.ReadFile
	if s.q.readFile != nil {
		read = s.q.readFile
	}
	data, err := read(path)
	// A NUL byte marks a binary file; ripgrep skips those too. The whole
	// file is checked since it is in memory anyway.
	if err != nil || bytes.IndexByte(data, 0) >= 0 || !s.re.Match(data) {
		return grepFile{}, false
	}
	var matched []int
	if s.q.multiline {
		if s.q.mode == modeFiles {
			return grepFile{path: path, count: 1}, true
		}
		matched = multilineMatches(s.re, data)
	} else {
		matched = lineMatches(s.re, data, s.q.mode == modeFiles)
	}
	if len(matched) == 0 {
		return grepFile{}, false
	}
	f := grepFile{path: path, count: len(matched)}
	if s.q.mode == modeContent {
		f.lines = withContext(data, matched, s.q.before, s.q.after)
	}
	return f, true
}

// lineMatches returns the numbers of the lines of data that re matches,
// each line taken on its own. Rather than running re on every line, it runs
// re over the rest of the file, then checks only the line where that match
// starts (a match over the whole text may span lines, which a line match
// cannot). The work is proportional to the matches, not to the lines.
func lineMatches(re *regexp.Regexp, data []byte, firstOnly bool) []int {
	var lines []int
	pos, lineNo := 0, 1 // pos is always the start of line lineNo
	for pos < len(data) {
		loc := re.FindIndex(data[pos:])
		if loc == nil {
			break
		}
		start := pos + loc[0]
		ls := bytes.LastIndexByte(data[pos:start], '\n') + 1 + pos
		le := bytes.IndexByte(data[start:], '\n')
		if le < 0 {
			le = len(data)
		} else {
			le += start
		}
		lineNo += bytes.Count(data[pos:ls], []byte{'\n'})
		if re.Match(data[ls:le]) {
			lines = append(lines, lineNo)
			if firstOnly {
				break
			}
		}
		pos, lineNo = le+1, lineNo+1
	}
	return lines
}

// multilineMatches returns the numbers of every line that a match of re over
// the whole of data touches, as ripgrep's multiline mode reports them.
func multilineMatches(re *regexp.Regexp, data []byte) []int {
	starts := lineStarts(data)
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) } // 1-based
	var lines []int
	for _, m := range re.FindAllIndex(data, -1) {
		last := m[0]
		if m[1] > m[0] {
			last = m[1] - 1 // a final "\n" belongs to the line it ends
		}
		if m[0] >= len(data) {
			continue // an empty match after the final newline is on no line
		}
		for l := lineOf(m[0]); l <= lineOf(last); l++ {
			if len(lines) == 0 || lines[len(lines)-1] < l {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// lineStarts returns the byte offset at which each line of data starts.
func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, c := range data {
		if c == '\n' && i+1 < len(data) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// withContext returns the matched lines, with up to before and after
// unmatched lines around each, in order.
func withContext(data []byte, matched []int, before, after int) []grepLine {
	starts := lineStarts(data)
	text := func(n int) string {
		if n < len(starts) {
			return string(data[starts[n-1] : starts[n]-1])
		}
		return string(bytes.TrimSuffix(data[starts[n-1]:], []byte{'\n'}))
	}
	var out []grepLine
	next := 1 // the first line not yet emitted
	for i, m := range matched {
		from := max(m-before, next)
		for n := from; n < m; n++ {
			out = append(out, grepLine{n: n, text: text(n)})
		}
		out = append(out, grepLine{n: m, text: text(m), match: true})
		next = m + 1
		limit := min(m+after, len(starts))
		if i+1 < len(matched) {
			limit = min(limit, matched[i+1]-1)
		}
		for ; next <= limit; next++ {
			out = append(out, grepLine{n: next, text: text(next)})
		}
	}
	return out
}

// grepFilter decides which files the Go back-end searches, the way ripgrep
// does: --glob overrides first (a whitelisted file is searched even if
// .gitignore excludes it), then .gitignore, then --type.
type grepFilter struct {
	overrides    []globOverride
	hasWhitelist bool
	typeGlobs    []string
}

type globOverride struct {
	rule      ignoreRule
	whitelist bool
}

func newGrepFilter(q *grepQuery) (*grepFilter, error) {
	f := &grepFilter{}
	for _, g := range q.globs {
		o := globOverride{whitelist: !strings.HasPrefix(g, "!")}
		rule, ok := parseRule(strings.TrimPrefix(g, "!"), true)
		if !ok {
			continue
		}
		o.rule = rule
		f.overrides = append(f.overrides, o)
		f.hasWhitelist = f.hasWhitelist || o.whitelist
	}
	if q.fileType != "" {
		globs, ok := fileTypes[q.fileType]
		if !ok {
			names := make([]string, 0, len(fileTypes))
			for n := range fileTypes {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, userError(fmt.Sprintf("Unknown file type %q. Known types: %s. Or use glob instead, e.g. \"*.ext\".", q.fileType, strings.Join(names, ", ")))
		}
		f.typeGlobs = globs
	}
	return f, nil
}

func (f *grepFilter) keep(rel string, d fs.DirEntry, gitignored bool) bool {
	isDir := d.IsDir()
	for i := len(f.overrides) - 1; i >= 0; i-- {
		if f.overrides[i].rule.match(rel, isDir) {
			return f.overrides[i].whitelist
		}
	}
	if isDir {
		return !gitignored
	}
	if f.hasWhitelist || gitignored {
		return false
	}
	if f.typeGlobs != nil {
		name := filepath.Base(rel)
		return slices.ContainsFunc(f.typeGlobs, func(g string) bool { return doublestar.MatchUnvalidated(g, name) })
	}
	return true
}
