package openaichat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
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
var (
	sseText = "data: " + ck(`"role":"assistant","content":"Hello"`, "", "") + "\n\n"
	// sseToolStart opens a tool call and sends half its arguments.
	sseToolStart = "data: " + ck(`"tool_calls":[`+tc(0, "call_1", "read", `{"path": "ma`)+`]`, "", "") + "\n\n"
)

// openAIError is the body OpenAI sends with an error status.
func openAIError(typ, code, msg string) string {
	return fmt.Sprintf(`{"error":{"message":%q,"type":%q,"param":null,"code":%q}}`, msg, typ, code)
}

func errorHandler(status int, header map[string]string, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func jsonError(status int, header map[string]string, body string) http.HandlerFunc {
	return errorHandler(status, header, "application/json", body)
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
			handler: jsonError(401, nil, openAIError("invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-abc.")),
			want:    wantError{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid_api_key: Incorrect API key provided"},
		},
		{
			name:    "403 from a proxy",
			handler: errorHandler(403, nil, "text/plain", "forbidden"),
			want:    wantError{Kind: llm.ErrAuth, StatusCode: 403, Message: "forbidden"},
		},
		{
			name:    "429 with Retry-After and a request id",
			handler: jsonError(429, map[string]string{"Retry-After": "7", "X-Request-Id": "req_42"}, openAIError("requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o")),
			want:    wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 7 * time.Second, Message: "rate_limit_exceeded: Rate limit reached for gpt-4o (request-id req_42)"},
		},
		{
			name:    "429 with retry-after-ms",
			handler: jsonError(429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, openAIError("requests", "rate_limit_exceeded", "slow down")),
			want:    wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 1500 * time.Millisecond, Message: "slow down"},
		},
		{
			name: "429 with only the rate-limit reset headers",
			handler: jsonError(429, map[string]string{
				"X-Ratelimit-Remaining-Requests": "5", "X-Ratelimit-Reset-Requests": "20ms",
				"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "6m0s",
			}, openAIError("tokens", "rate_limit_exceeded", "TPM")),
			want: wantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 6 * time.Minute, Message: "TPM"},
		},
		{
			name:    "429 out of quota is not retryable",
			handler: jsonError(429, nil, openAIError("insufficient_quota", "insufficient_quota", "You exceeded your current quota")),
			want:    wantError{Kind: llm.ErrOther, StatusCode: 429, Message: "insufficient_quota: You exceeded your current quota"},
		},
		{
			name:    "500",
			handler: jsonError(500, nil, openAIError("server_error", "", "The server had an error while processing your request.")),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 500, Message: "server_error: The server had an error"},
		},
		{
			name:    "502 from a proxy without a JSON body",
			handler: errorHandler(502, nil, "text/html", "<html>Bad Gateway</html>"),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 502, Message: "<html>Bad Gateway</html>"},
		},
		{
			name:    "503 without a body",
			handler: errorHandler(503, nil, "text/plain", ""),
			want:    wantError{Kind: llm.ErrServer, StatusCode: 503, Message: "Service Unavailable"},
		},
		{
			name:    "503 overloaded",
			handler: jsonError(503, nil, openAIError("server_error", "", "The engine is currently overloaded, please try again later")),
			want:    wantError{Kind: llm.ErrOverloaded, StatusCode: 503, Message: "currently overloaded"},
		},
		{
			name:    "529",
			handler: jsonError(529, nil, `{"error":{"message":"Overloaded","type":"overloaded_error"}}`),
			want:    wantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "overloaded_error: Overloaded"},
		},
		{
			name:    "504 gateway timeout",
			handler: errorHandler(504, nil, "text/plain", "upstream timed out"),
			want:    wantError{Kind: llm.ErrTimeout, StatusCode: 504, Message: "upstream timed out"},
		},
		{
			name:    "400 context length",
			handler: jsonError(400, nil, openAIError("invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens.")),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "context_length_exceeded: This model's maximum context length is 128000 tokens."},
		},
		{
			name:    "400 Ollama: error as a string",
			handler: jsonError(400, nil, `{"error":"model \"llama9\" not found, try pulling it first"}`),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: `model "llama9" not found`},
		},
		{
			name:    "400 vLLM: bare error object",
			handler: jsonError(400, nil, `{"object":"error","message":"max_tokens must be at least 1","type":"BadRequestError","param":null,"code":400}`),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "BadRequestError: max_tokens must be at least 1"},
		},
		{
			name:    "404 llama.cpp shape",
			handler: jsonError(404, nil, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 404, Message: "not_found_error: File Not Found"},
		},
		{
			name:    "422 FastAPI detail",
			handler: jsonError(422, nil, `{"detail":"Field required: messages"}`),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 422, Message: "Field required: messages"},
		},
		{
			name:    "400 Google: an array",
			handler: jsonError(400, nil, `[{"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}}]`),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "INVALID_ARGUMENT: Invalid JSON payload"},
		},
		{
			name:    "400 OpenRouter with the upstream's detail",
			handler: jsonError(400, nil, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"tools[0]: bad schema","provider_name":"Together"}},"user_id":"u"}`),
			want:    wantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "Provider returned error (Together: tools[0]: bad schema)"},
		},
		{
			name:    "error chunk mid-stream",
			handler: sseHandler([]byte(sseText + "data: " + openAIError("server_error", "", "The model produced invalid content.") + "\n\n")),
			want:    wantError{Kind: llm.ErrServer, Message: "server_error: The model produced invalid content."},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name: "OpenRouter error chunk with a rate-limit code",
			handler: sseHandler([]byte(": OPENROUTER PROCESSING\n\n" + sseText +
				`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"x/y","provider":"P","error":{"code":429,"message":"Rate limit exceeded upstream"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n")),
			want:   wantError{Kind: llm.ErrRateLimit, Message: "Rate limit exceeded upstream"},
			events: "text[0] x1 \"Hello\"\n",
		},
		{
			name: "overloaded error chunk",
			handler: sseHandler([]byte(sseText +
				`data: {"error":{"message":"Overloaded","type":"overloaded_error"}}` + "\n\n")),
			want:   wantError{Kind: llm.ErrOverloaded, Message: "overloaded_error: Overloaded"},
			events: "text[0] x1 \"Hello\"\n",
		},
		{
			name: "vLLM bare error object mid-stream",
			handler: sseHandler([]byte(sseText +
				`data: {"object":"error","message":"Engine died","type":"InternalServerError","param":null,"code":500}` + "\n\n")),
			want:   wantError{Kind: llm.ErrServer, Message: "InternalServerError: Engine died"},
			events: "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "event: error",
			handler: sseHandler([]byte(sseText + "event: error\ndata: {\"message\":\"stream aborted\"}\n\n")),
			want:    wantError{Kind: llm.ErrServer, Message: "stream aborted"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "finish_reason error without an error object",
			handler: sseHandler([]byte(sseText + "data: " + ck(``, "error", "") + "\n\n")),
			want:    wantError{Kind: llm.ErrServer, Message: `finish_reason "error"`},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "malformed JSON in a data line",
			handler: sseHandler([]byte(sseText + "data: {\"choices\":[{\"index\":0,\"delta\":{\n\n")),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "malformed chunk"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "wrong JSON types in a chunk",
			handler: sseHandler([]byte(sseText + `data: {"choices":[{"index":"zero","delta":{}}]}` + "\n\n")),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "malformed chunk"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "stream ends before finish_reason",
			handler: sseHandler([]byte(sseText)),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before finish_reason"},
			events:  "text[0] x1 \"Hello\"\n",
		},
		{
			name:    "empty 200 body",
			handler: sseHandler(nil),
			want:    wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before finish_reason"},
		},
		{
			name:    "JSON instead of a stream",
			handler: jsonError(200, nil, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`),
			want:    wantError{Kind: llm.ErrOther, Message: "instead of an event stream"},
		},
		{
			name:    "JSON error with status 200",
			handler: jsonError(200, nil, `{"error":{"message":"quota","type":"insufficient_quota"}}`),
			want:    wantError{Kind: llm.ErrOther, Message: "insufficient_quota: quota"},
		},
		{
			name: "connection cut mid-tool-call",
			handler: func(w http.ResponseWriter, r *http.Request) {
				sseHandler([]byte(sseToolStart))(w, r)
				w.(http.Flusher).Flush()
				// Aborting leaves the chunked body unterminated, which the
				// client reads as an unexpected EOF.
				panic(http.ErrAbortHandler)
			},
			want:   wantError{Kind: llm.ErrBrokenStream, Message: "stream interrupted"},
			events: "tool_start[0] id=call_1 name=read\ntool_delta[0] x1 \"{\\\"path\\\": \\\"ma\"\n",
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
				// a clean end of the body, only the missing finish_reason
				// tells it is broken.
				fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n%s", sseToolStart)
				_ = buf.Flush()
			},
			want:   wantError{Kind: llm.ErrBrokenStream, Message: "stream ended before finish_reason"},
			events: "tool_start[0] id=call_1 name=read\ntool_delta[0] x1 \"{\\\"path\\\": \\\"ma\"\n",
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
			// Retries are the caller's: the SDK must not have tried again.
			if n := hits.Load(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// TestCancelWhileWaiting: cancelling before the headers arrive.
func TestCancelWhileWaiting(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server only notices a closed connection once the request
		// body is consumed.
		_, _ = io.ReadAll(r.Body)
		<-r.Context().Done()
	}))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	c := newTestClient(t, srv, Options{RequestTimeout: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := collect(t, c.Stream(ctx, simpleRequest))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestEarlyBreakWithinChunk: stopping on the first of several events one
// chunk produced (a finish that completes two calls) yields nothing more.
func TestEarlyBreakWithinChunk(t *testing.T) {
	body := sse(
		ck(`"tool_calls":[`+tc(0, "a", "x", `{}`)+`]`, "", ""),
		ck(`"tool_calls":[`+tc(1, "b", "y", `{}`)+`]`, "tool_calls", ""), done)
	srv := httptest.NewServer(sseHandler(body))
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
		if _, ok := ev.(llm.ToolCallComplete); ok {
			break
		}
	}
	if _, ok := got[len(got)-1].(llm.ToolCallComplete); !ok || len(got) != 3 {
		t.Errorf("events %v", got)
	}
}

// TestFuzzedStreams feeds truncated and damaged versions of a real
// recording, and some garbage: whatever arrives, Stream must end with
// StreamEnd or one *llm.Error, never a panic or a hang.
func TestFuzzedStreams(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(fixtureDir, "TestOpenAICompatibleCommon__avian-kimi__multi_tool_streaming__0.sse"))
	if err != nil {
		t.Fatal(err)
	}
	full := string(raw)
	var bodies []string
	// Truncations, at 40 points spread over the body.
	for i := range 40 {
		bodies = append(bodies, full[:len(full)*i/40])
	}
	// Random damage: flipped bytes, deleted and duplicated lines.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		b := []byte(full)
		for range 1 + rng.IntN(4) {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		bodies = append(bodies, string(b))
	}
	lines := strings.Split(full, "\n")
	for range 10 {
		l := append([]string(nil), lines...)
		i := rng.IntN(len(l))
		if rng.IntN(2) == 0 {
			l = append(l[:i], l[i+1:]...)
		} else {
			l = append(l[:i+1], l[i:]...)
		}
		bodies = append(bodies, strings.Join(l, "\n"))
	}
	bodies = append(bodies,
		"data: null\n\n",
		"data: []\n\n",
		"data: \"str\"\n\n",
		"data: {}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":null}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-5}]}}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":99999999999999999999}]}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":{\"a\":1}}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[1,2]}}]}\n\n",
		"data: {\"usage\":{\"prompt_tokens\":1e400}}\n\n",
		"data: {\"error\":null,\"choices\":[]}\n\n",
		"data: {\"error\":[]}\n\n",
		"event: error\ndata: not json\n\n",
		"\x00\xff\n\n\n",
		": comment only\n\n",
		"data: [DONE]\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"after\"}}]}\n\n",
		strings.Repeat("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"x\"}}]}}]}\n\n", 50),
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
			type result struct {
				events []llm.StreamEvent
				err    error
			}
			ch := make(chan result, 1)
			go func() {
				events, err := collect(t, c.Stream(context.Background(), simpleRequest))
				ch <- result{events, err}
			}()
			var r result
			select {
			case r = <-ch:
			case <-time.After(10 * time.Second):
				t.Fatal("Stream hung")
			}
			if r.err == nil {
				if len(r.events) == 0 {
					t.Fatal("neither events nor an error")
				}
				if _, ok := r.events[len(r.events)-1].(llm.StreamEnd); !ok {
					t.Fatalf("ended without StreamEnd or error: %v", r.events)
				}
				return
			}
			var le *llm.Error
			if !errors.As(r.err, &le) {
				t.Fatalf("error %v (%T) is not an *llm.Error", r.err, r.err)
			}
		})
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
		First:        sseText,
		Head:         sseText, Tail: okStream,
	}.Run(t)
}
