// Package serve is NovaCode's remote frontend: a WebSocket server (`nova
// serve`) through which browsers and other programs drive sessions. It
// carries exactly stream-json's events, each with a seq and the session's
// id, plus a few frames of its own; PROTOCOL.md is the contract.
//
// A server is a door to the machine: whoever holds its token runs commands
// in the workspace. So it binds loopback unless told otherwise (CheckListen),
// checks the token on every handshake before upgrading (constant time), and
// accepts a browser's page only from its own origin or one named. Sessions
// are nova.Sessions opened Interactive: permission requests and questions
// wait for the client in control, however long.
//
// Memory is bounded whatever clients do: each session keeps a ring of its
// latest frames, each client a bounded queue (a client that reads too slowly
// is dropped), and client frames are limited to 1 MiB.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/sync/errgroup"

	"github.com/novacode/nova"
)

// Config configures a Server. Zero limits take their defaults.
type Config struct {
	// Options returns the options every session opens with (the CLI's
	// flags, tests' scripted model and temporary directories). The server
	// sets Interactive, Resume and Continue itself.
	Options func() nova.Options
	// Token is what clients must present. Required (GenerateToken).
	Token string
	// AllowOrigins are the browser origins besides the server's own that
	// may connect (scheme://host[:port]).
	AllowOrigins []string
	// Static serves everything but /ws: the web client. Nil serves a
	// placeholder page.
	Static http.Handler
	// Version is reported in the hello frame.
	Version string
	// Log receives what the server has to say (sessions' notices, errors
	// nobody else sees). Nil discards it.
	Log io.Writer

	// IdleTimeout closes a session that has had no client attached and no
	// prompt running for that long (default 30 minutes; negative: never).
	IdleTimeout time.Duration
	// RingFrames and RingBytes bound each session's ring (default 4096
	// frames, 4 MiB).
	RingFrames, RingBytes int
	// ClientQueueFrames and ClientQueueBytes bound each client's queue
	// (default 8192 frames, 8 MiB); past them the client is dropped (1008).
	ClientQueueFrames, ClientQueueBytes int
	// WriteTimeout bounds one frame's write, and the wait for a ping's
	// answer (default 10 s).
	WriteTimeout time.Duration
	// PingInterval is how often each client is pinged (default 30 s;
	// negative: never).
	PingInterval time.Duration
	// MaxMessageBytes bounds a client's frame (default 1 MiB; larger
	// closes the connection with 1009).
	MaxMessageBytes int64
}

// Defaults.
const (
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxMessage  = 1 << 20
)

func (c *Config) setDefaults() {
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.RingFrames <= 0 {
		c.RingFrames = 4096
	}
	if c.RingBytes <= 0 {
		c.RingBytes = 4 << 20
	}
	if c.ClientQueueFrames <= 0 {
		c.ClientQueueFrames = 8192
	}
	if c.ClientQueueBytes <= 0 {
		c.ClientQueueBytes = 8 << 20
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = defaultWriteTimeout
	}
	if c.PingInterval == 0 {
		c.PingInterval = 30 * time.Second
	}
	if c.MaxMessageBytes <= 0 {
		c.MaxMessageBytes = DefaultMaxMessage
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Static == nil {
		c.Static = placeholder()
	}
}

// Server serves sessions over WebSocket. Serve runs it.
type Server struct {
	cfg     Config
	auth    auth
	origins origins
	base    nova.Options // what Options returned first: the workspace

	// baseCtx is the context runs and connections live in; cancelled only
	// once everything has ended (shutdown), so that closing is orderly.
	baseCtx context.Context
	stop    context.CancelFunc

	// mu guards what follows. handlers and runs are only added to with mu
	// held and closing false, and shutdown sets closing under mu before it
	// waits on them, so no Add races with a Wait.
	mu       sync.Mutex
	sessions map[string]*live
	clients  map[*client]struct{}
	closing  bool
	handlers sync.WaitGroup // WebSocket connections
	runs     sync.WaitGroup // prompts running
	epochs   int

	// dropped counts clients dropped for reading slowly (atomic: counted
	// with a client's lock held).
	dropped atomic.Int64

	// openMu serialises opening stored sessions, so that one id is never
	// live twice.
	openMu sync.Mutex

	// logMu serialises the log; lastNotice is the last session notice
	// logged (guarded by logMu).
	logMu      sync.Mutex
	lastNotice string
}

// New checks cfg and returns a server; Serve runs it.
func New(cfg Config) (*Server, error) {
	cfg.setDefaults()
	if cfg.Options == nil {
		return nil, errors.New("serve: Config.Options is required")
	}
	if err := ValidToken(cfg.Token); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	o, err := newOrigins(cfg.AllowOrigins)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s := &Server{cfg: cfg, auth: newAuth(cfg.Token), origins: o, base: cfg.Options(),
		sessions: map[string]*live{}, clients: map[*client]struct{}{}}
	s.baseCtx, s.stop = context.WithCancel(context.Background())
	return s, nil
}

// Handler is the server's HTTP handler: /ws and the static files.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", s.serveWS)
	mux.Handle("/", staticHeaders(s.cfg.Static))
	return mux
}

