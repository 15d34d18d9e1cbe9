package nova

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/permission/rules"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// newToolSearch builds the ToolSearch tool over a registry's deferred
// tools.
var newToolSearch = builtin.NewToolSearch

// MCPServerInfo describes a server of the project's .mcp.json that waits
// for the person's approval.
type MCPServerInfo struct {
	Name string
	// Transport is "stdio", "http" or "sse"; Describe is its command line
	// or URL as the file writes it (${VAR} references unexpanded).
	Transport, Describe string
	// File is the .mcp.json that defines it.
	File string
	// Changed says the person answered about another definition of it.
	Changed bool
}

// MCPServerStatus is what one MCP server of the session is doing.
type MCPServerStatus struct {
	Name string
	// Scope is where it was defined: "project" (.mcp.json), "user",
	// "local" (.novacode/settings.local.json), "workspace"
	// (.novacode/settings.json), "flag" (--mcp-config, MCPConfigFiles) or
	// "sdk" (Options.MCPServers); Source is the file.
	Scope, Source string
	// Transport is "stdio", "http" or "sse"; Describe its command line or
	// URL.
	Transport, Describe string
	// State is "connecting", "connected", "failed" or "disabled".
	State string
	// Error says why it failed or is disabled; Warning what went wrong
	// without stopping it.
	Error, Warning string
	// Tools counts its tools; ToolNames names them.
	Tools     int
	ToolNames []string
}

// MCPServers lists the session's MCP servers.
func (s *Session) MCPServers() []MCPServerStatus {
	if s.mcp == nil {
		return nil
	}
	var out []MCPServerStatus
	for _, st := range s.mcp.mgr.Servers() {
		out = append(out, statusOf(st))
	}
	return out
}

func statusOf(st mcp.Status) MCPServerStatus {
	m := MCPServerStatus{Name: st.Name, Scope: string(st.Scope), Source: st.Source,
		Transport: st.Transport, Describe: st.Describe, State: string(st.State),
		Error: st.Error, Warning: st.Warning, Tools: len(st.Tools)}
	for _, t := range st.Tools {
		m.ToolNames = append(m.ToolNames, t.Name())
	}
	return m
}

// mcpSession is a session's MCP servers and how their tools reach the
// registry. The tools array is decided once, at the first Send (freeze):
// the tools of the servers connected by then are listed or deferred as
// tool.Partition says; whatever comes later (a server that connects late,
// tools/list_changed) only changes the deferred tools, so the array the
// model sees stays byte-identical for the whole session.
type mcpSession struct {
	mgr    *mcp.Manager
	reg    *tool.Registry
	hidden func(name string) bool // bare deny rules hide tools

	mu       sync.Mutex
	frozen   bool
	listed   map[string]bool
	deferred map[string][]string // by server
	reported map[string]bool     // start failures already told
}

// failures says, once each, which servers failed to start (those that
// exited after connecting say so in the results of their calls).
func (m *mcpSession) failures() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, st := range m.mgr.Servers() {
		if st.State == mcp.StateFailed && len(st.Tools) == 0 && !m.reported[st.Name] {
			m.reported[st.Name] = true
			out = append(out, fmt.Sprintf("MCP server %s did not start: %s", config.Visible(st.Name), st.Error))
		}
	}
	return out
}

// mcpSource is one place server definitions come from.
type mcpSource struct {
	scope mcp.Scope
	file  string
	f     mcp.File
}

// mcpDef is one server definition and where it comes from.
type mcpDef struct {
	mcp.Server
	written mcp.ServerConfig // before expansion: what an answer is for
}

// mcpDefs are the servers defined for a session, by name, in the order
// their names were first defined.
type mcpDefs struct {
	order  []string
	byName map[string]*mcpDef
	// problems are the definitions left out, each a *mcp.DefinitionError.
	problems []error
}

