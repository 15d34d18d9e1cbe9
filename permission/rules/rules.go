// Package rules parses and matches permission rules in the syntax users
// already know from Claude Code's settings and --allowedTools flags:
//
//	Bash                          every call of a tool
//	mcp__server, mcp__server__*   every tool of one MCP server
//	Bash(git status)              exactly that command (word for word)
//	Bash(npm run test:*)          commands whose words start with these words
//	Bash(npm run *)               the same, in the older space-star form
//	Read(./src/**)  Edit(/docs/**)  paths relative to the project root
//	Read(~/.ssh/**)               paths under the home directory
//	Edit(//etc/hosts)             an absolute path
//	Edit(*.env)  Read(src/)       a name at any depth under the project root
//	WebFetch(domain:example.org)  a host and its subdomains
//	Task(Explore)                 any other tool: an exact string
//
// A Rule only answers "does this rule match this input"; which list it sits
// in (allow, ask, deny) and what wins is the permission chain's business.
// A chain uses a rule in two steps: Covers(r.Tool, call tool) says whether
// the rule is about the call's tool at all, then the Kind says which matcher
// applies: KindTool matches the whole tool (MatchTool), KindCommand a Bash
// command's words (MatchCommand), KindPath a resolved path (MatchPath),
// KindDomain a host (MatchDomain), KindString a tool-provided string
// (MatchString). Every matcher answers false for a rule of another kind, so a
// forgotten kind check fails closed for allow rules; deny lists should still
// dispatch on Kind.
//
// Path rules follow .gitignore: a pattern with a slash at the start or in the
// middle is anchored (`/x` and `x/y` at the project root, as in Claude Code's
// settings; `//x` at the file system root; `~/x` at the home directory), one
// without is matched against every path component below the project root,
// a trailing slash is dropped, and a pattern that matches a directory
// matches everything under it. `..` may start a project-relative pattern.
// Patterns use doublestar syntax (`**`, `{a,b}`, `[ab]`, `\` escapes).
// Matching is case-sensitive unless Base.FoldCase is set.
//
// Matching is literal and word-level on purpose: the model reads untrusted
// text and may be talked into crafting commands and paths that a string-prefix
// rule would wave through (`Bash(git diff:*)` must not cover `git difftool`,
// `WebFetch(domain:example.org)` must not cover `evilexample.org`). Splitting a
// command line into words, and resolving symlinks and `..` in paths, happens
// before these matchers, in the shell analyser and the path resolver.
package rules

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind says what a rule's specifier constrains.
type Kind int

const (
	// KindTool is a bare tool name (or an MCP server wildcard): the whole tool.
	KindTool Kind = iota
	// KindCommand is a Bash rule with a command: Words, and Prefix for `:*`.
	KindCommand
	// KindPath is a file tool rule with a path pattern: Anchor and Pattern.
	KindPath
	// KindDomain is a WebFetch(domain:…) rule: Pattern is the host.
	KindDomain
	// KindString is any other Tool(specifier): Specifier is matched exactly.
	KindString
)

