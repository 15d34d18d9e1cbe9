package openaichat

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// okStream is the smallest complete stream, for tests about the request.
const okStream = `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}` + "\n\n" +
	`data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
	`data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}` + "\n\n" +
	"data: [DONE]\n\n"

// sendRecorded streams req through a Client made with opts against a
// local server and returns the request the server saw and its body.
func sendRecorded(t *testing.T, req *llm.Request, opts Options) (*http.Request, []byte) {
	t.Helper()
	return llmtest.SendTo(t, func(url string) llm.Client { return newTestClient(t, url, opts) }, req, okStream)
}

// deliberate removes from both bodies what this adapter deliberately does
// otherwise than the recordings' client:
//   - tool_choice "auto" and "strict": false are not sent: both are the
//     defaults, and some servers reject tool_choice.
//   - reasoning_content is not sent back (see the package documentation).
//   - max_completion_tokens is only sent to api.openai.com; the test server
//     gets max_tokens (TestOpenAIDialect covers the other side), so the two
//     names are compared as one.
func deliberate(t *testing.T, sent, recorded map[string]any) {
	for _, m := range []map[string]any{sent, recorded} {
		delete(m, "tool_choice")
		if v, ok := m["max_completion_tokens"]; ok {
			m["max_tokens"] = v
			delete(m, "max_completion_tokens")
		}
		tools, _ := m["tools"].([]any)
		for _, tl := range tools {
			delete(tl.(map[string]any)["function"].(map[string]any), "strict")
		}
		msgs, _ := m["messages"].([]any)
		for _, msg := range msgs {
			delete(msg.(map[string]any), "reasoning_content")
		}
	}
}

// requestFromRecording decodes a recorded Chat Completions request into the
// llm.Request that produces it. Consecutive tool messages become the
// tool_result blocks of one user message, as the loop builds them.
func requestFromRecording(t *testing.T, body []byte) *llm.Request {
	t.Helper()
	var rec struct {
		Model               string `json:"model"`
		MaxTokens           int    `json:"max_tokens"`
		MaxCompletionTokens int    `json:"max_completion_tokens"`
		ReasoningEffort     string `json:"reasoning_effort"`
		Tools               []struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role             string `json:"role"`
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			ToolCallID       string `json:"tool_call_id"`
			ToolCalls        []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Model: rec.Model, MaxTokens: max(rec.MaxTokens, rec.MaxCompletionTokens)}
	if rec.ReasoningEffort != "" {
		req.Thinking = &llm.Thinking{Effort: rec.ReasoningEffort}
	}
	for _, tl := range rec.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Function.Name, Description: tl.Function.Description, InputSchema: tl.Function.Parameters})
	}
	for _, m := range rec.Messages {
		switch m.Role {
		case "system":
			req.System = m.Content
		case "user":
			req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: m.Content}}})
		case "assistant":
			msg := llm.Message{Role: llm.RoleAssistant}
			if m.ReasoningContent != "" {
				msg.Content = append(msg.Content, llm.Block{Type: llm.BlockThinking, Text: m.ReasoningContent, Origin: llm.OriginOpenAIChat})
			}
			if m.Content != "" {
				msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				msg.Content = append(msg.Content, llm.Block{Type: llm.BlockToolUse, ToolUseID: tc.ID, ToolName: tc.Function.Name, Input: json.RawMessage(tc.Function.Arguments)})
			}
			req.Messages = append(req.Messages, msg)
		case "tool":
			b := llm.Block{Type: llm.BlockToolResult, ToolUseID: m.ToolCallID, Content: m.Content}
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == llm.RoleUser && req.Messages[n-1].Content[0].Type == llm.BlockToolResult {
				req.Messages[n-1].Content = append(req.Messages[n-1].Content, b)
			} else {
				req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Block{b}})
			}
		default:
			t.Fatalf("recording has role %q", m.Role)
		}
	}
	return req
}

// fullRequest uses every block type.
func fullRequest() *llm.Request {
	return &llm.Request{
		Model:     "gpt-4.1",
		System:    "You are NovaCode.",
		MaxTokens: 8000,
		Thinking:  &llm.Thinking{Effort: "low"},
		// Chat Completions has no web search: nothing is sent for it.
		WebSearch: &llm.WebSearch{MaxUses: 3},
		Tools: []llm.ToolSpec{
			{Name: "read", Description: "Read a file", InputSchema: json.RawMessage(
				`{"type":"object","properties":{"path":{"type":"string","description":"file path"}},"required":["path"],"additionalProperties":false}`)},
			// No top-level type: the adapter must add "type":"object".
			{Name: "grep", Description: "Search", InputSchema: json.RawMessage(
				`{"properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
			// No schema and no description: a tool without parameters.
			{Name: "pwd"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockText, Text: "What is in main.go? <see image>"},
				{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
				{Type: llm.BlockText, Text: "Be brief."},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Text: "I should read it.", Origin: llm.OriginOpenAIChat},
				{Type: llm.BlockRedactedThinking, Data: "opaque-redacted", Origin: llm.OriginAnthropic},
				// Other protocols' web searches: nothing here reads them.
				{Type: llm.BlockServerToolUse, ToolUseID: "srvtoolu_1", ToolName: "web_search", Input: json.RawMessage(`{"query":"go"}`), Origin: llm.OriginAnthropic},
				{Type: llm.BlockServerToolResult, ToolUseID: "srvtoolu_1", ToolName: "web_search", Origin: llm.OriginAnthropic,
					Raw: json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}`)},
				{Type: llm.BlockText, Text: "Reading it."},
				{Type: llm.BlockText, Text: ""}, // dropped: carries nothing
				{Type: llm.BlockText, Text: "Then searching."},
				{Type: llm.BlockToolUse, ToolUseID: "call_1", ToolName: "read", Input: json.RawMessage(`{"path": "main.go"}`)},
				// Invalid JSON from the model is sent as {}.
				{Type: llm.BlockToolUse, ToolUseID: "call_2", ToolName: "grep", Input: json.RawMessage(`{"pattern": "func ma`)},
				// Valid JSON that is not an object is no valid input either.
				{Type: llm.BlockToolUse, ToolUseID: "call_3", ToolName: "pwd", Input: json.RawMessage(`[]`)},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "call_1", Content: "package main"},
				{Type: llm.BlockToolResult, ToolUseID: "call_2", Content: "invalid JSON input", IsError: true},
				{Type: llm.BlockToolResult, ToolUseID: "call_3"},
				{Type: llm.BlockText, Text: "Continue."},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				// Only reasoning and a search: nothing is left to send.
				{Type: llm.BlockThinking, Text: "Hmm.", Origin: llm.OriginOpenAIChat},
				{Type: llm.BlockServerToolUse, ToolUseID: "ws_1", ToolName: "web_search", Input: json.RawMessage(`{"query":"go"}`), Origin: llm.OriginOpenAIResponses},
				{Type: llm.BlockServerToolResult, ToolUseID: "ws_1", ToolName: "web_search", Origin: llm.OriginOpenAIResponses,
					Raw: json.RawMessage(`{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"go"}}`)},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockText, Text: "Well?"},
			}},
		},
	}
}