// staticHeaders keeps the web client out of other sites' frames: its
// buttons approve commands.
func staticHeaders(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		h.ServeHTTP(w, r)
	})
}

// Serve serves on ln until ctx ends, then shuts down: running prompts are
// interrupted (their loop_complete and result reach the clients), the
// connections are closed with 1001 and the sessions closed. It returns
// once all of that is done; a Server serves once.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return s.baseCtx },
		ErrorLog:    log.New(logWriter{s}, "", 0)}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		s.janitor(gctx)
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		s.shutdown(hs)
		return nil
	})
	return g.Wait()
}

// shutdown ends everything in order: no new connections or prompts, the
// prompts interrupted and waited for, connections closed with 1001 once
// their queues are sent, sessions closed.
func (s *Server) shutdown(hs *http.Server) {
	s.mu.Lock()
	s.closing = true
	sessions := make([]*live, 0, len(s.sessions))
	for _, l := range s.sessions {
		sessions = append(sessions, l)
	}
	s.sessions = map[string]*live{}
	s.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(ctx) // the listener and plain HTTP; hijacked connections are ours
	for _, l := range sessions {
		l.s.Interrupt()
	}
	s.runs.Wait()
	s.mu.Lock()
	for c := range s.clients {
		c.shut(websocket.StatusGoingAway, "server shutting down")
	}
	s.mu.Unlock()
	s.handlers.Wait()
	for _, l := range sessions {
		s.closeLive(l)
	}
	s.stop()
}

func (s *Server) closeLive(l *live) {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	if err := l.s.Close(); err != nil {
		s.logf("close session %s: %v", l.id, err)
	}
}

// janitor closes sessions left idle (Config.IdleTimeout).
func (s *Server) janitor(ctx context.Context) {
	if s.cfg.IdleTimeout < 0 {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(max(min(s.cfg.IdleTimeout/4, time.Minute), 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			var idle []*live
			s.mu.Lock()
			for id, l := range s.sessions {
				if l.idle(now, s.cfg.IdleTimeout) {
					delete(s.sessions, id)
					idle = append(idle, l)
				}
			}
			s.mu.Unlock()
			for _, l := range idle {
				if err := l.s.Close(); err != nil {
					s.logf("close idle session %s: %v", l.id, err)
				}
			}
		}
	}
}

// serveWS checks a handshake (token: 401, origin: 403) before upgrading,
// then runs the connection until either side ends it.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	protos, ok := s.auth.check(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="nova serve"`)
		http.Error(w, "a valid token is required (Authorization: Bearer, or the subprotocol nova.token.TOKEN)", http.StatusUnauthorized)
		return
	}
	if !s.origins.ok(r) {
		http.Error(w, "this page's origin may not connect (nova serve --allow-origin)", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: protos, InsecureSkipVerify: true})
	if err != nil {
		return // Accept answered the request
	}
	defer conn.CloseNow()
	conn.SetReadLimit(s.cfg.MaxMessageBytes)
	c := newClient(s, conn)
	s.mu.Lock()
	closing := s.closing
	s.clients[c] = struct{}{}
	s.mu.Unlock()
	if closing {
		c.shut(websocket.StatusGoingAway, "server shutting down")
	}
	c.sendJSON(helloFrame{Type: "hello", Protocol: ProtocolVersion, Version: s.cfg.Version, Workspace: s.base.Dir})

	g, ctx := errgroup.WithContext(s.baseCtx)
	g.Go(func() error { return c.writeLoop(ctx) })
	g.Go(func() error { return c.readLoop(ctx) })
	if s.cfg.PingInterval > 0 {
		g.Go(func() error { return c.pingLoop(ctx, s.cfg.PingInterval) })
	}
	_ = g.Wait() // either side ending ends the connection; why is the peer's business

	if c.sess != nil {
		c.sess.detach(c)
	}
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
}

