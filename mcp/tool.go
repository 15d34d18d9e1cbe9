package mcp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novacode/nova/tool"
)

// Tool is one tool of an MCP server as a NovaCode tool, named
// mcp__<server>__<tool>. Its schema is the server's input schema as the
// server sent it; ReadOnly is the server's readOnlyHint (an approved
// server is trusted to describe its tools); and without effects of its own
// a call of a tool that is not read-only runs alone (tool.Effects). A call
// waits for a server still starting, restarts one that exited (once), and
// whatever goes wrong comes back as an error result.
type Tool struct {
	m        *Manager
	srv      *server
	name     string
	remote   string
	desc     string
	schema   json.RawMessage
	readOnly bool
}

var _ tool.Tool = (*Tool)(nil)

func (m *Manager) newTool(srv *server, t *sdk.Tool) *Tool {
	x := &Tool{m: m, srv: srv, name: ToolName(srv.Name, t.Name), remote: t.Name, desc: t.Description}
	if t.Annotations != nil {
		x.readOnly = t.Annotations.ReadOnlyHint
	}
	if x.desc == "" && t.Title != "" {
		x.desc = t.Title
	}
	if x.desc == "" {
		x.desc = fmt.Sprintf("Tool %s of the MCP server %s.", t.Name, srv.Name)
	}
	x.schema = json.RawMessage(`{"type":"object","properties":{}}`)
	if t.InputSchema != nil {
		if b, err := json.Marshal(t.InputSchema); err == nil && bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
			x.schema = b
		}
	}
	return x
}

func (t *Tool) Name() string            { return t.name }
func (t *Tool) Description() string     { return t.desc }
func (t *Tool) Schema() json.RawMessage { return t.schema }
func (t *Tool) ReadOnly() bool          { return t.readOnly }

// Server is the name of the tool's server.
func (t *Tool) Server() string { return t.srv.Name }

// Remote is the tool's name on its server.
func (t *Tool) Remote() string { return t.remote }

// Run calls the tool on its server.
func (t *Tool) Run(ctx context.Context, _ *tool.Env, input json.RawMessage) (tool.Result, error) {
	return t.m.call(ctx, t, input)
}

// convert turns a tool's result into text: text as it is, images and
// other binary content saved to a file the text names, resource links as
// their name and URI, structured content as compact JSON after the rest
// (unless a text part already says exactly that).
func (m *Manager) convert(t *Tool, r *sdk.CallToolResult) tool.Result {
	var parts []string
	for _, c := range r.Content {
		parts = append(parts, m.contentText(t.name, c))
	}
	if r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil && !saysJSON(parts, b) {
			parts = append(parts, string(b))
		}
	}
	out := strings.Join(parts, "\n")
	if strings.TrimSpace(out) == "" {
		out = "(the tool returned no content)"
	}
	return tool.Result{Content: out, IsError: r.IsError}
}

// saysJSON reports whether one of parts is the JSON value b.
func saysJSON(parts []string, b []byte) bool {
	for _, p := range parts {
		var c bytes.Buffer
		if json.Compact(&c, []byte(p)) != nil {
			continue
		}
		var x, y any
		if json.Unmarshal(c.Bytes(), &x) == nil && json.Unmarshal(b, &y) == nil {
			xb, _ := json.Marshal(x)
			yb, _ := json.Marshal(y)
			if bytes.Equal(xb, yb) {
				return true
			}
		}
	}
	return false
}

func describeLink(l *sdk.ResourceLink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[resource link: %s", l.URI)
	if name := cmp.Or(l.Title, l.Name); name != "" {
		fmt.Fprintf(&b, " (%s)", name)
	}
	if l.MIMEType != "" {
		fmt.Fprintf(&b, ", %s", l.MIMEType)
	}
	if l.Description != "" {
		fmt.Fprintf(&b, ": %s", l.Description)
	}
	b.WriteString("]")
	return b.String()
}

func (m *Manager) embedded(what string, r *sdk.ResourceContents) string {
	if r == nil {
		return "[embedded resource without contents]"
	}
	if r.Blob != nil || r.Text == "" && r.MIMEType != "" && !strings.HasPrefix(r.MIMEType, "text/") {
		return fmt.Sprintf("[resource %s] %s", r.URI, m.saveBinary(what, "resource", r.MIMEType, r.Blob))
	}
	head := "[resource " + r.URI
	if r.MIMEType != "" {
		head += ", " + r.MIMEType
	}
	return head + "]\n" + r.Text
}

// saveBinary writes data to the spill directory and describes it: the
// tool results NovaCode keeps are text, so the model learns what came and
// where it is. what (the tool or prompt it came from) names the file.
func (m *Manager) saveBinary(what, kind, mimeType string, data []byte) string {
	desc := fmt.Sprintf("[%s: %s, %s", kind, cmp.Or(mimeType, "unknown type"), size(len(data)))
	dir := m.o.SpillDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "nova-mcp")
	}
	m.mu.Lock()
	m.saved++
	n := m.saved
	m.mu.Unlock()
	ext := ".bin"
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		ext = exts[0]
	}
	switch mimeType {
	case "image/png":
		ext = ".png"
	case "image/jpeg":
		ext = ".jpg"
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d%s", what, n, ext))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return desc + fmt.Sprintf(", not saved: %v]", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return desc + fmt.Sprintf(", not saved: %v]", err)
	}
	return desc + ", saved to " + path + "]"
}

func size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d bytes", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f kB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
