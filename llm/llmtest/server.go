package llmtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is a scripted model server listening on a loopback port.
//
// Requests are answered in arrival order from a queue of turns (see
// [NewServer] and [Server.Push]); when the queue is empty the fallback set
// with [Server.SetFallback] is asked, and without one the server answers 500
// "llmtest: script exhausted". Every request, whatever its path, is
// recorded (see [Server.Requests]) and kept in memory until the server is
// closed.
//
// Routes (any path prefix is tolerated, as behind a gateway; the path suffix
// picks the wire format):
//
//	POST …/messages              Anthropic Messages (anthropic.go)
//	POST …/responses             OpenAI Responses (responses.go)
//	POST …/chat/completions      OpenAI Chat Completions (chat.go)
//	POST …/messages/count_tokens Anthropic token count estimate
//	GET  …/models, …/models/{id} the model list of [Server.SetModels]
//
// The three model-call routes answer from the script, streaming when the body
// says "stream": true and with one JSON document otherwise; the others answer
// without using it. GET …/models answers in Anthropic's shape when the
// request carries an anthropic-version header and in OpenAI's otherwise.
// Anything else gets a 404 JSON error.
//
// All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:40123", usable as
	// ANTHROPIC_BASE_URL; OpenAI clients want URL+"/v1" (OPENAI_BASE_URL).
	URL string

	srv       *http.Server
	quit      chan struct{} // closed by Close: aborts pauses, hangs and stalls
	serveDone chan struct{} // closed when srv.Serve has returned
	closeOnce sync.Once

	// handlers counts running handlers so Close can wait for them. Add is
	// only called with mu held and closed false, and Close sets closed
	// under mu before it waits, so no Add can race with the Wait.
	handlers sync.WaitGroup

	// fbMu serialises calls of the fallback, so a stateful fallback needs
	// no locking of its own. It is never held together with mu, so the
	// fallback may call the Server's methods.
	fbMu sync.Mutex

	// mu guards everything below, including every Request in reqs: a
	// handler updates its own record (BlockStops, Done) only through
	// the exchange methods, which take mu.
	mu       sync.Mutex
	closed   bool
	queue    []Turn
	fallback func(Request) Turn
	reqs     []Request
	models   []Model
	toolSeq  int
	msgSeq   int
}

// Protocols, the values of [Request.Protocol].
const (
	ProtocolAnthropic = "anthropic"        // …/messages, …/messages/count_tokens, Anthropic-style …/models
	ProtocolResponses = "openai-responses" // …/responses
	ProtocolChat      = "openai-chat"      // …/chat/completions
	// ProtocolOpenAI marks the OpenAI models endpoint, which both OpenAI
	// formats share.
	ProtocolOpenAI = "openai"
)

// Request is one recorded HTTP request and the timing of its answer.
type Request struct {
	Method string
	Path   string
	// Protocol is the API whose wire format answered the request (one of
	// the Protocol* constants), or "" for a path no route matched. A
	// fallback can use it to pick a turn per protocol.
	Protocol string
	Header   http.Header
	Body     []byte
	Received time.Time
	// BlockStops holds the time each content block's stop event was
	// written and flushed, in block order: with scripted delays, the
	// spacing shows when a client could first have acted on each block.
	BlockStops []time.Time
	// Done is when the server finished answering (or gave up on the
	// client). It is set before a cut connection is closed and before a
	// completed response's end is sent, so a client that has seen the end
	// of its stream always sees Done set.
	Done time.Time
}

// JSON returns the request body decoded as a JSON object, or nil if it is
// not one.
func (r Request) JSON() map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil {
		return nil
	}
	return m
}

// clone returns a deep copy, so callers can keep and mutate it freely.
func (r Request) clone() Request {
	r.Header = r.Header.Clone()
	r.Body = bytes.Clone(r.Body)
	r.BlockStops = append([]time.Time(nil), r.BlockStops...)
	return r
}

// NewServer starts a server on 127.0.0.1 with an ephemeral port, queued to
// answer with turns. It panics if it cannot listen, like
// httptest.NewServer: a test cannot proceed without it.
func NewServer(turns ...Turn) *Server {
	s, err := Listen("127.0.0.1:0", turns...)
	if err != nil {
		panic(err)
	}
	return s
}

