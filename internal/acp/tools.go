package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"
)

// call is what the editor is shown of one tool call: worked out once from
// the tool_use, kept until the call's result.
type call struct {
	id    string
	name  string
	title string
	kind  acpsdk.ToolKind
	// raw is the call's input as the model wrote it (rawInput).
	raw       any
	locations []acpsdk.ToolCallLocation
	// content is shown from the start (a diff of Write and Edit, the plan
	// of ExitPlanMode) and kept once the call succeeds.
	content []acpsdk.ToolCallContent
	// fence: the result is a program's output (a file, a command's
	// output, a listing) shown verbatim rather than as Markdown.
	fence bool
	// parent and agent name the Task call and the subagent a subagent's
	// call belongs to.
	parent, agent string
}

// toolInput holds the fields of every built-in tool's input that titles,
// locations and diffs are made of.
type toolInput struct {
	FilePath     string `json:"file_path"`
	Offset       int    `json:"offset"`
	Limit        int    `json:"limit"`
	Content      string `json:"content"`
	OldString    string `json:"old_string"`
	NewString    string `json:"new_string"`
	Command      string `json:"command"`
	Description  string `json:"description"`
	Pattern      string `json:"pattern"`
	Path         string `json:"path"`
	URL          string `json:"url"`
	SubagentType string `json:"subagent_type"`
	TaskID       string `json:"task_id"`
	To           string `json:"to"`
	BashID       string `json:"bash_id"`
	ShellID      string `json:"shell_id"`
	Question     string `json:"question"`
	Query        string `json:"query"`
	Plan         string `json:"plan"`
}

// kinds are the ACP kinds of the built-in tools; every other tool (an MCP
// server's, one of an embedding program) is "other".
var kinds = map[string]acpsdk.ToolKind{
	"Read":            acpsdk.ToolKindRead,
	"Write":           acpsdk.ToolKindEdit,
	"Edit":            acpsdk.ToolKindEdit,
	"Bash":            acpsdk.ToolKindExecute,
	"BashOutput":      acpsdk.ToolKindExecute,
	"KillShell":       acpsdk.ToolKindExecute,
	"Grep":            acpsdk.ToolKindSearch,
	"Glob":            acpsdk.ToolKindSearch,
	"LS":              acpsdk.ToolKindSearch,
	"ToolSearch":      acpsdk.ToolKindSearch,
	"WebFetch":        acpsdk.ToolKindFetch,
	"Task":            acpsdk.ToolKindThink,
	"TaskOutput":      acpsdk.ToolKindThink,
	"TodoWrite":       acpsdk.ToolKindThink,
	"ExitPlanMode":    acpsdk.ToolKindSwitchMode,
	"AskUserQuestion": acpsdk.ToolKindOther,
	"SendMessage":     acpsdk.ToolKindOther,
}

// fenced are the tools whose results are a program's output.
var fenced = map[string]bool{"Read": true, "Bash": true, "BashOutput": true, "Grep": true, "Glob": true, "LS": true}

