package tui

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// key handles one key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.ctrlCAt = time.Time{}
		if m.hint == "press ctrl+c again to exit" {
			m.hint = ""
		}
	}
	// The @path list, when shown, owns Tab, Up, Down and Esc.
	if m.perm == nil && m.ques == nil && m.completionKey(s) {
		return nil
	}
	// A memory suggestion, when shown, owns the keys of an empty input.
	if m.memoryKey(s) {
		return nil
	}
	switch s {
	case "ctrl+c":
		now := timeNow()
		if !m.ctrlCAt.IsZero() && now.Sub(m.ctrlCAt) <= quitWindow {
			return m.quit()
		}
		m.ctrlCAt = now
		m.hint = "press ctrl+c again to exit"
		if m.input.Value() != "" {
			// As in a shell: the first ctrl+c throws the line away (the
			// second, soon after, still quits).
			m.input.Reset()
			m.histPos = len(m.history)
			m.updateCompletion()
			m.resize()
		}
		return nil
	case "esc":
		if m.busy {
			m.cancel()
		}
		return nil
	case "ctrl+o":
		m.expanded = !m.expanded
		return nil
	case "ctrl+l":
		// Whatever else wrote to the terminal (another program, a
		// stray line on standard error) is wiped and every cell drawn
		// anew: the renderer otherwise redraws only what it changed.
		return tea.ClearScreen
	case "pgup":
		m.scroll += max(1, m.timelineHeight()-1)
		return nil
	case "pgdown":
		m.scroll = max(0, m.scroll-max(1, m.timelineHeight()-1))
		return nil
	case "shift+tab":
		if m.o.ModeCycle != nil {
			m.mode = m.o.ModeCycle()
		}
		return nil
	}
	if m.perm != nil {
		if done, cmd := m.permKey(s); done {
			return cmd
		}
	}
	if m.ques != nil {
		if done, answered := m.questionKey(s); done {
			if answered {
				return m.startTicking() // the run goes on
			}
			return nil
		}
	}
	switch s {
	case "enter":
		text := m.input.Value()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m.input.Reset()
		m.updateCompletion()
		m.resize()
		return m.submit(text)
	case "up", "down":
		if m.browseHistory(s == "up") {
			m.updateCompletion()
			m.resize()
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.updateCompletion()
	m.resize()
	return cmd
}

// questionKey handles a key while a question is open: arrows or digits pick
// an option; Enter answers with the typed text if there is any, else with
// the picked option. done reports whether the key was consumed, answered
// whether it answered.
func (m *Model) questionKey(s string) (done, answered bool) {
	n := len(m.ques.Options)
	empty := m.input.Value() == ""
	switch {
	case s == "up" && n > 0:
		m.quesSel = (m.quesSel + n - 1) % n
	case (s == "down" || s == "tab") && n > 0:
		m.quesSel = (m.quesSel + 1) % n
	case empty && len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < n:
		m.quesSel = int(s[0] - '1')
	case s == "enter":
		a := event.Answer{Text: strings.TrimSpace(m.input.Value())}
		if a.Text == "" && n > 0 {
			a.Option = m.ques.Options[m.quesSel]
		}
		m.input.Reset()
		m.addText(kindInfo, "Answered: "+cmp.Or(a.Text, a.Option))
		m.ques.Respond(a)
		m.settleAsk(m.ques.ID, false)
		return true, true
	default:
		return false, false
	}
	return true, false
}

// questionView renders the open question.
func (m *Model) questionView() string {
	var b strings.Builder
	b.WriteString(m.askerLine())
	b.WriteString("? " + m.ques.Question)
	for i, o := range m.ques.Options {
		mark := "  "
		if i == m.quesSel {
			mark = "❯ "
		}
		fmt.Fprintf(&b, "\n%s%d. %s", mark, i+1, o)
	}
	b.WriteString("\n  (or type your own answer, then Enter)")
	return wrap(b.String(), m.width)
}

// permKey handles a key while the permission dialog is open; done reports
// whether the key was consumed.
func (m *Model) permKey(s string) (done bool, cmd tea.Cmd) {
	empty := m.input.Value() == ""
	n := len(m.permChoices())
	switch {
	case s == "up":
		m.permSel = (m.permSel + n - 1) % n
	case s == "down" || s == "tab":
		m.permSel = (m.permSel + 1) % n
	case empty && len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < n:
		m.permSel = int(s[0] - '1')
	case s == "enter":
		d := m.permDecision()
		m.perm.Respond(d)
		if isPlan(m.perm) {
			m.planAnswered(d)
		}
		m.settleAsk(m.perm.ID, d.Behavior == event.Allow)
		return true, m.startTicking() // an allowed call's clock runs again
	default:
		return false, nil
	}
	return true, nil
}

// browseHistory moves through earlier prompts while the input is empty or
// still shows a history entry; it reports whether it did.
func (m *Model) browseHistory(up bool) bool {
	v := m.input.Value()
	browsing := m.histPos < len(m.history) && v == m.history[m.histPos]
	if v != "" && !browsing {
		return false
	}
	switch {
	case up && m.histPos > 0:
		m.histPos--
	case !up && m.histPos < len(m.history):
		m.histPos++
	default:
		return true
	}
	if m.histPos == len(m.history) {
		m.input.Reset()
	} else {
		m.input.SetValue(m.history[m.histPos])
	}
	return true
}

// dialog renders the permission dialog.
func (m *Model) dialog() string {
	if isPlan(m.perm) {
		return m.planDialog()
	}
	var b strings.Builder
	b.WriteString(m.askerLine())
	fmt.Fprintf(&b, "Allow %s(%s)?", m.perm.Name, keyArg(m.perm.Input))
	if m.perm.Reason != "" {
		b.WriteString(" " + m.perm.Reason)
	}
	for i, c := range []string{"Allow once", "Allow always", "Deny (type a note, then Enter)"} {
		mark := "  "
		if i == m.permSel {
			mark = "❯ "
		}
		fmt.Fprintf(&b, "\n%s%d. %s", mark, i+1, c)
	}
	return wrap(b.String(), m.width)
}
