package tui

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"
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

// completion is the picker shown above the input while the word ending at
// the cursor starts with '@' (a path, or an MCP resource: @server:uri) or,
// at the start of the input, with '/' (a command, an MCP prompt among
// them). The paths are listed once when a new @word starts (not per key
// press), so typing stays cheap in a big tree; MCP resources and prompts
// are asked of the servers in the background, and the last answer is
// kept until the next one arrives.
type completion struct {
	paths     []string // every path under Dir, shallow first; dirs end in "/"
	listed    bool     // paths is valid for the @word being typed
	listGen   int      // which listing a background result belongs to
	needList  bool     // a background listing should start (see Model.Update)
	word      string   // the @word or /word the matches are for
	at        wordAt   // where it is in the input
	matches   []string // without the sigil
	notes     map[string]string
	sel       int
	dismissed string // the word Esc closed the list for

	resources  []MCPResource // the servers' last answer
	prompts    []MCPPrompt   // the servers' last answer
	mcpAsked   bool          // asked for the word being typed
	needMCP    bool          // ask the servers (see Model.Update)
	withSpace  map[string]bool
	slashWords bool // the list is of commands
}

// atWord returns the word that ends at the cursor, if it is one the
// picker completes: an @word anywhere (a mention added to the middle of a
// prompt), as long as the cursor sits at its end, or a /word that starts
// the input. at gives its place, for Tab.
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
	at = wordAt{row: row, start: start, end: col}
	slash := strings.HasPrefix(w, "/") && row == 0 && start == 0
	return w, at, strings.HasPrefix(w, "@") || slash
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
		c.listed, c.mcpAsked, c.matches, c.word, c.dismissed = false, false, nil, "", ""
		return
	}
	if w == c.dismissed {
		return
	}
	c.dismissed = ""
	slash := w[0] == '/'
	if slash != c.slashWords {
		c.mcpAsked = false
	}
	c.slashWords = slash
	if !c.mcpAsked && (slash && m.o.MCPPrompts != nil || !slash && m.o.MCPResources != nil) {
		c.mcpAsked, c.needMCP = true, true
	}
	if !slash && !c.listed {
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
	m.match()
}

// match fills the matches for the current word: for an @word the MCP
// resources, then the paths, each beginning with what was typed first and
// containing it after; for a /word the commands beginning with it.
func (m *Model) match() {
	c := &m.comp
	q := c.word[1:]
	c.notes, c.withSpace = map[string]string{}, map[string]bool{}
	if c.slashWords {
		var names []string
		for _, b := range builtins {
			names = append(names, b.name)
			c.notes[b.name] = b.help
		}
		user := make([]string, 0, len(m.o.Commands))
		for n := range m.o.Commands {
			user = append(user, n)
		}
		slices.Sort(user)
		for _, n := range user {
			names = append(names, n)
			c.notes[n] = "(user command)"
		}
		for _, p := range c.prompts {
			if _, taken := c.notes[p.Name]; taken {
				continue
			}
			names = append(names, p.Name)
			args := strings.TrimSpace(strings.TrimPrefix(p.Usage, "/"+p.Name))
			c.notes[p.Name] = strings.Trim(args+" · "+p.Description, " ·")
			c.withSpace[p.Name] = p.Args
		}
		prefix, _ := matchItems(names, q)
		c.matches = prefix[:min(len(prefix), maxCompletions)]
		return
	}
	res := make([]string, len(c.resources))
	for i, r := range c.resources {
		res[i] = r.Server + ":" + r.URI
		if r.Name != "" && !strings.HasSuffix(r.URI, r.Name) {
			c.notes[res[i]] = r.Name
		}
	}
	rp, rs := matchItems(res, q)
	pp, ps := matchItems(c.paths, q)
	out := slices.Concat(rp, pp, rs, ps)
	c.matches = out[:min(len(out), maxCompletions)]
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
		pick := c.matches[c.sel]
		done := c.word[:1] + pick
		if c.withSpace[pick] {
			done += " "
		}
		m.replaceWord(c.at, done)
		c.matches, c.word = nil, ""
		if !strings.HasSuffix(done, "/") || c.slashWords {
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

// completionView is the list drawn above the input, "" when hidden; each
// line is cut to the width.
func (m *Model) completionView() string {
	var b strings.Builder
	sigil := "@"
	if m.comp.slashWords {
		sigil = "/"
	}
	for i, p := range m.comp.matches {
		if i > 0 {
			b.WriteByte('\n')
		}
		mark := "  "
		if i == m.comp.sel {
			mark = "❯ "
		}
		line := mark + sigil + p
		if n := m.comp.notes[p]; n != "" {
			line += "  " + n
		}
		b.WriteString(ansi.Truncate(printable(line), max(10, m.width), "…"))
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
	if c.word != "" && c.dismissed == "" && !c.slashWords {
		m.match()
	}
}

// mcpMsg is what the MCP servers answered: their resources (for @) or
// their prompts (for /).
type mcpMsg struct {
	resources []MCPResource
	prompts   []MCPPrompt
	slash     bool
}

// askMCP asks the servers for their resources or prompts in a command; a
// server still starting is waited for, at most mcpWait.
func (m *Model) askMCP() tea.Cmd {
	c := &m.comp
	c.needMCP = false
	ctx, slash := m.ctx, c.slashWords
	resources, prompts := m.o.MCPResources, m.o.MCPPrompts
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, mcpWait)
		defer cancel()
		if slash {
			ps, _ := prompts(ctx) // what could not be listed is simply not offered
			return mcpMsg{prompts: ps, slash: true}
		}
		rs, _ := resources(ctx)
		return mcpMsg{resources: rs}
	}
}

// mcpWait bounds how long completion waits for the MCP servers.
const mcpWait = 30 * time.Second

// applyMCP keeps the servers' answer and refreshes the matches.
func (m *Model) applyMCP(msg mcpMsg) {
	c := &m.comp
	if msg.slash {
		c.prompts = msg.prompts
	} else {
		c.resources = msg.resources
	}
	if c.word != "" && c.dismissed == "" && c.slashWords == msg.slash {
		m.match()
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
	prefix, sub := matchItems(paths, q)
	out := append(prefix, sub...)
	return out[:min(len(out), maxCompletions)]
}

// matchItems returns up to maxCompletions items starting with q and as
// many containing it, case-insensitively, other than q itself.
func matchItems(items []string, q string) (prefix, sub []string) {
	q = strings.ToLower(q)
	for _, p := range items {
		lp := strings.ToLower(p)
		switch {
		case lp == q: // already complete: nothing to offer
		case strings.HasPrefix(lp, q):
			if len(prefix) < maxCompletions {
				prefix = append(prefix, p)
			}
		case len(sub) < maxCompletions && strings.Contains(lp, q):
			sub = append(sub, p)
		}
		if len(prefix) == maxCompletions {
			return prefix, nil
		}
	}
	return prefix, sub
}
