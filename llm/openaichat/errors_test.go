package openaichat

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
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

// errorHandler and jsonError answer as a server or proxy failing a call.
var (
	errorHandler = llmtest.ErrorHandler
	jsonError    = llmtest.JSONError
)

func TestErrors(t *testing.T) {
	adapter.Errors(t, []llmtest.ErrorCase{
		{
			Name:    "401 is an auth error",
			Handler: jsonError(401, nil, openAIError("invalid_request_error", "invalid_api_key", "Incorrect API key provided: sk-abc.")),
			Want:    llmtest.WantError{Kind: llm.ErrAuth, StatusCode: 401, Message: "invalid_api_key: Incorrect API key provided"},
		},
		{
			Name:    "429 with Retry-After and a request id",
			Handler: jsonError(429, map[string]string{"Retry-After": "7", "X-Request-Id": "req_42"}, openAIError("requests", "rate_limit_exceeded", "Rate limit reached for gpt-4o")),
			Want:    llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 7 * time.Second, Message: "rate_limit_exceeded: Rate limit reached for gpt-4o (request-id req_42)"},
		},
		{
			Name:    "429 with retry-after-ms",
			Handler: jsonError(429, map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, openAIError("requests", "rate_limit_exceeded", "slow down")),
			Want:    llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 1500 * time.Millisecond, Message: "slow down"},
		},
		{
			Name: "429 with only the rate-limit reset headers",
			Handler: jsonError(429, map[string]string{
				"X-Ratelimit-Remaining-Requests": "5", "X-Ratelimit-Reset-Requests": "20ms",
				"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "6m0s",
			}, openAIError("tokens", "rate_limit_exceeded", "TPM")),
			Want: llmtest.WantError{Kind: llm.ErrRateLimit, StatusCode: 429, RetryAfter: 6 * time.Minute, Message: "TPM"},
		},
		{
			Name:    "429 out of quota is not retryable",
			Handler: jsonError(429, nil, openAIError("insufficient_quota", "insufficient_quota", "You exceeded your current quota")),
			Want:    llmtest.WantError{Kind: llm.ErrOther, StatusCode: 429, Message: "insufficient_quota: You exceeded your current quota"},
		},
		{
			Name:    "500",
			Handler: jsonError(500, nil, openAIError("server_error", "", "The server had an error while processing your request.")),
			Want:    llmtest.WantError{Kind: llm.ErrServer, StatusCode: 500, Message: "server_error: The server had an error"},
		},
		{
			Name:    "503 overloaded",
			Handler: jsonError(503, nil, openAIError("server_error", "", "The engine is currently overloaded, please try again later")),
			Want:    llmtest.WantError{Kind: llm.ErrOverloaded, StatusCode: 503, Message: "currently overloaded"},
		},
		{
			Name:    "529",
			Handler: jsonError(529, nil, `{"error":{"message":"Overloaded","type":"overloaded_error"}}`),
			Want:    llmtest.WantError{Kind: llm.ErrOverloaded, StatusCode: 529, Message: "overloaded_error: Overloaded"},
		},
		{
			Name:    "400 context length",
			Handler: jsonError(400, nil, openAIError("invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens.")),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "context_length_exceeded: This model's maximum context length is 128000 tokens."},
		},
		{
			Name:    "400 Ollama: error as a string",
			Handler: jsonError(400, nil, `{"error":"model \"llama9\" not found, try pulling it first"}`),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: `model "llama9" not found`},
		},
		{
			Name:    "400 vLLM: bare error object",
			Handler: jsonError(400, nil, `{"object":"error","message":"max_tokens must be at least 1","type":"BadRequestError","param":null,"code":400}`),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "BadRequestError: max_tokens must be at least 1"},
		},
		{
			Name:    "404 llama.cpp shape",
			Handler: jsonError(404, nil, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 404, Message: "not_found_error: File Not Found"},
		},
		{
			Name:    "422 FastAPI detail",
			Handler: jsonError(422, nil, `{"detail":"Field required: messages"}`),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 422, Message: "Field required: messages"},
		},
		{
			Name:    "400 Google: an array",
			Handler: jsonError(400, nil, `[{"error":{"code":400,"message":"Invalid JSON payload","status":"INVALID_ARGUMENT"}}]`),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "INVALID_ARGUMENT: Invalid JSON payload"},
		},
		{
			Name:    "400 OpenRouter with the upstream's detail",
			Handler: jsonError(400, nil, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"tools[0]: bad schema","provider_name":"Together"}},"user_id":"u"}`),
			Want:    llmtest.WantError{Kind: llm.ErrInvalid, StatusCode: 400, Message: "Provider returned error (Together: tools[0]: bad schema)"},
		},
		{
			Name:    "error chunk mid-stream",
			Handler: llmtest.SSEHandler([]byte(sseText + "data: " + openAIError("server_error", "", "The model produced invalid content.") + "\n\n")),
			Want:    llmtest.WantError{Kind: llm.ErrServer, Message: "server_error: The model produced invalid content."},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name: "OpenRouter error chunk with a rate-limit code",
			Handler: llmtest.SSEHandler([]byte(": OPENROUTER PROCESSING\n\n" + sseText +
				`data: {"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"x/y","provider":"P","error":{"code":429,"message":"Rate limit exceeded upstream"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}` + "\n\n")),
			Want:   llmtest.WantError{Kind: llm.ErrRateLimit, Message: "Rate limit exceeded upstream"},
			Events: "text[0] x1 \"Hello\"\n",
		},
		{
			Name: "overloaded error chunk",
			Handler: llmtest.SSEHandler([]byte(sseText +
				`data: {"error":{"message":"Overloaded","type":"overloaded_error"}}` + "\n\n")),
			Want:   llmtest.WantError{Kind: llm.ErrOverloaded, Message: "overloaded_error: Overloaded"},
			Events: "text[0] x1 \"Hello\"\n",
		},
		{
			Name: "vLLM bare error object mid-stream",
			Handler: llmtest.SSEHandler([]byte(sseText +
				`data: {"object":"error","message":"Engine died","type":"InternalServerError","param":null,"code":500}` + "\n\n")),
			Want:   llmtest.WantError{Kind: llm.ErrServer, Message: "InternalServerError: Engine died"},
			Events: "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "event: error",
			Handler: llmtest.SSEHandler([]byte(sseText + "event: error\ndata: {\"message\":\"stream aborted\"}\n\n")),
			Want:    llmtest.WantError{Kind: llm.ErrServer, Message: "stream aborted"},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "finish_reason error without an error object",
			Handler: llmtest.SSEHandler([]byte(sseText + "data: " + ck(``, "error", "") + "\n\n")),
			Want:    llmtest.WantError{Kind: llm.ErrServer, Message: `finish_reason "error"`},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "malformed JSON in a data line",
			Handler: llmtest.SSEHandler([]byte(sseText + "data: {\"choices\":[{\"index\":0,\"delta\":{\n\n")),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "malformed chunk"},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "wrong JSON types in a chunk",
			Handler: llmtest.SSEHandler([]byte(sseText + `data: {"choices":[{"index":"zero","delta":{}}]}` + "\n\n")),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "malformed chunk"},
			Events:  "text[0] x1 \"Hello\"\n",
		},
		{
			Name:    "JSON instead of a stream",
			Handler: jsonError(200, nil, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`),
			Want:    llmtest.WantError{Kind: llm.ErrOther, Message: "instead of an event stream"},
		},
		{
			Name:    "JSON error with status 200",
			Handler: jsonError(200, nil, `{"error":{"message":"quota","type":"insufficient_quota"}}`),
			Want:    llmtest.WantError{Kind: llm.ErrOther, Message: "insufficient_quota: quota"},
		},
		{
			Name:    "connection cut mid-tool-call",
			Handler: llmtest.AbortAfter(sseToolStart),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "stream interrupted"},
			Events:  "tool_start[0] id=call_1 name=read\ntool_delta[0] x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
		{
			Name:    "connection hijacked and closed mid-tool-call",
			Handler: llmtest.CloseAfter(sseToolStart),
			Want:    llmtest.WantError{Kind: llm.ErrBrokenStream, Message: "stream ended before finish_reason"},
			Events:  "tool_start[0] id=call_1 name=read\ntool_delta[0] x1 \"{\\\"path\\\": \\\"ma\"\n",
		},
	})
}

// TestEarlyBreakWithinChunk: stopping on the first of several events one
// chunk produced (a finish that completes two calls) yields nothing more.
func TestEarlyBreakWithinChunk(t *testing.T) {
	body := sse(
		ck(`"tool_calls":[`+tc(0, "a", "x", `{}`)+`]`, "", ""),
		ck(`"tool_calls":[`+tc(1, "b", "y", `{}`)+`]`, "tool_calls", ""), done)
	srv := httptest.NewServer(llmtest.SSEHandler(body))
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
		if _, ok := ev.(llm.ToolCallComplete); ok {
			break
		}
	}
	if _, ok := got[len(got)-1].(llm.ToolCallComplete); !ok || len(got) != 3 {
		t.Errorf("events %v", got)
	}
}
