package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	tea "github.com/novacode/nova/third_party/bubbletea"
)

// LoadCommands reads the user's slash commands from dir (normally
// .novacode/commands): each NAME.md file is the command /NAME, its body the
// prompt template. A missing directory is no commands, not an error.
func LoadCommands(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	cmds := map[string]string{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || e.IsDir() || name == "" {
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		cmds[name] = string(body)
	}
	return cmds, nil
}

// expand fills a command template: $ARGUMENTS becomes the text after the
// command; a template without it gets the arguments appended, so they are
// never silently dropped.
func expand(tmpl, args string) string {
	if strings.Contains(tmpl, "$ARGUMENTS") {
		return strings.ReplaceAll(tmpl, "$ARGUMENTS", args)
	}
	if args == "" {
		return tmpl
	}
	return strings.TrimRight(tmpl, "\n") + "\n\n" + args
}

var builtins = []struct{ name, help string }{
	{"help", "list commands"},
	{"clear", "clear the timeline and start a new conversation"},
	{"compact", "summarise the conversation to free context: /compact [focus]"},
	{"cost", "show token usage and cost"},
	{"model", "show the model and the known ones; /model NAME switches to NAME for the rest of the session"},
	{"plan", "switch to plan mode: read and plan, no edits"},
	{"permissions", "show the permission mode (shift+tab cycles)"},
	{"mcp", "list the MCP servers; /mcp NAME shows a server and its tools"},
	{"memory", "show the memory files the model reads, and where facts you accept go"},
	{"hooks", "list the hooks in effect and the settings file of each"},
	{"bashes", "list background commands; /bashes ID shows one, /bashes kill ID stops it"},
	{"resume", "list sessions, or /resume ID to switch to one"},
	{"rewind", "list turns, or /rewind N to restore files and conversation to before turn N"},
	{"exit", "quit"},
}

// modelCommand shows the model and the ones the CLI knows, or switches to
// the one named. The switch runs as a command: it may ask the endpoint for
// the new model's context window.
func (m *Model) modelCommand(name string) tea.Cmd {
	if name == "" {
		var b strings.Builder
		b.WriteString("Model: " + m.model)
		if m.o.Models != nil {
			if known := m.o.Models(); len(known) > 0 {
				b.WriteString("\nKnown models (/model NAME switches; any other name the endpoint serves works too):")
				for _, k := range known {
					b.WriteString("\n  " + describeModel(k))
				}
			}
		}
		m.addText(kindInfo, b.String())
		return nil
	}
	if m.o.SetModel == nil {
		m.addText(kindError, "/model NAME is not available")
		return nil
	}
	if m.busy {
		m.addText(kindError, "/model: wait for the run to finish")
		return nil
	}
	set, ctx := m.o.SetModel, m.ctx
	return func() tea.Msg {
		info, err := set(ctx, name)
		return modelMsg{info, err}
	}
}

// describeModel is a model's line: its name, context window and prices.
func describeModel(k ModelInfo) string {
	s := k.Name
	if k.ContextWindow > 0 {
		s += fmt.Sprintf(" · %s context", formatWindow(k.ContextWindow))
	}
	if k.InputPrice > 0 || k.OutputPrice > 0 {
		s += fmt.Sprintf(" · $%g/$%g per Mtok in/out", k.InputPrice, k.OutputPrice)
	}
	return s
}

// formatWindow prints a context window the way model cards do: 200k, 1M.
func formatWindow(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%gM", float64(n/10_000)/100)
	case n >= 1_000:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// slash runs a slash command.
func (m *Model) slash(text string) tea.Cmd {
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	args = strings.TrimSpace(args)
	switch name {
	case "help":
		var b strings.Builder
		b.WriteString("Commands:")
		for _, c := range builtins {
			fmt.Fprintf(&b, "\n  /%-12s %s", c.name, c.help)
		}
		user := make([]string, 0, len(m.o.Commands))
		for n := range m.o.Commands {
			user = append(user, n)
		}
		slices.Sort(user)
		for _, n := range user {
			fmt.Fprintf(&b, "\n  /%-12s (user command)", n)
		}
		if m.o.MCPPrompts != nil {
			b.WriteString("\n  /mcp__SERVER__PROMPT args  an MCP server's prompt (type / to list them)")
		}
		b.WriteString("\nKeys: enter send · shift+enter newline · esc interrupt · ctrl+o expand · pgup/pgdn scroll · !cmd shell · ctrl+l redraw · ctrl+c clear input, twice quit")
		m.addText(kindInfo, b.String())
	case "clear":
		m.blocks, m.scroll, m.cachedFrom = nil, 0, 0
		m.todos.set(nil)
		m.forgetAgents()
		if m.o.Clear != nil {
			m.o.Clear()
		}
	case "compact":
		if m.o.Compact == nil {
			m.addText(kindError, "/compact is not available")
			return nil
		}
		if m.busy {
			m.addText(kindError, "/compact: wait for the run to finish")
			return nil
		}
		m.addText(kindInfo, "Compacting…")
		compact, ctx := m.o.Compact, m.ctx
		return func() tea.Msg {
			c, err := compact(ctx, args)
			return compactMsg{c, err}
		}
	case "cost":
		u := m.usage
		m.addText(kindInfo, fmt.Sprintf("Tokens: %d in (%d cache read, %d cache write), %d out · cost $%.4f",
			u.Total.InputTokens, u.Total.CacheReadTokens, u.Total.CacheWriteTokens, u.Total.OutputTokens, u.CostUSD))
	case "model":
		return m.modelCommand(args)
	case "plan":
		if m.o.SetMode == nil {
			m.addText(kindError, "/plan is not available")
			return nil
		}
		m.mode = m.o.SetMode("plan")
		m.addText(kindInfo, "Permission mode: "+m.mode)
	case "permissions":
		m.addText(kindInfo, "Permission mode: "+m.mode)
	case "memory":
		m.memoryCommand()
	case "hooks":
		if m.o.Hooks == nil {
			m.addText(kindError, "/hooks is not available")
			return nil
		}
		m.addText(kindInfo, m.o.Hooks())
	case "resume", "rewind":
		if m.o.Session == nil {
			m.addText(kindError, "/"+name+" is not available")
			return nil
		}
		if m.busy {
			m.addText(kindError, "/"+name+": wait for the run to finish")
			return nil
		}
		out, past, err := m.o.Session(m.ctx, name, args)
		if err != nil {
			m.addText(kindError, "/"+name+": "+err.Error())
			return nil
		}
		if past != nil {
			m.showPast(past)
		}
		m.addText(kindInfo, out)
	case "exit", "quit":
		return m.quit()
	case "mcp":
		m.mcpCommand(args)
	case "bashes":
		return m.bashesCommand(args)
	default:
		tmpl, ok := m.o.Commands[name]
		if !ok && strings.HasPrefix(name, "mcp__") {
			// An MCP prompt: the Runner (the SDK's Send) fills it in.
			return m.prompt(text, text)
		}
		if !ok {
			m.addText(kindError, "unknown command /"+name+" (try /help)")
			return nil
		}
		p := expand(tmpl, args)
		return m.prompt(p, p)
	}
	return nil
}

// mcpCommand shows the MCP servers (/mcp) or one of them with its tools
// (/mcp NAME).
func (m *Model) mcpCommand(name string) {
	var servers []MCPServer
	if m.o.MCPServers != nil {
		servers = m.o.MCPServers()
	}
	if len(servers) == 0 {
		m.addText(kindInfo, "No MCP servers. Define them in .mcp.json, in mcpServers of your settings, or with --mcp-config FILE.")
		return
	}
	if name == "" {
		var b strings.Builder
		b.WriteString("MCP servers (/mcp NAME shows one and its tools):")
		width := 0
		for _, s := range servers {
			width = max(width, len([]rune(printable(s.Name))))
		}
		for _, s := range servers {
			fmt.Fprintf(&b, "\n  %-*s  %s", width, printable(s.Name), mcpSummary(s))
		}
		m.addText(kindInfo, b.String())
		return
	}
	for _, s := range servers {
		if s.Name != name {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "MCP server %s · %s", printable(s.Name), mcpSummary(s))
		fmt.Fprintf(&b, "\n  %s: %s", s.Transport, printable(s.Describe))
		if s.Source != "" {
			fmt.Fprintf(&b, "\n  defined in %s (%s)", printable(s.Source), s.Scope)
		}
		if s.Warning != "" {
			fmt.Fprintf(&b, "\n  warning: %s", printable(s.Warning))
		}
		if len(s.Tools) > 0 {
			fmt.Fprintf(&b, "\n  Tools:")
			for _, t := range s.Tools {
				b.WriteString("\n    " + printable(t))
			}
		}
		m.addText(kindInfo, b.String())
		return
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = printable(s.Name)
	}
	m.addText(kindError, fmt.Sprintf("/mcp: no MCP server %s (the servers: %s)", printable(name), strings.Join(names, ", ")))
}

// mcpSummary is a server's line in /mcp: scope, state, tools, error.
func mcpSummary(s MCPServer) string {
	parts := []string{s.Scope, s.State}
	switch n := len(s.Tools); {
	case n == 1:
		parts = append(parts, "1 tool")
	case n > 0 || s.State == "connected":
		parts = append(parts, fmt.Sprintf("%d tools", n))
	}
	line := strings.Join(parts, " · ")
	if s.Error != "" {
		line += " — " + printable(s.Error)
	}
	return line
}
