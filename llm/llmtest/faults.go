package llmtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
)

// StreamFaults is the part of an adapter's fault tests that does not
// depend on its wire format: request timeouts, a refused connection,
// cancellation before and during a stream, and a consumer that stops
// early. Each adapter runs it with its own client and stream bytes.
type StreamFaults struct {
	// New returns a client for the server at baseURL (the adapter adds
	// any path prefix), with the SDK's own retries off and requestTimeout
	// (0: none); it closes its idle connections at test cleanup.
	New func(t testing.TB, baseURL string, requestTimeout time.Duration) llm.Client
	// TimeoutCause is what a request-timeout error wraps.
	TimeoutCause error
	// First is the start of a stream up to and including the first text
	// delta, which is the first event the client yields.
	First string
	// Head and Tail are a whole valid stream cut in two.
	Head, Tail string
	// Truncated is what the error says of a body that ends before the
	// response does ("stream ended before message_stop").
	Truncated string
}

var faultRequest = Hi("test-model")

// Run runs every case as a subtest.
func (s StreamFaults) Run(t *testing.T) {
	t.Run("RequestTimeoutNoResponse", s.requestTimeoutNoResponse)
	t.Run("RequestTimeoutSparesTheStream", s.requestTimeoutSparesTheStream)
	t.Run("ConnectionRefused", s.connectionRefused)
	t.Run("CancelledBeforeStart", s.cancelledBeforeStart)
	t.Run("CancelWhileWaiting", s.cancelWhileWaiting)
	t.Run("CancelMidStream", s.cancelMidStream)
	t.Run("EarlyBreak", s.earlyBreak)
	t.Run("ProxyErrors", s.proxyErrors)
	t.Run("EmptyBody", s.emptyBody)
	t.Run("EndsEarly", s.endsEarly)
	t.Run("CutMidStream", s.cutMidStream)
	t.Run("ClosedMidStream", s.closedMidStream)
}

// silentServer accepts requests and never answers them, until the client
// hangs up or the test ends.
func silentServer(t *testing.T) *httptest.Server {
	release := make(chan struct{})
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	// Cleanups run last-in first-out: the handlers are released before the
	// server waits for them.
	t.Cleanup(func() { close(release) })
	return srv
}

// ExpectError checks that err is an *llm.Error of kind, without status or
// Retry-After, whose message contains message and which wraps a cause.
func ExpectError(t testing.TB, err error, kind llm.ErrorKind, message string) *llm.Error {
	t.Helper()
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	if le.Kind != kind || le.StatusCode != 0 || le.RetryAfter != 0 {
		t.Errorf("error %q: kind %v status %d retry-after %v, want kind %v and no status", le, le.Kind, le.StatusCode, le.RetryAfter, kind)
	}
	if !strings.Contains(le.Message, message) {
		t.Errorf("message %q does not contain %q", le.Message, message)
	}
	if le.Err == nil {
		t.Errorf("error %q wraps no cause", le)
	}
	return le
}

// A server that never sends headers: the request timeout ends the wait
// with a retryable timeout, not a cancellation.
func (s StreamFaults) requestTimeoutNoResponse(t *testing.T) {
	srv := silentServer(t)
	c := s.New(t, srv.URL, 100*time.Millisecond)
	start := time.Now()
	_, err := Collect(t, c.Stream(context.Background(), faultRequest))
	if d := time.Since(start); d > 15*time.Second { // a hang guard, not a timing assertion
		t.Errorf("took %v despite the request timeout", d)
	}
	le := ExpectError(t, err, llm.ErrTimeout, "no response within 100ms")
	if !errors.Is(le, s.TimeoutCause) {
		t.Errorf("error does not wrap the request-timeout cause: %v", le.Err)
	}
	if errors.Is(err, context.Canceled) || !llm.IsRetryable(err) {
		t.Errorf("timeout %v: looks like a cancellation or is not retryable", err)
	}
}

// The timeout covers the wait for the response, not a stream that takes
// longer than it.
func (s StreamFaults) requestTimeoutSparesTheStream(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(s.Head))
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		_, _ = w.Write([]byte(s.Tail))
	}))
	c := s.New(t, srv.URL, 100*time.Millisecond)
	if _, err := Collect(t, c.Stream(context.Background(), faultRequest)); err != nil {
		t.Fatalf("Stream: %v", err)
	}
}

func (s StreamFaults) connectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c := s.New(t, "http://"+addr, 0)
	_, err = Collect(t, c.Stream(context.Background(), faultRequest))
	le := ExpectError(t, err, llm.ErrConnection, "connection refused: is the server at http://"+addr+" running?")
	if !le.Retryable() {
		t.Errorf("a refused connection is not retryable: %v", le)
	}
}

