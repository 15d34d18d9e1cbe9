package nova

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/tool"
)

// MCPResource is a resource one of the session's MCP servers lists. A
// prompt attaches it by mentioning it: @server:uri (Mention).
type MCPResource struct {
	Server, URI string
	// Name is the server's name for it (its title when it has one).
	Name        string
	Description string
	MIMEType    string
}

// Mention is how a prompt attaches r: "@server:uri".
func (r MCPResource) Mention() string { return "@" + r.Server + ":" + r.URI }

// MCPPrompt is a prompt one of the session's MCP servers offers: a prompt
// text that begins with "/" + Name runs it (Send), its words after the
// command being the arguments, in order.
type MCPPrompt struct {
	// Name is the slash command without the slash: mcp__<server>__<prompt>.
	Name string
	// Server is the server, Prompt the prompt's name on it.
	Server, Prompt string
	Description    string
	Arguments      []MCPPromptArgument
}

// MCPPromptArgument is one argument of an MCPPrompt.
type MCPPromptArgument struct {
	Name, Description string
	Required          bool
}

// Usage is the prompt's command line: /name ARG [OPTIONAL].
func (p MCPPrompt) Usage() string {
	var b strings.Builder
	b.WriteString("/" + p.Name)
	for _, a := range p.Arguments {
		if a.Required {
			b.WriteString(" " + strings.ToUpper(a.Name))
		} else {
			b.WriteString(" [" + strings.ToUpper(a.Name) + "]")
		}
	}
	return b.String()
}

// MCPResources lists the resources of the session's MCP servers that are
// running or starting (it waits for those, each at most its start
// timeout, or until ctx ends). What one server could not list is in the
// error, joined with the others'; the resources of the rest are returned
// all the same.
func (s *Session) MCPResources(ctx context.Context) ([]MCPResource, error) {
	return perServer(s, func(name string) ([]MCPResource, error) {
		rs, err := s.mcp.mgr.Resources(ctx, name)
		var out []MCPResource
		for _, r := range rs {
			out = append(out, MCPResource{Server: r.Server, URI: r.URI, Name: cmp.Or(r.Title, r.Name), Description: r.Description, MIMEType: r.MIMEType})
		}
		return out, err
	})
}

// MCPPrompts lists the prompts of the session's MCP servers that are
// running or starting, as MCPResources lists resources.
func (s *Session) MCPPrompts(ctx context.Context) ([]MCPPrompt, error) {
	return perServer(s, func(name string) ([]MCPPrompt, error) {
		ps, err := s.mcp.mgr.Prompts(ctx, name)
		var out []MCPPrompt
		for _, p := range ps {
			out = append(out, mcpPrompt(p))
		}
		return out, err
	})
}

func mcpPrompt(p mcp.Prompt) MCPPrompt {
	x := MCPPrompt{Name: p.Command, Server: p.Server, Prompt: p.Name, Description: cmp.Or(p.Description, p.Title)}
	for _, a := range p.Arguments {
		x.Arguments = append(x.Arguments, MCPPromptArgument(a))
	}
	return x
}

// perServer runs list for every server that is running or starting, at
// once, and gathers the results in the servers' order.
func perServer[T any](s *Session, list func(server string) ([]T, error)) ([]T, error) {
	if s.mcp == nil {
		return nil, nil
	}
	var names []string
	for _, st := range s.mcp.mgr.Servers() {
		if st.State == mcp.StateConnected || st.State == mcp.StateConnecting {
			names = append(names, st.Name)
		}
	}
	results := make([][]T, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { results[i], errs[i] = list(n) })
	}
	wg.Wait()
	var out []T
	for _, r := range results {
		out = append(out, r...)
	}
	return out, errors.Join(errs...)
}

// mcpInput is what a prompt becomes through the MCP servers: a prompt
// that begins with /mcp__<server>__<prompt> is that prompt, filled in by
// its server (an error, and nothing is sent, when that fails), and each
// @server:uri it mentions attaches that resource's contents, in blocks
// after the prompt's. A mention that cannot be attached is a warning, and
// the prompt goes without it.
type mcpInput struct {
	text     string
	attached []llm.Block
	warnings []string
}

func (s *Session) prepareMCP(ctx context.Context, prompt string) (mcpInput, error) {
	in := mcpInput{text: prompt}
	if cmd, args, ok := promptCommand(prompt); ok {
		text, err := s.runPromptCommand(ctx, cmd, args)
		if err != nil {
			return in, err
		}
		in.text = text
	}
	in.attached, in.warnings = s.attachMentions(ctx, prompt)
	return in, ctx.Err()
}

