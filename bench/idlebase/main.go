// Command idlebase is the baseline for novabench's idle-TUI measurement: the
// smallest Bubble Tea v2 program with the same screen size, frame rate and
// alternate screen as nova's TUI, doing nothing. bench/run.sh builds it on
// upstream Bubble Tea: our copy with its novacode.patch taken back.
package main

import (
	"fmt"
	"os"
	"strings"

	tea "github.com/novacode/nova/third_party/bubbletea"
)

type model struct{ w, h int }

func (m model) Init() tea.Cmd { return nil }

func (m model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m model) View() tea.View {
	lines := make([]string, max(m.h-1, 0))
	for i := range lines {
		lines[i] = strings.Repeat("·", max(m.w/2, 1))
	}
	v := tea.NewView(strings.Join(lines, "\n") + "\nidle baseline · default")
	v.AltScreen = true
	return v
}

func main() {
	if _, err := tea.NewProgram(model{}, tea.WithFPS(60)).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
