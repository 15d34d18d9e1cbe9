package openai

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
	"github.com/novacode/nova/llm/llmtest"
)

// Stream prefixes shared by the mid-stream failure cases.
const (
	sseCreated = "event: response.created\n" +
		`data: {"type":"response.created","response":{"id":"resp_1","model":"gpt-5-2025-08-07","status":"in_progress","output":[]},"sequence_number":0}` + "\n\n"
	sseText = "event: response.output_item.added\n" +
		`data: {"type":"response.output_item.added","item":{"id":"msg_1","type":"message","status":"in_progress","content":[],"role":"assistant"},"output_index":0,"sequence_number":1}` + "\n\n" +
		"event: response.output_text.delta\n" +
		`data: {"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hello","sequence_number":2}` + "\n\n"
	sseToolStart = "event: response.output_item.added\n" +
		`data: {"type":"response.output_item.added","item":{"id":"fc_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_1","name":"read"},"output_index":1,"sequence_number":3}` + "\n\n" +
		"event: response.function_call_arguments.delta\n" +
		`data: {"type":"response.function_call_arguments.delta","item_id":"fc_1","output_index":1,"delta":"{\"path\": \"ma","sequence_number":4}` + "\n\n"
)

// apiErrorBody is what the API sends with an error status.
func apiErrorBody(typ, code, msg string) string {
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%q}}`, msg, typ, code)
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
	sse := func(s ...string) http.HandlerFunc { return sseHandler([]byte(strings.Join(s, ""))) }
	failed := func(errJSON string) string {
		return "event: response.failed\n" +
			`data: {"type":"response.failed","response":{"id":"resp_1","status":"failed","error":` + errJSON + `,"output":[]},"sequence_number":9}` + "\n\n"
	}
	errorEvent := func(code, msg string) string {
		return "event: error\n" + fmt.Sprintf(`data: {"type":"error","code":%q,"message":%q,"param":null,"sequence_number":9}`, code, msg) + "\n\n"
	}
	tests := []struct {
		name    string
		handler http.HandlerFunc
		want    wantError
		// events is the rendering of what came before the error.
		events string
	}{
		{
			name:    "401 is an auth error",
			handler: errorHandler(401, nil, apiErrorBody("invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-test.")),
			want:    wantError{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid_api_key: Incorrect API key provided"},
		},
		{
			name:    "403 without a code",
			handler: errorHandler(403, nil, apiErrorBody("", "", "You are not allowed to sample from this model")),
			want:    wantError{Kind: llm.ErrAuth, StatusCode: 403, Message: "not allowed to sample"},
		},
		{
			name: "429 with Retry-After",
			handler: errorHandler(429, map[string]string{"Retry-After": "7", "X-Request-Id": "req_42"},
				apiErrorBody("tokens", "rate_limit_exceeded", "Rate limit reached for gpt-5")),
			want: wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 7 * time.Second, Message: "Rate limit reached for gpt-5 (request-id req_42)"},
		},
		{
			name:    "429 with retry-after-ms",
			handler: errorHandler(429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, apiErrorBody("requests", "rate_limit_exceeded", "slow down")),
			want:    wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 1500 * time.Millisecond, Message: "slow down"},
		},
		{
			name: "429 with only the rate-limit reset headers",
			handler: errorHandler(429, map[string]string{
				"X-Ratelimit-Remaining-Requests": "10", "X-Ratelimit-Reset-Requests": "1s",
				"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "6m0s",
			}, apiErrorBody("tokens", "rate_limit_exceeded", "slow down")),
			want: wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 6 * time.Minute, Message: "slow down"},
		},
		{
			name:    "429 quota exhausted is no rate limit",
			handler: errorHandler(429, nil, apiErrorBody("insufficient_quota", "insufficient_quota", "You exceeded your current quota")),
			want:    wantError{Kind: llm.ErrOther, StatusCode: 429, Message: "insufficient_quota: You exceeded your current quota"},
		},
		{
			name:    "500 server_error",
			handler: errorHandler(500, nil, apiErrorBody("server_error", "", "The server had an error while processing your request.")),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 500, Message: "server had an error"},
		},
		{
			name:    "502 from a proxy without a JSON body",
			handler: errorHandler(502, nil, "<html>Bad Gateway</html>"),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 502, Message: "<html>Bad Gateway</html>"},
		},
		{
			name:    "503 service unavailable",
			handler: errorHandler(503, nil, ""),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 503, Message: "Service Unavailable"},
		},
		{
			name:    "503 overloaded",
			handler: errorHandler(503, nil, apiErrorBody("server_error", "", "That model is currently overloaded with other requests.")),
			want:    wantError{Kind: llm.ErrOverloaded, StatusCode: 503, Message: "currently overloaded"},
		},
		{
			name:    "529 overloaded",
			handler: errorHandler(529, nil, apiErrorBody("overloaded_error", "", "Overloaded")),
			want:    wantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "overloaded_error: Overloaded"},
		},
		{
			name:    "400 invalid request keeps the provider's message",
			handler: errorHandler(400, nil, apiErrorBody("invalid_request_error", "context_length_exceeded", "Your input exceeds the context window of this model.")),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "context_length_exceeded: Your input exceeds the context window"},
		},
		{
			name:    "404 unknown model",
			handler: errorHandler(404, nil, apiErrorBody("invalid_request_error", "model_not_found", "The model `gpt-9` does not exist")),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 404, Message: "does not exist"},
		},
		{
			name:    "429 from a proxy without a body",
			handler: errorHandler(429, map[string]string{"Retry-After": "3"}, ""),
			want:    wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 3 * time.Second, Message: "Too Many Requests"},
		},
		{
			name:    "error event mid-stream",
			handler: sse(sseCreated, sseText, errorEvent("server_error", "The server had an error")),
			want:    wantError{Kind: llm.ErrServer, Message: "server_error: The server had an error"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "rate limit error event",
			handler: sse(sseCreated, errorEvent("rate_limit_exceeded", "Rate limit reached")),
			want:    wantError{Kind: llm.ErrRateLimit, Message: "Rate limit reached"},
		},
		{
			name:    "overloaded error event",
			handler: sse(sseCreated, errorEvent("", "The engine is currently overloaded")),
			want:    wantError{Kind: llm.ErrOverloaded, Message: "overloaded"},
		},
		{
			name:    "response.failed rate_limit_exceeded",
			handler: sse(sseCreated, sseText, failed(`{"code":"rate_limit_exceeded","message":"Too many tokens"}`)),
			want:    wantError{Kind: llm.ErrRateLimit, Message: "rate_limit_exceeded: Too many tokens"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "response.failed server_error",
			handler: sse(sseCreated, failed(`{"code":"server_error","message":"Something went wrong"}`)),
			want:    wantError{Kind: llm.ErrServer, Message: "Something went wrong"},
		},
		{
			name:    "response.failed invalid_prompt",
			handler: sse(sseCreated, failed(`{"code":"invalid_prompt","message":"Invalid prompt"}`)),
			want:    wantError{Kind: llm.ErrInvalid, Message: "invalid_prompt: Invalid prompt"},
		},
		{
			name:    "response.failed without an error object",
			handler: sse(sseCreated, failed(`null`)),
			want:    wantError{Kind: llm.ErrServer, Message: "response.failed"},
		},
		{
			name:    "error chunk with a top-level error object",
			handler: sse(sseCreated, `data: {"error":{"type":"overloaded_error","message":"Overloaded"}}`+"\n\n"),
			want:    wantError{Kind: llm.ErrOverloaded, Message: "Overloaded"},
		},
		{
			name:    "error chunk with a string",
			handler: sse(sseCreated, `data: {"error":"upstream timed out"}`+"\n\n"),
			want:    wantError{Kind: llm.ErrServer, Message: "upstream timed out"},
		},
		{
			name:    "malformed JSON in a data line",
			handler: sse(sseCreated, sseText, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\n\n"),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "malformed stream event"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "stream ends before response.completed",
			handler: sse(sseCreated, sseText),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before response.completed"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name: "argument delta without a function call",
			handler: sse(sseCreated, "event: response.function_call_arguments.delta\n"+
				`data: {"type":"response.function_call_arguments.delta","item_id":"fc_9","output_index":3,"delta":"{}"}`+"\n\n"),
			want: wantError{Kind: llm.ErrBrokenStream, Message: "not an open function call"},
		},
		{
			name:    "empty 200 body",
			handler: sseHandler(nil),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before response.completed"},
		},
		{
			name: "connection cut mid-tool-call",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHandler([]byte(sseCreated+sseToolStart))(w, r)
				w.(http.Flusher).Flush()
				// Aborting leaves the chunked body unterminated, which the
				// client reads as an unexpected EOF.
				panic(http.ErrAbortHandler)
			},
			want:   wantError{Kind: llm.ErrBrokenStream, Message: "stream interrupted"},
			events: "tool_start[1] id=call_1 name=read\ntool_delta[1] id=call_1 x1 \"{\\\"path\\\": \\\"ma\"\n",
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
				// a clean end of the body, only the missing
				// response.completed tells it is broken.
				fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n%s%s", sseCreated, sseToolStart)
				_ = buf.Flush()
			},
			want:   wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before response.completed"},
			events: "tool_start[1] id=call_1 name=read\ntool_delta[1] id=call_1 x1 \"{\\\"path\\\": \\\"ma\"\n",
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
			c := newTestClient(t, srv, Options{})

			events, err := collect(t, c.Stream(context.Background(), simpleRequest))
			checkError(t, err, tt.want)
			if diff := cmp.Diff(tt.events, render(events)); diff != "" {
				t.Errorf("events before the error (-want +got):\n%s", diff)
			}
			// Retries are llm.WithRetry's job: the SDK must not retry.
			if n := hits.Load(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// TestCancelWhileWaiting: a cancel while waiting for the response headers
// is the caller's cancellation, not a timeout.
func TestCancelWhileWaiting(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	defer close(release)
	c := newTestClient(t, srv, Options{RequestTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := collect(t, c.Stream(ctx, simpleRequest))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the caller's context.DeadlineExceeded", err)
	}
}

// TestEarlyBreakWithinOneEvent: one server event can become several
// normalized ones (a call completed by response.completed, then the end);
// stopping between them must stop at once.
func TestEarlyBreakWithinOneEvent(t *testing.T) {
	completed := "event: response.completed\n" +
		`data: {"type":"response.completed","response":{"model":"m","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"{}"}]}}` + "\n\n"
	srv := httptest.NewServer(sseHandler([]byte(sseCreated + completed)))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	c := newTestClient(t, srv, Options{})
	var got []llm.StreamEvent
	for ev, err := range c.Stream(context.Background(), simpleRequest) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
		if len(got) == 2 {
			break
		}
	}
	if len(got) != 2 {
		t.Fatalf("events %v", got)
	}
}

