package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/ansi"
	tea "github.com/novacode/nova/third_party/bubbletea"
)

// TrustQuestion is what the trust dialog asks about: a workspace whose own
// settings files want more than the person's settings allow.
type TrustQuestion struct {
	// Dir is the workspace.
	Dir string
	// Settings are the settings that apply only if the workspace is
	// trusted.
	Settings []TrustSetting
	// Changed says the person answered before, for other settings.
	Changed bool
}

// TrustSetting is one setting the trust dialog lists.
type TrustSetting struct {
	// File is where it is written, Setting its name and Value its value.
	File, Setting, Value string
	// Says is what it does, in plain words.
	Says string
}

// ErrNoAnswer is AskTrust's error when the person quit the dialog without
// answering.
var ErrNoAnswer = errors.New("the trust question was not answered")

// AskTrust shows the trust dialog on in/out, before the TUI itself starts
// (the provider and the permissions depend on the answer), and returns
// the person's answer: true to trust the workspace.
func AskTrust(ctx context.Context, q TrustQuestion, in io.Reader, out io.Writer) (bool, error) {
	m := &trustModel{q: q, width: 80, height: 24}
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, fmt.Errorf("trust dialog: %w", err)
	}
	if m.answer == nil {
		return false, ErrNoAnswer
	}
	return *m.answer, nil
}

// trustModel is the trust dialog's tea.Model.
type trustModel struct {
	q             TrustQuestion
	sel           int   // 0: trust, 1: don't
	answer        *bool // set when answered
	width, height int
}

var trustChoices = []string{
	"Trust this workspace: apply all of its settings",
	"Don't trust it: apply only those that make things stricter",
}

func (m *trustModel) Init() tea.Cmd { return nil }

func (m *trustModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		switch s := msg.String(); s {
		case "up", "down", "tab", "shift+tab":
			m.sel = 1 - m.sel
		case "1", "2":
			m.sel = int(s[0] - '1')
		case "enter":
			yes := m.sel == 0
			m.answer = &yes
			return m, tea.Quit
		case "esc", "ctrl+c":
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m *trustModel) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	return v
}

// Screen is the dialog as text. Settings that do not fit the window are
// left out with a count; the question and the choices always show.
func (m *trustModel) Screen() string {
	intro := "Its own settings files ask for more than your settings allow, and a repository can ship those files. Apply them only if you trust where it came from:"
	if m.q.Changed {
		intro = "Its settings have changed since you last answered. " + intro
	}
	head := []string{"Do you trust this workspace?", ""}
	head = append(head, hang("  ", "  ", printable(m.q.Dir), m.width)...)
	head = append(head, "")
	head = append(head, hang("", "", intro, m.width)...)
	var foot []string
	for i, c := range trustChoices {
		mark := "  "
		if i == m.sel {
			mark = "❯ "
		}
		foot = append(foot, hang(fmt.Sprintf("%s%d. ", mark, i+1), "     ", c, m.width)...)
	}
	foot = append(foot, "")
	foot = append(foot, hang("", "", "Enter to choose · Esc to quit · asked again if these settings change", m.width)...)
	// One blank line above the list and one below it.
	room := m.height - len(head) - len(foot) - 2
	var body []string
	for i, st := range m.q.Settings {
		item := hang("  • ", "    ", printable(st.Says), m.width)
		item = append(item, hang("    ", "      ", printable(fmt.Sprintf("%s %s in %s", st.Setting, st.Value, st.File)), m.width)...)
		if rest := len(m.q.Settings) - i; len(item) > room || rest > 1 && len(item) >= room {
			body = append(body, fmt.Sprintf("  … and %d more", rest))
			break
		}
		body = append(body, item...)
		room -= len(item)
	}
	all := append(append(append(append(head, ""), body...), ""), foot...)
	return strings.Join(all, "\n")
}

// printable escapes what a terminal would not print as text. What the
// dialog shows comes from the repository it asks about: an escape sequence
// or a line break in it must not redraw or fake the question.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsGraphic(r) {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "\\u%04x", r)
	}
	return b.String()
}

// hang wraps s to width, first before its first line and rest before the
// others (first and rest as wide as each other).
func hang(first, rest, s string, width int) []string {
	ls := strings.Split(wrap(s, max(10, width-ansi.StringWidth(rest))), "\n")
	for i := range ls {
		if i == 0 {
			ls[i] = first + ls[i]
		} else {
			ls[i] = rest + ls[i]
		}
	}
	return ls
}
