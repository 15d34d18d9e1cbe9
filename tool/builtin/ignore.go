package builtin

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// This file holds the .gitignore rules (their syntax, shared with Grep and
// Glob, whose filters are search_ignore.go's) and LS's ignore stack. The
// github.com/sabhiram/go-gitignore package was considered and rejected: it
// treats "?" as a literal, ignores the directory-only meaning of a trailing
// slash, and panics on patterns that are not valid regular expressions
// (such as "c++"). Git's rules are small enough to implement on doublestar,
// whose wildcard semantics ("*" stops at "/", "**" spans directories,
// character classes with "!" or "^") are the same as gitignore's.

// vcsDirs are never listed or searched: their contents are the version
// control system's, not the project's, and they are large.
var vcsDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".bzr": true, ".jj": true}

// ignoreRule is one non-blank, non-comment line of a .gitignore file.
type ignoreRule struct {
	pattern  string // doublestar pattern, relative to the directory of the file
	negate   bool   // "!pattern": re-include what an earlier rule excluded
	dirOnly  bool   // "pattern/": matches directories only
	anchored bool   // the pattern has a slash, so it matches the whole relative path, not a name at any depth
}

// parseIgnoreLine turns one gitignore line into a rule; ok is false for
// blank lines and comments.
func parseIgnoreLine(line string) (ignoreRule, bool) { return parseRule(line, false) }

// parseRule parses a gitignore-style line. With braces set, "{a,b}" is
// alternation, as in ripgrep's --glob; gitignore itself has no alternation.
func parseRule(line string, braces bool) (r ignoreRule, ok bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return r, false
	}
	// Trailing spaces are ignored unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	switch {
	case line == "":
		return r, false
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	r.anchored = strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	r.pattern = line
	if !braces {
		r.pattern = escapeBraces(line)
	}
	if !doublestar.ValidatePattern(r.pattern) {
		// Git treats a malformed pattern (an unclosed "[") as matching
		// nothing; so do we, rather than failing the whole listing.
		return r, false
	}
	return r, true
}

// escapeBraces makes "{" and "}" literal: gitignore has no alternation, but
// doublestar would read "{a,b}" as one.
func escapeBraces(p string) string {
	if !strings.ContainsAny(p, "{}") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			i++
			b.WriteByte(p[i])
			continue
		case c == '{' || c == '}':
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// match reports whether the rule matches an entry; rel is the entry's
// slash-separated path relative to the rule's base directory.
func (r ignoreRule) match(rel string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	target := rel
	if !r.anchored {
		target = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	return doublestar.MatchUnvalidated(r.pattern, target)
}

// ignoreFile is the parsed content of one .gitignore (or .git/info/exclude),
// whose patterns are relative to dir.
type ignoreFile struct {
	dir   string // absolute, OS separators
	rules []ignoreRule
}

func loadIgnoreFile(path, dir string) *ignoreFile {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	igf := &ignoreFile{dir: dir}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text()); ok {
			igf.rules = append(igf.rules, r)
		}
	}
	if len(igf.rules) == 0 {
		return nil
	}
	return igf
}

// decide returns whether the file's rules exclude path (ignored) and whether
// any rule spoke about it at all (decided). The last matching rule wins.
func (f *ignoreFile) decide(path string, isDir bool) (ignored, decided bool) {
	rel, err := filepath.Rel(f.dir, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false, false
	}
	rel = filepath.ToSlash(rel)
	for i := len(f.rules) - 1; i >= 0; i-- {
		if f.rules[i].match(rel, isDir) {
			return !f.rules[i].negate, true
		}
	}
	return false, false
}

// ignoreStack is the set of ignore files in force in one directory: those of
// its ancestors (up to the repository root) and its own. It is immutable, so
// the walkers share one stack between goroutines and between sibling
// directories.
type ignoreStack struct {
	files []*ignoreFile // shallowest first
}

// newIgnoreStack returns the rules in force in dir. When dir is inside a git
// work tree, .git/info/exclude and every .gitignore from the work tree's root
// down to dir apply, as they do for git. Outside a work tree the .gitignore
// files from top (the directory the model asked to search, which may be an
// ancestor of dir) down to dir apply; going further up could pick up an
// unrelated ~/.gitignore and hide the whole project.
func newIgnoreStack(dir, top string) *ignoreStack {
	s := &ignoreStack{}
	if root := gitRoot(dir); root != "" {
		top = root
		if f := loadIgnoreFile(filepath.Join(root, ".git", "info", "exclude"), root); f != nil {
			s.files = append(s.files, f)
		}
	}
	dirs := []string{dir}
	if rel, err := filepath.Rel(top, dir); top != "" && err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		for d := dir; d != top && filepath.Dir(d) != d; {
			d = filepath.Dir(d)
			dirs = append(dirs, d)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if f := loadIgnoreFile(filepath.Join(dirs[i], ".gitignore"), dirs[i]); f != nil {
			s.files = append(s.files, f)
		}
	}
	return s
}

// gitRoot returns the closest ancestor of dir (or dir itself) holding a .git
// entry, or "" when there is none.
func gitRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// enter returns the stack in force inside subdirectory dir.
func (s *ignoreStack) enter(dir string) *ignoreStack {
	f := loadIgnoreFile(filepath.Join(dir, ".gitignore"), dir)
	if f == nil {
		return s
	}
	files := make([]*ignoreFile, len(s.files), len(s.files)+1)
	copy(files, s.files)
	return &ignoreStack{files: append(files, f)}
}

// ignored reports whether path is excluded. Deeper files take precedence
// over shallower ones, as in git.
func (s *ignoreStack) ignored(path string, isDir bool) bool {
	for i := len(s.files) - 1; i >= 0; i-- {
		if ign, ok := s.files[i].decide(path, isDir); ok {
			return ign
		}
	}
	return false
}
