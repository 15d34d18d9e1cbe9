package openai

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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

// errorHandler answers with an API error (or a proxy's body) as JSON.
func errorHandler(status int, header map[string]string, body string) http.HandlerFunc {
	return llmtest.JSONError(status, header, body)
}

func TestErrors(t *testing.T) {
	sse := func(s ...string) http.HandlerFunc { return llmtest.SSEHandler([]byte(strings.Join(s, ""))) }
	failed := func(errJSON string) string {
		return "event: response.failed\n" +
			`data: {"type":"response.failed","response":{"id":"resp_1","status":"failed","error":` + errJSON + `,"output":[]},"sequence_number":9}` + "\n\n"
	}
	errorEvent := func(code, msg string) string {
		return "event: error\n" + fmt.Sprintf(`data: {"type":"error","code":%q,"message":%q,"param":null,"sequence_number":9}`, code, msg) + "\n\n"
	}
	adapter.Errors(t, []llmtest.ErrorCase{
		{
			Name:    "401 is an auth error",
			Handler: errorHandler(401, nil, apiErrorBody("invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-test.")),
			Want:    llmtest.WantError{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid_api_key: Incorrect API key provided"},
		},
		{
			Name:    "403 without a code",
			Handler: errorHandler(403, nil, apiErrorBody("", "", "You are not allowed to sample from this model")),
			Want:    llmtest.WantError{Kind: llm.ErrAuth, StatusCode: 403, Message: "not allowed to sample"},
		},
		{
			Name: "429 with Retry-After",
			Handler: errorHandler(429, map[string]string{"Retry-After": "7", "X-Request-Id": "req_42"},
				apiErrorBody("tokens", "rate_limit_exceeded", "Rate limit reached for gpt-5")),
			Want: llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 7 * time.Second, Message: "Rate limit reached for gpt-5 (request-id req_42)"},
		},
		{
			Name:    "429 with retry-after-ms",
			Handler: errorHandler(429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, apiErrorBody("requests", "rate_limit_exceeded", "slow down")),
			Want:    llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 1500 * time.Millisecond, Message: "slow down"},
		},
		{
			Name: "429 with only the rate-limit reset headers",
			Handler: errorHandler(429, map[string]string{
				"X-Ratelimit-Remaining-Requests": "10", "X-Ratelimit-Reset-Requests": "1s",
				"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "6m0s",
			}, apiErrorBody("tokens", "rate_limit_exceeded", "slow down")),
			Want: llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 6 * time.Minute, Message: "slow down"},
		},
		{
			Name:    "429 quota exhausted is no rate limit",
			Handler: errorHandler(429, nil, apiErrorBody("insufficient_quota", "insufficient_quota", "You exceeded your current quota")),
			Want:    llmtest.WantError{Kind: llm.ErrOther, StatusCode: 429, Message: "insufficient_quota: You exceeded your current quota"},
		},
		{
			Name:    "500 server_error",
			Handler: errorHandler(500, nil, apiErrorBody("server_error", "", "The server had an error while processing your request.")),
			Want:    llmtest.WantError{Kind: llm.ErrServer, StatusCode: 500, Message: "server had an error"},
		},
		{
			Name:    "503 overloaded",
			Handler: errorHandler(503, nil, apiErrorBody("server_error", "", "That model is currently overloaded with other requests.")),
			Want:    llmtest.WantError{Kind: llm.ErrOverloaded, StatusCode: 503, Message: "currently overloaded"},
		},
		{
			Name:    "529 overloaded",
			Handler: errorHandler(529, nil, apiErrorBody("overloaded_error", "", "Overloaded")),
			Want:    llmtest.WantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "overloaded_error: Overloaded"},
		},
		{
			Name:    "400 invalid request keeps the provider's message",
			Handler: errorHandler(400, nil, apiErrorBody("invalid_request_error", "context_length_exceeded", "Your input exceeds the context window of this model.")),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "context_length_exceeded: Your input exceeds the context window"},
		},
		{
			// Ollama's shape: the SDK took it for a malformed stream.
			Name:    "400 with the error as a string",
			Handler: errorHandler(400, nil, `{"error":"model \"llama9\" not found"}`),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: `model "llama9" not found`},
		},
		{
			Name:    "404 unknown model",
			Handler: errorHandler(404, nil, apiErrorBody("invalid_request_error", "model_not_found", "The model `gpt-9` does not exist")),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 404, Message: "does not exist"},
		},
		{
			Name:    "error event mid-stream",
			Handler: sse(sseCreated, sseText, errorEvent("server_error", "The server had an error")),
			Want:    llmtest.WantError{Kind: llm.ErrServer, Message: "server_error: The server had an error"},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "rate limit error event",
			Handler: sse(sseCreated, errorEvent("rate_limit_exceeded", "Rate limit reached")),
			Want:    llmtest.WantError{Kind: llm.ErrRateLimit, Message: "Rate limit reached"},
		},
		{
			Name:    "overloaded error event",
			Handler: sse(sseCreated, errorEvent("", "The engine is currently overloaded")),
			Want:    llmtest.WantError{Kind: llm.ErrOverloaded, Message: "overloaded"},
		},
		{
			Name:    "response.failed rate_limit_exceeded",
			Handler: sse(sseCreated, sseText, failed(`{"code":"rate_limit_exceeded","message":"Too many tokens"}`)),
			Want:    llmtest.WantError{Kind: llm.ErrRateLimit, Message: "rate_limit_exceeded: Too many tokens"},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "response.failed server_error",
			Handler: sse(sseCreated, failed(`{"code":"server_error","message":"Something went wrong"}`)),
			Want:    llmtest.WantError{Kind: llm.ErrServer, Message: "Something went wrong"},
		},
		{
			Name:    "response.failed invalid_prompt",
			Handler: sse(sseCreated, failed(`{"code":"invalid_prompt","message":"Invalid prompt"}`)),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, Message: "invalid_prompt: Invalid prompt"},
		},
		{
			Name:    "response.failed without an error object",
			Handler: sse(sseCreated, failed(`null`)),
			Want:    llmtest.WantError{Kind: llm.ErrServer, Message: "response.failed"},
		},
		{
			Name:    "error chunk with a top-level error object",
			Handler: sse(sseCreated, `data: {"error":{"type":"overloaded_error","message":"Overloaded"}}`+"\n\n"),
			Want:    llmtest.WantError{Kind: llm.ErrOverloaded, Message: "Overloaded"},
		},
		{
			Name:    "error chunk with a string",
			Handler: sse(sseCreated, `data: {"error":"upstream timed out"}`+"\n\n"),
			Want:    llmtest.WantError{Kind: llm.ErrServer, Message: "upstream timed out"},
		},
		{
			Name:    "malformed JSON in a data line",
			Handler: sse(sseCreated, sseText, "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\n\n"),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "malformed stream event"},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name: "argument delta without a function call",
			Handler: sse(sseCreated, "event: response.function_call_arguments.delta\n"+
				`data: {"type":"response.function_call_arguments.delta","item_id":"fc_9","output_index":3,"delta":"{}"}`+"\n\n"),
			Want: llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "not an open function call"},
		},
		{
			Name:    "connection cut mid-tool-call",
			Handler: llmtest.AbortAfter(sseCreated + sseToolStart),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "stream interrupted"},
			Events:  "tool_start[1] id=call_1 name=read\ntool_delta[1] id=call_1 x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
		{
			Name:    "connection hijacked and closed mid-tool-call",
			Handler: llmtest.CloseAfter(sseCreated + sseToolStart),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "stream ended before response.completed"},
			Events:  "tool_start[1] id=call_1 name=read\ntool_delta[1] id=call_1 x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
	})
}

// TestEarlyBreakWithinOneEvent: one server event can become several
// normalized ones (a call completed by response.completed, then the end);
// stopping between them must stop at once.
func TestEarlyBreakWithinOneEvent(t *testing.T) {
	completed := "event: response.completed\n" +
		`data: {"type":"response.completed","response":{"model":"m","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"read","arguments":"{}"}]}}` + "\n\n"
	srv := httptest.NewServer(llmtest.SSEHandler([]byte(sseCreated + completed)))
	defer srv.Close()
	// Close waits for handlers; a handler waiting for the client to hang
	// up may not notice it, so connections are cut first.
	defer srv.CloseClientConnections()
	c := newTestClient(t, srv.URL, Options{})
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

// TestRetryAfterParsing: a 429 without Retry-After falls back on the
// rate-limit reset headers (wire.RetryAfter and wire.RateLimitReset have
// the details).
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
