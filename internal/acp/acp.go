// Package acp serves NovaCode as an agent of the Agent Client Protocol
// (ACP, protocol version 1) over a pair of streams, the standard input and
// output of `nova acp`, on github.com/coder/acp-go-sdk. An editor (Zed,
// JetBrains IDEs, Neovim plugins) starts nova as its agent and drives it:
// each ACP session is a nova.Session in the editor's working directory,
// with the editor's MCP servers, and its events become session/update
// notifications (updates.go, tools.go); what the permission chain asks a
// person, and the model's questions, become session/request_permission
// requests (permission.go). When the editor offers its file system, Read,
// Write and Edit go through it (editor.go), behind the same permission
// chain and path guard.
//
// The package sees the runtime only through the SDK (the module root) and
// its events, as the CLI does; the CLI (nova acp) gives it the flags' base
// options.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/novacode/nova"
	"github.com/novacode/nova/mcp"
)

// Options configure Serve.
type Options struct {
	// Session is what every session starts from (the CLI's flags: model,
	// permission mode and rules, trust, MCP config files). Serve sets the
	// workspace (the editor's cwd), the editor's MCP servers, the session
	// to resume, the editor's file system and Interactive itself.
	Session nova.Options
	// LoadCommands reads the user's slash commands of a directory, name →
	// template (tui.LoadCommands); nil offers none.
	LoadCommands func(dir string) (map[string]string, error)
	// Version is nova's version, for the agent's info.
	Version string
	// Log receives what the editor is not told: each session's notices
	// and the connection's errors. Editors keep an agent's standard error
	// in their logs. Nil discards it.
	Log io.Writer
}

// commandsDelay is how long the commands of a new session wait before they
// are announced: the notification must reach the editor after the
// session/new response that names the session, which the SDK writes once
// NewSession has returned.
var commandsDelay = 50 * time.Millisecond

// Serve answers ACP requests read from in, writing to out, until in ends
// (the editor closed the connection) or ctx ends. Every session is closed
// before it returns (their runs cancelled, their MCP servers stopped).
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	a := &agent{o: o, sessions: map[acpsdk.SessionId]*session{}}
	// Nothing is read before the agent knows its connection: a handler
	// may need it at once.
	ready := make(chan struct{})
	a.conn = acpsdk.NewAgentSideConnection(a, out, gatedReader{in, ready})
	a.conn.SetLogger(slog.New(slog.NewTextHandler(o.Log, &slog.HandlerOptions{Level: slog.LevelWarn})))
	close(ready)
	select {
	case <-a.conn.Done():
	case <-ctx.Done():
	}
	a.shutdown()
	return nil
}

// gatedReader reads nothing until ready is closed.
type gatedReader struct {
	r     io.Reader
	ready <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}

// agent implements the SDK's Agent (and AgentLoader): one per connection.
type agent struct {
	o    Options
	conn *acpsdk.AgentSideConnection

	mu       sync.Mutex
	sessions map[acpsdk.SessionId]*session
	// editorFS: the client offers fs/read_text_file and
	// fs/write_text_file (set by initialize).
	editorFS bool
	closed   bool
	// calls counts the handlers running, and the sessions' background
	// work; shutdown waits for them.
	calls sync.WaitGroup
}

var (
	_ acpsdk.Agent       = (*agent)(nil)
	_ acpsdk.AgentLoader = (*agent)(nil)
)

// errClosed answers what comes in while the agent shuts down.
var errClosed = errors.New("nova is shutting down")

// enter registers a handler; it reports false once the agent is shutting
// down. Each enter that returned true is matched by a.calls.Done().
func (a *agent) enter() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return false
	}
	a.calls.Add(1)
	return true
}

// shutdown closes every session and waits for the handlers and the
// background work still running.
func (a *agent) shutdown() {
	a.mu.Lock()
	a.closed = true
	open := slices.Collect(maps.Values(a.sessions))
	a.sessions = map[acpsdk.SessionId]*session{}
	a.mu.Unlock()
	for _, s := range open {
		s.close()
	}
	a.calls.Wait()
}

func (a *agent) logf(format string, args ...any) {
	fmt.Fprintf(a.o.Log, "nova: "+format+"\n", args...)
}

// Initialize answers with the protocol version and what nova can do:
// load sessions, prompts with images and embedded resources, the editor's
// MCP servers over stdio (always), HTTP and SSE.
func (a *agent) Initialize(_ context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	if !a.enter() {
		return acpsdk.InitializeResponse{}, errClosed
	}
	defer a.calls.Done()
	fs := p.ClientCapabilities.Fs
	a.mu.Lock()
	// Both or neither: a file read in the editor and written on disk (or
	// the other way round) would look changed to the freshness check.
	a.editorFS = fs.ReadTextFile && fs.WriteTextFile
	a.mu.Unlock()
	return acpsdk.InitializeResponse{
		ProtocolVersion: acpsdk.ProtocolVersionNumber,
		AgentInfo:       &acpsdk.Implementation{Name: "nova", Title: acpsdk.Ptr("NovaCode"), Version: a.o.Version},
		AuthMethods:     []acpsdk.AuthMethod{},
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: acpsdk.PromptCapabilities{Image: true, EmbeddedContext: true},
			McpCapabilities:    acpsdk.McpCapabilities{Http: true, Sse: true},
			SessionCapabilities: acpsdk.SessionCapabilities{
				List:   &acpsdk.SessionListCapabilities{},
				Resume: &acpsdk.SessionResumeCapabilities{},
				Close:  &acpsdk.SessionCloseCapabilities{},
			},
		},
	}, nil
}

