package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/novacode/nova/third_party/bubbletea"
)

// Memory at the end of a run: when a run ends (the model finished), the
// TUI asks Options.ProposeMemory in the background for durable facts; if
// there are any, a short suggestion above the input offers to save them to
// the project's NOVA.md or the person's own, to edit them first, or not to
// save them. It never blocks: typing a prompt and sending it dismisses the
// suggestion, and nothing is written unless the person chooses a file.
// /memory shows the memory files the model reads.

// MemoryProposal is what Options.ProposeMemory found: facts, and the two
// files they may go to (nova.MemoryProposal).
type MemoryProposal struct {
	Facts         []string
	Project, User string
}

// MemoryFile is a memory file the model reads (nova.MemoryFile).
type MemoryFile struct {
	Path, Scope, Content string
}

// MemoryInfo is what /memory shows: the files the model reads, and where
// accepted facts go.
type MemoryInfo struct {
	Files         []MemoryFile
	Project, User string
}

// memoryState is the model's memory suggestion.
type memoryState struct {
	lastDone bool // the last run ended with the model done
	inFlight bool // a proposal is being made
	warned   bool // a failed proposal was reported (once)
	open     *memorySuggestion
	// declined are the facts the person did not save, by lower case: not
	// suggested again in this session.
	declined map[string]bool
}

// memorySuggestion is a suggestion on screen.
type memorySuggestion struct {
	facts         []string
	project, user string
	sel           int
	editing       bool // the facts are in the input box
}

// memoryMsg brings a proposal made in the background.
type memoryMsg struct {
	p   MemoryProposal
	err error
}

// memoryChoices are the suggestion's answers, in order.
const (
	memSaveProject = iota
	memSaveUser
	memEdit
	memDecline
	memChoices
)

// proposeMemory starts a proposal after a run the model finished, unless
// suggestions are off, one is on screen or on its way.
func (m *Model) proposeMemory() tea.Cmd {
	st := &m.memory
	done := st.lastDone
	st.lastDone = false
	if m.o.ProposeMemory == nil || !done || st.open != nil || st.inFlight {
		return nil
	}
	st.inFlight = true
	propose, ctx := m.o.ProposeMemory, m.ctx
	return func() tea.Msg {
		p, err := propose(ctx)
		return memoryMsg{p, err}
	}
}

// applyMemory shows a proposal that arrived, without the facts declined
// before.
func (m *Model) applyMemory(msg memoryMsg) {
	st := &m.memory
	st.inFlight = false
	if msg.err != nil {
		if !st.warned && m.ctx.Err() == nil {
			st.warned = true
			m.addText(kindWarning, "no memory suggestion: "+msg.err.Error())
		}
		return
	}
	var facts []string
	for _, f := range msg.p.Facts {
		if !st.declined[strings.ToLower(f)] {
			facts = append(facts, f)
		}
	}
	if len(facts) == 0 || m.o.WriteMemory == nil {
		return
	}
	st.open = &memorySuggestion{facts: facts, project: msg.p.Project, user: msg.p.User}
	m.resize()
}

// decline closes the suggestion; its facts are not suggested again.
func (m *Model) decline() {
	st := &m.memory
	if st.open == nil {
		return
	}
	if st.declined == nil {
		st.declined = map[string]bool{}
	}
	for _, f := range st.open.facts {
		st.declined[strings.ToLower(f)] = true
	}
	if st.open.editing {
		m.input.Reset()
	}
	st.open = nil
	m.resize()
}

// memoryKey handles a key while a suggestion is open and no dialog is;
// it reports whether the key was consumed. With text in the input box
// keys are the input's, and Enter sends the prompt and dismisses the
// suggestion.
func (m *Model) memoryKey(s string) bool {
	sg := m.memory.open
	if sg == nil || m.perm != nil || m.ques != nil {
		return false
	}
	if sg.editing {
		switch s {
		case "enter":
			sg.facts = parseFacts(m.input.Value())
			sg.editing, sg.sel = false, memSaveProject
			m.input.Reset()
			if len(sg.facts) == 0 {
				m.memory.open = nil
			}
			m.resize()
			return true
		case "esc":
			sg.editing = false
			m.input.Reset()
			m.resize()
			return true
		}
		return false
	}
	if m.input.Value() != "" {
		if s == "enter" {
			m.decline()
		}
		return false
	}
	switch {
	case s == "up":
		sg.sel = (sg.sel + memChoices - 1) % memChoices
	case s == "down" || s == "tab":
		sg.sel = (sg.sel + 1) % memChoices
	case len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < memChoices:
		sg.sel = int(s[0] - '1')
	case s == "esc" && !m.busy:
		m.decline()
	case s == "enter":
		m.memoryChoose()
	default:
		return false
	}
	return true
}

