package team

// This file reads the agent types the Task tool can start: the built-in
// ones and the files of Claude Code's format (.claude/agents/*.md), which
// must read here unchanged, so that a repository set up for Claude Code
// works as it is.
//
// Definitions need no trust. The files of a workspace are the repository's
// text, like its CLAUDE.md, yet loading them is safe: a definition can only
// narrow what a subagent may do. Its tools are a subset of the parent's
// (a name the parent does not have gives nothing), and every call a
// subagent makes goes through the same permission chain as the parent's —
// the same rules, mode, hooks, sandbox and person to ask — so no definition
// can grant a permission. Its model is a name among the session's
// provider's models, never an endpoint or credentials, and its prompt is
// text the model reads, as it reads the repository's files anyway.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Definition is one agent type the Task tool can start.
type Definition struct {
	// Name is the agent type, what the Task tool's subagent_type names.
	Name string
	// Description tells the parent's model when to use the agent; it is
	// listed in the Task tool's description (Describe).
	Description string
	// Tools are the names of the tools the subagent may call. nil: every
	// tool the parent has (minus Task beyond the depth limit); empty but
	// not nil: none.
	Tools []string
	// Model is a model name or alias ("sonnet"); "" or "inherit" means the
	// parent's model (Parse stores "inherit" as "").
	Model string
	// Prompt is the subagent's system prompt: a file's body. The built-ins
	// have none ("") and use the session's.
	Prompt string
	// ReadOnly limits the subagent to the read-only tools (Explore).
	ReadOnly bool
	// Source is the file the definition came from, or SourceBuiltin.
	Source string
}

// SourceBuiltin is the Source of the built-in definitions.
const SourceBuiltin = "built-in"

// Builtins returns the built-in agent types: "general-purpose", with every
// tool, and "Explore", with the read-only ones. Each call returns new
// values, which the caller may change.
func Builtins() []Definition {
	return []Definition{
		{
			Name: "general-purpose",
			Description: "General-purpose agent for researching complex questions, searching for code, and executing multi-step tasks. " +
				"When you search for a keyword or a file and are not confident of finding the right match in the first few tries, " +
				"use this agent to do the search for you.",
			Source: SourceBuiltin,
		},
		{
			Name: "Explore",
			Description: "Fast agent for exploring codebases: finding files by pattern (\"src/**/*.go\"), searching code for keywords (\"permission check\"), " +
				"and answering questions about the codebase (\"how are tools registered?\"). It only reads; it never changes anything. " +
				"Say how thorough it should be: a quick look, a medium search, or a very thorough one across several places and naming conventions.",
			ReadOnly: true,
			Source:   SourceBuiltin,
		},
	}
}