const fullRequestBody = `{
  "model": "gpt-4.1",
  "messages": [
    {"role": "system", "content": "You are NovaCode."},
    {"role": "user", "content": [
      {"type": "text", "text": "What is in main.go? <see image>"},
      {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
      {"type": "text", "text": "Be brief."}
    ]},
    {"role": "assistant", "content": "Reading it.\n\nThen searching.", "tool_calls": [
      {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"main.go\"}"}},
      {"id": "call_2", "type": "function", "function": {"name": "grep", "arguments": "{}"}},
      {"id": "call_3", "type": "function", "function": {"name": "pwd", "arguments": "{}"}}
    ]},
    {"role": "tool", "tool_call_id": "call_1", "content": "package main"},
    {"role": "tool", "tool_call_id": "call_2", "content": "Error: invalid JSON input"},
    {"role": "tool", "tool_call_id": "call_3", "content": ""},
    {"role": "user", "content": "Continue."},
    {"role": "user", "content": "Well?"}
  ],
  "tools": [
    {"type": "function", "function": {"name": "read", "description": "Read a file", "parameters":
      {"type": "object", "properties": {"path": {"type": "string", "description": "file path"}}, "required": ["path"], "additionalProperties": false}}},
    {"type": "function", "function": {"name": "grep", "description": "Search", "parameters":
      {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}}},
    {"type": "function", "function": {"name": "pwd", "parameters": {"type": "object", "properties": {}}}}
  ],
  "max_tokens": 8000,
  "reasoning_effort": "low",
  "stream": true,
  "stream_options": {"include_usage": true}
}`

