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
// Routes (any path prefix is tolerated, as behind a gateway): POST
// …/messages answers from the script, streaming when the body says
// "stream": true and with one JSON message otherwise; POST
// …/messages/count_tokens and GET …/models answer without using the
// script; anything else gets a 404 JSON error.
//
// All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:40123", usable as
	// ANTHROPIC_BASE_URL.
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
	toolSeq  int
	msgSeq   int
}

// Request is one recorded HTTP request and the timing of its answer.
type Request struct {
	Method   string
	Path     string
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

// resolve fills in t's defaults, drawing tool call IDs from the server's
// counter so they are unique across the whole session, as real ones are.
func (s *Server) resolve(t Turn) Turn {
	return t.resolved(func() string {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.toolSeq++
		return "toolu_" + strconv.Itoa(s.toolSeq)
	})
}

func (s *Server) nextMessageID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgSeq++
	return fmt.Sprintf("msg_llmtest_%04d", s.msgSeq)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	body, readErr := io.ReadAll(r.Body)
	rec := Request{
		Method:   r.Method,
		Path:     r.URL.Path,
		Header:   r.Header.Clone(),
		Body:     body,
		Received: received,
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		writeAPIError(w, http.StatusServiceUnavailable, "", "api_error", "llmtest: server closed")
		return
	}
	s.handlers.Add(1)
	idx := len(s.reqs)
	s.reqs = append(s.reqs, rec)
	s.mu.Unlock()
	defer s.handlers.Done()

	x := &exchange{s: s, idx: idx, w: w, r: r, req: rec}
	defer x.finish()
	w.Header().Set("request-id", fmt.Sprintf("req_llmtest_%04d", idx+1))
	if readErr != nil {
		return // the client went away mid-body; nobody to answer
	}

	p := r.URL.Path
	switch {
	// Suffix matching tolerates base URLs with a path prefix (proxies,
	// gateways): ".../anthropic/v1/messages" routes like "/v1/messages".
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		s.anthropicCountTokens(x)
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		s.anthropicMessages(x)
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		s.anthropicModels(x)
	default:
		writeAPIError(w, http.StatusNotFound, "", "not_found_error",
			fmt.Sprintf("llmtest: no route for %s %s", r.Method, p))
	}
}

// exchange is one request being answered.
type exchange struct {
	s   *Server
	idx int // index of this request's record in s.reqs
	w   http.ResponseWriter
	r   *http.Request
	req Request // the record as received, handed to the fallback
}

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
	Delay     time.Duration // pause before writing
	Name      string        // the "event:" field; empty for data-only protocols
	Data      []byte        // the "data:" field, one line of JSON
	BlockStop bool          // record a BlockStops time once flushed
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
		if ev.BlockStop {
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
