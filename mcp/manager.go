package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novacode/nova/tool"
)

// State is where a server is in its life.
type State string

// The states.
const (
	// StateConnecting: started, not yet answered (or being restarted).
	StateConnecting State = "connecting"
	// StateConnected: its tools are known and can be called.
	StateConnected State = "connected"
	// StateFailed: it did not start, or it exited; Status.Error says why.
	StateFailed State = "failed"
	// StateDisabled: not started: it waits for the person's approval, or
	// they declined it (Status.Error says which).
	StateDisabled State = "disabled"
)

// Timeouts bound what the Manager waits for.
type Timeouts struct {
	// Start bounds a server's start, from launch to its list of tools; a
	// tool call to a server still starting waits for it at most that
	// long. Default 30 s.
	Start time.Duration
	// Call bounds one tool call. Default 10 minutes.
	Call time.Duration
	// Close is how long a stdio server has to exit once its standard
	// input is closed, before it is sent SIGTERM (and half as long again
	// before SIGKILL). Default 500 ms: the SDK's own 5 s would make every
	// exit of NovaCode wait for a server that ignores the end of its input.
	Close time.Duration
}

func (t Timeouts) withDefaults() Timeouts {
	if t.Start <= 0 {
		t.Start = 30 * time.Second
	}
	if t.Call <= 0 {
		t.Call = 10 * time.Minute
	}
	if t.Close <= 0 {
		t.Close = 500 * time.Millisecond
	}
	return t
}

// Options configure a Manager.
type Options struct {
	// ClientName and ClientVersion name NovaCode to the servers.
	ClientName, ClientVersion string
	// Dir is the working directory of stdio servers.
	Dir string
	// Environ is the environment of stdio servers, under their own "env";
	// nil means NovaCode's own.
	Environ []string
	// SpillDir is where images and other binary content of tool results
	// are saved (the result names the file); "" means a directory under
	// the system's temporary directory.
	SpillDir string
	Timeouts Timeouts
	// OnChange, if set, is called after a server's state or tools change
	// (it connected, failed, exited, or sent tools/list_changed), with its
	// name; calls come one at a time, never after Close has returned, and
	// after a start before whoever waits for it (a call, Settle) goes on.
	OnChange func(server string)
}

// Status is what a server is doing.
type Status struct {
	Name   string
	Scope  Scope
	Source string
	// Transport is "stdio", "http" or "sse"; Describe its command line or
	// URL.
	Transport, Describe string
	State               State
	// Error says why a server failed or is disabled.
	Error string
	// Warning is something that went wrong without stopping the server
	// (lines on standard output that were not JSON-RPC).
	Warning string
	// Instructions are what the server asks to be told to the model.
	Instructions string
	// Tools are its tools as NovaCode tools (*Tool), in the server's order.
	Tools []tool.Tool
}

// Manager runs MCP servers: each starts in the background when added, and
// its tools are NovaCode tools. Its methods are safe for concurrent use.
type Manager struct {
	o      Options
	ctx    context.Context // ends at Close: starts in progress give up
	cancel context.CancelFunc
	http   *httpBase
	spawn  *spawner

	mu      sync.Mutex
	servers map[string]*server
	order   []string
	closing bool
	wg      sync.WaitGroup // the goroutines of starts, watches and re-listings
	saved   int            // binary contents saved, for file names

	notifyMu sync.Mutex
}

// server is one server's state, guarded by Manager.mu.
type server struct {
	Server
	state        State
	err          string
	warning      string
	instructions string
	tools        []*Tool
	session      *sdk.ClientSession
	proc         *process
	ready        chan struct{} // closed when the current start ends
	connected    bool          // it was connected once
	restarted    bool          // it was restarted after exiting
	closed       chan struct{} // closed when the current session has ended
}

// NewManager returns a Manager with no servers.
func NewManager(o Options) *Manager {
	o.Timeouts = o.Timeouts.withDefaults()
	if o.ClientName == "" {
		o.ClientName = "nova"
	}
	if o.ClientVersion == "" {
		o.ClientVersion = "dev"
	}
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{o: o, ctx: ctx, cancel: cancel, http: newHTTPBase(), servers: map[string]*server{}}
}