func TestRequestEncoding(t *testing.T) {
	r, body := sendRecorded(t, fullRequest(), Options{APIKey: "sk-test"})

	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		t.Errorf("request %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type = %q", got)
	}
	if diff := cmp.Diff(mustJSON(t, []byte(fullRequestBody)), mustJSON(t, body)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	// The schema goes out byte for byte (compacted), so the tool list is
	// identical on every call and prompt caching holds; < and > are not
	// escaped.
	for _, want := range []string{
		`"parameters":{"type":"object","properties":{"path":{"type":"string","description":"file path"}},"required":["path"],"additionalProperties":false}`,
		`<see image>`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("body lacks %s:\n%s", want, body)
		}
	}
	checkPairing(t, body)
}

// checkPairing asserts that every tool message answers a call of the
// assistant message before its run of tool messages, and that every call
// is answered before the next non-tool message.
func checkPairing(t *testing.T, body []byte) {
	t.Helper()
	var wire struct {
		Messages []struct {
			Role       string `json:"role"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID string `json:"id"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		t.Fatal(err)
	}
	open := map[string]bool{}
	for i, m := range wire.Messages {
		if m.Role == "tool" {
			if !open[m.ToolCallID] {
				t.Errorf("message %d: tool result %s answers no open call", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			t.Errorf("message %d: calls %v left without a result", i, open)
			clear(open)
		}
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
	}
	if len(open) > 0 {
		t.Errorf("calls %v left without a result at the end", open)
	}
}

// TestToolsStableAsHistoryGrows guards prompt caching: the tools array
// keeps its bytes when the history grows (the same request giving the same
// bytes every time is the conformance suite's check).
func TestToolsStableAsHistoryGrows(t *testing.T) {
	_, first := sendRecorded(t, fullRequest(), Options{})
	// The tools array in particular, also when the history grows.
	tools := func(body []byte) string {
		var v struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		return string(v.Tools)
	}
	longer := fullRequest()
	longer.Messages = append(longer.Messages, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "Done."}}})
	if _, b := sendRecorded(t, longer, Options{}); tools(b) != tools(first) {
		t.Errorf("tools bytes changed with the history:\n%s\n%s", tools(first), tools(b))
	}
}

// TestAnthropicHistory: a conversation that began on the Anthropic protocol
// (signed thinking, redacted thinking, toolu_ ids, an image) continues here.
func TestAnthropicHistory(t *testing.T) {
	req := &llm.Request{
		Model: "gpt-4o",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockText, Text: "What does this screenshot show?"},
				{Type: llm.BlockImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Text: "Let me look closer.", Signature: "EqQBCkgIARABGAIiQ…", Origin: llm.OriginAnthropic},
				{Type: llm.BlockRedactedThinking, Data: "EmwKAhgBEgy3va3pzix", Origin: llm.OriginAnthropic},
				{Type: llm.BlockText, Text: "I'll zoom in."},
				{Type: llm.BlockToolUse, ToolUseID: "toolu_01A09q90qw90lq917835lq9", ToolName: "zoom", Input: json.RawMessage(`{"factor":2}`)},
				{Type: llm.BlockToolUse, ToolUseID: "toolu_01B", ToolName: "ocr", Input: json.RawMessage(`{}`)},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "toolu_01B", Content: "Login"},
				{Type: llm.BlockToolResult, ToolUseID: "toolu_01A09q90qw90lq917835lq9", Content: "zoomed"},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Text: "It is a login form.", Signature: "sig2", Origin: llm.OriginAnthropic},
				{Type: llm.BlockText, Text: "A login form."},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "Thanks"}}},
		},
	}
	_, body := sendRecorded(t, req, Options{})
	want := `[
	  {"role": "user", "content": [
	    {"type": "text", "text": "What does this screenshot show?"},
	    {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/4AAQ"}}
	  ]},
	  {"role": "assistant", "content": "I'll zoom in.", "tool_calls": [
	    {"id": "toolu_01A09q90qw90lq917835lq9", "type": "function", "function": {"name": "zoom", "arguments": "{\"factor\":2}"}},
	    {"id": "toolu_01B", "type": "function", "function": {"name": "ocr", "arguments": "{}"}}
	  ]},
	  {"role": "tool", "tool_call_id": "toolu_01B", "content": "Login"},
	  {"role": "tool", "tool_call_id": "toolu_01A09q90qw90lq917835lq9", "content": "zoomed"},
	  {"role": "assistant", "content": "A login form."},
	  {"role": "user", "content": "Thanks"}
	]`
	var got struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mustJSON(t, []byte(want)), mustJSON(t, got.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	for _, leaked := range []string{"EqQBCkgIARABGAIiQ", "EmwKAhgBEgy3va3pzix", "sig2", "Let me look", "It is a login form"} {
		if strings.Contains(string(body), leaked) {
			t.Errorf("foreign reasoning %q sent", leaked)
		}
	}
	checkPairing(t, body)
}