// Authenticate has nothing to do: the model's credentials come from the
// environment and the settings, as for nova itself.
func (a *agent) Authenticate(context.Context, acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, nil
}

// NewSession opens a session in the editor's working directory with its
// MCP servers.
func (a *agent) NewSession(ctx context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	if !a.enter() {
		return acpsdk.NewSessionResponse{}, errClosed
	}
	defer a.calls.Done()
	s, err := a.open(ctx, p.Cwd, p.McpServers, "")
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	a.announceCommands(s, commandsDelay)
	return acpsdk.NewSessionResponse{SessionId: s.id, Modes: s.modes()}, nil
}

// LoadSession opens a stored session of the working directory and replays
// its conversation as session/update notifications before it answers.
func (a *agent) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	if !a.enter() {
		return acpsdk.LoadSessionResponse{}, errClosed
	}
	defer a.calls.Done()
	s, err := a.open(ctx, p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	a.replay(s)
	// The client knows the session: its commands may come at once.
	a.announceCommands(s, 0)
	return acpsdk.LoadSessionResponse{Modes: s.modes()}, nil
}

// ResumeSession opens a stored session without replaying it: the client
// shows the conversation itself.
func (a *agent) ResumeSession(ctx context.Context, p acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	if !a.enter() {
		return acpsdk.ResumeSessionResponse{}, errClosed
	}
	defer a.calls.Done()
	s, err := a.open(ctx, p.Cwd, p.McpServers, string(p.SessionId))
	if err != nil {
		return acpsdk.ResumeSessionResponse{}, err
	}
	a.announceCommands(s, 0)
	return acpsdk.ResumeSessionResponse{Modes: s.modes()}, nil
}

