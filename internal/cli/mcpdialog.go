package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/tui"
)

// askMCPServers asks the person about the servers of the project's
// .mcp.json in the approval dialog, before the TUI starts (as the trust
// dialog does): nova.Open asks while the servers decided already start,
// and the TUI needs the session Open returns.
func askMCPServers(ios *iostreams.IOStreams) func(context.Context, []nova.MCPServerInfo) ([]string, error) {
	return func(ctx context.Context, infos []nova.MCPServerInfo) ([]string, error) {
		qs := make([]tui.MCPApproval, len(infos))
		for i, x := range infos {
			qs[i] = tui.MCPApproval(x)
		}
		approved, err := tui.AskMCPServers(ctx, qs, ios.In, ios.Out)
		if errors.Is(err, tui.ErrMCPNoAnswer) {
			return nil, fmt.Errorf("you did not say whether to start the MCP servers of %s, so nothing ran; run nova again to answer (or with --strict-mcp-config, which leaves .mcp.json out)", infos[0].File)
		}
		return approved, err
	}
}

// tuiMCPServers is the session's MCP servers for /mcp.
func tuiMCPServers(s *nova.Session) []tui.MCPServer {
	var out []tui.MCPServer
	for _, st := range s.MCPServers() {
		out = append(out, tui.MCPServer{Name: st.Name, Scope: st.Scope, Source: st.Source,
			Transport: st.Transport, Describe: st.Describe, State: st.State, Error: st.Error, Warning: st.Warning,
			Tools: st.ToolNames})
	}
	return out
}

// tuiMCPResources is what @ completes of the MCP servers.
func tuiMCPResources(ctx context.Context, s *nova.Session) ([]tui.MCPResource, error) {
	rs, err := s.MCPResources(ctx)
	out := make([]tui.MCPResource, len(rs))
	for i, r := range rs {
		out[i] = tui.MCPResource{Server: r.Server, URI: r.URI, Name: r.Name}
	}
	return out, err
}

// tuiMCPPrompts is what / completes of the MCP servers.
func tuiMCPPrompts(ctx context.Context, s *nova.Session) ([]tui.MCPPrompt, error) {
	ps, err := s.MCPPrompts(ctx)
	out := make([]tui.MCPPrompt, len(ps))
	for i, p := range ps {
		out[i] = tui.MCPPrompt{Name: p.Name, Usage: p.Usage(), Description: p.Description, Args: len(p.Arguments) > 0}
	}
	return out, err
}