// TestPairingRepair: a history whose calls and results do not pair up (an
// interrupted turn, a result without its call) still makes a request the
// API accepts.
func TestPairingRepair(t *testing.T) {
	use := func(id string) llm.Block {
		return llm.Block{Type: llm.BlockToolUse, ToolUseID: id, ToolName: "t", Input: json.RawMessage(`{}`)}
	}
	req := &llm.Request{
		Model: "m",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "go"}}},
			{Role: llm.RoleAssistant, Content: []llm.Block{use("a"), use("b")}},
			// b's result is missing; z answers nothing.
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "a", Content: "A"},
				{Type: llm.BlockToolResult, ToolUseID: "z", Content: "Z", IsError: true},
			}},
			// Interrupted: no user turn follows these calls.
			{Role: llm.RoleAssistant, Content: []llm.Block{use("c")}},
			{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "again"}, use("d")}},
		},
	}
	_, body := sendRecorded(t, req, Options{})
	want := `[
	  {"role": "user", "content": "go"},
	  {"role": "assistant", "tool_calls": [
	    {"id": "a", "type": "function", "function": {"name": "t", "arguments": "{}"}},
	    {"id": "b", "type": "function", "function": {"name": "t", "arguments": "{}"}}
	  ]},
	  {"role": "tool", "tool_call_id": "a", "content": "A"},
	  {"role": "tool", "tool_call_id": "b", "content": "Error: no result was recorded for this tool call."},
	  {"role": "user", "content": "Result of tool call z:\nError: Z"},
	  {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
	  {"role": "tool", "tool_call_id": "c", "content": "Error: no result was recorded for this tool call."},
	  {"role": "assistant", "content": "again", "tool_calls": [{"id": "d", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
	  {"role": "tool", "tool_call_id": "d", "content": "Error: no result was recorded for this tool call."}
	]`
	var got struct {
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mustJSON(t, []byte(want)), mustJSON(t, got.Messages)); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	checkPairing(t, body)
}

