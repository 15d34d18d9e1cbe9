package serve

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/printmode"
)

// live is a session the server runs: a nova.Session, the clients attached
// to it, the latest frames of its stream (the ring) and the permission
// requests and questions waiting for its controller.
//
// Invariants, under mu:
//   - seq is the seq of the last frame of the stream; every frame is put in
//     the ring and queued to every attached client in the same critical
//     section, so a client attached under mu gets the replay up to seq and
//     then every later frame, in order: no gap, no duplicate.
//   - controller, when set, is one of clients.
//   - pending holds the requests and questions of the running prompt that
//     nobody answered yet and whose call has not ended, in seq order; it is
//     empty while no prompt runs.
type live struct {
	srv    *Server
	s      *nova.Session
	id     string
	idJSON []byte // id, quoted
	// epoch tells this life of the session from another (the server
	// restarted, or closed it idle and opened it again): a client's seq
	// is meaningless across lives.
	epoch string
	// prior is the conversation the session had when it was opened (from
	// its transcript), replayed to a client that has none of it; nil for a
	// new session. priorPrompts counts its prompts.
	prior        *nova.History
	priorPrompts int

	mu         sync.Mutex
	seq        int64
	ring       ring
	clients    map[*client]struct{}
	controller *client
	pending    []*pending
	running    bool
	// promptSeq is the seq of the running prompt's user_prompt frame;
	// promptsBefore counts the prompts of the conversation before it, and
	// prompts all of them so far.
	promptSeq     int64
	promptsBefore int
	prompts       int
	idleSince     time.Time
	closed        bool
}

// pending is a permission request or question waiting for the controller.
type pending struct {
	agent, id string // agent is "" for the session's own
	seq       int64
	frame     []byte
	perm      *event.PermissionRequest
	q         *event.Question
}

var errSessionClosed = errors.New("the session was closed")

func newLive(srv *Server, s *nova.Session, epoch string) *live {
	l := &live{srv: srv, s: s, id: s.ID(), epoch: epoch, prior: s.History(),
		clients: map[*client]struct{}{}, idleSince: time.Now(),
		ring: ring{maxFrames: srv.cfg.RingFrames, maxBytes: srv.cfg.RingBytes}}
	l.idJSON = quoteJSON(l.id)
	if l.prior != nil {
		for _, e := range l.prior.Entries {
			if e.Event == nil {
				l.priorPrompts++
			}
		}
	}
	l.prompts = l.priorPrompts
	return l
}

// appendLocked adds a frame to the stream: numbered, kept in the ring,
// queued to every client. withID adds session_id (the result object has
// its own).
func (l *live) appendLocked(obj []byte, withID bool) (int64, []byte) {
	l.seq++
	var id []byte
	if withID {
		id = l.idJSON
	}
	f := stamp(obj, l.seq, id, "")
	l.ring.push(l.seq, f)
	for c := range l.clients {
		c.send(f)
	}
	return l.seq, f
}

