package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
	"github.com/novacode/nova/llm/llmtest"
)

var simpleRequest = &llm.Request{
	Model: "claude-sonnet-4-20250514", MaxTokens: 100,
	Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}},
}

// Stream prefixes shared by the mid-stream failure cases.
const (
	sseStart = "event: message_start\n" +
		`data: {"type":"message_start","message":{"model":"claude-sonnet-4-20250514","id":"msg_1","type":"message","role":"assistant","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n"
	sseText = "event: content_block_start\n" +
		`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
		"event: content_block_delta\n" +
		`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}` + "\n\n"
	sseToolStart = "event: content_block_start\n" +
		`data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}` + "\n\n" +
		"event: content_block_delta\n" +
		`data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"ma"}}` + "\n\n"
)

// apiErrorBody is what the API sends with an error status or in an
// `event: error`.
func apiErrorBody(typ, msg string) string {
	return fmt.Sprintf(`{"type":"error","error":{"type":%q,"message":%q}}`, typ, msg)
}

func errorHandler(status int, header map[string]string, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// wantError is the part of an *llm.Error a case checks; Message is a
// substring.
type wantError struct {
	Kind       llm.ErrorKind
	StatusCode int
	RetryAfter time.Duration
	Message    string
}

func checkError(t *testing.T, err error, want wantError) *llm.Error {
	t.Helper()
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	got := wantError{Kind: le.Kind, StatusCode: le.StatusCode, RetryAfter: le.RetryAfter, Message: want.Message}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error %q (-want +got):\n%s", le, diff)
	}
	if !strings.Contains(le.Message, want.Message) {
		t.Errorf("message %q does not contain %q", le.Message, want.Message)
	}
	if le.Err == nil {
		t.Errorf("error %q wraps no cause", le)
	}
	return le
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    wantError
		// events is the rendering of what came before the error.
		events string
	}{
		{
			name:    "401 is an auth error",
			handler: errorHandler(401, nil, apiErrorBody("authentication_error", "invalid x-api-key")),
			want:    wantError{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid x-api-key"},
		},
		{
			name:    "403 permission",
			handler: errorHandler(403, nil, apiErrorBody("permission_error", "no access to model")),
			want:    wantError{Kind: llm.ErrAuth, StatusCode: 403, Message: "no access to model"},
		},
		{
			name:    "429 with Retry-After",
			handler: errorHandler(429, map[string]string{"Retry-After": "7", "Request-Id": "req_42"}, apiErrorBody("rate_limit_error", "slow down")),
			want:    wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 7 * time.Second, Message: "slow down (request-id req_42)"},
		},
		{
			name:    "429 with retry-after-ms",
			handler: errorHandler(429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, apiErrorBody("rate_limit_error", "slow down")),
			want:    wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 1500 * time.Millisecond, Message: "slow down"},
		},
		{
			name:    "529 overloaded",
			handler: errorHandler(529, nil, apiErrorBody("overloaded_error", "Overloaded")),
			want:    wantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "overloaded_error: Overloaded"},
		},
		{
			name:    "500 api_error",
			handler: errorHandler(500, nil, apiErrorBody("api_error", "Internal server error")),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 500, Message: "Internal server error"},
		},
		{
			name:    "400 invalid request",
			handler: errorHandler(400, nil, apiErrorBody("invalid_request_error", "max_tokens: too large")),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "max_tokens: too large"},
		},
		{
			name:    "404 unknown model",
			handler: errorHandler(404, nil, apiErrorBody("not_found_error", "model: nope")),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 404, Message: "model: nope"},
		},
		{
			name:    "502 from a proxy without a JSON body",
			handler: errorHandler(502, nil, "<html>Bad Gateway</html>"),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 502, Message: "<html>Bad Gateway</html>"},
		},
		{
			name:    "429 from a proxy without a body",
			handler: errorHandler(429, map[string]string{"Retry-After": "3"}, ""),
			want:    wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 3 * time.Second, Message: "Too Many Requests"},
		},
		{
			name: "overloaded_error mid-stream",
			handler: sseHandler([]byte(sseStart + sseText + "event: error\n" +
				"data: " + apiErrorBody("overloaded_error", "Overloaded") + "\n\n")),
			want:   wantError{Kind: llm.ErrOverloaded, Message: "Overloaded"},
			events: "text[0] x1 \"Hello\"\n",
		},
		{
			name: "api_error mid-stream",
			handler: sseHandler([]byte(sseStart + "event: error\n" +
				"data: " + apiErrorBody("api_error", "Internal") + "\n\n")),
			want: wantError{Kind: llm.ErrServer, Message: "Internal"},
		},
		{
			name: "unknown error type mid-stream",
			handler: sseHandler([]byte(sseStart + "event: error\n" +
				"data: " + apiErrorBody("brand_new_error", "what") + "\n\n")),
			want: wantError{Kind: llm.ErrServer, Message: "what"},
		},
		{
			name:    "malformed JSON in a data line",
			handler: sseHandler([]byte(sseStart + sseText + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\n\n")),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "malformed stream event"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "stream ends before message_stop",
			handler: sseHandler([]byte(sseStart + sseText)),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before message_stop"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "input_json_delta without tool_use start",
			handler: sseHandler([]byte(sseStart + "event: content_block_delta\n" + `data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}` + "\n\n")),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "not an open tool_use block"},
		},
		{
			name:    "empty 200 body",
			handler: sseHandler(nil),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before message_stop"},
		},
		{
			name: "connection cut mid-tool-call",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHandler([]byte(sseStart+sseToolStart))(w, r)
				w.(http.Flusher).Flush()
				// Aborting leaves the chunked body unterminated, which the
				// client reads as an unexpected EOF.
				panic(http.ErrAbortHandler)
			},
			want:   wantError{Kind: llm.ErrBrokenStream, Message: "stream interrupted"},
			events: "tool_start[1] id=toolu_1 name=read\ntool_delta[1] x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
		{
			name: "connection hijacked and closed mid-tool-call",
			handler: func(w http.ResponseWriter, r *http.Request) {
				// Closing a socket with unread request bytes sends a reset
				// instead of an orderly close.
				_, _ = io.ReadAll(r.Body)
				conn, buf, err := w.(http.Hijacker).Hijack()
				if err != nil {
					panic(err)
				}
				defer conn.Close()
				// HTTP/1.0-style body without a length: the close looks like
				// a clean end of the body, only the missing message_stop
				// tells it is broken.
				fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n%s%s", sseStart, sseToolStart)
				_ = buf.Flush()
			},
			want:   wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before message_stop"},
			events: "tool_start[1] id=toolu_1 name=read\ntool_delta[1] x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tt.handler(w, r)
			}))
			defer srv.Close()
			// Close waits for handlers; a handler waiting for the client to hang
			// up may not notice it, so connections are cut first.
			defer srv.CloseClientConnections()
			c := newTestClient(t, srv, Options{MaxRetries: -1})

			events, err := collect(t, c.Stream(context.Background(), simpleRequest))
			checkError(t, err, tt.want)
			if diff := cmp.Diff(tt.events, render(events)); diff != "" {
				t.Errorf("events before the error (-want +got):\n%s", diff)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("%d requests with MaxRetries -1, want 1", n)
			}
		})
	}
}

