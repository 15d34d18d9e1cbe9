package acp

import (
	"cmp"
	"context"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
)

// commandDirs are where a workspace keeps its slash commands, lowest
// precedence first: Claude Code's and nova's own (a name in both is
// nova's).
var commandDirs = []string{filepath.Join(".claude", "commands"), filepath.Join(".novacode", "commands")}

// mcpPromptsWait bounds how long the MCP servers starting with a session
// are waited for, to offer their prompts as commands.
const mcpPromptsWait = 30 * time.Second

// loadCommands reads the user's slash commands of the workspace dir.
func (a *agent) loadCommands(dir string) map[string]string {
	cmds := map[string]string{}
	if a.o.LoadCommands == nil {
		return cmds
	}
	for _, d := range commandDirs {
		found, err := a.o.LoadCommands(filepath.Join(dir, d))
		if err != nil {
			a.logf("warning: slash commands of %s: %v", d, err)
			continue
		}
		maps.Copy(cmds, found)
	}
	return cmds
}

// announceCommands tells the editor the session's slash commands
// (available_commands_update) after delay, and again with the MCP
// servers' prompts once the servers have started, if they offer any. It
// runs beside the handler, owned by the agent, and ends with the session.
func (a *agent) announceCommands(s *session, delay time.Duration) {
	if !a.enter() {
		return
	}
	go func() {
		defer a.calls.Done()
		select {
		case <-time.After(delay):
		case <-s.bg.Done():
			return
		}
		cmds := userCommands(s.commands)
		a.update(s, acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
		ctx, cancel := context.WithTimeout(s.bg, mcpPromptsWait)
		defer cancel()
		prompts, err := s.nova.MCPPrompts(ctx)
		if err != nil && s.bg.Err() == nil {
			a.logf("warning: the MCP servers' prompts: %v", err)
		}
		if len(prompts) == 0 || s.bg.Err() != nil {
			return
		}
		for _, p := range prompts {
			c := acpsdk.AvailableCommand{Name: p.Name, Description: cmp.Or(p.Description, "MCP prompt "+p.Prompt+" of "+p.Server)}
			if len(p.Arguments) > 0 {
				var hint []string
				for _, arg := range p.Arguments {
					if arg.Required {
						hint = append(hint, strings.ToUpper(arg.Name))
					} else {
						hint = append(hint, "["+strings.ToUpper(arg.Name)+"]")
					}
				}
				c.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: strings.Join(hint, " ")}}
			}
			cmds = append(cmds, c)
		}
		a.update(s, acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
	}()
}

// userCommands are the user's slash commands as ACP commands, by name.
func userCommands(cmds map[string]string) []acpsdk.AvailableCommand {
	out := []acpsdk.AvailableCommand{}
	for _, name := range slices.Sorted(maps.Keys(cmds)) {
		c := acpsdk.AvailableCommand{Name: name, Description: describe(cmds[name])}
		if strings.Contains(cmds[name], "$ARGUMENTS") {
			c.Input = &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: "arguments"}}
		}
		out = append(out, c)
	}
	return out
}

// describe is a command's description: its template's first line that
// says something.
func describe(tmpl string) string {
	for line := range strings.Lines(tmpl) {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#"))
		if line != "" && line != "---" {
			if len(line) > 80 {
				line = line[:77] + "…"
			}
			return line
		}
	}
	return "user command"
}

// expandCommand fills in a user's slash command at the start of text
// (/name args), as the TUI does: $ARGUMENTS becomes the arguments, or they
// follow a template without it. Anything else (an MCP prompt's command,
// which the session fills in, a plain prompt) is returned as it is.
func expandCommand(cmds map[string]string, text string) string {
	rest, ok := strings.CutPrefix(text, "/")
	if !ok {
		return text
	}
	name, args := rest, ""
	if i := strings.IndexAny(rest, " \t\n"); i >= 0 {
		name, args = rest[:i], strings.TrimSpace(rest[i+1:])
	}
	tmpl, ok := cmds[name]
	if !ok {
		return text
	}
	if strings.Contains(tmpl, "$ARGUMENTS") {
		return strings.ReplaceAll(tmpl, "$ARGUMENTS", args)
	}
	if args == "" {
		return tmpl
	}
	return strings.TrimRight(tmpl, "\n") + "\n\n" + args
}
