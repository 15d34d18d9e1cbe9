package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/internal/tui/render"
)

// /bashes: the session's background commands (Bash with run_in_background,
// the model's or a subagent's), what became of each, and a way to stop one.
// Their ends also reach the timeline as the Mailbox delivers them to the
// model.

// bashKillMsg is the outcome of /bashes kill ID, which runs off the UI
// goroutine: stopping a process group may take a moment.
type bashKillMsg struct {
	id  string
	err error
}

// bashesCommand lists the background commands (/bashes), shows one
// (/bashes ID) or stops one (/bashes kill ID).
func (m *Model) bashesCommand(args string) tea.Cmd {
	if m.o.Bashes == nil {
		m.addText(kindError, "/bashes is not available")
		return nil
	}
	verb, id, _ := strings.Cut(args, " ")
	id = strings.TrimSpace(id)
	switch {
	case args == "":
		m.addText(kindInfo, bashList(m.o.Bashes(), m.width))
	case verb == "kill" && id == "":
		m.addText(kindError, "/bashes kill takes a command's ID (/bashes lists them)")
	case verb == "kill":
		if m.o.KillBash == nil {
			m.addText(kindError, "/bashes kill is not available")
			return nil
		}
		kill := m.o.KillBash
		return func() tea.Msg { return bashKillMsg{id: id, err: kill(id)} }
	default:
		m.bashDetail(args)
	}
	return nil
}

// bashKilled reports the outcome of /bashes kill.
func (m *Model) bashKilled(msg bashKillMsg) {
	if msg.err != nil {
		m.addText(kindError, "/bashes kill "+printable(msg.id)+": "+msg.err.Error())
		return
	}
	text := "Killed " + printable(msg.id)
	for _, b := range m.o.Bashes() {
		if b.ID == msg.id {
			text += ": " + flat(b.Command)
		}
	}
	m.addText(kindInfo, ansi.Truncate(text, max(10, m.width), "…"))
}

// bashList is /bashes: one row a command, each cut to width.
func bashList(list []BashInfo, width int) string {
	if len(list) == 0 {
		return "There are no background commands."
	}
	idW, stW, durW := 0, 0, 0
	for _, b := range list {
		idW = max(idW, ansi.StringWidth(printable(b.ID)))
		stW = max(stW, ansi.StringWidth(bashState(b)))
		durW = max(durW, ansi.StringWidth(render.FormatDuration(b.Duration)))
	}
	var s strings.Builder
	s.WriteString("Background commands (/bashes ID shows one, /bashes kill ID stops it):")
	for _, b := range list {
		row := fmt.Sprintf("  %-*s  %-*s  %*s  %s", idW, printable(b.ID), stW, bashState(b), durW, render.FormatDuration(b.Duration), flat(b.Command))
		if b.Agent != "" {
			row += "  (subagent " + printable(b.Agent) + ")"
		}
		s.WriteString("\n" + ansi.Truncate(row, max(10, width), "…"))
	}
	return s.String()
}

// bashDetail is /bashes ID: everything known of one command.
func (m *Model) bashDetail(id string) {
	list := m.o.Bashes()
	for _, b := range list {
		if b.ID != id {
			continue
		}
		var s strings.Builder
		fmt.Fprintf(&s, "%s · %s · %s", printable(b.ID), bashState(b), render.FormatDuration(b.Duration))
		fmt.Fprintf(&s, "\n  command: %s", printable(b.Command))
		if b.Description != "" {
			fmt.Fprintf(&s, "\n  description: %s", printable(b.Description))
		}
		if b.Agent != "" {
			fmt.Fprintf(&s, "\n  started by subagent %s", printable(b.Agent))
		}
		if b.Output != "" {
			fmt.Fprintf(&s, "\n  output: %s", printable(b.Output))
		}
		m.addText(kindInfo, s.String())
		return
	}
	ids := make([]string, len(list))
	for i, b := range list {
		ids[i] = printable(b.ID)
	}
	known := "there are none"
	if len(ids) > 0 {
		known = "the commands: " + strings.Join(ids, ", ")
	}
	m.addText(kindError, fmt.Sprintf("/bashes: no background command %s (%s)", printable(id), known))
}

// bashState is a command's state in a word or two.
func bashState(b BashInfo) string {
	switch {
	case b.Running:
		return "running"
	case b.Killed:
		return "killed"
	}
	return fmt.Sprintf("exit %d", b.ExitCode)
}

// flat is a command on one line, printable.
func flat(s string) string {
	return printable(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(strings.TrimSpace(s)))
}