// Listen starts a server on addr (host:port; port 0 picks a free one).
func Listen(addr string, turns ...Turn) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("llmtest: %w", err)
	}
	s := &Server{
		URL:       "http://" + ln.Addr().String(),
		quit:      make(chan struct{}),
		serveDone: make(chan struct{}),
		queue:     append([]Turn(nil), turns...),
		models:    DefaultModels(),
	}
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.handle),
		ReadHeaderTimeout: 10 * time.Second,
	}
	go func() {
		defer close(s.serveDone)
		_ = s.srv.Serve(ln) // always ErrServerClosed once Close runs
	}()
	return s, nil
}

// Push appends turns to the queue.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	s.queue = append(s.queue, turns...)
	s.mu.Unlock()
}

// Pending returns how many queued turns have not been served yet; tests use
// it to check a script was consumed exactly.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetFallback sets the function that chooses the turn when the queue is
// empty; nil restores the "script exhausted" answer. Calls of f never
// overlap, and f may call the Server's methods.
func (s *Server) SetFallback(f func(r Request) Turn) {
	s.mu.Lock()
	s.fallback = f
	s.mu.Unlock()
}

// Cycle returns a fallback that serves turns in order, round and round,
// for benchmarks and demos that must never run out of script. It returns
// nil if turns is empty.
func Cycle(turns ...Turn) func(Request) Turn {
	if len(turns) == 0 {
		return nil
	}
	turns = append([]Turn(nil), turns...)
	var mu sync.Mutex // the Server serialises calls, but Cycle may be used elsewhere
	next := 0
	return func(Request) Turn {
		mu.Lock()
		defer mu.Unlock()
		t := turns[next]
		next = (next + 1) % len(turns)
		return t
	}
}

// Requests returns copies of the recorded requests in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = r.clone()
	}
	return out
}

// Close stops the server: it closes the listener and every connection,
// unblocks hanging and paused responses (their clients see the connection
// drop) and waits for all handlers to return. It is safe to call more than
// once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		close(s.quit)
		_ = s.srv.Close()
		s.handlers.Wait()
		<-s.serveDone
	})
}

// next takes the turn for req: the head of the queue, else the fallback's
// choice. ok is false when the script is exhausted.
func (s *Server) next(req Request) (t Turn, ok bool) {
	s.mu.Lock()
	if len(s.queue) > 0 {
		t = s.queue[0]
		s.queue[0] = Turn{} // let the served turn be collected
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return t, true
	}
	f := s.fallback
	s.mu.Unlock()
	if f == nil {
		return Turn{}, false
	}
	s.fbMu.Lock()
	defer s.fbMu.Unlock()
	return f(req.clone()), true
}

// resolve fills in t's defaults, drawing tool call IDs (idPrefix and a
// number) from the server's counter so they are unique across the whole
// session, as real ones are.
func (s *Server) resolve(t Turn, idPrefix, model string) Turn {
	return t.resolved(func() string {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.toolSeq++
		return idPrefix + strconv.Itoa(s.toolSeq)
	}, model)
}

// nextResponseNumber numbers model responses across all protocols, for
// their IDs (msg_llmtest_0001, resp_llmtest_0002, chatcmpl-llmtest0003).
func (s *Server) nextResponseNumber() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgSeq++
	return s.msgSeq
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, readErr := io.ReadAll(r.Body)
	proto, serve := route(r)
	rec := Request{
		Method:   r.Method,
		Path:     r.URL.Path,
		Protocol: proto,
		Header:   r.Header.Clone(),
		Body:     body,
		Received: received,
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeError(w, proto, apiError{status: http.StatusServiceUnavailable, typ: "api_error", msg: "llmtest: server closed"})
		return
	}
	s.handlers.Add(1)
	idx := len(s.reqs)
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
	defer s.handlers.Done()

	x := &exchange{s: s, idx: idx, w: w, r: r, req: rec, proto: proto}
	defer x.finish()
	w.Header().Set("request-id", fmt.Sprintf("req_llmtest_%04d", idx+1))
	if readErr != nil {
		return // the client went away mid-body; nobody to answer
	}
	if serve == nil {
		// The Anthropic shape, which OpenAI clients read as well: both
		// look for error.message.
		writeAPIError(w, http.StatusNotFound, "", "not_found_error",
			fmt.Sprintf("llmtest: no route for %s %s", r.Method, r.URL.Path))
		return
	}
	serve(s, x)
}