// dispatch acts on one client message. It runs on the client's reader.
func (s *Server) dispatch(ctx context.Context, c *client, b []byte) {
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		c.sendError(codeBadJSON, "", "not a JSON object: %v", err)
		return
	}
	if m.SessionID != "" && c.sess != nil && m.SessionID != c.sess.id && !slices.Contains([]string{msgPrompt, msgResume}, m.Type) {
		c.sendError(codeBadRequest, m.Ref, "this connection is attached to session %s, not %s (send resume first)", c.sess.id, m.SessionID)
		return
	}
	switch m.Type {
	case msgPrompt:
		s.prompt(ctx, c, m)
	case msgResume:
		if m.SessionID == "" {
			c.sendError(codeBadRequest, m.Ref, "resume needs a session_id")
			return
		}
		if _, err := s.attach(ctx, c, m.SessionID, m.AfterSeq, m.Epoch); err != nil {
			c.sendError(errCode(err), m.Ref, "%v", err)
		}
	case msgPermission, msgAnswer:
		if c.sess == nil {
			c.sendError(codeNotAttached, m.Ref, "no session: send prompt or resume first")
			return
		}
		if m.ID == "" {
			c.sendError(codeBadRequest, m.Ref, "%s needs the id of the request", m.Type)
			return
		}
		if code, err := c.sess.decide(c, m); err != nil {
			c.sendError(code, m.Ref, "%v", err)
		}
	case msgCancel, msgSetMode, msgTakeControl:
		l := c.sess
		if l == nil {
			c.sendError(codeNotAttached, m.Ref, "no session: send prompt or resume first")
			return
		}
		if m.Type == msgTakeControl {
			l.takeControl(c)
			return
		}
		if !l.controls(c) {
			c.sendError(codeNotController, m.Ref, "another client controls this session: send take_control first")
			return
		}
		if m.Type == msgCancel {
			l.s.Interrupt() // nothing when no prompt runs
			return
		}
		if err := l.s.SetMode(m.Mode); err != nil {
			c.sendError(codeBadRequest, m.Ref, "%v", err)
			return
		}
		l.publish(modeFrame{Type: "mode", Mode: l.s.Mode()})
	case msgListSession:
		s.listSessions(c)
	case "":
		c.sendError(codeBadRequest, m.Ref, "a message needs a type")
	default:
		c.sendError(codeBadRequest, m.Ref, "unknown message type %q", m.Type)
	}
}

// prompt runs a prompt in a new session, or in the one named.
func (s *Server) prompt(ctx context.Context, c *client, m message) {
	if m.Text == "" {
		c.sendError(codeBadRequest, m.Ref, "prompt needs a text")
		return
	}
	l := c.sess
	switch {
	case m.SessionID == "":
		var err error
		if l, err = s.openNew(ctx); err != nil {
			c.sendError(errCode(err), m.Ref, "%v", err)
			return
		}
		s.switchTo(c, l)
		if err := l.attach(c, 0, "", true); err != nil {
			c.sendError(codeFailed, m.Ref, "%v", err)
			return
		}
	case l == nil || l.id != m.SessionID:
		var err error
		if l, err = s.attach(ctx, c, m.SessionID, 0, ""); err != nil {
			c.sendError(errCode(err), m.Ref, "%v", err)
			return
		}
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		c.sendError(codeShuttingDown, m.Ref, "the server is shutting down")
		return
	}
	s.runs.Add(1)
	s.mu.Unlock()
	if code, err := l.begin(c, m.Text); err != nil {
		s.runs.Done()
		c.sendError(code, m.Ref, "%v", err)
		return
	}
	go func() {
		defer s.runs.Done()
		l.run(m.Text)
	}()
}

// attach attaches c to the session id, live or stored, replaying what it
// missed after seq after.
func (s *Server) attach(ctx context.Context, c *client, id string, after int64, epoch string) (*live, error) {
	for {
		l, err := s.liveSession(ctx, id)
		if err != nil {
			return nil, err
		}
		s.switchTo(c, l)
		err = l.attach(c, after, epoch, false)
		if errors.Is(err, errSessionClosed) {
			c.sess = nil
			continue // closed idle meanwhile: open it again
		}
		return l, err
	}
}

// switchTo detaches c from the session it was attached to, if another.
func (s *Server) switchTo(c *client, l *live) {
	if c.sess != nil && c.sess != l {
		c.sess.detach(c)
	}
	c.sess = l
}

// errShuttingDown and errUnknownSession are errors with codes of their own.
var (
	errShuttingDown   = errors.New("the server is shutting down")
	errUnknownSession = errors.New("no such session in this workspace")
)

func errCode(err error) string {
	switch {
	case errors.Is(err, errShuttingDown):
		return codeShuttingDown
	case errors.Is(err, errUnknownSession):
		return codeUnknownSession
	}
	return codeFailed
}

