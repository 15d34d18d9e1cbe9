package tui

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

const (
	maxCompletions = 8
	// maxPathEntries bounds the walk so a huge tree cannot stall a key press.
	maxPathEntries = 50000
)

// completion is the @path picker shown above the input while the word
// before the cursor starts with '@'. The paths are listed once when a new
// @word starts (not per key press), so typing stays cheap in a big tree.
type completion struct {
	paths     []string // every path under Dir, shallow first; dirs end in "/"
	listed    bool     // paths is valid for the @word being typed
	word      string   // the @word the matches are for
	matches   []string
	sel       int
	dismissed string // the @word Esc closed the list for
}

// atWord returns the @word just before the cursor, if the cursor is at the
// end of the input: completing in the middle of a text would need cursor
// surgery the textarea does not offer, and typing happens at the end.
func (m *Model) atWord() (string, bool) {
	v := m.input.Value()
	lines := strings.Split(v, "\n")
	last := []rune(lines[len(lines)-1])
	if m.input.Line() != len(lines)-1 || m.input.Column() != len(last) {
		return "", false
	}
	i := strings.LastIndexAny(v, " \t\n")
	w := v[i+1:]
	return w, strings.HasPrefix(w, "@")
}

// updateCompletion recomputes the picker after the input changed.
func (m *Model) updateCompletion() {
	c := &m.comp
	w, ok := m.atWord()
	if !ok || m.perm != nil || m.ques != nil {
		c.listed, c.matches, c.word, c.dismissed = false, nil, "", ""
		return
	}
	if w == c.dismissed {
		return
	}
	c.dismissed = ""
	if !c.listed {
		c.paths = listPaths(m.o.Dir)
		c.listed = true
	}
	if w != c.word {
		c.sel = 0
	}
	c.word = w
	c.matches = matchPaths(c.paths, w[1:])
}

// completionKey handles Tab, Up, Down and Esc while the list is shown; it
// reports whether it consumed the key.
func (m *Model) completionKey(s string) bool {
	c := &m.comp
	if len(c.matches) == 0 {
		return false
	}
	switch s {
	case "up":
		c.sel = (c.sel + len(c.matches) - 1) % len(c.matches)
	case "down":
		c.sel = (c.sel + 1) % len(c.matches)
	case "esc":
		c.dismissed, c.matches = c.word, nil
	case "tab":
		v := m.input.Value()
		done := "@" + c.matches[c.sel]
		m.input.SetValue(v[:len(v)-len(c.word)] + done)
		c.matches, c.word = nil, ""
		if !strings.HasSuffix(done, "/") {
			c.dismissed = done // a completed file needs no list
		}
		// A completed directory keeps the list open on its children.
		m.updateCompletion()
	default:
		return false
	}
	m.resize()
	return true
}

// completionView is the list drawn above the input, "" when hidden.
func (m *Model) completionView() string {
	var b strings.Builder
	for i, p := range m.comp.matches {
		if i > 0 {
			b.WriteByte('\n')
		}
		mark := "  "
		if i == m.comp.sel {
			mark = "❯ "
		}
		b.WriteString(mark + "@" + p)
	}
	return b.String()
}

// listPaths walks dir (default ".") and returns the relative paths in it,
// shallow ones first, skipping .git and node_modules.
func listPaths(dir string) []string {
	if dir == "" {
		dir = "."
	}
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return nil // unreadable entries are skipped, not fatal
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return fs.SkipDir
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		if len(out) >= maxPathEntries {
			return fs.SkipAll
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b string) int {
		return strings.Count(strings.TrimSuffix(a, "/"), "/") - strings.Count(strings.TrimSuffix(b, "/"), "/")
	})
	return out
}

// matchPaths returns up to maxCompletions paths other than q itself: those
// starting with q first, then those containing it, case-insensitively.
func matchPaths(paths []string, q string) []string {
	q = strings.ToLower(q)
	var prefix, sub []string
	for _, p := range paths {
		lp := strings.ToLower(p)
		switch {
		case lp == q: // already complete: nothing to offer
		case strings.HasPrefix(lp, q):
			prefix = append(prefix, p)
			if len(prefix) == maxCompletions {
				return prefix
			}
		case len(sub) < maxCompletions && strings.Contains(lp, q):
			sub = append(sub, p)
		}
	}
	out := append(prefix, sub...)
	return out[:min(len(out), maxCompletions)]
}