// Start starts s in the background. A server whose name is taken, or
// whose tools would be named like another's, is an error, as is a start
// after Close.
func (m *Manager) Start(s Server) error {
	return m.add(s, StateConnecting, "")
}

// AddDisabled records s as not started, for reason (it waits for
// approval, or was declined): Servers lists it.
func (m *Manager) AddDisabled(s Server, reason string) error {
	return m.add(s, StateDisabled, reason)
}

// Enable starts, in the background, a server added with AddDisabled (the
// person approved it after it was added).
func (m *Manager) Enable(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	srv, ok := m.servers[name]
	switch {
	case m.closing:
		return errors.New("the MCP manager is closed")
	case !ok:
		return fmt.Errorf("%w: %s", ErrNoServer, name)
	case srv.state != StateDisabled:
		return fmt.Errorf("MCP server %s is not disabled but %s", name, srv.state)
	}
	m.startLocked(srv)
	return nil
}

// Disable gives a server added with AddDisabled a new reason (it was
// waiting for approval, and the person declined it).
func (m *Manager) Disable(name, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	srv, ok := m.servers[name]
	switch {
	case !ok:
		return fmt.Errorf("%w: %s", ErrNoServer, name)
	case srv.state != StateDisabled:
		return fmt.Errorf("MCP server %s is not disabled but %s", name, srv.state)
	}
	srv.err = reason
	return nil
}

