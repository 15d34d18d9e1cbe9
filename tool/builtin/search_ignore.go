package builtin

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// The filters of the search walk (Grep and Glob), which are ripgrep's: the
// rules of .rgignore, .ignore and .gitignore files in every directory of
// the walk and in every directory above where it starts, plus
// .git/info/exclude; .gitignore and exclude only inside a git repository
// (a directory with a .git above), and none from above the repository's
// root. The most specific rule wins: of the four kinds, .rgignore first,
// then .ignore, .gitignore, exclude; within a kind, the deepest directory
// with a matching rule, and within a file the last matching rule. Hidden
// names are left out unless a rule or filter lets them in explicitly
// (ripgrep's whitelist). What ripgrep also reads and we do not: the user's
// global git excludes (core.excludesFile) and ripgrep's config file, both
// outside the workspace.

// matchKind is a filter's verdict on one entry.
type matchKind uint8

const (
	matchNone      matchKind = iota // the filter says nothing
	matchIgnore                     // leave it out
	matchWhitelist                  // keep it, even if hidden
)

// ruleSet is one ignore file (or a list of --glob overrides), compiled so
// that the common rule shapes need no glob matching: literal names, "*.ext"
// suffixes and literal anchored paths are looked up in maps, and only the
// rest is matched one by one. The verdict is that of the last matching rule.
type ruleSet struct {
	rules    []ignoreRule
	names    map[string][]int32 // unanchored literal: the entry's name
	suffixes map[string][]int32 // unanchored "*LIT" with LIT holding a dot: by the name's extension
	paths    map[string][]int32 // anchored literal: the relative path
	generic  []int32
	// whitelist: some rule is a whitelist (for --glob overrides, any glob
	// without "!"), which makes a file no rule matches ignored.
	whitelist bool
	// needPath: some rule looks at the whole relative path.
	needPath bool
}

// hasMeta reports whether a doublestar pattern has any wildcard or escape.
func hasMeta(p string) bool { return strings.ContainsAny(p, "*?[{\\") }

func compileRules(rules []ignoreRule) *ruleSet {
	if len(rules) == 0 {
		return nil
	}
	s := &ruleSet{rules: rules}
	add := func(m *map[string][]int32, k string, i int) {
		if *m == nil {
			*m = map[string][]int32{}
		}
		(*m)[k] = append((*m)[k], int32(i))
	}
	for i, r := range rules {
		switch {
		case !r.anchored && !hasMeta(r.pattern):
			add(&s.names, r.pattern, i)
		case !r.anchored && r.pattern[0] == '*' && !hasMeta(r.pattern[1:]) && strings.Contains(r.pattern, "."):
			add(&s.suffixes, r.pattern[strings.LastIndexByte(r.pattern, '.')+1:], i)
		case r.anchored && !hasMeta(r.pattern):
			add(&s.paths, r.pattern, i)
			s.needPath = true
		default:
			s.generic = append(s.generic, int32(i))
			s.needPath = s.needPath || r.anchored
		}
	}
	return s
}

// match returns the verdict of the last rule matching the entry: rel is its
// path relative to the rule file's directory (only computed, by relFn, when
// a rule needs it), name its last component.
func (s *ruleSet) match(name string, relFn func() string, isDir bool) matchKind {
	best := int32(-1)
	last := func(idx []int32, ok func(r *ignoreRule) bool) {
		for i := len(idx) - 1; i >= 0 && idx[i] > best; i-- {
			if r := &s.rules[idx[i]]; (!r.dirOnly || isDir) && ok(r) {
				best = idx[i]
				return
			}
		}
	}
	yes := func(*ignoreRule) bool { return true }
	if idx := s.names[name]; idx != nil {
		last(idx, yes)
	}
	if s.suffixes != nil {
		if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
			if idx := s.suffixes[name[dot+1:]]; idx != nil {
				last(idx, func(r *ignoreRule) bool { return strings.HasSuffix(name, r.pattern[1:]) })
			}
		}
	}
	var rel string
	if s.needPath {
		rel = relFn()
		if idx := s.paths[rel]; idx != nil {
			last(idx, yes)
		}
	}
	if len(s.generic) > 0 && s.generic[len(s.generic)-1] > best {
		if !s.needPath {
			rel = name
		}
		last(s.generic, func(r *ignoreRule) bool { return r.match(rel, isDir) })
	}
	switch {
	case best >= 0 && s.rules[best].negate:
		return matchWhitelist
	case best >= 0:
		return matchIgnore
	}
	return matchNone
}