// publish adds a frame of the server's own to the stream.
func (l *live) publish(v any) {
	obj, err := json.Marshal(v)
	if err != nil {
		l.srv.logf("encode a frame: %v", err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.appendLocked(obj, true)
}

// publishEvent adds an event of the run to the stream and keeps track of
// what waits for an answer.
func (l *live) publishEvent(e event.Event) {
	obj, err := event.Marshal(e)
	if err != nil {
		l.srv.logf("session %s: encode a %s event: %v", l.id, e.Type(), err)
		return
	}
	inner, _ := event.Inner(e)
	agent := agentOf(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	seq, f := l.appendLocked(obj, true)
	switch x := inner.(type) {
	case *event.PermissionRequest:
		l.pending = append(l.pending, &pending{agent: agent, id: x.ID, seq: seq, frame: f, perm: x})
	case *event.Question:
		l.pending = append(l.pending, &pending{agent: agent, id: x.ID, seq: seq, frame: f, q: x})
	case event.ToolDone:
		// The call was settled: a question that timed out, a request the
		// run gave up on.
		l.dropPendingLocked(func(p *pending) bool { return p.agent == agent && p.id == x.ID })
	case event.LoopComplete:
		if agent != "" { // a subagent ended: nothing of it waits any more
			l.dropPendingLocked(func(p *pending) bool { return p.agent == agent })
		}
	}
}

func (l *live) dropPendingLocked(match func(*pending) bool) {
	out := l.pending[:0]
	for _, p := range l.pending {
		if !match(p) {
			out = append(out, p)
		}
	}
	clear(l.pending[len(out):])
	l.pending = out
}

// agentOf is the subagent an event comes from (the innermost, as its JSON
// says), "" for the session's own.
func agentOf(e event.Event) string {
	agent := ""
	for {
		c, ok := e.(event.Child)
		if !ok {
			return agent
		}
		agent, e = c.AgentID, c.Event
	}
}

// begin starts a prompt: c must control the session and no prompt run.
func (l *live) begin(c *client, text string) (code string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.closed:
		return codeFailed, errSessionClosed
	case l.controller != c:
		return codeNotController, errors.New("another client controls this session: send take_control first")
	case l.running:
		return codeBusy, errors.New("a prompt is running in this session: wait for its result, or cancel it")
	}
	l.running = true
	l.promptsBefore = l.prompts
	l.prompts++
	obj, _ := json.Marshal(userPromptFrame{Type: "user_prompt", Text: text})
	l.promptSeq, _ = l.appendLocked(obj, true)
	return "", nil
}

// run sends the prompt and publishes its events, then the result. It runs
// on a goroutine the server owns (Server.runs).
func (l *live) run(text string) {
	p := printmode.New(io.Discard, io.Discard, printmode.FormatJSON, l.id)
	for e := range l.s.Send(l.srv.baseCtx, text) {
		if e == nil {
			continue // the run's error, which loop_complete carries
		}
		_ = p.Handle(e) // writes nothing: only the result is wanted
		l.publishEvent(e)
	}
	obj, err := json.Marshal(p.Result())
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil {
		l.appendLocked(obj, false)
	} else {
		l.srv.logf("session %s: encode the result: %v", l.id, err)
	}
	// Whatever was not answered is void: the loop no longer waits.
	l.running = false
	clear(l.pending)
	l.pending = nil
	l.idleSince = time.Now()
}

// attach adds c to the session's clients, in control if nobody is, after
// queueing the session frame, the replay (PROTOCOL.md, Replay) and what
// waits for an answer.
func (l *live) attach(c *client, after int64, epoch string, isNew bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return errSessionClosed
	}
	if l.controller == nil {
		l.controller = c
	}
	kind, frames, from := l.replayLocked(after, epoch, isNew)
	c.sendJSON(sessionFrame{Type: "session", SessionID: l.id, Epoch: l.epoch, LastSeq: l.seq, Replay: kind,
		Control: l.controller == c, Running: l.running, Model: l.s.Model(), Mode: l.s.Mode()})
	c.sendReplay(frames)
	for _, p := range l.pending {
		if p.seq < from {
			c.send(stamp(p.frame, 0, nil, "resent"))
		}
	}
	l.clients[c] = struct{}{}
	return nil
}

// replayLocked is what a client attaching with after and epoch misses:
// the kind of replay, its frames, and the first seq of the stream they
// include (pending requests before it are sent again).
func (l *live) replayLocked(after int64, epoch string, isNew bool) (kind string, frames [][]byte, from int64) {
	if isNew {
		return replayNone, nil, l.seq + 1
	}
	last, first := l.seq, l.ring.first()
	whole := last == 0 || first == 1 // the ring holds the whole stream
	if epoch == "" || epoch == l.epoch {
		switch {
		case after > 0 && after <= last && (after == last || after+1 >= first):
			return replayRing, l.ring.since(after), after + 1
		case after == 0 && l.prior == nil && whole:
			return replayRing, l.ring.since(0), 1
		}
	}
	if l.prior != nil && whole {
		// Its past from when it was opened, then all of this life.
		return replayTranscript, append(l.historyFrames(l.prior, -1), l.ring.since(0)...), 1
	}
	h, err := l.s.StoredHistory()
	if err != nil {
		l.srv.logf("session %s: %v", l.id, err)
	}
	if l.running && first > 0 && l.promptSeq >= first {
		// The conversation before the running prompt, then the prompt's
		// frames as they came.
		return replayTranscript, append(l.historyFrames(h, l.promptsBefore), l.ring.since(l.promptSeq-1)...), l.promptSeq
	}
	return replayTranscript, l.historyFrames(h, -1), last + 1
}

// historyFrames encodes a stored conversation as replayed frames: each
// prompt and event, then the session's usage. With cut ≥ 0 it stops before
// the prompt numbered cut (from 0).
func (l *live) historyFrames(h *nova.History, cut int) [][]byte {
	if h == nil {
		return nil
	}
	var out [][]byte
	add := func(obj []byte, err error) {
		if err == nil {
			out = append(out, stamp(obj, 0, l.idJSON, "replayed"))
		}
	}
	prompts := 0
	for _, e := range h.Entries {
		if e.Event == nil {
			if prompts == cut {
				break
			}
			prompts++
			add(json.Marshal(userPromptFrame{Type: "user_prompt", Text: e.Prompt}))
			continue
		}
		add(event.Marshal(e.Event))
	}
	if h.Usage.Model != "" || h.Usage.CostUSD > 0 {
		add(event.Marshal(h.Usage))
	}
	return out
}

// detach removes c; control is free if c had it.
func (l *live) detach(c *client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.clients, c)
	if l.controller == c {
		l.controller = nil
	}
	if len(l.clients) == 0 {
		l.idleSince = time.Now()
	}
}