// TestRetryThenSuccess checks that the SDK's own retry handles a 429 before
// the stream starts, honouring Retry-After.
func TestRetryThenSuccess(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			errorHandler(429, map[string]string{"Retry-After": "0"}, apiErrorBody("rate_limit_error", "slow down"))(w, r)
			return
		}
		sseHandler([]byte(okStream))(w, r)
	}))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	c := newTestClient(t, srv, Options{MaxRetries: 1})
	events, err := collect(t, c.Stream(context.Background(), simpleRequest))
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if _, ok := events[len(events)-1].(llm.StreamEnd); !ok {
		t.Errorf("last event %#v, want StreamEnd", events[len(events)-1])
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestRetryExhausted: with retries left but the server still refusing, the
// last refusal is reported.
func TestRetryExhausted(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		errorHandler(529, map[string]string{"Retry-After": "0"}, apiErrorBody("overloaded_error", "Overloaded"))(w, r)
	}))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	c := newTestClient(t, srv, Options{MaxRetries: 2})
	_, err := collect(t, c.Stream(context.Background(), simpleRequest))
	checkError(t, err, wantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "Overloaded"})
	if n := hits.Load(); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
}

// TestRequestTimeoutDuringRetryAfter: the SDK would sleep out an hour-long
// Retry-After; RequestTimeout cuts that short and still reports the rate
// limit with its delay, so the caller can schedule the retry.
func TestRequestTimeoutDuringRetryAfter(t *testing.T) {
	srv := httptest.NewServer(errorHandler(429, map[string]string{"Retry-After": "3600"}, apiErrorBody("rate_limit_error", "slow down")))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	c := newTestClient(t, srv, Options{MaxRetries: 2, RequestTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := collect(t, c.Stream(context.Background(), simpleRequest))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v despite RequestTimeout", d)
	}
	le := checkError(t, err, wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: time.Hour, Message: "no successful retry"})
	if !errors.Is(le, wire.ErrRequestTimeout) {
		t.Errorf("error does not wrap errRequestTimeout: %v", le.Err)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("a request timeout must not look like a cancellation: %v", le.Err)
	}
}