// ignoreLevel is a directory with ignore rules (or a .git) on the way from
// the file system root down to an entry; levels without either are not
// made. Levels are immutable and shared by everything below them.
type ignoreLevel struct {
	parent *ignoreLevel
	// The entry's path relative to this level's directory is prefix +
	// rel[strip:], rel being its path relative to the walk's root: a level
	// at or below the root strips its own relative path, a level above it
	// prepends the root's path below it.
	prefix string
	strip  int
	// hasGit: the directory holds .git. anyGit: it or one above does, so
	// the git kinds of rules apply.
	hasGit, anyGit           bool
	rg, ignore, git, exclude *ruleSet
}

// parseIgnore parses an ignore file's content.
func parseIgnore(data []byte) *ruleSet {
	var rules []ignoreRule
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if r, ok := parseIgnoreLine(string(line)); ok {
			rules = append(rules, r)
		}
	}
	return compileRules(rules)
}

// maxIgnoreFile bounds what is read of one ignore file.
const maxIgnoreFile = 1 << 20

// levelFiles are the ignore files a level may have, by kind.
type levelFiles struct{ rg, ignore, git, exclude []byte }

// newLevel returns the level for a directory holding the given ignore
// files (and .git when hasGit), or parent when it has neither.
func newLevel(parent *ignoreLevel, files levelFiles, hasGit bool, prefix string, strip int) *ignoreLevel {
	l := &ignoreLevel{parent: parent, prefix: prefix, strip: strip, hasGit: hasGit,
		rg: parseIgnore(files.rg), ignore: parseIgnore(files.ignore), git: parseIgnore(files.git), exclude: parseIgnore(files.exclude)}
	if l.rg == nil && l.ignore == nil && l.git == nil && l.exclude == nil && !hasGit {
		return parent
	}
	l.anyGit = hasGit || parent != nil && parent.anyGit
	return l
}

// ancestorLevels returns the levels of the directories above root (an
// absolute, clean path), read by path: ripgrep applies their rules too.
// They are read for their rules only, never shown.
func ancestorLevels(root string) *ignoreLevel {
	var dirs []string
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		dirs = append(dirs, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var l *ignoreLevel
	for i := len(dirs) - 1; i >= 0; i-- {
		d := dirs[i]
		rel, err := filepath.Rel(d, root)
		if err != nil {
			continue
		}
		read := func(name string) []byte {
			data, _ := readSmallPath(filepath.Join(d, name), maxIgnoreFile)
			return data
		}
		files := levelFiles{rg: read(".rgignore"), ignore: read(".ignore"), git: read(".gitignore")}
		_, err = os.Lstat(filepath.Join(d, ".git"))
		hasGit := err == nil
		if hasGit {
			files.exclude = read(filepath.Join(".git", "info", "exclude"))
		}
		l = newLevel(l, files, hasGit, filepath.ToSlash(rel)+"/", 0)
	}
	return l
}

// readSmallPath reads a regular file of at most max bytes by path, without
// following a final symbolic link or blocking on a FIFO.
func readSmallPath(p string, max int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|openReadFlags|openNoFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, os.ErrInvalid
	}
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF {
		err = nil // it shrank since the stat
	}
	return buf[:n], err
}

// ignored returns the verdict of the ignore files on an entry of the
// directory whose level is l: rel is its path relative to the walk's root.
func (l *ignoreLevel) match(rel, name string, isDir bool) matchKind {
	if l == nil {
		return matchNone
	}
	anyGit := l.anyGit
	var mRg, mIgnore, mGit, mExclude matchKind
	sawGit := false
	for x := l; x != nil; x = x.parent {
		relFn := func() string {
			if x.prefix != "" {
				return x.prefix + rel[x.strip:]
			}
			return rel[x.strip:]
		}
		if mRg == matchNone && x.rg != nil {
			mRg = x.rg.match(name, relFn, isDir)
		}
		if mIgnore == matchNone && x.ignore != nil {
			mIgnore = x.ignore.match(name, relFn, isDir)
		}
		if anyGit && !sawGit {
			if mGit == matchNone && x.git != nil {
				mGit = x.git.match(name, relFn, isDir)
			}
			if mExclude == matchNone && x.exclude != nil {
				mExclude = x.exclude.match(name, relFn, isDir)
			}
		}
		sawGit = sawGit || x.hasGit
	}
	for _, m := range []matchKind{mRg, mIgnore, mGit, mExclude} {
		if m != matchNone {
			return m
		}
	}
	return matchNone
}