var kindNames = [...]string{"tool", "command", "path", "domain", "string"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Anchor says where a path rule's Pattern starts.
type Anchor int

const (
	// AnchorNone: not a path rule.
	AnchorNone Anchor = iota
	// AnchorProject: relative to Base.ProjectRoot (`/x`, `./x`, `x/y`, `../x`).
	AnchorProject
	// AnchorHome: relative to Base.Home (`~/x`).
	AnchorHome
	// AnchorRoot: an absolute path (`//x`).
	AnchorRoot
	// AnchorAnywhere: a pattern without a slash, matched against every path
	// component below the project root, as in .gitignore (`*.env`, `src/`).
	AnchorAnywhere
)

// Source says where a rule came from, for error messages and for telling a
// person which rule decided.
type Source struct {
	// File is a settings file path, or a flag name such as "--allowedTools".
	File string
	// Line and Col are 1-based; for a flag, Line is the flag occurrence and
	// Col the byte offset of the rule in its value. Zero when unknown.
	Line, Col int
}

func (s Source) String() string {
	if s.Line <= 0 {
		return s.File
	}
	return fmt.Sprintf("%s:%d:%d", s.File, s.Line, s.Col)
}

// Rule is one parsed permission rule. Two rules that Parse made from texts
// meaning the same thing are equal except for Source.
type Rule struct {
	// Tool is the tool name the rule is about ("Bash", "Read",
	// "mcp__server" for a whole MCP server).
	Tool string
	// Specifier is the canonical text between the parentheses, "" for a bare
	// rule.
	Specifier string
	Kind      Kind
	// Words are the command words of a KindCommand rule (quotes removed).
	Words []string
	// Prefix: a KindCommand rule matches commands that start with Words.
	Prefix bool
	// Pattern is a KindPath rule's doublestar pattern relative to Anchor
	// ("" for the anchor directory itself), or a KindDomain rule's host in
	// lower case.
	Pattern string
	// Anchor is where a KindPath rule's Pattern starts.
	Anchor Anchor
	Source Source
}

// ParseError is a rule that could not be parsed, with where it was written.
type ParseError struct {
	Source Source
	// Rule is the text as written ("" when the problem is not a rule, such
	// as a number in the allow list).
	Rule string
	Err  error
}

func (e ParseError) Error() string {
	var b strings.Builder
	if loc := e.Source.String(); loc != "" {
		b.WriteString(loc)
		b.WriteString(": ")
	}
	if e.Rule != "" {
		b.WriteString("rule ")
		b.WriteString(strconv.Quote(e.Rule))
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("invalid rule")
	}
	return b.String()
}

func (e ParseError) Unwrap() error { return e.Err }

// Tool groups. Read rules cover every tool that only reads files, Edit rules
// every tool that writes them, as Claude Code applies them.
var (
	readTools    = []string{"Read", "Glob", "Grep", "LS", "NotebookRead"}
	editTools    = []string{"Edit", "Write", "MultiEdit", "NotebookEdit"}
	commandTools = []string{"Bash"}
	// knownTools are the names whose specifiers mean something special, or
	// that take none; a differently-cased spelling of one is an error, since
	// a rule that silently never matches is worst in a deny list.
	knownTools = []string{"Bash", "Read", "Glob", "Grep", "LS", "NotebookRead",
		"Edit", "Write", "MultiEdit", "NotebookEdit", "WebFetch", "WebSearch",
		"Task", "TodoWrite"}
)

func isPathTool(t string) bool    { return IsReadTool(t) || IsEditTool(t) }
func isCommandTool(t string) bool { return slices.Contains(commandTools, t) }

// IsReadTool reports whether tool only reads files (Read rules cover it).
func IsReadTool(tool string) bool { return slices.Contains(readTools, tool) }

// IsEditTool reports whether tool writes files (Edit rules cover it).
func IsEditTool(tool string) bool { return slices.Contains(editTools, tool) }

// Covers reports whether a rule written for ruleTool applies to a call of
// callTool: the same tool; Read for every read tool (Read, Glob, Grep, LS,
// NotebookRead); Edit for every edit tool (Edit, Write, MultiEdit,
// NotebookEdit); an MCP server name (mcp__server) for each of its tools.
func Covers(ruleTool, callTool string) bool {
	switch {
	case ruleTool == "" || callTool == "":
		return false
	case ruleTool == callTool:
		return true
	case ruleTool == "Read":
		return IsReadTool(callTool)
	case ruleTool == "Edit":
		return IsEditTool(callTool)
	case isMCPServer(ruleTool):
		return strings.HasPrefix(callTool, ruleTool+"__") && len(callTool) > len(ruleTool)+2
	}
	return false
}

// isMCPServer reports whether name names a whole MCP server (mcp__server,
// with no tool part).
func isMCPServer(name string) bool {
	rest, ok := strings.CutPrefix(name, "mcp__")
	return ok && rest != "" && !strings.Contains(rest, "__")
}

// Parse parses one rule. Errors are ParseError values whose message says what
// is wrong and how to write it.
func Parse(s string) (Rule, error) {
	r, err := parse(s)
	if err != nil {
		return Rule{}, ParseError{Rule: s, Err: err}
	}
	return r, nil
}

func parse(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, errors.New("empty rule: write a tool name such as Bash or Read(./src/**)")
	}
	name, spec, hasSpec, err := splitRule(s)
	if err != nil {
		return Rule{}, err
	}
	tool, err := parseToolName(name, hasSpec)
	if err != nil {
		return Rule{}, err
	}
	spec = strings.TrimSpace(spec)
	// Tool(), Tool(*) and Tool(:*) all mean the whole tool.
	if !hasSpec || spec == "" || spec == "*" || spec == ":*" {
		return Rule{Tool: tool, Kind: KindTool}, nil
	}
	if isMCPServer(tool) {
		return Rule{}, fmt.Errorf("%s names a whole MCP server and takes no specifier; name one tool, as in %s__tool(%s)", tool, tool, spec)
	}
	if kw, _, ok := strings.Cut(spec, ":"); ok && kw == "domain" && (isCommandTool(tool) || isPathTool(tool)) {
		return Rule{}, fmt.Errorf("unknown specifier `domain:` for %s: domain rules are for WebFetch, as in WebFetch(domain:example.org)%s", tool, specHint(tool))
	}
	switch {
	case isCommandTool(tool):
		return parseCommand(tool, spec)
	case isPathTool(tool):
		return parsePath(tool, spec)
	case tool == "WebFetch":
		return parseDomain(tool, spec)
	case tool == "WebSearch":
		return Rule{}, errors.New("WebSearch takes no specifier: write WebSearch")
	}
	return Rule{Tool: tool, Specifier: spec, Kind: KindString}, nil
}

