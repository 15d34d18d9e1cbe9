package tui

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	tea "github.com/novacode/nova/third_party/bubbletea"
)

const (
	maxCompletions = 8
	// maxPathEntries bounds the walk of a huge tree.
	maxPathEntries = 50000
	// syncPathEntries is how much of the tree is listed on the key press
	// that starts an @word (a few milliseconds); a bigger tree is listed
	// whole in the background and the list grows when that is done.
	syncPathEntries = 5000
)

// completion is the @path picker shown above the input while the word
// ending at the cursor starts with '@'. The paths are listed once when a new
// @word starts (not per key press), so typing stays cheap in a big tree.
type completion struct {
	paths     []string // every path under Dir, shallow first; dirs end in "/"
	listed    bool     // paths is valid for the @word being typed
	listGen   int      // which listing a background result belongs to
	needList  bool     // a background listing should start (see Model.Update)
	word      string   // the @word the matches are for
	at        wordAt   // where it is in the input
	matches   []string
	sel       int
	dismissed string // the @word Esc closed the list for
}

// atWord returns the @word that ends at the cursor: the cursor may be
// anywhere in the input (a mention added to the middle of a prompt), as
// long as it sits at the end of a word. at gives its place, for Tab.
func (m *Model) atWord() (w string, at wordAt, ok bool) {
	lines := strings.Split(m.input.Value(), "\n")
	row, col := m.input.Line(), m.input.Column()
	if row >= len(lines) {
		return "", at, false
	}
	line := []rune(lines[row])
	if col > len(line) || (col < len(line) && !unicode.IsSpace(line[col])) {
		return "", at, false
	}
	start := col
	for start > 0 && !unicode.IsSpace(line[start-1]) {
		start--
	}
	w = string(line[start:col])
	return w, wordAt{row: row, start: start, end: col}, strings.HasPrefix(w, "@")
}

// wordAt is where a word sits in the input: its row and rune columns.
type wordAt struct{ row, start, end int }

// replaceWord puts text in place of the word at w and leaves the cursor
// just after it. The textarea can only insert at its cursor and move by
// rows from the end, so the input is rebuilt: everything up to the new
// text, then the rest, then the cursor walks back up to its row.
func (m *Model) replaceWord(at wordAt, text string) {
	lines := strings.Split(m.input.Value(), "\n")
	line := []rune(lines[at.row])
	head := strings.Join(append(slices.Clone(lines[:at.row]), string(line[:at.start])+text), "\n")
	tail := strings.Join(append([]string{string(line[at.end:])}, lines[at.row+1:]...), "\n")
	m.input.SetValue(head)
	row, col := m.input.Line(), m.input.Column()
	m.input.InsertString(tail)
	for m.input.Line() > row {
		m.input.CursorStart()
		m.input.CursorUp() // from column 0, up is the previous logical row
	}
	m.input.SetCursorColumn(col)
}

// updateCompletion recomputes the picker after the input changed.
func (m *Model) updateCompletion() {
	c := &m.comp
	w, at, ok := m.atWord()
	c.at = at
	if !ok || m.perm != nil || m.ques != nil {
		c.listed, c.matches, c.word, c.dismissed = false, nil, "", ""
		return
	}
	if w == c.dismissed {
		return
	}
	c.dismissed = ""
	if !c.listed {
		var complete bool
		c.paths, complete = listPaths(m.o.Dir, syncPathEntries)
		c.listed = true
		c.listGen++
		c.needList = !complete
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
		done := "@" + c.matches[c.sel]
		m.replaceWord(c.at, done)
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

// pathsMsg is a whole listing made in the background.
type pathsMsg struct {
	gen   int
	paths []string
}

// listInBackground lists the tree whole in a command (Bubble Tea owns its
// goroutine; the walk is bounded by maxPathEntries).
func (m *Model) listInBackground() tea.Cmd {
	c := &m.comp
	c.needList = false
	dir, gen := m.o.Dir, c.listGen
	return func() tea.Msg {
		paths, _ := listPaths(dir, maxPathEntries)
		return pathsMsg{gen: gen, paths: paths}
	}
}

// applyPaths takes a background listing if it is for the @word still being
// typed, and refreshes the matches.
func (m *Model) applyPaths(msg pathsMsg) {
	c := &m.comp
	if !c.listed || msg.gen != c.listGen {
		return
	}
	c.paths = msg.paths
	if c.word != "" && c.dismissed == "" {
		c.matches = matchPaths(c.paths, c.word[1:])
	}
}

// listPaths walks dir (default ".") and returns up to limit relative paths
// in it, shallow ones first, skipping .git and node_modules; complete says
// the walk saw everything.
func listPaths(dir string, limit int) (paths []string, complete bool) {
	if dir == "" {
		dir = "."
	}
	var out []string
	complete = true
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
		if len(out) >= limit {
			complete = false
			return fs.SkipAll
		}
		out = append(out, rel)
		return nil
	})
	slices.SortStableFunc(out, func(a, b string) int {
		return strings.Count(strings.TrimSuffix(a, "/"), "/") - strings.Count(strings.TrimSuffix(b, "/"), "/")
	})
	return out, complete
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