// Dirs returns the directories whose definitions a session loads, in the
// order Load wants them: the user's (~/.claude/agents, then
// ~/.novacode/agents), then the workspace's (<workspace>/.claude/agents,
// then <workspace>/.novacode/agents), so that a project's definition
// overrides a user's of the same name, and NovaCode's own directory
// overrides Claude Code's at each level. An empty home or workspace
// contributes nothing; a directory named twice (the workspace is the home
// directory) is listed once.
func Dirs(home, workspace string) []string {
	var dirs []string
	for _, base := range []string{home, workspace} {
		if base == "" {
			continue
		}
		for _, sub := range []string{".claude", ".novacode"} {
			if d := filepath.Join(base, sub, "agents"); !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// maxFileSize bounds what Load reads of one file: a definition is a page of
// text, and a workspace's file could be anything.
const maxFileSize = 1 << 20

// Load returns the built-in definitions followed by those of the *.md files
// of dirs, each directory's files in name order. A definition overrides an
// earlier one of the same name, built-ins included, and takes its place in
// the list, so the order is stable: built-ins first, then the rest in the
// order they first appeared. A directory that does not exist is skipped
// silently; one that cannot be read, and each file that cannot be read or
// parsed, is a problem, and everything else still loads.
func Load(dirs ...string) (defs []Definition, problems []error) {
	defs = Builtins()
	at := map[string]int{} // name -> index in defs
	for i, d := range defs {
		at[d.Name] = i
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, fmt.Errorf("team: agent definitions: %w", err))
			continue
		}
		seen := map[string]string{} // name -> the file of this directory defining it
		for _, e := range entries {
			file := e.Name()
			if e.IsDir() || !strings.HasSuffix(file, ".md") {
				continue
			}
			path := filepath.Join(dir, file)
			d, err := readFile(path, strings.TrimSuffix(file, ".md"))
			if err != nil {
				problems = append(problems, err)
				continue
			}
			if prev, ok := seen[d.Name]; ok {
				// Name order decides, but two files of one directory
				// claiming a name is most likely a copy someone forgot.
				problems = append(problems, fmt.Errorf("team: %s and %s both define agent %q; %s is used", prev, file, d.Name, file))
			}
			seen[d.Name] = file
			if i, ok := at[d.Name]; ok {
				defs[i] = d
				continue
			}
			at[d.Name] = len(defs)
			defs = append(defs, d)
		}
	}
	return defs, problems
}

// readFile reads and parses the definition file at path; name is its file
// name without ".md".
func readFile(path, name string) (Definition, error) {
	f, err := os.Open(path)
	if err != nil {
		return Definition{}, fmt.Errorf("team: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return Definition{}, fmt.Errorf("team: %w", err)
	} else if !fi.Mode().IsRegular() {
		return Definition{}, fmt.Errorf("team: %s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return Definition{}, fmt.Errorf("team: %w", err)
	}
	if len(data) > maxFileSize {
		return Definition{}, fmt.Errorf("team: %s: larger than %d bytes", path, maxFileSize)
	}
	d, err := parse(name, path, data)
	if err != nil {
		return Definition{}, err
	}
	d.Source = path
	return d, nil
}

// Parse reads a definition in Claude Code's format: Markdown whose YAML
// front matter, between two lines "---" at the top, has
//
//	name:        the agent type (default: name, the file's name without .md)
//	description: when to use it (required)
//	tools:       the tools it may use, a comma-separated string or a list
//	             (absent, empty or "*": all of the parent's)
//	model:       a model name or alias, or "inherit" (the default)
//
// and whose body is the agent's system prompt. Other keys (color, …) are
// ignored. A byte order mark and CRLF line ends are accepted. Source is left
// empty. An error names the problem: no front matter, front matter that is
// not YAML, no description.
func Parse(name string, data []byte) (Definition, error) {
	return parse(name, name, data)
}

// frontMatter is what Parse reads of the YAML.
type frontMatter struct {
	Name        string    `yaml:"name"`
	Description string    `yaml:"description"`
	Tools       yaml.Node `yaml:"tools"` // a string or a list
	Model       string    `yaml:"model"`
}

// parse is Parse, with label (the file's path, or name) for its errors.
func parse(name, label string, data []byte) (Definition, error) {
	text := string(bytes.TrimPrefix(data, []byte("\uFEFF")))
	text = strings.ReplaceAll(text, "\r\n", "\n")
	front, body, err := splitFrontMatter(text)
	if err != nil {
		return Definition{}, fmt.Errorf("team: %s: %w", label, err)
	}
	var fm frontMatter
	if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
		// Claude Code reads a plain value holding ": " ("Examples:
		// <example>Context: …"), which YAML does not, and such files are
		// common; quoted, they parse. Anything else stays an error.
		fm = frontMatter{}
		lenient := quotePlainValues(front)
		if lenient == front || yaml.Unmarshal([]byte(lenient), &fm) != nil {
			return Definition{}, fmt.Errorf("team: %s: front matter is not valid YAML: %w", label, err)
		}
	}
	tools, err := toolNames(&fm.Tools)
	if err != nil {
		return Definition{}, fmt.Errorf("team: %s: front matter: %w", label, err)
	}
	d := Definition{
		Name: cmp.Or(strings.TrimSpace(fm.Name), name),
		// The files Claude Code's /agents writes keep a description on one
		// line, its line breaks written as \n.
		Description: strings.TrimSpace(strings.ReplaceAll(fm.Description, `\n`, "\n")),
		Tools:       tools,
		Model:       strings.TrimSpace(fm.Model),
		Prompt:      strings.TrimSpace(body),
	}
	if strings.EqualFold(d.Model, "inherit") {
		d.Model = ""
	}
	switch {
	case d.Name == "":
		return Definition{}, fmt.Errorf("team: %s: no name", label)
	case strings.ContainsFunc(d.Name, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		// The Task tool's subagent_type is one word; the list in its
		// description is one entry per agent.
		return Definition{}, fmt.Errorf("team: %s: name %q has a space or control character", label, d.Name)
	case d.Description == "":
		return Definition{}, fmt.Errorf("team: %s: agent %q has no description (the front matter's description says when to use it)", label, d.Name)
	}
	return d, nil
}

// splitFrontMatter cuts text into its front matter, between a first line
// "---" and the next, and the body after it.
func splitFrontMatter(text string) (front, body string, err error) {
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", "", errors.New(`no front matter: the file must begin with a line "---", then name, description and the other fields in YAML, then "---"`)
	}
	for off := 0; ; {
		line, next := rest[off:], len(rest)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		if strings.TrimRight(line, " \t") == "---" {
			return rest[:off], rest[next:], nil
		}
		if next == len(rest) {
			return "", "", errors.New(`front matter not closed: no line "---" after it`)
		}
		off = next
	}
}

// keyLine is a top-level "key: value" line of the front matter.
var keyLine = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*):[ \t]+(\S.*)$`)

// quotePlainValues returns front with the plain (unquoted) one-line values
// that YAML rejects, those holding ": " or ending in ":", and those
// starting with a reserved indicator, written as double-quoted strings. A
// value continued on the next (indented) line is left alone.
func quotePlainValues(front string) string {
	lines := strings.Split(front, "\n")
	for i, l := range lines {
		m := keyLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		v := strings.TrimRight(m[2], " \t")
		if strings.ContainsRune(`"'[{|>&*!#-`, rune(v[0])) {
			continue // quoted, a flow or block value, or not a simple scalar
		}
		if !strings.Contains(v, ": ") && !strings.HasSuffix(v, ":") && v[0] != '@' && v[0] != '`' && v[0] != '%' {
			continue
		}
		if i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" && strings.IndexAny(lines[i+1], " \t") == 0 {
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b) // a JSON string is a YAML double-quoted one
		enc.SetEscapeHTML(false)
		_ = enc.Encode(v) // a string always encodes
		lines[i] = m[1] + ": " + strings.TrimSuffix(b.String(), "\n")
	}
	return strings.Join(lines, "\n")
}