// TestOpenAIDialect: OpenAI's own API gets max_completion_tokens and a
// default reasoning effort; every other server max_tokens, and an effort
// only when one is set.
func TestOpenAIDialect(t *testing.T) {
	base := llm.Request{Model: "o4-mini", MaxTokens: 500, Messages: simpleRequest.Messages}
	tests := []struct {
		name     string
		baseURL  string
		thinking *llm.Thinking
		want     map[string]any // the dialect fields; absent ones must not be sent
	}{
		{"openai, thinking off", "https://api.openai.com/v1", nil, map[string]any{"max_completion_tokens": 500.0}},
		{"openai, default effort", "https://API.OpenAI.com/v1/", &llm.Thinking{}, map[string]any{"max_completion_tokens": 500.0, "reasoning_effort": "medium"}},
		{"openai, explicit effort", "https://api.openai.com/v1", &llm.Thinking{Effort: "high"}, map[string]any{"max_completion_tokens": 500.0, "reasoning_effort": "high"}},
		{"compatible, thinking off", "http://localhost:11434/v1", nil, map[string]any{"max_tokens": 500.0}},
		{"compatible, default effort is not sent", "https://openrouter.ai/api/v1", &llm.Thinking{BudgetTokens: 4000}, map[string]any{"max_tokens": 500.0}},
		{"compatible, explicit effort", "https://api.x.ai/v1", &llm.Thinking{Effort: "low"}, map[string]any{"max_tokens": 500.0, "reasoning_effort": "low"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(Options{BaseURL: tt.baseURL})
			req := base
			req.Thinking = tt.thinking
			body, err := buildBody(&req, c.openAIHosted)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]any{}
			for k, v := range mustJSON(t, body).(map[string]any) {
				switch k {
				case "max_tokens", "max_completion_tokens", "reasoning_effort":
					got[k] = v
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// No MaxTokens: the limit is left to the server.
	body, err := buildBody(&llm.Request{Model: "m"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(body); strings.Contains(s, "max_") || !strings.Contains(s, `"stream":true,"stream_options":{"include_usage":true}`) {
		t.Errorf("body %s", s)
	}
}

// TestOpenAIDefaultBaseURL: the zero Options talk to OpenAI.
func TestOpenAIDefaultBaseURL(t *testing.T) {
	if c := New(Options{}); !c.openAIHosted || c.ep.ConfigErr != nil {
		t.Errorf("zero Options: hosted %v, config error %v", c.openAIHosted, c.ep.ConfigErr)
	}
}

// TestBaseURLPath: the base URL's path is kept as given (OpenRouter's
// /api/v1, Groq's /openai/v1), with or without a trailing slash.
func TestBaseURLPath(t *testing.T) {
	for _, suffix := range []string{"/api/v1", "/openai/v1/"} {
		rec := &llmtest.Body{Response: okStream}
		srv := httptest.NewServer(rec)
		c := newTestClient(t, srv.URL, Options{BaseURL: srv.URL + suffix})
		if _, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest)); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(suffix, "/") + "/chat/completions"
		if r, _ := rec.Last(t); r.URL.Path != want {
			t.Errorf("path %q, want %q", r.URL.Path, want)
		}
		srv.Close()
	}
}

// TestEnvironmentIgnored checks that the SDK reads no environment variable
// behind explicit Options: a key, admin key, organization, project, base URL
// or header from the environment must not reach the request.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_ADMIN_KEY", "env-admin-key")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/never")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-From-Env: yes")

	leaks := func(r *http.Request) []string {
		var out []string
		for k, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, "env") || strings.EqualFold(k, "X-From-Env") || strings.HasPrefix(strings.ToLower(k), "openai-") {
					out = append(out, k+": "+v)
				}
			}
		}
		return out
	}

	r, _ := sendRecorded(t, simpleRequest, Options{APIKey: "explicit"})
	if got := r.Header.Get("Authorization"); got != "Bearer explicit" {
		t.Errorf("Authorization = %q, want the explicit key", got)
	}
	if l := leaks(r); len(l) > 0 {
		t.Errorf("environment leaked into the request: %v", l)
	}

	// Without a key (a local server), nothing is sent: in particular not
	// the admin key, which the SDK would otherwise use as a bearer token.
	rec := &llmtest.Body{Response: okStream}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := New(Options{BaseURL: srv.URL + "/v1", HTTPClient: &http.Client{Transport: tr}})
	if _, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest)); err != nil {
		t.Fatal(err)
	}
	r, _ = rec.Last(t)
	if r.Header.Get("Authorization") != "" || r.Header.Get("Api-Key") != "" {
		t.Errorf("credential sent without an APIKey: %v", r.Header)
	}
	if l := leaks(r); len(l) > 0 {
		t.Errorf("environment leaked into the request: %v", l)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", "http://localhost:8080/v1")
	want := Options{APIKey: "k", BaseURL: "http://localhost:8080/v1"}
	if diff := cmp.Diff(want, OptionsFromEnv()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