// ListSessions lists the stored sessions of a working directory, newest
// first (subagents' conversations are not sessions an editor opens).
func (a *agent) ListSessions(_ context.Context, p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	if !a.enter() {
		return acpsdk.ListSessionsResponse{}, errClosed
	}
	defer a.calls.Done()
	dir := a.o.Session.Dir
	if p.Cwd != nil {
		dir = *p.Cwd
	}
	list, err := nova.ListSessions(dir, a.o.Session.DataDir)
	if err != nil {
		return acpsdk.ListSessionsResponse{}, fmt.Errorf("list sessions: %w", err)
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for _, s := range list {
		info := acpsdk.SessionInfo{SessionId: acpsdk.SessionId(s.ID), Cwd: dir, UpdatedAt: acpsdk.Ptr(s.Updated.UTC().Format(time.RFC3339))}
		if s.FirstPrompt != "" {
			info.Title = acpsdk.Ptr(firstLine(s.FirstPrompt))
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// CloseSession closes a session: its run is cancelled, its MCP servers
// stopped.
func (a *agent) CloseSession(_ context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	if !a.enter() {
		return acpsdk.CloseSessionResponse{}, errClosed
	}
	defer a.calls.Done()
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if s == nil {
		return acpsdk.CloseSessionResponse{}, notFound(p.SessionId)
	}
	s.close()
	return acpsdk.CloseSessionResponse{}, nil
}

// SetSessionMode switches the permission mode from the next decision on.
func (a *agent) SetSessionMode(_ context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	if !a.enter() {
		return acpsdk.SetSessionModeResponse{}, errClosed
	}
	defer a.calls.Done()
	s, err := a.session(p.SessionId)
	if err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	if !slices.ContainsFunc(modes, func(m acpsdk.SessionMode) bool { return m.Id == p.ModeId }) {
		return acpsdk.SetSessionModeResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q", p.ModeId)})
	}
	if err := s.nova.SetMode(string(p.ModeId)); err != nil {
		return acpsdk.SetSessionModeResponse{}, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s.mu.Lock()
	s.mode = string(p.ModeId) // the client knows: no current_mode_update
	s.mu.Unlock()
	return acpsdk.SetSessionModeResponse{}, nil
}

// SetSessionConfigOption: nova offers no configuration options.
func (a *agent) SetSessionConfigOption(context.Context, acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return acpsdk.SetSessionConfigOptionResponse{}, acpsdk.NewMethodNotFound(acpsdk.AgentMethodSessionSetConfigOption)
}

// Cancel stops the session's run: the SDK has already cancelled the
// prompt's context; Interrupt makes sure, should the notification come
// between two prompts' requests. The prompt answers cancelled.
func (a *agent) Cancel(_ context.Context, p acpsdk.CancelNotification) error {
	if s, err := a.session(p.SessionId); err == nil {
		s.nova.Interrupt()
	}
	return nil
}

// session is the open session with id.
func (a *agent) session(id acpsdk.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s, nil
	}
	return nil, notFound(id)
}

func notFound(id acpsdk.SessionId) error {
	return &acpsdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{"error": fmt.Sprintf("no open session %q", id)}}
}

// open opens a nova session in cwd (resuming the stored session resume,
// if given) with the editor's MCP servers, and registers it.
func (a *agent) open(ctx context.Context, cwd string, servers []acpsdk.McpServer, resume string) (*session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, acpsdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd must be an absolute path, got %q", cwd)})
	}
	o := a.o.Session
	o.Dir, o.Resume, o.Continue = cwd, resume, false
	// The editor answers permission requests and questions: they reach
	// Prompt as events.
	o.Interactive, o.CanUseTool = true, nil
	editor, skipped := mcpServers(servers)
	for _, w := range skipped {
		a.logf("warning: %s", w)
	}
	if len(editor) > 0 {
		o.MCPServers = make(map[string]mcp.ServerConfig, len(o.MCPServers)+len(editor))
		maps.Copy(o.MCPServers, a.o.Session.MCPServers)
		maps.Copy(o.MCPServers, editor)
	}
	a.mu.Lock()
	useEditor := a.editorFS
	a.mu.Unlock()
	var fs *editorFS
	if useEditor {
		fs = &editorFS{conn: a.conn}
		o.EditorFS = fs
	}
	ns, err := nova.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	if fs != nil {
		// Before any prompt can run a tool: the session is registered
		// below, under a.mu, and found by Prompt under it.
		fs.id = acpsdk.SessionId(ns.ID())
	}
	if n := ns.Notice(); n != "" {
		fmt.Fprint(a.o.Log, n)
	}
	bg, stop := context.WithCancel(context.Background())
	s := &session{id: acpsdk.SessionId(ns.ID()), nova: ns, dir: ns.Dir(), mode: ns.Mode(), bg: bg, stop: stop}
	s.commands = a.loadCommands(s.dir)
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		s.close()
		return nil, errClosed
	}
	old := a.sessions[s.id]
	a.sessions[s.id] = s
	a.mu.Unlock()
	if old != nil {
		// Loaded again: two sessions must not write one transcript.
		old.close()
	}
	return s, nil
}

// session is one ACP session: a nova session and what the editor was told
// of it.
type session struct {
	id       acpsdk.SessionId
	nova     *nova.Session
	dir      string
	commands map[string]string // the user's slash commands
	// bg is the context of the session's background work (announcing its
	// commands), ended by stop at close.
	bg   context.Context
	stop context.CancelFunc

	mu   sync.Mutex
	mode string // the mode the client knows
}

// close ends the session's background work and the session.
func (s *session) close() {
	s.stop()
	_ = s.nova.Close() // it reports nothing today; the session is gone either way
}

// modes are the permission modes, as the editor offers them.
var modes = []acpsdk.SessionMode{
	{Id: nova.ModeDefault, Name: "Default", Description: acpsdk.Ptr("Ask before edits and commands")},
	{Id: nova.ModeAcceptEdits, Name: "Accept edits", Description: acpsdk.Ptr("Edit files without asking; ask before commands")},
	{Id: nova.ModePlan, Name: "Plan", Description: acpsdk.Ptr("Read and plan; change nothing until the plan is approved")},
	{Id: nova.ModeBypassPermissions, Name: "Bypass permissions", Description: acpsdk.Ptr("Run everything without asking, but what only a person may allow")},
}

// modes is the session's mode state.
func (s *session) modes() *acpsdk.SessionModeState {
	return &acpsdk.SessionModeState{AvailableModes: modes, CurrentModeId: acpsdk.SessionModeId(s.nova.Mode())}
}

// modeChange is the current_mode_update the client needs when the mode
// changed since it was told (a plan approved switches it), or nil.
func (s *session) modeChange() *acpsdk.SessionUpdate {
	now := s.nova.Mode()
	s.mu.Lock()
	defer s.mu.Unlock()
	if now == s.mode {
		return nil
	}
	s.mode = now
	return &acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(now)}}
}

// update sends one session/update notification. A failure means the
// editor is gone; the run ends by the connection's context.
func (a *agent) update(s *session, u acpsdk.SessionUpdate) {
	if err := a.conn.SessionUpdate(context.Background(), acpsdk.SessionNotification{SessionId: s.id, Update: u}); err != nil {
		a.logf("session/update: %v", err)
	}
}

// replay sends a loaded session's conversation: the person's prompts, the
// model's text and thinking, its tool calls with their results.
func (a *agent) replay(s *session) {
	h := s.nova.History()
	if h == nil {
		return
	}
	m := newMapper(s.dir)
	for _, e := range h.Entries {
		if e.Event == nil {
			a.update(s, acpsdk.UpdateUserMessageText(e.Prompt))
			continue
		}
		for _, u := range m.updates(e.Event) {
			a.update(s, u)
		}
	}
}