// gatherMCP reads the server definitions of the settings files (as
// applied: files), of .mcp.json in dir when layers has the project layer,
// of configFiles (--mcp-config) and of sdk (Options.MCPServers): later
// sources replace earlier definitions of a name — the user's file,
// .mcp.json, the workspace's files, --mcp-config, the program's. strict
// keeps only the last two. note is told which files were left out and why
// (the definitions left out are in problems); a --mcp-config file that
// cannot be read is an error.
func gatherMCP(dir string, files []config.File, layers []config.Layer, configFiles []string, sdk map[string]mcp.ServerConfig, strict bool, note func(format string, args ...any)) (mcpDefs, error) {
	var srcs []mcpSource
	if !strict {
		var user, workspaceFiles []mcpSource
		for _, f := range files {
			if len(f.Settings.MCPServers) == 0 {
				continue
			}
			scope := map[config.Layer]mcp.Scope{config.LayerUser: mcp.ScopeUser, config.LayerProject: mcp.ScopeWorkspace, config.LayerLocal: mcp.ScopeLocal}[f.Layer]
			mf, err := mcp.ParseServers(f.Path, f.Settings.MCPServers)
			if err != nil {
				note("%v; its MCP servers were not started", err)
				continue
			}
			src := mcpSource{scope: scope, file: f.Path, f: mf}
			if scope == mcp.ScopeUser {
				user = append(user, src)
			} else {
				workspaceFiles = append(workspaceFiles, src)
			}
		}
		srcs = append(srcs, user...)
		if slices.Contains(layers, config.LayerProject) {
			path := filepath.Join(dir, ".mcp.json")
			data, err := os.ReadFile(path)
			switch {
			case errors.Is(err, fs.ErrNotExist):
			case err != nil:
				note("%v; its MCP servers were not started", err)
			default:
				mf, err := mcp.ParseFile(path, data)
				if err != nil {
					note("%v; its MCP servers were not started", err)
				} else {
					srcs = append(srcs, mcpSource{scope: mcp.ScopeProject, file: path, f: mf})
				}
			}
		}
		srcs = append(srcs, workspaceFiles...)
	}
	for _, path := range configFiles {
		data, err := os.ReadFile(path)
		if err != nil {
			return mcpDefs{}, fmt.Errorf("MCP config: %w", err)
		}
		mf, err := mcp.ParseFile(path, data)
		if err != nil {
			return mcpDefs{}, fmt.Errorf("MCP config %w", err)
		}
		srcs = append(srcs, mcpSource{scope: mcp.ScopeFlag, file: path, f: mf})
	}
	if len(sdk) > 0 {
		raw := mcp.File{Servers: map[string]mcp.ServerConfig{}}
		for name, c := range sdk {
			raw.Servers[name] = c
		}
		srcs = append(srcs, mcpSource{scope: mcp.ScopeSDK, f: raw})
	}

	defs := mcpDefs{byName: map[string]*mcpDef{}}
	for _, src := range srcs {
		defs.problems = append(defs.problems, src.f.Problems...)
		for _, name := range src.f.Names() {
			if _, ok := defs.byName[name]; !ok {
				defs.order = append(defs.order, name)
			}
			c := src.f.Servers[name]
			defs.byName[name] = &mcpDef{Server: mcp.Server{Name: name, Config: c, Scope: src.scope, Source: src.file}, written: c}
		}
	}
	return defs, nil
}

// approveMCP decides which servers of .mcp.json may start: declined in the
// settings, an answer of the person's for this very definition (rec, from
// the user's file), enabled in the settings (the user's own, or a trusted
// workspace's); the rest are pending, for the person to be asked. disabled
// says why each one that may not start may not.
func approveMCP(defs mcpDefs, settings config.Settings, rec map[string]config.MCPAnswer) (approved map[string]bool, disabled map[string]string, pending []MCPServerInfo) {
	approved, disabled = map[string]bool{}, map[string]string{}
	for _, name := range defs.order {
		d := defs.byName[name]
		if d.Scope != mcp.ScopeProject {
			continue
		}
		ans, answered := rec[name]
		switch {
		case slices.Contains(settings.DisabledMcpjsonServers, name):
			disabled[name] = "disabled in the settings (disabledMcpjsonServers)"
		case answered && ans.Hash == d.written.Hash():
			if ans.Approved {
				approved[name] = true
			} else {
				disabled[name] = "you declined it"
			}
		case slices.Contains(settings.EnabledMcpjsonServers, name),
			settings.EnableAllProjectMcpServers != nil && *settings.EnableAllProjectMcpServers:
			approved[name] = true
		default:
			pending = append(pending, MCPServerInfo{Name: name, Transport: d.written.Transport(), Describe: d.written.Describe(),
				File: d.Source, Changed: answered})
		}
	}
	return approved, disabled, pending
}