// options are the options a session opens with.
func (s *Server) options(resume string) nova.Options {
	o := s.cfg.Options()
	o.Interactive = true
	o.Continue = false
	o.Resume = resume
	o.CanUseTool = nil // the client in control answers
	return o
}

// openNew opens a new session and makes it live.
func (s *Server) openNew(ctx context.Context) (*live, error) {
	ns, err := nova.Open(ctx, s.options(""))
	if err != nil {
		return nil, fmt.Errorf("open a session: %w", err)
	}
	return s.register(ns)
}

// liveSession returns the live session id, opening it from its transcript
// if it is not live.
func (s *Server) liveSession(ctx context.Context, id string) (*live, error) {
	s.mu.Lock()
	l, ok := s.sessions[id]
	closing := s.closing
	s.mu.Unlock()
	switch {
	case closing:
		return nil, errShuttingDown
	case ok:
		return l, nil
	}
	s.openMu.Lock()
	defer s.openMu.Unlock()
	s.mu.Lock()
	l, ok = s.sessions[id]
	s.mu.Unlock()
	if ok {
		return l, nil // opened while this waited
	}
	if !s.stored(id) {
		return nil, fmt.Errorf("%w: %s", errUnknownSession, id)
	}
	ns, err := nova.Open(ctx, s.options(id))
	if err != nil {
		return nil, fmt.Errorf("open session %s: %w", id, err)
	}
	return s.register(ns)
}

// stored reports whether the workspace has a stored session id.
func (s *Server) stored(id string) bool {
	list, err := nova.ListSessions(s.base.Dir, s.base.DataDir)
	if err != nil {
		return false
	}
	var find func([]nova.SessionInfo) bool
	find = func(list []nova.SessionInfo) bool {
		return slices.ContainsFunc(list, func(in nova.SessionInfo) bool { return in.ID == id || find(in.Subagents) })
	}
	return find(list)
}

// register makes an opened session live, or closes it when the server is
// shutting down.
func (s *Server) register(ns *nova.Session) (*live, error) {
	if n := ns.Notice(); n != "" {
		s.logMu.Lock()
		fresh := n != s.lastNotice
		s.lastNotice = n
		s.logMu.Unlock()
		if fresh { // every session of the workspace has the same, as a rule
			s.logf("notes on opening session %s:\n%s", ns.ID(), strings.TrimRight(n, "\n"))
		}
	}
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = ns.Close()
		return nil, errShuttingDown
	}
	s.epochs++
	l := newLive(s, ns, fmt.Sprintf("%x-%d", time.Now().UnixNano(), s.epochs))
	s.sessions[l.id] = l
	s.mu.Unlock()
	return l, nil
}

// listSessions answers list_sessions: the stored sessions, newest first,
// with the live ones' state, and live ones not stored yet.
func (s *Server) listSessions(c *client) {
	list, err := nova.ListSessions(s.base.Dir, s.base.DataDir)
	if err != nil {
		c.sendError(codeFailed, "", "list sessions: %v", err)
		return
	}
	s.mu.Lock()
	lives := make(map[string]*live, len(s.sessions))
	for id, l := range s.sessions {
		lives[id] = l
	}
	s.mu.Unlock()
	items := []sessionItem{}
	for id, l := range lives {
		if !slices.ContainsFunc(list, func(in nova.SessionInfo) bool { return in.ID == id }) {
			running, clients := l.info()
			items = append(items, sessionItem{ID: id, Model: l.s.Model(), Live: true, Running: running, Clients: clients})
		}
	}
	for _, in := range list {
		it := sessionItem{ID: in.ID, Created: in.Created, Updated: in.Updated, FirstPrompt: in.FirstPrompt,
			Turns: in.Turns, CostUSD: in.CostUSD, Model: in.Model}
		if l := lives[in.ID]; l != nil {
			it.Live = true
			it.Running, it.Clients = l.info()
		}
		items = append(items, it)
	}
	c.sendJSON(sessionsFrame{Type: "sessions", Sessions: items})
}

func (s *Server) noteDropped() { s.dropped.Add(1) }

// logWriter is the HTTP server's error log (TLS handshakes that failed)
// into the server's.
type logWriter struct{ s *Server }

func (w logWriter) Write(p []byte) (int, error) {
	w.s.logf("%s", bytes.TrimSuffix(p, []byte("\n")))
	return len(p), nil
}

func (s *Server) logf(format string, args ...any) {
	s.logMu.Lock()
	defer s.logMu.Unlock()
	fmt.Fprintf(s.cfg.Log, "nova serve: "+format+"\n", args...)
}