// TestFuzzedStreams feeds garbage and truncated streams: whatever arrives,
// Stream must end with an event or an error, never a panic or a hang.
func TestFuzzedStreams(t *testing.T) {
	full := sseStart + sseText + sseToolStart + okStream
	var bodies []string
	for i := 0; i <= len(full); i += 7 {
		bodies = append(bodies, full[:i])
	}
	bodies = append(bodies,
		"data: null\n\n",
		"data: []\n\n",
		"data: {\"type\":\"content_block_start\",\"index\":-5,\"content_block\":{\"type\":\"tool_use\"}}\n\n"+
			"data: {\"type\":\"content_block_stop\",\"index\":-5}\n\n",
		"data: {\"type\":\"message_delta\",\"usage\":{\"input_tokens\":\"many\"}}\n\n",
		"event: error\ndata: not json\n\n",
		"\x00\xff\n\n\n",
		": comment only\n\n",
	)
	for i, body := range bodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := httptest.NewServer(sseHandler([]byte(body)))
			defer srv.Close()
			// Close waits for handlers; a handler waiting for the client to hang
			// up may not notice it, so connections are cut first.
			defer srv.CloseClientConnections()
			c := newTestClient(t, srv, Options{MaxRetries: -1})
			events, err := collect(t, c.Stream(context.Background(), simpleRequest))
			if err == nil {
				if len(events) == 0 {
					t.Fatal("neither events nor an error")
				}
				if _, ok := events[len(events)-1].(llm.StreamEnd); !ok {
					t.Fatalf("ended without StreamEnd or error: %v", events)
				}
				return
			}
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
			}
		})
	}
}

// TestStreamFaults runs the faults every adapter must survive alike
// (llmtest.StreamFaults).
func TestStreamFaults(t *testing.T) {
	llmtest.StreamFaults{
		New: func(t testing.TB, url string, timeout time.Duration) llm.Client {
			return newTestClient(t, nil, Options{BaseURL: url, MaxRetries: -1, RequestTimeout: timeout})
		},
		TimeoutCause: wire.ErrRequestTimeout,
		First:        sseStart + sseText,
		Head:         sseStart, Tail: okStream,
	}.Run(t)
}
