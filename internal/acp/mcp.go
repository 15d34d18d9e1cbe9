package acp

import (
	"fmt"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/novacode/nova/mcp"
)

// mcpServers are the editor's MCP servers in nova's configuration, by
// name: they start with the session without asking, as the servers of
// --mcp-config do (the person configured them in their editor). skipped
// says what was left out and why.
func mcpServers(servers []acpsdk.McpServer) (out map[string]mcp.ServerConfig, skipped []string) {
	out = map[string]mcp.ServerConfig{}
	headers := func(hs []acpsdk.HttpHeader) map[string]string {
		if len(hs) == 0 {
			return nil
		}
		m := make(map[string]string, len(hs))
		for _, h := range hs {
			m[h.Name] = h.Value
		}
		return m
	}
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			c := mcp.ServerConfig{Type: mcp.TypeStdio, Command: s.Stdio.Command, Args: s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				c.Env = make(map[string]string, len(s.Stdio.Env))
				for _, e := range s.Stdio.Env {
					c.Env[e.Name] = e.Value
				}
			}
			out[s.Stdio.Name] = c
		case s.Http != nil:
			out[s.Http.Name] = mcp.ServerConfig{Type: mcp.TypeHTTP, URL: s.Http.Url, Headers: headers(s.Http.Headers)}
		case s.Sse != nil:
			out[s.Sse.Name] = mcp.ServerConfig{Type: mcp.TypeSSE, URL: s.Sse.Url, Headers: headers(s.Sse.Headers)}
		case s.Acp != nil:
			skipped = append(skipped, fmt.Sprintf("the editor's MCP server %s is reached over ACP, which nova does not offer; it was left out", s.Acp.Name))
		}
	}
	return out, skipped
}