// takeControl gives c control; the previous controller is told.
func (l *live) takeControl(c *client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.controller
	l.controller = c
	if old != nil && old != c {
		old.sendJSON(controlFrame{Type: "control", SessionID: l.id, Control: false})
	}
	c.sendJSON(controlFrame{Type: "control", SessionID: l.id, Control: true})
}

// controls reports whether c may act on the session.
func (l *live) controls(c *client) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.controller == c
}

// decide answers a permission request or question of the running prompt.
func (l *live) decide(c *client, m message) (code string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.controller != c {
		return codeNotController, errors.New("another client controls this session: send take_control first")
	}
	var found *pending
	for _, p := range l.pending {
		if p.id != m.ID || (m.AgentID != "" && p.agent != m.AgentID) {
			continue
		}
		if found != nil {
			return codeBadRequest, fmt.Errorf("several requests wait with id %s: say which with agent_id", m.ID)
		}
		found = p
	}
	if found == nil {
		return codeUnknownRequest, fmt.Errorf("nothing waits for an answer with id %q", m.ID)
	}
	var res resolvedFrame
	switch {
	case m.Type == msgPermission && found.perm != nil:
		if !slices.Contains(found.perm.Choices, m.Decision) {
			return codeBadRequest, fmt.Errorf("decision %q is not one of the request's choices %v", m.Decision, found.perm.Choices)
		}
		found.perm.Respond(event.DecisionFor(m.Decision, m.Note))
		res = resolvedFrame{Type: "resolved", ID: found.id, AgentID: found.agent, Decision: m.Decision, Note: m.Note}
	case m.Type == msgAnswer && found.q != nil:
		a := event.Answer{Option: m.Option, Text: cmp.Or(m.Text, m.Answer)}
		if a.Option != "" && !slices.Contains(found.q.Options, a.Option) {
			return codeBadRequest, fmt.Errorf("option %q is not one of the question's options %v", a.Option, found.q.Options)
		}
		if a.Option == "" && a.Text == "" {
			return codeBadRequest, errors.New("an answer needs an option or a text")
		}
		found.q.Respond(a)
		res = resolvedFrame{Type: "resolved", ID: found.id, AgentID: found.agent, Answer: &a}
	case found.perm != nil:
		return codeBadRequest, fmt.Errorf("%s is a permission request: answer it with a permission message", m.ID)
	default:
		return codeBadRequest, fmt.Errorf("%s is a question: answer it with an answer message", m.ID)
	}
	l.dropPendingLocked(func(p *pending) bool { return p == found })
	obj, _ := json.Marshal(res)
	l.appendLocked(obj, true)
	return "", nil
}

// idle reports whether the session has had no client and no run for at
// least d, and if so marks it closed (the caller closes it).
func (l *live) idle(now time.Time, d time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.running || len(l.clients) > 0 || now.Sub(l.idleSince) < d {
		return false
	}
	l.closed = true
	return true
}

// info is the session as list_sessions shows it live.
func (l *live) info() (running bool, clients int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.running, len(l.clients)
}