func (m *Manager) add(s Server, state State, reason string) error {
	if err := checkName(s.Name); err != nil {
		return fmt.Errorf("MCP server %q: %v", s.Name, err)
	}
	if err := s.Config.validate(); err != nil {
		return fmt.Errorf("MCP server %q: %v", s.Name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing {
		return errors.New("the MCP manager is closed")
	}
	for _, o := range m.servers {
		if o.Name == s.Name || Prefix(o.Name) == Prefix(s.Name) {
			return fmt.Errorf("MCP server %q: its tools would have the same names as those of server %q", s.Name, o.Name)
		}
	}
	srv := &server{Server: s, state: state, err: reason, ready: make(chan struct{})}
	m.servers[s.Name] = srv
	m.order = append(m.order, s.Name)
	if state == StateConnecting {
		m.startLocked(srv)
	} else {
		close(srv.ready)
	}
	return nil
}

// startLocked starts an attempt to connect srv; m.mu is held.
func (m *Manager) startLocked(srv *server) {
	srv.state, srv.err = StateConnecting, ""
	srv.ready = make(chan struct{})
	m.wg.Add(1)
	go m.connect(srv, srv.ready)
}

// Settle waits until no server is starting (each start ends within
// Timeouts.Start), or until ctx ends.
func (m *Manager) Settle(ctx context.Context) error {
	for {
		m.mu.Lock()
		var ready chan struct{}
		for _, n := range m.order {
			if s := m.servers[n]; s.state == StateConnecting {
				ready = s.ready
				break
			}
		}
		m.mu.Unlock()
		if ready == nil {
			return nil
		}
		select {
		case <-ready:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Servers lists every server in the order they were added.
func (m *Manager) Servers() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Status, 0, len(m.order))
	for _, n := range m.order {
		out = append(out, m.servers[n].status())
	}
	return out
}

// Status is one server's status.
func (m *Manager) Status(name string) (Status, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return Status{}, false
	}
	return s.status(), true
}

func (s *server) status() Status {
	st := Status{
		Name: s.Name, Scope: s.Scope, Source: s.Source,
		Transport: s.Config.Transport(), Describe: s.Config.Describe(),
		State: s.state, Error: s.err, Warning: s.warning, Instructions: s.instructions,
	}
	for _, t := range s.tools {
		st.Tools = append(st.Tools, t)
	}
	return st
}

func (m *Manager) notify(name string) {
	if m.o.OnChange == nil {
		return
	}
	m.notifyMu.Lock()
	defer m.notifyMu.Unlock()
	m.o.OnChange(name)
}

// connect runs one start of srv: launch (or dial), initialize, list the
// tools; ready is closed when it ends, connected or not.
func (m *Manager) connect(srv *server, ready chan struct{}) {
	defer m.wg.Done()
	ctx, cancel := context.WithTimeout(m.ctx, m.o.Timeouts.Start)
	defer cancel()
	// What the connection keeps open (the SSE transport's stream) lives
	// until the session ends, not just as long as the start.
	connCtx, connCancel := context.WithCancel(m.ctx)
	cfg := srv.Config
	var (
		transport sdk.Transport
		proc      *process
		auth      *headerTransport
		err       error
	)
	switch cfg.Transport() {
	case TypeStdio:
		m.mu.Lock()
		if m.closing {
			m.mu.Unlock()
			err = errors.New("NovaCode is shutting down")
			break
		}
		if m.spawn == nil {
			m.spawn = newSpawner()
		}
		sp := m.spawn
		m.mu.Unlock()
		// Close waits for this goroutine before it stops the spawner, and
		// a process started while Close ran is killed right here.
		proc, err = startProcess(sp.start, cfg, m.o.Dir, m.o.Environ, m.o.Timeouts.Close)
		if err == nil {
			m.mu.Lock()
			closing := m.closing
			srv.proc = proc
			m.mu.Unlock()
			if closing {
				proc.kill()
				err = errors.New("NovaCode is shutting down")
			} else {
				transport = &sdk.IOTransport{Reader: proc.stdout, Writer: proc}
			}
		}
	case TypeHTTP, TypeSSE:
		auth = &headerTransport{base: m.http.transport, headers: cfg.Headers}
		client := &http.Client{Transport: auth}
		if cfg.Transport() == TypeHTTP {
			transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
		} else {
			transport = &sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}
		}
		transport = lasting{transport, connCtx, connCancel}
	}
	var (
		cs    *sdk.ClientSession
		tools []*Tool
	)
	settled := false // under m.mu: the start is over, one way or the other
	if proc != nil {
		// A start that times out, or is cut short by Close, ends the
		// process at once (the SDK would give it the polite close).
		stop := context.AfterFunc(ctx, func() {
			m.mu.Lock()
			kill := !settled
			m.mu.Unlock()
			if kill {
				proc.kill()
			}
		})
		defer stop()
	}
	if err == nil {
		client := sdk.NewClient(&sdk.Implementation{Name: m.o.ClientName, Version: m.o.ClientVersion}, &sdk.ClientOptions{
			Capabilities: &sdk.ClientCapabilities{}, // no roots: NovaCode offers none
			ToolListChangedHandler: func(_ context.Context, req *sdk.ToolListChangedRequest) {
				m.toolsChanged(srv, req.Session)
			},
		})
		cs, err = client.Connect(ctx, transport, nil)
		if err == nil {
			tools, err = m.listTools(ctx, srv, cs)
			if err != nil {
				_ = cs.Close()
				cs = nil
			}
		}
	}
	var why string
	if err != nil {
		why = m.startError(ctx, srv, err, proc, auth) // may wait a moment: not under the lock
	}
	m.mu.Lock()
	settled = true
	if err == nil && m.closing {
		err = errors.New("NovaCode is shutting down")
		why = err.Error()
		m.mu.Unlock()
		_ = cs.Close()
		m.mu.Lock()
	}
	if err != nil {
		connCancel()
		srv.state = StateFailed
		srv.err = why
		m.mu.Unlock()
		if proc != nil {
			proc.kill()
		}
		m.notify(srv.Name)
		close(ready) // after OnChange: a waiter finds the tools where OnChange put them
		return
	}
	srv.state, srv.err, srv.connected = StateConnected, "", true
	srv.session, srv.tools = cs, tools
	if r := cs.InitializeResult(); r != nil {
		srv.instructions = strings.TrimSpace(r.Instructions)
	}
	if proc != nil {
		srv.warning = proc.stdout.droppedNote()
	}
	closed := make(chan struct{})
	srv.closed = closed
	m.wg.Add(1)
	go m.watch(srv, cs, proc, closed, connCancel)
	m.mu.Unlock()
	m.notify(srv.Name)
	close(ready) // after OnChange: a waiter finds the tools where OnChange put them
}

// lasting connects its transport with the context of the session (ended
// by cancel when the session ends) instead of ctx, the start's, which
// bounds only the connecting: the SDK's SSE transport reads its stream
// with the context it connected with.
type lasting struct {
	sdk.Transport
	ctx    context.Context
	cancel context.CancelFunc
}

func (l lasting) Connect(ctx context.Context) (sdk.Connection, error) {
	stop := context.AfterFunc(ctx, l.cancel)
	defer stop()
	return l.Transport.Connect(l.ctx)
}

// startError says why a start failed, in words for the person and the
// model.
func (m *Manager) startError(ctx context.Context, srv *server, err error, proc *process, auth *headerTransport) string {
	var b strings.Builder
	exited, how := false, ""
	if proc != nil {
		// The process may be on its way out: give it a moment to be
		// reaped, so that its exit status and last words are known.
		select {
		case <-proc.done:
		case <-time.After(100 * time.Millisecond):
		}
		exited, how = proc.exited()
	}
	switch {
	case m.ctx.Err() != nil:
		b.WriteString("NovaCode was shutting down")
	case auth != nil && auth.unauthorized.Load():
		fmt.Fprintf(&b, "%s answered 401 Unauthorized: it needs credentials. NovaCode does not do OAuth; give the server a token in its \"headers\", e.g. \"Authorization\": \"Bearer ${YOUR_TOKEN}\"", srv.Config.URL)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		fmt.Fprintf(&b, "did not start within %s", m.o.Timeouts.Start)
	case exited:
		fmt.Fprintf(&b, "the process exited (%s) before it finished starting", how)
	default:
		b.WriteString(err.Error())
	}
	if proc != nil {
		if s := proc.stderr.String(); s != "" {
			fmt.Fprintf(&b, "; its standard error ends: %s", oneLine(s))
		}
		if s := proc.stdout.droppedNote(); s != "" {
			b.WriteString("; " + s)
		}
	}
	return b.String()
}

// watch waits for the end of a session: once the server exits (or the
// connection breaks), it is failed until a call restarts it.
func (m *Manager) watch(srv *server, cs *sdk.ClientSession, proc *process, closed chan struct{}, connCancel context.CancelFunc) {
	defer m.wg.Done()
	_ = cs.Wait()
	_ = cs.Close() // releases what the session holds (its subscription)
	connCancel()
	if proc != nil {
		// Once the connection ends the process is reaped (or killed at
		// Close); wait for it, for its exit status.
		select {
		case <-proc.done:
		case <-time.After(m.o.Timeouts.Close):
			proc.kill()
		}
	}
	m.mu.Lock()
	changed := false
	if srv.session == cs {
		srv.session = nil
		if !m.closing {
			srv.state = StateFailed
			var b strings.Builder
			b.WriteString("the server exited")
			if proc != nil {
				if _, how := proc.exited(); how != "" {
					fmt.Fprintf(&b, " (%s)", how)
				}
				if s := proc.stderr.String(); s != "" {
					fmt.Fprintf(&b, "; its standard error ends: %s", oneLine(s))
				}
			} else {
				b.WriteString(" or the connection to it broke")
			}
			srv.err = b.String()
			changed = true
		}
	}
	close(closed)
	m.mu.Unlock()
	if changed {
		m.notify(srv.Name)
	}
}

// listTools lists the server's tools, every page.
func (m *Manager) listTools(ctx context.Context, srv *server, cs *sdk.ClientSession) ([]*Tool, error) {
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil && r.Capabilities.Tools == nil {
		return nil, nil // a server of resources or prompts only
	}
	var out []*Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("list its tools: %w", err)
		}
		out = append(out, m.newTool(srv, t))
	}
	return out, nil
}

