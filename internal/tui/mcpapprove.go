package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/novacode/nova/third_party/bubbletea"
)

// MCPApproval is a server of the project's .mcp.json that the approval
// dialog asks about: a repository chose the program it runs.
type MCPApproval struct {
	Name string
	// Transport is stdio, http or sse; Describe the command line or URL
	// as the file writes it.
	Transport, Describe string
	// File is the .mcp.json.
	File string
	// Changed says the person answered about another definition of it.
	Changed bool
}

// ErrMCPNoAnswer is AskMCPServers' error when the person quit the dialog
// without answering.
var ErrMCPNoAnswer = errors.New("the question about the MCP servers was not answered")

// AskMCPServers shows the approval dialog for servers of the project's
// .mcp.json on in/out, before the TUI itself starts (as AskTrust does),
// and returns the names of those the person approved: all of them, those
// picked one by one, or none. Those not approved are declined: the caller
// remembers both.
func AskMCPServers(ctx context.Context, servers []MCPApproval, in io.Reader, out io.Writer) ([]string, error) {
	m := &mcpApproveModel{servers: servers, width: 80, height: 24}
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	if _, err := p.Run(); err != nil {
		if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("MCP approval dialog: %w", err)
	}
	if !m.done {
		return nil, ErrMCPNoAnswer
	}
	return m.approved, nil
}

// mcpApproveModel is the approval dialog's tea.Model: first all the
// servers and three answers; "approve each" then asks about one server at
// a time.
type mcpApproveModel struct {
	servers       []MCPApproval
	sel           int
	each          bool // asking one by one
	cur           int  // the server asked about, when each
	approved      []string
	done          bool
	width, height int
}

var mcpChoices = []string{
	"Approve all: start them now and in later sessions",
	"Approve each: choose server by server",
	"Deny all: start none of them, and don't ask again",
}

var mcpEachChoices = []string{
	"Yes: start it",
	"No: don't start it, and don't ask again",
}

func (m *mcpApproveModel) Init() tea.Cmd { return nil }

func (m *mcpApproveModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.KeyPressMsg:
		if m.done {
			return m, nil
		}
		n := len(mcpChoices)
		if m.each {
			n = len(mcpEachChoices)
		}
		switch s := msg.String(); s {
		case "up", "shift+tab":
			m.sel = (m.sel + n - 1) % n
		case "down", "tab":
			m.sel = (m.sel + 1) % n
		case "1", "2", "3":
			if i := int(s[0] - '1'); i < n {
				m.sel = i
			}
		case "enter":
			return m, m.choose()
		case "esc", "ctrl+c":
			return m, tea.Quit
		}
	}
	return m, nil
}

// choose takes the highlighted answer.
func (m *mcpApproveModel) choose() tea.Cmd {
	if !m.each {
		switch m.sel {
		case 0:
			for _, s := range m.servers {
				m.approved = append(m.approved, s.Name)
			}
		case 1:
			m.each, m.cur, m.sel = true, 0, 0
			return nil
		}
		m.done = true
		return tea.Quit
	}
	if m.sel == 0 {
		m.approved = append(m.approved, m.servers[m.cur].Name)
	}
	m.cur++
	m.sel = 0
	if m.cur < len(m.servers) {
		return nil
	}
	m.done = true
	return tea.Quit
}

func (m *mcpApproveModel) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	return v
}

// Screen is the dialog as text. Servers that do not fit the window are
// left out with a count; the question and the choices always show.
func (m *mcpApproveModel) Screen() string {
	if m.done {
		return ""
	}
	if m.each {
		return m.eachScreen()
	}
	file := ".mcp.json"
	if len(m.servers) > 0 && m.servers[0].File != "" {
		file = m.servers[0].File
	}
	head := []string{"Start the MCP servers of this project?", ""}
	head = append(head, hang("  ", "  ", printable(file), m.width)...)
	head = append(head, "")
	head = append(head, hang("", "", "This file is part of the repository: whoever wrote it chose the programs these servers run, and a server runs with your permissions. Start them only if you trust what they run:", m.width)...)
	foot := m.choices(mcpChoices)
	foot = append(foot, "")
	foot = append(foot, hang("", "", "Enter to choose · Esc to quit · asked again if a server's definition changes", m.width)...)
	room := m.height - len(head) - len(foot) - 2
	var body []string
	for i, s := range m.servers {
		item := m.describe("  • ", "    ", s)
		if rest := len(m.servers) - i; len(item) > room || rest > 1 && len(item) >= room {
			body = append(body, fmt.Sprintf("  … and %d more", rest))
			break
		}
		body = append(body, item...)
		room -= len(item)
	}
	all := append(append(append(append(head, ""), body...), ""), foot...)
	return strings.Join(all, "\n")
}

// eachScreen asks about one server.
func (m *mcpApproveModel) eachScreen() string {
	s := m.servers[m.cur]
	lines := []string{fmt.Sprintf("Start the MCP server %s? (%d of %d)", printable(s.Name), m.cur+1, len(m.servers)), ""}
	lines = append(lines, m.describe("  ", "  ", s)...)
	lines = append(lines, "")
	lines = append(lines, m.choices(mcpEachChoices)...)
	lines = append(lines, "")
	lines = append(lines, hang("", "", "Enter to choose · Esc to quit", m.width)...)
	return strings.Join(lines, "\n")
}

// describe is a server's lines: its name, and what it runs or where it
// connects.
func (m *mcpApproveModel) describe(first, rest string, s MCPApproval) []string {
	name := s.Name
	if s.Changed {
		name += " (changed since you last answered)"
	}
	item := hang(first, rest, printable(name), m.width)
	what := "runs"
	if s.Transport != "stdio" {
		what = "connects to (" + s.Transport + ")"
	}
	return append(item, hang(rest+"  ", rest+"    ", printable(what+" "+s.Describe), m.width)...)
}

func (m *mcpApproveModel) choices(cs []string) []string {
	var out []string
	for i, c := range cs {
		mark := "  "
		if i == m.sel {
			mark = "❯ "
		}
		out = append(out, hang(fmt.Sprintf("%s%d. ", mark, i+1), "     ", c, m.width)...)
	}
	return out
}