// route picks the protocol and handler for r; a nil handler means no route.
// Suffix matching tolerates base URLs with a path prefix (proxies,
// gateways): ".../anthropic/v1/messages" routes like "/v1/messages".
func route(r *http.Request) (proto string, serve func(*Server, *exchange)) {
	p := r.URL.Path
	switch r.Method {
	case http.MethodPost:
		switch {
		case strings.HasSuffix(p, "/messages/count_tokens"):
			return ProtocolAnthropic, (*Server).anthropicCountTokens
		case strings.HasSuffix(p, "/messages"):
			return ProtocolAnthropic, (*Server).anthropicMessages
		case strings.HasSuffix(p, "/responses"):
			return ProtocolResponses, (*Server).responses
		case strings.HasSuffix(p, "/chat/completions"):
			return ProtocolChat, (*Server).chatCompletions
		}
	case http.MethodGet:
		if strings.HasSuffix(p, "/models") || strings.Contains(p, "/models/") {
			// Both APIs serve GET /v1/models; only the header tells
			// which client is asking.
			if r.Header.Get("anthropic-version") != "" {
				return ProtocolAnthropic, (*Server).anthropicModels
			}
			return ProtocolOpenAI, (*Server).openaiModels
		}
	}
	return "", nil
}

// exchange is one request being answered.
type exchange struct {
	s     *Server
	idx   int // index of this request's record in s.reqs
	w     http.ResponseWriter
	r     *http.Request
	req   Request // the record as received, handed to the fallback
	proto string  // the Protocol* constant of the route
}

// takeTurn does what every model call does before rendering: it decodes the
// body into head, takes the next turn, and answers Hang and error statuses
// itself. ok is false when the request has been dealt with.
func (s *Server) takeTurn(x *exchange, head any) (t Turn, ok bool) {
	if err := json.Unmarshal(x.req.Body, head); err != nil {
		// Not consuming a turn: a client that sends garbage should fail
		// loudly here, not shift the rest of the script by one.
		x.fail(http.StatusBadRequest, "llmtest: request body is not a JSON object: "+err.Error())
		return Turn{}, false
	}
	t, ok = s.next(x.req)
	if !ok {
		x.fail(http.StatusInternalServerError, "llmtest: script exhausted")
		return Turn{}, false
	}
	if err := t.Validate(); err != nil {
		x.fail(http.StatusInternalServerError, "llmtest: invalid turn: "+err.Error())
		return Turn{}, false
	}
	if t.Hang {
		x.hang()
		return Turn{}, false
	}
	if t.Status != 0 && t.Status != http.StatusOK {
		e := anthropicStatusError(t)
		if x.proto != ProtocolAnthropic {
			e = openaiStatusError(t)
		}
		x.writeError(e)
		return Turn{}, false
	}
	return t, true
}

// unstreamed applies t's faults to a non-streaming answer, which has no
// stream to fault: block delays add up before it, CutAfter drops the
// connection instead of answering, StallAfter hangs and a StreamError
// becomes an error status. ok is false when the request has been dealt with.
func (x *exchange) unstreamed(t Turn) (ok bool) {
	for _, b := range t.Blocks {
		if x.pause(b.Delay) != nil {
			return false
		}
	}
	switch {
	case t.CutAfter > 0:
		x.abort()
		return false
	case t.StallAfter > 0:
		x.hang()
		return false
	case t.StreamError != nil:
		e := anthropicStreamErrorStatus(*t.StreamError)
		if x.proto != ProtocolAnthropic {
			e = openaiStreamErrorStatus(*t.StreamError)
		}
		x.writeError(e)
		return false
	}
	return true
}

// writeJSON answers 200 with v as the JSON body.
func (x *exchange) writeJSON(v any) {
	x.w.Header().Set("Content-Type", "application/json")
	x.w.WriteHeader(http.StatusOK)
	_, _ = x.w.Write(marshal(v))
}

// fail answers with the server's own diagnostic msg, in the error shape of
// the exchange's protocol so the client surfaces the message.
func (x *exchange) fail(status int, msg string) {
	e := apiError{status: status, msg: msg}
	if x.proto == ProtocolAnthropic || x.proto == "" {
		e.typ, _ = anthropicErrorDefaults(status)
	} else {
		e.typ, e.code, _ = openaiErrorDefaults(status)
	}
	x.writeError(e)
}

func (x *exchange) writeError(e apiError) { writeError(x.w, x.proto, e) }

// finish records Done unless an earlier step already did.
func (x *exchange) finish() {
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	if rec := &x.s.reqs[x.idx]; rec.Done.IsZero() {
		rec.Done = time.Now()
	}
}

func (x *exchange) markBlockStop() {
	now := time.Now()
	x.s.mu.Lock()
	defer x.s.mu.Unlock()
	rec := &x.s.reqs[x.idx]
	rec.BlockStops = append(rec.BlockStops, now)
}