// toolNames reads the tools field: a comma-separated string or a list of
// names. Absent, null, empty or naming "*", it means all tools (nil); an
// empty list means none.
func toolNames(n *yaml.Node) ([]string, error) {
	var names []string
	switch {
	case n.Kind == 0 || n.Tag == "!!null":
		return nil, nil
	case n.Kind == yaml.ScalarNode:
		if strings.TrimSpace(n.Value) == "" {
			return nil, nil
		}
		names = splitTools(n.Value)
	case n.Kind == yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return nil, fmt.Errorf("line %d: tools: each item must be a tool name", item.Line)
			}
			names = append(names, item.Value)
		}
	default:
		return nil, fmt.Errorf("line %d: tools: want a comma-separated string or a list of tool names", n.Line)
	}
	out := []string{} // not nil: an empty list means no tools
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "*" {
			return nil, nil
		}
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// splitTools splits a tools string at its commas, except those inside
// parentheses: "Bash(git diff:*), Read" names two tools.
func splitTools(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth = max(0, depth-1)
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// Describe returns the list of agent types for the Task tool's description,
// one entry per definition in the order given (Load's order is stable, so
// the tool's description stays byte-identical through a session):
//
//   - name: description (Tools: Read, Grep)
//
// A multi-line description keeps its line breaks.
func Describe(defs []Definition) string {
	var b strings.Builder
	for i, d := range defs {
		if i > 0 {
			b.WriteByte('\n')
		}
		tools := strings.Join(d.Tools, ", ")
		switch {
		case d.Tools == nil && d.ReadOnly:
			tools = "All read-only tools"
		case d.Tools == nil:
			tools = "All tools"
		case len(d.Tools) == 0:
			tools = "None"
		}
		fmt.Fprintf(&b, "- %s: %s (Tools: %s)", d.Name, d.Description, tools)
	}
	return b.String()
}
