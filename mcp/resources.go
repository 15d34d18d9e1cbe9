package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource is a resource a server lists (resources/list).
type Resource struct {
	Server string
	URI    string
	// Name is the server's name for it, Title its display name (may be
	// empty).
	Name, Title string
	Description string
	MIMEType    string
}

// Contents is one part of a resource read (resources/read): text, or
// binary contents in Blob.
type Contents struct {
	URI, MIMEType string
	Text          string
	// Blob holds binary contents; nil for text.
	Blob []byte
}

// Prompt is a prompt template a server offers (prompts/list).
type Prompt struct {
	Server string
	// Name is the prompt's name on the server; Command is the slash
	// command that runs it, mcp__<server>__<prompt> (see PromptCommand).
	Name, Command string
	Title         string
	Description   string
	Arguments     []PromptArgument
}

// PromptArgument is one argument a prompt declares, in the server's order.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// PromptMessage is one message of a prompt the server filled in
// (prompts/get), its content as text: images and other binary content are
// saved to the spill directory and named, as in tool results.
type PromptMessage struct {
	Role string // "user" or "assistant"
	Text string
}

// PromptCommand is the slash command (without the slash) that runs a
// server's prompt: mcp__<server>__<prompt>, every character outside
// [A-Za-z0-9_-] replaced by "_", as in tool names.
func PromptCommand(server, prompt string) string { return Prefix(server) + sanitize(prompt) }

// ErrNoServer is the error of a server's resources and prompts when the
// Manager has no server of that name.
var ErrNoServer = errors.New("no such MCP server")

// serverFor is the server named name, or ErrNoServer.
func (m *Manager) serverFor(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoServer, name)
	}
	return s, nil
}

// connected returns the session of the server named name for a request of
// its resources or prompts: it waits while the server starts and restarts
// it once if it exited, as a tool call does. offers reports whether the
// server declared the capability; false means it has none of them.
func (m *Manager) connected(ctx context.Context, name string, offers func(*sdk.ServerCapabilities) bool) (*sdk.ClientSession, bool, error) {
	srv, err := m.serverFor(name)
	if err != nil {
		return nil, false, err
	}
	cs, _, err := m.session(ctx, srv)
	if err != nil {
		return nil, false, err
	}
	r := cs.InitializeResult()
	if r == nil || r.Capabilities == nil || !offers(r.Capabilities) {
		return cs, false, nil
	}
	return cs, true, nil
}

// Resources lists the resources of the server named name, every page.
// It waits for a server still starting (at most Timeouts.Start from its
// start), and a server that offers no resources has none.
func (m *Manager) Resources(ctx context.Context, name string) ([]Resource, error) {
	cs, ok, err := m.connected(ctx, name, func(c *sdk.ServerCapabilities) bool { return c.Resources != nil })
	if err != nil || !ok {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.o.Timeouts.Start)
	defer cancel()
	var out []Resource
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("MCP server %s did not list its resources: %w", name, err)
		}
		out = append(out, Resource{Server: name, URI: r.URI, Name: r.Name, Title: r.Title,
			Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// ReadResource reads the resource uri of the server named name. It waits
// for a server still starting, as Resources does; a call takes at most
// Timeouts.Call.
func (m *Manager) ReadResource(ctx context.Context, name, uri string) ([]Contents, error) {
	cs, ok, err := m.connected(ctx, name, func(c *sdk.ServerCapabilities) bool { return c.Resources != nil })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("MCP server %s offers no resources", name)
	}
	ctx, cancel := context.WithTimeout(ctx, m.o.Timeouts.Call)
	defer cancel()
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s could not read %s: %w", name, uri, err)
	}
	var out []Contents
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		out = append(out, Contents{URI: cmp.Or(c.URI, uri), MIMEType: c.MIMEType, Text: c.Text, Blob: c.Blob})
	}
	return out, nil
}

// Prompts lists the prompts of the server named name, every page. It
// waits for a server still starting, as Resources does; a server that
// offers no prompts has none.
func (m *Manager) Prompts(ctx context.Context, name string) ([]Prompt, error) {
	cs, ok, err := m.connected(ctx, name, func(c *sdk.ServerCapabilities) bool { return c.Prompts != nil })
	if err != nil || !ok {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, m.o.Timeouts.Start)
	defer cancel()
	var out []Prompt
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("MCP server %s did not list its prompts: %w", name, err)
		}
		x := Prompt{Server: name, Name: p.Name, Command: PromptCommand(name, p.Name), Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				x.Arguments = append(x.Arguments, PromptArgument{Name: a.Name, Description: cmp.Or(a.Description, a.Title), Required: a.Required})
			}
		}
		out = append(out, x)
	}
	return out, nil
}

// GetPrompt fills in the prompt of the server named name with args
// (prompts/get) and returns its messages. It waits for a server still
// starting, as Resources does; a call takes at most Timeouts.Call.
func (m *Manager) GetPrompt(ctx context.Context, name, prompt string, args map[string]string) ([]PromptMessage, error) {
	cs, ok, err := m.connected(ctx, name, func(c *sdk.ServerCapabilities) bool { return c.Prompts != nil })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("MCP server %s offers no prompts", name)
	}
	ctx, cancel := context.WithTimeout(ctx, m.o.Timeouts.Call)
	defer cancel()
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: prompt, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("MCP server %s could not fill in its prompt %s: %w", name, prompt, err)
	}
	var out []PromptMessage
	for _, msg := range res.Messages {
		if msg == nil || msg.Content == nil {
			continue
		}
		out = append(out, PromptMessage{Role: string(msg.Role), Text: m.contentText(PromptCommand(name, prompt), msg.Content)})
	}
	return out, nil
}

// contentText is one content item of a tool result or prompt message as
// text; what, the tool or prompt, names the files binary content is saved
// to.
func (m *Manager) contentText(what string, c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return m.saveBinary(what, "image", c.MIMEType, c.Data)
	case *sdk.AudioContent:
		return m.saveBinary(what, "audio", c.MIMEType, c.Data)
	case *sdk.ResourceLink:
		return describeLink(c)
	case *sdk.EmbeddedResource:
		return m.embedded(what, c.Resource)
	}
	b, _ := json.Marshal(c)
	return string(b)
}