// errStop ends a response early: the client left, the server is closing or
// the script cut the connection. The handler just returns.
var errStop = errors.New("llmtest: response stopped")

// pause sleeps for d, returning errStop at once if the client disconnects or
// the server closes. A plain time.Sleep would hold a cancelled client's
// handler (and Close) for the whole delay.
func (x *exchange) pause(d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-x.r.Context().Done():
		return errStop
	case <-x.s.quit:
		x.abort()
		return errStop
	}
}

// hang blocks until the client disconnects or the server closes.
func (x *exchange) hang() {
	select {
	case <-x.r.Context().Done():
	case <-x.s.quit:
		x.abort()
	}
}

// abort drops the connection without finishing the response, so the client
// sees an unexpected EOF instead of a clean (and misleadingly successful)
// end. Done is recorded first: once the client notices, the record must be
// complete.
func (x *exchange) abort() {
	x.finish()
	rc := http.NewResponseController(x.w)
	_ = rc.Flush() // whatever was written must reach the client before the cut
	conn, _, err := rc.Hijack()
	if err != nil {
		// Not hijackable (HTTP/2): this panic makes net/http reset the
		// connection or stream without logging.
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// sseEvent is one server-sent event of a planned response. Protocol files
// build the plan; exchange.play performs it, so pacing, flushing and fault
// injection work the same for every protocol.
type sseEvent struct {
	Delay time.Duration // pause before writing
	Name  string        // the "event:" field; empty for data-only protocols
	Data  []byte        // the "data:" field, one line of JSON
	// BlockStops is how many content blocks this event completes: a
	// BlockStops time is recorded for each once it is flushed. It is
	// usually 0 or 1; a format with no event for some block (Chat has none
	// for redacted thinking) credits it to the next event.
	BlockStops int
}

// play writes events as a 200 text/event-stream response, flushing after
// each so the client sees them one at a time, and applies the turn's
// faults: cutAfter and stallAfter count written events.
func (x *exchange) play(events []sseEvent, cutAfter, stallAfter int) {
	h := x.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	x.w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(x.w)

	var buf []byte
	for i, ev := range events {
		if x.pause(ev.Delay) != nil {
			return
		}
		buf = buf[:0]
		if ev.Name != "" {
			buf = append(buf, "event: "...)
			buf = append(buf, ev.Name...)
			buf = append(buf, '\n')
		}
		buf = append(buf, "data: "...)
		buf = append(buf, ev.Data...)
		buf = append(buf, "\n\n"...)
		if _, err := x.w.Write(buf); err != nil {
			return
		}
		if n := i + 1; n == len(events) && n != cutAfter && n != stallAfter {
			// Record Done before the final flush: the client cannot see
			// the end of the stream before the record is complete.
			x.finish()
		}
		if err := rc.Flush(); err != nil {
			return
		}
		for range ev.BlockStops {
			x.markBlockStop()
		}
		switch n := i + 1; {
		case n == cutAfter:
			x.abort()
			return
		case n == stallAfter:
			x.hang()
			return
		}
	}
}

// apiError is an error response in protocol-neutral form.
type apiError struct {
	status     int
	retryAfter string
	typ        string // error.type
	code       string // error.code (OpenAI only); empty is sent as null
	param      string // error.param (OpenAI only); empty is sent as null
	msg        string
}

// writeError writes e in the error shape of proto.
func writeError(w http.ResponseWriter, proto string, e apiError) {
	switch proto {
	case ProtocolResponses, ProtocolChat, ProtocolOpenAI:
		writeOpenAIError(w, e)
	default:
		writeAPIError(w, e.status, e.retryAfter, e.typ, e.msg)
	}
}

// writeAPIError writes an Anthropic-shaped JSON error response. The shape
// doubles as the server's own diagnostics format, since most clients print
// error.message verbatim.
func writeAPIError(w http.ResponseWriter, status int, retryAfter, typ, msg string) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	w.WriteHeader(status)
	_, _ = w.Write(marshal(errorBody{Type: "error", Error: errorDetail{Type: typ, Message: msg}}))
}

type errorBody struct {
	Type  string      `json:"type"`
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// marshal encodes v as one line of JSON the way the real APIs do, leaving
// <, > and & unescaped (encoding/json's default escaping would change the
// bytes a client sees).
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only the package's own wire structs are encoded here; failing
		// means a bug in this package.
		panic(fmt.Sprintf("llmtest: marshal %T: %v", v, err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
