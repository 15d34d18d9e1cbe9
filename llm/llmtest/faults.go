package llmtest

import (
	"context"
	"errors"
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
}

var faultRequest = &llm.Request{
	Model: "test-model", MaxTokens: 100,
	Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}},
}

// Run runs every case as a subtest.
func (s StreamFaults) Run(t *testing.T) {
	t.Run("RequestTimeoutNoResponse", s.requestTimeoutNoResponse)
	t.Run("RequestTimeoutSparesTheStream", s.requestTimeoutSparesTheStream)
	t.Run("ConnectionRefused", s.connectionRefused)
	t.Run("CancelledBeforeStart", s.cancelledBeforeStart)
	t.Run("CancelMidStream", s.cancelMidStream)
	t.Run("EarlyBreak", s.earlyBreak)
}

// server starts h; connections are cut before Close, which waits for
// handlers, since a handler waiting for the client to hang up may not
// notice it otherwise.
func server(t *testing.T, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
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
	release := make(chan struct{})
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
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
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(s.Head))
		w.(http.Flusher).Flush()
		time.Sleep(300 * time.Millisecond)
		_, _ = w.Write([]byte(s.Tail))
	})
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
	ExpectError(t, err, llm.ErrBrokenStream, "connection failed")
}

// A cancelled context sends no request.
func (s StreamFaults) cancelledBeforeStart(t *testing.T) {
	var hits atomic.Int32
	srv := server(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })
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

// Cancelling ctx ends the stream with ctx's error, recognisable with
// errors.Is and not retryable.
func (s StreamFaults) cancelMidStream(t *testing.T) {
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(s.First))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
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
	srv := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(s.First))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the client hung up
		close(gone)
	})
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