// specHint says what tool's rules normally look like, for error messages.
func specHint(tool string) string {
	switch {
	case isCommandTool(tool):
		return "; " + tool + " takes a command, as in " + tool + "(git status) or " + tool + "(npm run test:*)"
	case isPathTool(tool):
		return "; " + tool + " takes a path pattern, as in " + tool + "(./src/**)"
	}
	return ""
}

// splitRule splits "Tool(spec)" into its parts. The specifier runs from the
// first "(" to the last character, which must be ")", so specifiers may hold
// parentheses of their own (Bash(python -c 'print(1)')).
func splitRule(s string) (name, spec string, hasSpec bool, err error) {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.HasSuffix(s, ")") {
			return "", "", false, fmt.Errorf("`)` without `(`: write Tool(specifier), as in Bash(git status)")
		}
		return s, "", false, nil
	}
	name = s[:open]
	if strings.TrimRight(name, " \t") != name {
		return "", "", false, fmt.Errorf("space between the tool name and `(`: write %s(…)", strings.TrimSpace(name))
	}
	if name == "" {
		return "", "", false, errors.New("empty tool name: write Tool(specifier), as in Bash(git status)")
	}
	last := strings.LastIndexByte(s, ')')
	if last < open {
		return "", "", false, fmt.Errorf("%s(… needs a closing parenthesis: write %s(%s)", name, name, s[open+1:])
	}
	if last != len(s)-1 {
		return "", "", false, fmt.Errorf("unexpected text %q after the closing parenthesis", s[last+1:])
	}
	return name, s[open+1 : last], true, nil
}

func parseToolName(name string, hasSpec bool) (string, error) {
	if name == "*" {
		return "", errors.New("`*` is not a tool name: list the tools, or use a permission mode to allow everything")
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.'
		if ok {
			continue
		}
		if c == '*' && i == len(name)-1 && strings.HasPrefix(name, "mcp__") {
			continue // mcp__server__* is handled below
		}
		if c == ' ' || c == '\t' {
			return "", fmt.Errorf("space in tool name %q: separate rules with commas, and put arguments in parentheses, as in Bash(git status)", name)
		}
		return "", fmt.Errorf("invalid character %q in tool name %q: tool names are letters, digits, `_`, `-` and `.`", c, name)
	}
	for _, k := range knownTools {
		if name != k && strings.EqualFold(name, k) {
			return "", fmt.Errorf("unknown tool %q: tool names are case-sensitive; did you mean %s?", name, k)
		}
	}
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if base, ok := strings.CutSuffix(rest, "__*"); ok {
			if base == "" || strings.Contains(base, "__") {
				return "", fmt.Errorf("%q: write mcp__server__* (or mcp__server) for every tool of one MCP server", name)
			}
			if hasSpec {
				return "", fmt.Errorf("%s names every tool of an MCP server and takes no specifier", name)
			}
			return "mcp__" + base, nil
		}
		if strings.Contains(rest, "*") {
			return "", fmt.Errorf("%q: `*` is only allowed as the whole tool part, as in mcp__server__*", name)
		}
		server, tool, hasTool := strings.Cut(rest, "__")
		switch {
		case server == "":
			return "", fmt.Errorf("empty MCP server name in %q: write mcp__server or mcp__server__tool", name)
		case hasTool && tool == "":
			return "", fmt.Errorf("empty MCP tool name in %q: write mcp__%s for the whole server or mcp__%s__tool", name, server, server)
		}
	}
	return name, nil
}

// String returns the canonical text of the rule; Parse(r.String()) returns r
// again (without Source).
func (r Rule) String() string {
	if r.Kind == KindTool || r.Specifier == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Specifier + ")"
}

// MatchTool reports whether a bare rule (or an MCP server rule) matches a
// call of tool. Rules with a specifier never match here: they constrain the
// call's input, see the other Match methods.
func (r Rule) MatchTool(tool string) bool {
	return r.Kind == KindTool && Covers(r.Tool, tool)
}

// MatchString reports whether a KindString rule's specifier equals s, the
// string the tool offers for matching (for Task, the agent type).
func (r Rule) MatchString(s string) bool {
	return r.Kind == KindString && r.Specifier == s
}