// toolsChanged re-lists a server's tools after tools/list_changed, off the
// SDK's reading goroutine (which the answer has to come through).
func (m *Manager) toolsChanged(srv *server, cs *sdk.ClientSession) {
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return
	}
	m.wg.Add(1)
	m.mu.Unlock()
	go func() {
		defer m.wg.Done()
		ctx, cancel := context.WithTimeout(m.ctx, m.o.Timeouts.Start)
		defer cancel()
		tools, err := m.listTools(ctx, srv, cs)
		if err != nil {
			return // the session is ending, or the server did not answer: keep what is known
		}
		m.mu.Lock()
		current := srv.session == cs && !m.closing
		if current {
			srv.tools = tools
		}
		m.mu.Unlock()
		if current {
			m.notify(srv.Name)
		}
	}()
}

// session returns srv's session for a call: it waits while srv is
// starting, and restarts it once if it exited.
func (m *Manager) session(ctx context.Context, srv *server) (*sdk.ClientSession, chan struct{}, error) {
	restartedHere := false
	for {
		m.mu.Lock()
		switch {
		case m.closing:
			m.mu.Unlock()
			return nil, nil, errors.New("NovaCode is shutting down")
		case srv.state == StateConnected:
			cs, closed := srv.session, srv.closed
			m.mu.Unlock()
			return cs, closed, nil
		case srv.state == StateFailed && srv.connected && !srv.restarted:
			srv.restarted, restartedHere = true, true
			m.startLocked(srv)
		case srv.state == StateFailed:
			err := srv.err
			m.mu.Unlock()
			switch {
			case restartedHere:
				return nil, nil, fmt.Errorf("MCP server %s had exited, and starting it again failed: %s", srv.Name, err)
			case srv.restarted:
				return nil, nil, fmt.Errorf("MCP server %s is not running (it was restarted once already): %s", srv.Name, err)
			}
			return nil, nil, fmt.Errorf("MCP server %s is not running: %s", srv.Name, err)
		case srv.state == StateDisabled:
			err := srv.err
			m.mu.Unlock()
			return nil, nil, fmt.Errorf("MCP server %s was not started: %s", srv.Name, err)
		}
		ready := srv.ready
		m.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// call runs one tool call: a failure of the server is an error result.
func (m *Manager) call(ctx context.Context, t *Tool, input json.RawMessage) (tool.Result, error) {
	cs, closed, err := m.session(ctx, t.srv)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		return tool.Errorf("The call of %s did not run: %v.", t.name, err), nil
	}
	var args any = json.RawMessage("{}")
	if len(strings.TrimSpace(string(input))) > 0 && string(input) != "null" {
		args = input
	}
	callCtx, cancel := context.WithTimeout(ctx, m.o.Timeouts.Call)
	defer cancel()
	res, err := cs.CallTool(callCtx, &sdk.CallToolParams{Name: t.remote, Arguments: args})
	if err == nil {
		return m.convert(t, res), nil
	}
	if ctx.Err() != nil {
		return tool.Result{}, ctx.Err()
	}
	if errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		return tool.Errorf("MCP server %s did not answer the call of %s within %s; the call was cancelled.", t.srv.Name, t.remote, m.o.Timeouts.Call), nil
	}
	// Did the server go away? The session notices soon after the call.
	select {
	case <-closed:
	case <-time.After(250 * time.Millisecond):
	}
	m.mu.Lock()
	gone, why, restarted := t.srv.session != cs, t.srv.err, t.srv.restarted
	m.mu.Unlock()
	if gone {
		next := "It will be restarted at the next call of one of its tools."
		if restarted {
			next = "It was restarted once already and will not be again in this session."
		}
		return tool.Errorf("MCP server %s stopped during the call of %s: %s. %s", t.srv.Name, t.remote, why, next), nil
	}
	return tool.Errorf("MCP server %s could not run %s: %v", t.srv.Name, t.remote, err), nil
}

// Close stops every server: stdio servers get Timeouts.Close to exit once
// their input is closed, then their process groups are killed; HTTP
// connections are cut after as long. It returns when every process is
// reaped and every goroutine of the Manager has ended.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closing {
		m.mu.Unlock()
		return nil
	}
	m.closing = true
	m.cancel()
	var sessions []*sdk.ClientSession
	var procs []*process
	for _, s := range m.servers {
		if s.session != nil {
			sessions = append(sessions, s.session)
		}
		if s.proc != nil {
			procs = append(procs, s.proc)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, cs := range sessions {
		wg.Go(func() { _ = cs.Close() })
	}
	closed := make(chan struct{})
	go func() {
		wg.Wait()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(2 * m.o.Timeouts.Close):
	}
	m.http.closeAll()
	for _, p := range procs {
		p.kill()
	}
	<-closed
	m.wg.Wait()
	m.mu.Lock()
	sp := m.spawn
	m.mu.Unlock()
	if sp != nil {
		sp.stop()
	}
	return nil
}

func oneLine(s string) string {
	lines := strings.Fields(strings.ReplaceAll(s, "\n", " ⏎ "))
	return strings.Join(lines, " ")
}