// promptCommand splits a prompt that begins with an MCP prompt command
// into the command (without its slash) and the text of its arguments.
func promptCommand(prompt string) (cmd, args string, ok bool) {
	p := strings.TrimLeft(prompt, " \t\r\n")
	if !strings.HasPrefix(p, "/mcp__") {
		return "", "", false
	}
	cmd, args, _ = strings.Cut(p[1:], " ")
	if i := strings.IndexAny(cmd, "\t\r\n"); i >= 0 {
		cmd, args = cmd[:i], cmd[i:]+" "+args
	}
	return cmd, strings.TrimSpace(args), true
}

// runPromptCommand fills in the prompt cmd names with args: its messages'
// text, one after another, is the prompt.
func (s *Session) runPromptCommand(ctx context.Context, cmd, args string) (string, error) {
	var servers []string
	if s.mcp != nil {
		for _, st := range s.mcp.mgr.Servers() {
			servers = append(servers, st.Name)
		}
	}
	server := ""
	for _, n := range servers {
		if strings.HasPrefix(cmd, mcp.Prefix(n)) && len(n) > len(server) {
			server = n
		}
	}
	if server == "" {
		if len(servers) == 0 {
			return "", fmt.Errorf("/%s: this session has no MCP servers", cmd)
		}
		return "", fmt.Errorf("/%s: no MCP server of this session has that prefix (its servers: %s)", cmd, visibleList(servers))
	}
	prompts, err := s.mcp.mgr.Prompts(ctx, server)
	if err != nil {
		return "", fmt.Errorf("/%s: %w", cmd, err)
	}
	var p *MCPPrompt
	var names []string
	for _, x := range prompts {
		names = append(names, "/"+x.Command)
		if x.Command == cmd {
			y := mcpPrompt(x)
			p = &y
		}
	}
	if p == nil {
		if len(names) == 0 {
			return "", fmt.Errorf("/%s: MCP server %s offers no prompts", cmd, config.Visible(server))
		}
		return "", fmt.Errorf("/%s: MCP server %s has no such prompt (its prompts: %s)", cmd, config.Visible(server), strings.Join(names, ", "))
	}
	words, err := splitWords(args)
	if err != nil {
		return "", fmt.Errorf("/%s: %v", cmd, err)
	}
	if len(words) > len(p.Arguments) {
		if len(p.Arguments) == 0 {
			return "", fmt.Errorf("/%s takes no arguments", cmd)
		}
		return "", fmt.Errorf("/%s takes %d argument(s), not %d: %s (quote an argument that holds spaces)", cmd, len(p.Arguments), len(words), p.Usage())
	}
	values := map[string]string{}
	for i, a := range p.Arguments {
		if i < len(words) {
			values[a.Name] = words[i]
			continue
		}
		if a.Required {
			what := a.Name
			if a.Description != "" {
				what += " (" + a.Description + ")"
			}
			return "", fmt.Errorf("/%s needs the argument %s; nothing was sent. Usage: %s", cmd, what, p.Usage())
		}
	}
	msgs, err := s.mcp.mgr.GetPrompt(ctx, server, p.Prompt, values)
	if err != nil {
		return "", fmt.Errorf("/%s: %w", cmd, err)
	}
	var parts []string
	for _, m := range msgs {
		if t := strings.TrimSpace(m.Text); t != "" {
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("/%s: MCP server %s returned an empty prompt", cmd, config.Visible(server))
	}
	return strings.Join(parts, "\n\n"), nil
}

func visibleList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = config.Visible(n)
	}
	return strings.Join(out, ", ")
}

// splitWords splits s like a shell line: words apart by white space,
// 'single' and "double" quotes (in which a backslash escapes " and \)
// keep spaces, and a backslash outside quotes escapes the next character.
func splitWords(s string) ([]string, error) {
	var out []string
	var b strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			if quote == '"' && r != '"' && r != '\\' {
				b.WriteRune('\\')
			}
			b.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				b.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				out = append(out, b.String())
				b.Reset()
				inWord = false
			}
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("a %c quote is not closed", quote)
	}
	if escaped {
		b.WriteRune('\\')
	}
	if inWord {
		out = append(out, b.String())
	}
	return out, nil
}

// mention is @server:uri where it starts a word (or follows "("); the URI
// runs to the next white space.
var mention = regexp.MustCompile(`(?:^|[\s(])@([^\s:@/"'()]+):(\S+)`)