// memoryChoose acts on the selected answer.
func (m *Model) memoryChoose() {
	sg := m.memory.open
	switch sg.sel {
	case memSaveProject, memSaveUser:
		path := sg.project
		if sg.sel == memSaveUser {
			path = sg.user
		}
		m.memory.open = nil
		if err := m.o.WriteMemory(path, sg.facts); err != nil {
			m.addText(kindError, "memory: "+err.Error())
		} else {
			m.addText(kindInfo, fmt.Sprintf("Saved to %s:\n%s", m.shortPath(path), bullets(sg.facts)))
		}
		m.resize()
	case memEdit:
		sg.editing = true
		m.input.SetValue(bullets(sg.facts))
		m.resize()
	default:
		m.decline()
	}
}

// memoryPanel renders the open suggestion ("" when none is shown).
func (m *Model) memoryPanel() string {
	sg := m.memory.open
	if sg == nil || m.perm != nil || m.ques != nil {
		return ""
	}
	var b strings.Builder
	if sg.editing {
		b.WriteString("Edit the facts below, one per line (shift+enter for a new line); enter when done, esc to go back")
		return wrap(b.String(), m.width)
	}
	b.WriteString("Remember for next time? (from this conversation)")
	for _, f := range sg.facts {
		b.WriteString("\n  • " + f)
	}
	labels := [memChoices]string{
		"Yes, in the project's memory (" + m.shortPath(sg.project) + ")",
		"Yes, in my own memory (" + m.shortPath(sg.user) + ")",
		"Edit them first",
		"No (esc)",
	}
	for i, l := range labels {
		mark := "  "
		if i == sg.sel {
			mark = "❯ "
		}
		fmt.Fprintf(&b, "\n%s%d. %s", mark, i+1, l)
	}
	return wrap(b.String(), m.width)
}

// memoryLines is the panel's height.
func (m *Model) memoryLines() int {
	if v := m.memoryPanel(); v != "" {
		return strings.Count(v, "\n") + 1
	}
	return 0
}

// memoryCommand is /memory: the memory files the model reads, with their
// contents (the first lines of long ones), and where accepted facts go.
func (m *Model) memoryCommand() {
	if m.o.Memory == nil {
		m.addText(kindError, "/memory is not available")
		return
	}
	info, err := m.o.Memory()
	if err != nil {
		m.addText(kindError, "/memory: "+err.Error())
		return
	}
	var b strings.Builder
	if len(info.Files) == 0 {
		b.WriteString("No memory files yet: the model reads AGENTS.md, NOVA.md and CLAUDE.md (yours in the data directory, the project's from the repository root down) when a conversation starts.")
	} else {
		b.WriteString("Memory files, as the model reads them when a conversation starts (and after a compaction):")
	}
	for _, f := range info.Files {
		scope := "project"
		if f.Scope == "user" {
			scope = "yours"
		}
		fmt.Fprintf(&b, "\n\n%s (%s)", f.Path, scope)
		lines := strings.Split(strings.TrimRight(f.Content, "\n"), "\n")
		for i, l := range lines {
			if i == memoryPreviewLines {
				fmt.Fprintf(&b, "\n  … %d more lines", len(lines)-i)
				break
			}
			b.WriteString("\n  " + l)
		}
	}
	fmt.Fprintf(&b, "\n\nFacts you accept when a suggestion appears go to %s (the project's) or %s (yours). Edit the files in any editor; a new conversation reads them.",
		info.Project, info.User)
	m.addText(kindInfo, b.String())
}

// memoryPreviewLines is how much of each memory file /memory shows.
const memoryPreviewLines = 20

// parseFacts reads edited facts: one per line, a list marker dropped,
// empty lines skipped.
func parseFacts(s string) []string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		for _, p := range []string{"- ", "* ", "• "} {
			line = strings.TrimSpace(strings.TrimPrefix(line, p))
		}
		if line != "" && line != "-" {
			out = append(out, line)
		}
	}
	return out
}

func bullets(facts []string) string {
	var b strings.Builder
	for i, f := range facts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- " + f)
	}
	return b.String()
}

// shortPath shows p relative to the working directory when below it, with
// ~ for the home directory otherwise.
func (m *Model) shortPath(p string) string {
	if m.o.Dir != "" {
		if r, err := filepath.Rel(m.o.Dir, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if r, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.Join("~", r)
		}
	}
	return p
}