// A cancelled context sends no request.
func (s StreamFaults) cancelledBeforeStart(t *testing.T) {
	var hits atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	c := s.New(t, srv.URL, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Collect(t, c.Stream(ctx, faultRequest))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if hits.Load() != 0 {
		t.Errorf("request sent on a cancelled context")
	}
}

// A deadline of the caller's that ends while the server has not answered
// is the caller's, not a request timeout.
func (s StreamFaults) cancelWhileWaiting(t *testing.T) {
	srv := silentServer(t)
	c := s.New(t, srv.URL, time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Collect(t, c.Stream(ctx, faultRequest))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's context.DeadlineExceeded", err)
	}
	var le *llm.Error
	if errors.As(err, &le) {
		t.Errorf("the caller's deadline reported as %v", le)
	}
}

// Cancelling ctx ends the stream with ctx's error, recognisable with
// errors.Is and not retryable.
func (s StreamFaults) cancelMidStream(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(s.First))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	c := s.New(t, srv.URL, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var events []llm.StreamEvent
	var err error
	for ev, e := range c.Stream(ctx, faultRequest) {
		if e != nil {
			err = e
			break
		}
		events = append(events, ev)
		if _, ok := ev.(llm.TextDelta); ok {
			cancel()
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if llm.IsRetryable(err) {
		t.Errorf("cancellation reported as retryable")
	}
	if len(events) != 1 {
		t.Errorf("events %v", events)
	}
}

// A consumer that stops after the first event must close the connection
// (the server sees its request context end) and leave no goroutine behind
// (the adapter's TestMain checks with goleak).
func (s StreamFaults) earlyBreak(t *testing.T) {
	gone := make(chan struct{})
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(s.First))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the client hung up
		close(gone)
	}))
	c := s.New(t, srv.URL, 0)
	n := 0
	for _, err := range c.Stream(context.Background(), faultRequest) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Fatalf("%d events", n)
	}
	select {
	case <-gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection stayed open after the consumer stopped")
	}
}

// failOnce runs a call against h and checks its error and the number of
// events before it; the call must have been sent once.
func (s StreamFaults) failOnce(t *testing.T, h http.HandlerFunc, want WantError, events int) {
	t.Helper()
	var hits atomic.Int32
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	c := s.New(t, srv.URL, 0)
	got, err := Collect(t, c.Stream(context.Background(), faultRequest))
	CheckError(t, err, want)
	if len(got) != events {
		t.Errorf("%d events before the error, want %d: %v", len(got), events, got)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

// Proxies and gateways answer errors with bodies no API would send; the
// status decides, and the body is the message.
func (s StreamFaults) proxyErrors(t *testing.T) {
	tests := []struct {
		name string
		h    http.HandlerFunc
		want WantError
	}{
		{"502 with HTML", ErrorHandler(502, nil, "text/html", "<html>Bad Gateway</html>"),
			WantError{Kind: llm.ErrServer, StatusCode: 502, Message: "<html>Bad Gateway</html>"}},
		{"429 without a body", ErrorHandler(429, map[string]string{"Retry-After": "3"}, "text/plain", ""),
			WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 3 * time.Second, Message: "Too Many Requests"}},
		{"503 without a body", ErrorHandler(503, nil, "text/plain", ""),
			WantError{Kind: llm.ErrServer, StatusCode: 503, Message: "Service Unavailable"}},
		{"504 in plain text", ErrorHandler(504, nil, "text/plain", "upstream timed out"),
			WantError{Kind: llm.ErrTimeout, StatusCode: 504, Message: "upstream timed out"}},
		{"401 in plain text", ErrorHandler(401, nil, "text/plain", "no key"),
			WantError{Kind: llm.ErrAuth, StatusCode: 401, Message: "no key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { s.failOnce(t, tt.h, tt.want, 0) })
	}
}

// A 200 with nothing in it is a broken stream.
func (s StreamFaults) emptyBody(t *testing.T) {
	s.failOnce(t, SSEHandler(nil), WantError{Kind: llm.ErrBrokenStream, Message: s.Truncated}, 0)
}

// A body that ends cleanly before the response is a broken stream, after
// the events that arrived.
func (s StreamFaults) endsEarly(t *testing.T) {
	s.failOnce(t, SSEHandler([]byte(s.First)), WantError{Kind: llm.ErrBrokenStream, Message: s.Truncated}, 1)
}

// A connection that breaks mid-stream (the chunked body unterminated) is
// an interrupted stream, after the events that arrived.
func (s StreamFaults) cutMidStream(t *testing.T) {
	s.failOnce(t, AbortAfter(s.First), WantError{Kind: llm.ErrBrokenStream, Message: "stream interrupted"}, 1)
}

// A body without a length that the server closes looks like a clean end;
// only the missing end of the response tells it is broken.
func (s StreamFaults) closedMidStream(t *testing.T) {
	s.failOnce(t, CloseAfter(s.First), WantError{Kind: llm.ErrBrokenStream, Message: s.Truncated}, 1)
}

// AbortAfter sends prefix as an event stream, then breaks the connection
// mid-body: the chunked body stays unterminated, which the client reads as
// an unexpected EOF.
func AbortAfter(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		SSEHandler([]byte(prefix))(w, r)
		w.(http.Flusher).Flush()
		panic(http.ErrAbortHandler)
	}
}

// CloseAfter sends prefix as an HTTP/1.0-style event stream (no length, no
// chunking) and closes the connection, which ends the body as cleanly as a
// complete one.
func CloseAfter(prefix string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Closing a socket with unread request bytes sends a reset instead
		// of an orderly close.
		_, _ = io.ReadAll(r.Body)
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			panic(err)
		}
		defer conn.Close()
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n%s", prefix)
		_ = buf.Flush()
	}
}