// schemeURI is a URI with a scheme and an authority, scheme://…, which a
// mention of an unknown server must have to be taken for one.
var schemeURI = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// maxAttached bounds one text attachment, as a tool result is bounded;
// the whole is saved beside the session when it is longer.
const maxAttached = 40_000

// attachMentions reads the resources prompt mentions (@server:uri) and
// returns them as blocks for the prompt's message, and what could not be
// attached. A mention of a name that is no MCP server of the session is
// left alone (it may be a file, @src/a.go:12), and is a warning only when
// it looks like one (@name:scheme://…).
func (s *Session) attachMentions(ctx context.Context, prompt string) ([]llm.Block, []string) {
	var servers []string
	if s.mcp != nil {
		for _, st := range s.mcp.mgr.Servers() {
			servers = append(servers, st.Name)
		}
	}
	var blocks []llm.Block
	var warnings []string
	seen := map[string]bool{}
	for _, m := range mention.FindAllStringSubmatch(prompt, -1) {
		server, uri := m[1], strings.TrimRight(m[2], `.,;!?)]}"'`)
		at := "@" + server + ":" + uri
		if uri == "" || seen[at] {
			continue
		}
		seen[at] = true
		if !slices.Contains(servers, server) {
			if schemeURI.MatchString(uri) {
				known := "this session has no MCP servers"
				if len(servers) > 0 {
					known = "its servers: " + visibleList(servers)
				}
				warnings = append(warnings, fmt.Sprintf("%s names no MCP server of this session (%s); the prompt was sent with the mention as written and nothing attached", config.Visible(at), known))
			}
			continue
		}
		contents, err := s.mcp.mgr.ReadResource(ctx, server, uri)
		if ctx.Err() != nil {
			return nil, nil
		}
		if err == nil && len(contents) == 0 {
			err = errors.New("the server returned no contents")
		}
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("could not attach %s: %v; the prompt was sent without it", config.Visible(at), err))
			continue
		}
		for _, c := range contents {
			blocks = append(blocks, llm.Block{Type: llm.BlockText, Text: s.attachment(at, server, c)})
		}
	}
	return blocks, warnings
}

// attachment is one part of a resource as the text of a block of the
// prompt's message, inside a <system-reminder> (as the memory files are:
// it is not what the person typed, and a resumed session's prompts leave
// it out), labelled with its URI; binary contents are saved beside the
// session and named.
func (s *Session) attachment(at, server string, c mcp.Contents) string {
	var b strings.Builder
	b.WriteString("<system-reminder>\n")
	fmt.Fprintf(&b, "The user attached %s.\n", at)
	kind := cmp.Or(c.MIMEType, "unknown type")
	fmt.Fprintf(&b, "--- %s (%s, MCP resource of %s) ---\n", c.URI, kind, server)
	switch {
	case c.Blob != nil:
		path, err := s.saveResource(server, c.MIMEType, c.Blob)
		if err != nil {
			fmt.Fprintf(&b, "[binary contents, %d bytes, not saved: %v]", len(c.Blob), err)
		} else {
			fmt.Fprintf(&b, "[binary contents, %d bytes, saved to %s]", len(c.Blob), path)
		}
	case len(c.Text) > maxAttached:
		b.WriteString(tool.Truncate(c.Text, maxAttached))
		if path, err := s.saveResource(server, "text/plain", []byte(c.Text)); err == nil {
			fmt.Fprintf(&b, "\n[the whole resource, %d characters, is saved to %s]", len(c.Text), path)
		}
	default:
		b.WriteString(c.Text)
	}
	if !strings.HasSuffix(b.String(), "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("</system-reminder>")
	return b.String()
}

// saveResource writes the contents of a resource to the session's
// mcp-resources directory.
func (s *Session) saveResource(server, mimeType string, data []byte) (string, error) {
	dir := filepath.Join(s.sideDir(), "mcp-resources")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	ext := ".bin"
	switch mimeType {
	case "image/png":
		ext = ".png"
	case "image/jpeg":
		ext = ".jpg"
	case "text/plain":
		ext = ".txt"
	default:
		if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
			ext = exts[0]
		}
	}
	s.mu.Lock()
	s.savedResources++
	n := s.savedResources
	s.mu.Unlock()
	path := filepath.Join(dir, fmt.Sprintf("%s-%d%s", strings.TrimSuffix(strings.TrimPrefix(mcp.Prefix(server), "mcp__"), "__"), n, ext))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return "", err
	}
	return path, nil
}
