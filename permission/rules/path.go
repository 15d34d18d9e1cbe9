package rules

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Base is what relative path rules are relative to.
type Base struct {
	// ProjectRoot anchors `/x`, `./x`, `x/y` and slash-less patterns; empty
	// means such rules match nothing.
	ProjectRoot string
	// Home anchors `~/x`; empty means such rules match nothing.
	Home string
	// FoldCase matches paths case-insensitively. Set it on case-insensitive
	// file systems (macOS, Windows), where `.GIT/hooks` is `.git/hooks`;
	// a chain may also set it for deny rules alone, where matching too much
	// is the safe direction.
	FoldCase bool
}

// parsePath parses a path pattern specifier (see the package comment). The
// canonical form is `//p` (absolute), `~/p` or `~` (home), `/p` (project
// root) or a slash-less `p` (any depth), without a trailing slash.
func parsePath(tool, spec string) (Rule, error) {
	var anchor Anchor
	rest := spec
	switch {
	case strings.HasPrefix(spec, "//"):
		anchor, rest = AnchorRoot, spec[2:]
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		anchor, rest = AnchorHome, strings.TrimPrefix(spec[1:], "/")
	case strings.HasPrefix(spec, "~"):
		return Rule{}, fmt.Errorf("%q: only ~/ (your home directory) is supported, not ~user; write //home/user/… for another user's files", spec)
	case strings.HasPrefix(spec, "/"):
		anchor, rest = AnchorProject, spec[1:]
	case spec == "." || strings.HasPrefix(spec, "./"):
		anchor, rest = AnchorProject, strings.TrimPrefix(spec[1:], "/")
	default:
		// As in .gitignore: a slash at the start or in the middle anchors
		// the pattern, one at the end only says "directory".
		if strings.Contains(strings.TrimSuffix(spec, "/"), "/") || spec == ".." || strings.HasPrefix(spec, "../") {
			anchor = AnchorProject
		} else {
			anchor = AnchorAnywhere
		}
	}
	rest = strings.TrimSuffix(rest, "/")
	if err := checkSegments(spec, rest, anchor); err != nil {
		return Rule{}, err
	}
	if !doublestar.ValidatePattern(rest) {
		return Rule{}, fmt.Errorf("%q is not a valid glob pattern (unbalanced [ or {, or a trailing backslash); escape special characters with \\", spec)
	}
	var canon string
	switch anchor {
	case AnchorRoot:
		canon = "//" + rest
	case AnchorHome:
		canon = "~"
		if rest != "" {
			canon += "/" + rest
		}
	case AnchorProject:
		canon = "/" + rest
	default:
		canon = rest
		if canon == "*" || canon == ":*" {
			// Alone, these mean the whole tool; the trailing slash keeps
			// them a pattern (any name at any depth).
			canon += "/"
		}
	}
	return Rule{Tool: tool, Specifier: canon, Kind: KindPath, Pattern: rest, Anchor: anchor}, nil
}

// checkSegments rejects path patterns whose meaning would be unclear: empty
// segments (a//b), `.` segments, `..` anywhere but at the start of a
// project-relative pattern, and segments with blanks at either end (which
// trimming would silently eat).
func checkSegments(spec, rest string, anchor Anchor) error {
	if rest == "" {
		return nil
	}
	leading := true
	for seg := range strings.SplitSeq(rest, "/") {
		switch {
		case seg == "":
			return fmt.Errorf("%q has an empty path segment (`//` is only allowed at the start, for an absolute path)", spec)
		case seg == ".":
			return fmt.Errorf("%q has a `.` segment: drop it", spec)
		case seg == "..":
			if !leading || anchor != AnchorProject {
				return fmt.Errorf("%q has `..` in the middle or after an absolute or home anchor: write the path without it", spec)
			}
			continue
		}
		leading = false
		if r := []rune(seg); unicode.IsSpace(r[0]) || unicode.IsSpace(r[len(r)-1]) {
			return fmt.Errorf("%q has a path segment that starts or ends with a blank: use [ ] to match a space there", spec)
		}
	}
	return nil
}