// loadMCP gathers the session's server definitions, decides which may
// start and starts them in the background. It never waits for a server;
// the person is asked about .mcp.json's servers after the others started.
func (s *Session) loadMCP(ctx context.Context, ws *config.Workspace, files []config.File, lookup func(string) (string, bool), spillDir string) error {
	opts := s.opts
	note := func(format string, args ...any) { fmt.Fprintf(&s.notice, "nova: warning: "+format+"\n", args...) }
	defs, err := gatherMCP(s.dir, files, layersOf(opts.SettingSources), opts.MCPConfigFiles, opts.MCPServers, opts.StrictMCPConfig, note)
	if err != nil {
		return err
	}
	for _, p := range defs.problems {
		note("%v", p)
	}
	order, byName := defs.order, defs.byName
	if len(order) == 0 {
		return nil
	}
	approved, disabled, pending := approveMCP(defs, s.settings, ws.Record.MCPServers)
	timeouts := opts.MCPTimeouts
	if timeouts.Start == 0 {
		timeouts.Start = millisFrom(lookup, "MCP_TIMEOUT")
	}
	if timeouts.Call == 0 {
		timeouts.Call = millisFrom(lookup, "MCP_TOOL_TIMEOUT")
	}
	m := &mcpSession{reg: s.agent.Tools, listed: map[string]bool{}, deferred: map[string][]string{}, reported: map[string]bool{}, hidden: hiddenBy(opts.Deny)}
	m.mgr = mcp.NewManager(mcp.Options{ClientName: "nova", Dir: s.dir, SpillDir: spillDir, Timeouts: timeouts, OnChange: m.changed})
	s.mcp = m
	s.closers = append(s.closers, func() { _ = m.mgr.Close() })
	// A tool called by name before its server has connected: the call
	// waits for the server, and is decided on the tool it turns out to be.
	m.reg.SetFallback(m.pending)

	// The servers decided already start now, before the person is asked
	// about the others: the question does not delay them. Those asked
	// about wait, disabled, for the answer.
	waiting := map[string]bool{}
	var unexpanded map[string]error // pending servers whose ${VAR}s failed
	for _, p := range pending {
		waiting[p.Name] = true
	}
	for _, name := range order {
		d := byName[name]
		if why, ok := disabled[name]; ok {
			if err := m.mgr.AddDisabled(d.Server, why); err != nil {
				note("%s: %v", cmp.Or(d.Source, "Options.MCPServers"), err)
			}
			continue
		}
		if d.Scope == mcp.ScopeProject && !approved[name] && !waiting[name] {
			continue // cannot happen: every project server is decided above
		}
		c, err := mcp.Expand(d.Config, lookup)
		if err == nil {
			d.Config = c
		}
		if waiting[name] {
			if err != nil {
				if unexpanded == nil {
					unexpanded = map[string]error{}
				}
				unexpanded[name] = err
			}
			if err := m.mgr.AddDisabled(d.Server, "waiting for your approval"); err != nil {
				note("%s: %v", cmp.Or(d.Source, "Options.MCPServers"), err)
				delete(waiting, name)
			}
			continue
		}
		if err != nil {
			_ = m.mgr.AddDisabled(d.Server, err.Error())
			note("%s: MCP server %q not started: %v", cmp.Or(d.Source, "Options.MCPServers"), name, err)
			continue
		}
		if err := m.mgr.Start(d.Server); err != nil {
			note("%s: %v", cmp.Or(d.Source, "Options.MCPServers"), err)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	if opts.ApproveMCPServers == nil {
		var names []string
		for _, p := range pending {
			names = append(names, config.Visible(p.Name))
			_ = m.mgr.Disable(p.Name, "not approved: run nova (interactive) to approve it, or add it with --mcp-config")
		}
		fmt.Fprintf(&s.notice, "nova: .mcp.json defines servers %s that you have not approved; run nova (interactive) to approve them, or add them with --mcp-config\n", strings.Join(names, ", "))
		return nil
	}
	yes, err := opts.ApproveMCPServers(ctx, pending)
	if err != nil {
		return err
	}
	answers := map[string]config.MCPAnswer{}
	for _, p := range pending {
		ok := slices.Contains(yes, p.Name)
		answers[p.Name] = config.MCPAnswer{Approved: ok, Hash: byName[p.Name].written.Hash()}
		switch {
		case !waiting[p.Name]: // not added: noted above
		case !ok:
			_ = m.mgr.Disable(p.Name, "you declined it")
		case unexpanded[p.Name] != nil:
			err := unexpanded[p.Name]
			_ = m.mgr.Disable(p.Name, err.Error())
			note("%s: MCP server %q not started: %v", p.File, p.Name, err)
		default:
			if err := m.mgr.Enable(p.Name); err != nil {
				note("%s: %v", p.File, err)
			}
		}
	}
	if err := config.RememberMCP(ws.UserPath, ws.Key, answers); err != nil {
		note("your answers about the MCP servers could not be remembered, so you will be asked again: %v", err)
	}
	return nil
}

// millisFrom reads a duration in milliseconds from the environment, as
// Claude Code reads MCP_TIMEOUT and MCP_TOOL_TIMEOUT; 0 when unset or not
// a number.
func millisFrom(lookup func(string) (string, bool), name string) time.Duration {
	v, _ := lookup(name)
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Millisecond
}

// hiddenBy reports the tools a bare deny rule (--disallowedTools
// mcp__server, mcp__server__tool) hides from the model.
func hiddenBy(deny []string) func(string) bool {
	names := bareNames(deny)
	return func(tool string) bool {
		return slices.ContainsFunc(names, func(r string) bool { return rules.Covers(r, tool) })
	}
}

// freeze decides the session's MCP tools before its first request: the
// tools of the servers connected by now are listed or deferred, by
// Partition against the context window, and ToolSearch is added when some
// are deferred or a server is still connecting (its tools will be
// deferred when it is done). It returns the instructions of the servers
// connected by now, for the system prompt.
func (m *mcpSession) freeze(window int, mode string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.frozen {
		return ""
	}
	m.frozen = true
	var ts []tool.Tool
	connecting := false
	var instructions strings.Builder
	for _, st := range m.mgr.Servers() {
		if st.State == mcp.StateConnecting {
			connecting = true
		}
		ts = append(ts, m.visible(st.Tools)...)
		if st.State == mcp.StateConnected && st.Instructions != "" {
			text := st.Instructions
			if len(text) > maxInstructions {
				text = text[:maxInstructions] + " […]"
			}
			fmt.Fprintf(&instructions, "\n\n## %s\n\n%s", st.Name, text)
		}
	}
	if window <= 0 {
		window = 200_000
	}
	listed, deferred := tool.Partition(ts, window, mode, tool.DefaultToolSearchThreshold)
	for _, t := range listed {
		m.reg.Register(t)
		m.listed[t.Name()] = true
	}
	for _, t := range deferred {
		m.reg.Defer(t)
		srv := t.(*mcp.Tool).Server()
		m.deferred[srv] = append(m.deferred[srv], t.Name())
	}
	if len(deferred) > 0 || connecting {
		m.reg.Register(settlingSearch{newToolSearch(m.reg), m.mgr})
	}
	if instructions.Len() == 0 {
		return ""
	}
	return "# MCP server instructions\n\nThe MCP servers whose tools are named mcp__<server>__<tool> say how to use them:" + instructions.String()
}

// settlingSearch is ToolSearch that first waits for the servers still
// starting: their tools become searchable as they connect, and a search
// made before they did would find nothing of them. Name, description and
// schema are ToolSearch's own.
type settlingSearch struct {
	tool.Tool
	mgr *mcp.Manager
}

// Effects are ToolSearch's own (it touches nothing): the wrapper must not
// turn it into a tool that reads everything and waits for every write.
func (t settlingSearch) Effects(env *tool.Env, input json.RawMessage) tool.Effects {
	return tool.EffectsOf(t.Tool, env, input)
}

func (t settlingSearch) Run(ctx context.Context, env *tool.Env, input json.RawMessage) (tool.Result, error) {
	if err := t.mgr.Settle(ctx); err != nil {
		return tool.Result{}, err
	}
	return t.Tool.Run(ctx, env, input)
}

// pending answers the registry for a name it does not hold: a tool of a
// server that has not connected yet (mcp.Manager.Pending), unless a bare
// deny rule hides it.
func (m *mcpSession) pending(name string) (tool.Tool, bool) {
	if !strings.HasPrefix(name, "mcp__") || m.hidden(name) {
		return nil, false
	}
	return m.mgr.Pending(name, m.hidden)
}

// maxInstructions bounds one server's instructions in the system prompt.
const maxInstructions = 4000

func (m *mcpSession) visible(ts []tool.Tool) []tool.Tool {
	return slices.DeleteFunc(slices.Clone(ts), func(t tool.Tool) bool { return m.hidden(t.Name()) })
}

// changed follows a server after the freeze: its tools that are not
// listed become (or stay) deferred, replacing those it had.
func (m *mcpSession) changed(server string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.frozen {
		return // freeze reads every server's state when it comes
	}
	st, ok := m.mgr.Status(server)
	if !ok {
		return
	}
	var now []string
	for _, t := range m.visible(st.Tools) {
		if m.listed[t.Name()] {
			continue
		}
		m.reg.Defer(t)
		now = append(now, t.Name())
	}
	var gone []string
	for _, n := range m.deferred[server] {
		if !slices.Contains(now, n) {
			gone = append(gone, n)
		}
	}
	m.reg.RemoveDeferred(gone...)
	m.deferred[server] = now
}

// mcpToolSearchMode is the session's mcpToolSearch: the option, the
// settings, else auto.
func mcpToolSearchMode(opt string, settings config.Settings) (string, error) {
	mode := opt
	if mode == "" && settings.MCPToolSearch != nil {
		mode = *settings.MCPToolSearch
	}
	switch mode {
	case "":
		return "auto", nil
	case "auto", "always", "never":
		return mode, nil
	}
	return "", fmt.Errorf("mcpToolSearch must be auto, always or never, not %q", mode)
}