// TestFuzzedStreams feeds truncated and garbled versions of a real
// recording, plus hand-made garbage: whatever arrives, Stream must end with
// StreamEnd or an *llm.Error, never a panic or a hang.
func TestFuzzedStreams(t *testing.T) {
	full, err := os.ReadFile(filepath.Join(fixtureDir, "TestOpenAIResponsesWithSummaryThinking__openai-gpt-5__thinking-streaming__0.sse"))
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	// Truncations at 40 points spread over the recording, some of them in
	// the middle of a line or a JSON value.
	for i := 0; i < 40; i++ {
		bodies = append(bodies, string(full[:len(full)*i/40+i]))
	}
	// Corruptions: bytes flipped, lines dropped or duplicated.
	lines := strings.SplitAfter(string(full), "\n")
	for i := 1; i < len(lines); i += len(lines) / 12 {
		drop := strings.Join(append(append([]string{}, lines[:i]...), lines[i+1:]...), "")
		dup := strings.Join(append(append(append([]string{}, lines[:i]...), lines[i]), lines[i:]...), "")
		b := []byte(string(full))
		b[len(b)*i/len(lines)] ^= 0x55
		bodies = append(bodies, drop, dup, string(b))
	}
	bodies = append(bodies,
		"data: null\n\n",
		"data: []\n\n",
		"data: 42\n\n",
		"data: {\"type\":\"response.completed\"}\n\n",
		"data: {\"type\":\"response.completed\",\"response\":null}\n\n",
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":\"many\"}}}\n\n",
		"data: {\"type\":\"response.incomplete\",\"response\":{\"output\":[{\"type\":\"function_call\"}]}}\n\n",
		"data: {\"type\":\"response.output_item.added\",\"output_index\":-5,\"item\":{\"type\":\"function_call\"}}\n\n"+
			"data: {\"type\":\"response.function_call_arguments.done\",\"output_index\":-5}\n\n"+
			"data: {\"type\":\"response.function_call_arguments.done\",\"output_index\":-5}\n\n",
		"data: {\"type\":\"response.output_item.done\",\"output_index\":9223372036854775807,\"item\":{\"type\":\"reasoning\",\"summary\":[{\"text\":1}]}}\n\n",
		"data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":7}}}\n\n",
		"data: {\"type\":\"error\"}\n\n",
		"data: {\"error\":null}\n\n",
		"data: {\"error\":[1,2]}\n\n",
		"data: [DONE]\n\n",
		"event: error\ndata: not json\n\n",
		"\x00\xff\n\n\n",
		": comment only\n\n",
		strings.Repeat("data: {\"type\":\"response.output_text.delta\",\"delta\":\"x\"}\n\n", 1000),
	)
	if len(bodies) < 50 {
		t.Fatalf("only %d variants", len(bodies))
	}
	for i, body := range bodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			srv := httptest.NewServer(sseHandler([]byte(body)))
			defer srv.Close()
			// Close waits for handlers; a handler waiting for the client to hang
			// up may not notice it, so connections are cut first.
			defer srv.CloseClientConnections()
			c := newTestClient(t, srv, Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			events, err := collect(t, c.Stream(ctx, simpleRequest))
			if ctx.Err() != nil {
				t.Fatal("hung until the deadline")
			}
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

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		status int
		want   time.Duration
	}{
		{nil, 429, 0},
		{map[string]string{"Retry-After": "12"}, 429, 12 * time.Second},
		{map[string]string{"Retry-After": "0.5"}, 429, 500 * time.Millisecond},
		{map[string]string{"Retry-After": "-3"}, 429, 0},
		{map[string]string{"Retry-After": "NaN"}, 429, 0},
		{map[string]string{"Retry-After": "1e300"}, 429, wire.MaxRetryAfter},
		{map[string]string{"Retry-After": "soon"}, 429, 0},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 429, 90 * time.Second},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 429, 0},
		{map[string]string{"Retry-After": now.Add(1000 * time.Hour).Format(http.TimeFormat)}, 429, wire.MaxRetryAfter},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 429, 250 * time.Millisecond},
		{map[string]string{"Retry-After-Ms": "bad", "Retry-After": "9"}, 429, 9 * time.Second},
		{map[string]string{"Retry-After-Ms": "1e300"}, 429, wire.MaxRetryAfter},
		// OpenAI's rate-limit headers, used only without Retry-After and
		// only for the limit that is exhausted.
		{map[string]string{"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "1.5s", "X-Ratelimit-Remaining-Tokens": "5", "X-Ratelimit-Reset-Tokens": "1m"}, 429, 1500 * time.Millisecond},
		{map[string]string{"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "20ms", "X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "1m2s"}, 429, 62 * time.Second},
		{map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "garbage"}, 429, 0},
		{map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "10000h"}, 429, wire.MaxRetryAfter},
		{map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "1m"}, 500, 0},
		{map[string]string{"Retry-After": "2", "X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "1m"}, 429, 2 * time.Second},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, tt.status, now); got != tt.want {
			t.Errorf("retryAfter(%v, %d) = %v, want %v", tt.header, tt.status, got, tt.want)
		}
	}
}

// TestStreamFaults runs the faults every adapter must survive alike
// (llmtest.StreamFaults).
func TestStreamFaults(t *testing.T) {
	llmtest.StreamFaults{
		New: func(t testing.TB, url string, timeout time.Duration) llm.Client {
			return newTestClient(t, nil, Options{BaseURL: url + "/v1", RequestTimeout: timeout})
		},
		TimeoutCause: wire.ErrRequestTimeout,
		First:        sseCreated + sseText,
		Head:         sseCreated, Tail: okStream,
	}.Run(t)
}