// MatchPath reports whether a KindPath rule matches abs, an absolute path
// already resolved (symlinks and `..` gone) by the caller. A rule that
// matches a directory matches everything under it, as in .gitignore, so
// Read(/secrets) covers /root/proj/secrets/key. Relative paths never match:
// resolve them first.
func (r Rule) MatchPath(abs string, b Base) bool {
	if r.Kind != KindPath || !filepath.IsAbs(abs) {
		return false
	}
	abs = filepath.ToSlash(filepath.Clean(abs))
	pat := r.Pattern
	var anchor string
	switch r.Anchor {
	case AnchorRoot:
		anchor = "/"
	case AnchorHome:
		anchor = b.Home
	case AnchorProject, AnchorAnywhere:
		anchor = b.ProjectRoot
		for r.Anchor == AnchorProject && (pat == ".." || strings.HasPrefix(pat, "../")) {
			if anchor != "" {
				anchor = filepath.Dir(filepath.Clean(anchor))
			}
			pat = strings.TrimPrefix(strings.TrimPrefix(pat, ".."), "/")
		}
	default:
		return false
	}
	if anchor == "" || !filepath.IsAbs(anchor) {
		return false
	}
	anchor = filepath.ToSlash(filepath.Clean(anchor))
	if b.FoldCase {
		abs, anchor, pat = strings.ToLower(abs), strings.ToLower(anchor), strings.ToLower(pat)
	}
	rel, ok := under(anchor, abs)
	if !ok {
		return false
	}
	if r.Anchor == AnchorAnywhere {
		// A slash-less pattern matches a path if any of its components
		// matches: the file itself or a directory it sits in.
		for seg := range strings.SplitSeq(rel, "/") {
			if seg != "" && match(pat, seg) {
				return true
			}
		}
		return false
	}
	if pat == "" || pat == "**" {
		return true // the anchor itself and everything under it
	}
	if rel == "" {
		return false
	}
	// The path or any directory it sits in, below the anchor.
	for i := 0; i <= len(rel); i++ {
		if (i == len(rel) || rel[i] == '/') && match(pat, rel[:i]) {
			return true
		}
	}
	return false
}

// under returns abs relative to dir ("" for dir itself) if abs is dir or
// inside it. Both are clean and slash-separated.
func under(dir, abs string) (string, bool) {
	switch {
	case abs == dir:
		return "", true
	case dir == "/":
		return abs[1:], true
	case strings.HasPrefix(abs, dir) && abs[len(dir)] == '/':
		return abs[len(dir)+1:], true
	}
	return "", false
}

func match(pattern, name string) bool {
	ok, err := doublestar.Match(pattern, name)
	return ok && err == nil
}

// globEscape escapes what doublestar would read as pattern syntax, and
// writes a blank at either end of a segment as a class, which survives
// trimming.
func globEscape(p string) string {
	var b strings.Builder
	for i, seg := range strings.Split(p, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		last := len(seg) - 1
		for j, c := range seg {
			size := len(string(c))
			if c == utf8.RuneError {
				_, size = utf8.DecodeRuneInString(seg[j:])
			}
			switch {
			case strings.ContainsRune(`*?[]{}\`, c):
				b.WriteByte('\\')
				b.WriteRune(c)
			case unicode.IsSpace(c) && (j == 0 || j+size-1 == last):
				b.WriteByte('[')
				b.WriteRune(c)
				b.WriteByte(']')
			default:
				b.WriteString(seg[j : j+size])
			}
		}
	}
	return b.String()
}

// SuggestPath returns the narrowest sensible rule for remembering an "allow
// always" answer to a file tool call on abs: Read for read tools, Edit for
// everything else, for that very path: relative to the project root when it
// lies inside (Edit(/src/main.go)), absolute otherwise (Edit(//etc/hosts)).
// A relative abs is taken relative to the project root.
func SuggestPath(tool, abs string, b Base) Rule {
	ruleTool := "Edit"
	if IsReadTool(tool) {
		ruleTool = "Read"
	}
	if !filepath.IsAbs(abs) && b.ProjectRoot != "" {
		abs = filepath.Join(b.ProjectRoot, abs)
	}
	abs = filepath.ToSlash(filepath.Clean(abs))
	var spec string
	if root := filepath.ToSlash(filepath.Clean(b.ProjectRoot)); b.ProjectRoot != "" && filepath.IsAbs(b.ProjectRoot) {
		if rel, ok := under(root, abs); ok {
			spec = "/" + globEscape(rel)
		}
	}
	if spec == "" {
		spec = "//" + globEscape(strings.TrimPrefix(abs, "/"))
	}
	r, err := parsePath(ruleTool, spec)
	if err != nil {
		// Cannot happen for a clean path: escaping makes every segment a
		// valid literal pattern. Fall back to a rule without an anchor,
		// which matches nothing, rather than panicking in a prompt.
		return Rule{Tool: ruleTool, Kind: KindPath, Specifier: spec}
	}
	return r
}