// newCall works out how a call of tool name with input shows in the
// editor; dir is the workspace, against which relative paths resolve and
// in which titles name paths relatively.
func newCall(dir, id, name string, input json.RawMessage) *call {
	c := &call{id: id, name: name, kind: acpsdk.ToolKindOther, title: name, fence: fenced[name]}
	if k, ok := kinds[name]; ok {
		c.kind = k
	}
	var raw any
	if json.Unmarshal(input, &raw) == nil {
		c.raw = raw
	}
	var in toolInput
	_ = json.Unmarshal(input, &in) // a malformed input still gets a title: the tool's name
	abs := func(p string) string {
		if p == "" {
			return dir
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return filepath.Clean(p)
	}
	at := func(p string) { c.locations = []acpsdk.ToolCallLocation{{Path: abs(p)}} }
	show := func(p string) string { return shown(dir, abs(p)) }
	switch name {
	case "Read":
		c.title = "Read " + show(in.FilePath)
		at(in.FilePath)
		if in.Offset > 0 {
			c.locations[0].Line = acpsdk.Ptr(in.Offset)
			c.title += fmt.Sprintf(" (from line %d)", in.Offset)
		}
	case "Write":
		c.title = "Write " + show(in.FilePath)
		at(in.FilePath)
		c.content = []acpsdk.ToolCallContent{acpsdk.ToolDiffContent(abs(in.FilePath), in.Content)}
	case "Edit":
		c.title = "Edit " + show(in.FilePath)
		at(in.FilePath)
		c.content = []acpsdk.ToolCallContent{acpsdk.ToolDiffContent(abs(in.FilePath), in.NewString, in.OldString)}
	case "Bash":
		c.title = firstLine(in.Command)
		if c.title == "" {
			c.title = "Run a command"
		}
		c.kind = commandKind(in.Command)
	case "BashOutput":
		c.title = "Output of " + in.BashID
	case "KillShell":
		c.title = "Stop " + in.ShellID
	case "Grep":
		c.title = fmt.Sprintf("Grep %q", in.Pattern)
		if in.Path != "" {
			c.title += " in " + show(in.Path)
		}
		at(in.Path)
	case "Glob":
		c.title = fmt.Sprintf("Find %q", in.Pattern)
		if in.Path != "" {
			c.title += " in " + show(in.Path)
		}
		at(in.Path)
	case "LS":
		c.title = "List " + show(in.Path)
		at(in.Path)
	case "WebFetch":
		c.title = "Fetch " + in.URL
	case "Task":
		c.title = "Task: " + firstLine(in.Description)
		if in.SubagentType != "" {
			c.title += " (" + in.SubagentType + ")"
		}
	case "TaskOutput":
		c.title = "Wait for " + in.TaskID
	case "SendMessage":
		c.title = "Message to " + in.To
	case "AskUserQuestion":
		c.title = firstLine(in.Question)
	case "ToolSearch":
		c.title = "Search tools: " + in.Query
	case "TodoWrite":
		c.title = "Update the task list"
	case "ExitPlanMode":
		c.title = "Ready to code?"
		if in.Plan != "" {
			c.content = []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(in.Plan))}
		}
	default:
		if server, tool, ok := mcpName(name); ok {
			c.title = tool + " (" + server + ")"
		}
	}
	return c
}

// commandKind is execute, but delete for a plain rm and move for a plain
// mv: an editor shows those as what they do to files.
func commandKind(command string) acpsdk.ToolKind {
	if strings.ContainsAny(command, ";&|<>()`$\n") {
		return acpsdk.ToolKindExecute
	}
	switch f := strings.Fields(command); {
	case len(f) > 1 && (f[0] == "rm" || f[0] == "rmdir"):
		return acpsdk.ToolKindDelete
	case len(f) > 2 && f[0] == "mv":
		return acpsdk.ToolKindMove
	}
	return acpsdk.ToolKindExecute
}

// mcpName splits mcp__<server>__<tool>.
func mcpName(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, "__")
}

// shown is p as a title names it: relative to the workspace when inside
// it.
func shown(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return p
}

// firstLine is s's first line, marked when more follows.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i]) + " …"
	}
	return s
}

// fence wraps a program's output in a Markdown code block longer than any
// run of backticks in it.
func fence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + "\n" + strings.TrimRight(s, "\n") + "\n" + f
}

// toolCall is c's announcement.
func (c *call) toolCall(status acpsdk.ToolCallStatus) acpsdk.SessionUpdate {
	return acpsdk.SessionUpdate{ToolCall: &acpsdk.SessionUpdateToolCall{
		Meta: c.meta(), ToolCallId: acpsdk.ToolCallId(c.id), Title: c.title, Kind: c.kind, Status: status,
		Locations: c.locations, RawInput: c.raw, Content: c.content,
	}}
}

// update is everything the editor knows of c, as a permission request
// carries it (a client may not have seen the call yet).
func (c *call) update(status acpsdk.ToolCallStatus) acpsdk.ToolCallUpdate {
	return acpsdk.ToolCallUpdate{
		Meta: c.meta(), ToolCallId: acpsdk.ToolCallId(c.id), Title: acpsdk.Ptr(c.title), Kind: acpsdk.Ptr(c.kind),
		Status: acpsdk.Ptr(status), Locations: c.locations, RawInput: c.raw, Content: c.content,
	}
}

// meta names the tool and, for a subagent's call, the Task call and the
// subagent.
func (c *call) meta() map[string]any {
	m := map[string]any{"toolName": c.name}
	if c.parent != "" {
		m["parentToolCallId"] = c.parent
		m["agentId"] = c.agent
	}
	return map[string]any{"novacode": m}
}
