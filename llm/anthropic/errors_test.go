package anthropic

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
	"github.com/novacode/nova/llm/llmtest"
)

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

// errorHandler answers with an API error (or a proxy's body) as JSON.
func errorHandler(status int, header map[string]string, body string) http.HandlerFunc {
	return llmtest.JSONError(status, header, body)
}

func TestErrors(t *testing.T) {
	adapter.Errors(t, []llmtest.ErrorCase{
		{
			Name:    "401 is an auth error",
			Handler: errorHandler(401, nil, apiErrorBody("authentication_error", "invalid x-api-key")),
			Want:    llmtest.WantError{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid x-api-key"},
		},
		{
			Name:    "403 permission",
			Handler: errorHandler(403, nil, apiErrorBody("permission_error", "no access to model")),
			Want:    llmtest.WantError{Kind: llm.ErrAuth, StatusCode: 403, Message: "no access to model"},
		},
		{
			Name:    "429 with Retry-After",
			Handler: errorHandler(429, map[string]string{"Retry-After": "7", "Request-Id": "req_42"}, apiErrorBody("rate_limit_error", "slow down")),
			Want:    llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 7 * time.Second, Message: "slow down (request-id req_42)"},
		},
		{
			Name:    "429 with retry-after-ms",
			Handler: errorHandler(429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, apiErrorBody("rate_limit_error", "slow down")),
			Want:    llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 1500 * time.Millisecond, Message: "slow down"},
		},
		{
			Name:    "529 overloaded",
			Handler: errorHandler(529, nil, apiErrorBody("overloaded_error", "Overloaded")),
			Want:    llmtest.WantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "overloaded_error: Overloaded"},
		},
		{
			Name:    "500 api_error",
			Handler: errorHandler(500, nil, apiErrorBody("api_error", "Internal server error")),
			Want:    llmtest.WantError{Kind: llm.ErrServer, StatusCode: 500, Message: "Internal server error"},
		},
		{
			Name:    "400 invalid request",
			Handler: errorHandler(400, nil, apiErrorBody("invalid_request_error", "max_tokens: too large")),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "max_tokens: too large"},
		},
		{
			Name:    "404 unknown model",
			Handler: errorHandler(404, nil, apiErrorBody("not_found_error", "model: nope")),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 404, Message: "model: nope"},
		},
		{
			Name: "overloaded_error mid-stream",
			Handler: llmtest.SSEHandler([]byte(sseStart + sseText + "event: error\n" +
				"data: " + apiErrorBody("overloaded_error", "Overloaded") + "\n\n")),
			Want:   llmtest.WantError{Kind: llm.ErrOverloaded, Message: "Overloaded"},
			Events: "text[0] x1 \"Hello\"\n",
		},
		{
			Name: "api_error mid-stream",
			Handler: llmtest.SSEHandler([]byte(sseStart + "event: error\n" +
				"data: " + apiErrorBody("api_error", "Internal") + "\n\n")),
			Want: llmtest.WantError{Kind: llm.ErrServer, Message: "Internal"},
		},
		{
			Name: "unknown error type mid-stream",
			Handler: llmtest.SSEHandler([]byte(sseStart + "event: error\n" +
				"data: " + apiErrorBody("brand_new_error", "what") + "\n\n")),
			Want: llmtest.WantError{Kind: llm.ErrServer, Message: "what"},
		},
		{
			Name:    "malformed JSON in a data line",
			Handler: llmtest.SSEHandler([]byte(sseStart + sseText + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\n\n")),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "malformed stream event"},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "input_json_delta without tool_use start",
			Handler: llmtest.SSEHandler([]byte(sseStart + "event: content_block_delta\n" + `data: {"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}` + "\n\n")),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "not an open tool_use block"},
		},
		{
			Name:    "connection cut mid-tool-call",
			Handler: llmtest.AbortAfter(sseStart + sseToolStart),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "stream interrupted"},
			Events:  "tool_start[1] id=toolu_1 name=read\ntool_delta[1] x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
		{
			Name:    "connection hijacked and closed mid-tool-call",
			Handler: llmtest.CloseAfter(sseStart + sseToolStart),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "stream ended before message_stop"},
			Events:  "tool_start[1] id=toolu_1 name=read\ntool_delta[1] x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
	})
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
		llmtest.SSEHandler([]byte(okStream))(w, r)
	}))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	c := newTestClient(t, srv.URL, Options{MaxRetries: 1})
	events, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest))
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
	c := newTestClient(t, srv.URL, Options{MaxRetries: 2})
	_, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest))
	llmtest.CheckError(t, err, llmtest.WantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "Overloaded"})
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
	c := newTestClient(t, srv.URL, Options{MaxRetries: 2, RequestTimeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v despite RequestTimeout", d)
	}
	le := llmtest.CheckError(t, err, llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: time.Hour, Message: "no successful retry"})
	if !errors.Is(le, wire.ErrRequestTimeout) {
		t.Errorf("error does not wrap errRequestTimeout: %v", le.Err)
	}
	if errors.Is(err, context.Canceled) {
		t.Errorf("a request timeout must not look like a cancellation: %v", le.Err)
	}
}
