package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/novacode/nova/tool"
)

// Pending returns the tool called name of a server that has not connected
// yet, for a call made by name before its tools are known (the model read
// the name in an earlier session, or in the prompt): a tool.Pending that
// waits for the server's start (bounded by Timeouts.Start) and resolves to
// the server's tool of that name, or says why there is none — the server
// has no such tool, did not start, or was not started. A connected server's
// tool is returned as it is. ok is false when no server's tools are named
// like name, or when a server that has connected has no tool of that name.
// hidden, if set, names tools that are not to be offered (bare deny rules):
// the answer leaves them out of what it says the server has.
func (m *Manager) Pending(name string, hidden func(name string) bool) (t tool.Tool, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range m.order {
		s := m.servers[n]
		if !strings.HasPrefix(name, Prefix(s.Name)) {
			continue
		}
		if x := s.tool(name); x != nil {
			return x, true
		}
		if s.connected {
			return nil, false // its tools are known: it has none of that name
		}
		return &pendingTool{m: m, srv: s, name: name, hidden: hidden}, true
	}
	return nil, false
}

// tool returns the server's tool called name; m.mu is held.
func (s *server) tool(name string) *Tool {
	for _, t := range s.tools {
		if t.name == name {
			return t
		}
	}
	return nil
}

// pendingTool is a tool of a server that has not connected yet.
type pendingTool struct {
	m      *Manager
	srv    *server
	name   string
	hidden func(string) bool
}

var _ tool.Pending = (*pendingTool)(nil)

func (p *pendingTool) Name() string { return p.name }
func (p *pendingTool) Description() string {
	return fmt.Sprintf("A tool of the MCP server %s, which has not started yet.", p.srv.Name)
}
func (p *pendingTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }

// ReadOnly is false: nothing is known of the tool yet. The loop decides a
// call on the tool Resolve returns, not on this.
func (p *pendingTool) ReadOnly() bool { return false }

// Run resolves the tool and runs it (the loop resolves it itself, to decide
// the call on the real tool first).
func (p *pendingTool) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	t, err := p.Resolve(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Errorf("The call of %s did not run: %v.", p.name, err), nil
	}
	return t.Run(ctx, env, input)
}

// Resolve waits while the server starts (each start ends within
// Timeouts.Start), then returns its tool of that name, or an error saying
// why there is none.
func (p *pendingTool) Resolve(ctx context.Context) (tool.Tool, error) {
	m, s := p.m, p.srv
	for {
		m.mu.Lock()
		if s.state != StateConnecting {
			break
		}
		ready := s.ready
		m.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	defer m.mu.Unlock()
	if t := s.tool(p.name); t != nil {
		return t, nil
	}
	switch s.state {
	case StateConnected:
		var names []string
		for _, t := range s.tools {
			if p.hidden == nil || !p.hidden(t.name) {
				names = append(names, t.name)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("MCP server %s has no tools", s.Name)
		}
		const most = 20
		list := strings.Join(names[:min(len(names), most)], ", ")
		if len(names) > most {
			list += fmt.Sprintf(" and %d more", len(names)-most)
		}
		return nil, fmt.Errorf("MCP server %s has no such tool; its tools are %s", s.Name, list)
	case StateDisabled:
		return nil, fmt.Errorf("MCP server %s was not started: %s", s.Name, strings.TrimSuffix(s.err, "."))
	}
	return nil, fmt.Errorf("MCP server %s failed to start: %s", s.Name, strings.TrimSuffix(s.err, "."))
}
