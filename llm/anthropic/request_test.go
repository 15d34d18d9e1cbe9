package anthropic

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// okStream is the smallest complete stream, for tests about the request.
const okStream = "event: message_start\n" +
	`data: {"type":"message_start","message":{"model":"m","id":"x","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}` + "\n\n" +
	"event: message_delta\n" +
	`data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}` + "\n\n" +
	"event: message_stop\n" +
	`data: {"type":"message_stop"}` + "\n\n"

// sendRecorded streams req through a Client made with opts against a
// local server and returns the request the server saw and its body.
func sendRecorded(t *testing.T, req *llm.Request, opts Options) (*http.Request, []byte) {
	t.Helper()
	return llmtest.SendTo(t, func(url string) llm.Client { return newTestClient(t, url, opts) }, req, okStream)
}

// fullRequest uses every block type, so that the test below pins the whole
// translation.
func fullRequest() *llm.Request {
	return &llm.Request{
		Model:     "claude-sonnet-4-5",
		System:    "You are NovaCode.",
		MaxTokens: 8000,
		Thinking:  &llm.Thinking{BudgetTokens: 2000},
		WebSearch: &llm.WebSearch{MaxUses: 5},
		Tools: []llm.ToolSpec{
			{Name: "read", Description: "Read a file", InputSchema: json.RawMessage(
				`{"type":"object","properties":{"path":{"type":"string","description":"file path"}},"required":["path"],"additionalProperties":false}`)},
			// No top-level type: the adapter must add "type":"object".
			{Name: "grep", Description: "Search", InputSchema: json.RawMessage(
				`{"properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
			// No schema at all: a tool without parameters.
			{Name: "pwd", Description: "Print the working directory"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockText, Text: "What is in main.go?"},
				{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Text: "I should read it.", Signature: "sig-abc=="},
				{Type: llm.BlockRedactedThinking, Data: "opaque-redacted"},
				// A search of ours goes back as the API sent it; another
				// protocol's is left out.
				{Type: llm.BlockServerToolUse, ToolUseID: "srvtoolu_1", ToolName: "web_search", Input: json.RawMessage(`{"query":"go"}`), Origin: llm.OriginAnthropic},
				{Type: llm.BlockServerToolResult, ToolUseID: "srvtoolu_1", ToolName: "web_search", Origin: llm.OriginAnthropic,
					Results: []llm.SearchResult{{Title: "Go", URL: "https://go.dev/"}},
					Raw:     json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","title":"Go","url":"https://go.dev/","encrypted_content":"enc==","page_age":null}],"caller":{"type":"direct"}}`)},
				{Type: llm.BlockServerToolUse, ToolUseID: "ws_1", ToolName: "web_search", Input: json.RawMessage(`{"query":"go"}`), Origin: llm.OriginOpenAIResponses},
				{Type: llm.BlockServerToolResult, ToolUseID: "ws_1", ToolName: "web_search", Origin: llm.OriginOpenAIResponses,
					Raw: json.RawMessage(`{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","query":"go"}}`)},
				{Type: llm.BlockText, Text: "Reading it."},
				{Type: llm.BlockText, Text: ""}, // dropped: the API rejects empty text
				{Type: llm.BlockToolUse, ToolUseID: "toolu_1", ToolName: "read", Input: json.RawMessage(`{"path": "main.go"}`)},
				// Invalid JSON from the model is sent as {}.
				{Type: llm.BlockToolUse, ToolUseID: "toolu_2", ToolName: "grep", Input: json.RawMessage(`{"pattern": "func ma`)},
				// Valid JSON that is not an object is no valid input either.
				{Type: llm.BlockToolUse, ToolUseID: "toolu_3", ToolName: "pwd", Input: json.RawMessage(`[]`)},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "toolu_1", Content: "package main"},
				{Type: llm.BlockToolResult, ToolUseID: "toolu_2", Content: "invalid JSON input", IsError: true},
				{Type: llm.BlockToolResult, ToolUseID: "toolu_3"},
			}},
		},
	}
}

const fullRequestBody = `{
  "model": "claude-sonnet-4-5",
  "max_tokens": 8000,
  "stream": true,
  "system": [{"type": "text", "text": "You are NovaCode.", "cache_control": {"type": "ephemeral"}}],
  "thinking": {"type": "enabled", "budget_tokens": 2000},
  "tools": [
    {"name": "read", "description": "Read a file", "input_schema":
      {"type": "object", "properties": {"path": {"type": "string", "description": "file path"}}, "required": ["path"], "additionalProperties": false}},
    {"name": "grep", "description": "Search", "input_schema":
      {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}},
    {"name": "pwd", "description": "Print the working directory", "input_schema": {"type": "object", "properties": {}}},
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 5, "cache_control": {"type": "ephemeral"}}
  ],
  "messages": [
    {"role": "user", "content": [
      {"type": "text", "text": "What is in main.go?"},
      {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    ]},
    {"role": "assistant", "content": [
      {"type": "thinking", "thinking": "I should read it.", "signature": "sig-abc=="},
      {"type": "redacted_thinking", "data": "opaque-redacted"},
      {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "go"}, "caller": {"type": "direct"}},
      {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "caller": {"type": "direct"}, "content": [
        {"type": "web_search_result", "title": "Go", "url": "https://go.dev/", "encrypted_content": "enc==", "page_age": null}]},
      {"type": "text", "text": "Reading it."},
      {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "main.go"}},
      {"type": "tool_use", "id": "toolu_2", "name": "grep", "input": {}},
      {"type": "tool_use", "id": "toolu_3", "name": "pwd", "input": {}}
    ]},
    {"role": "user", "content": [
      {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "package main"}]},
      {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "invalid JSON input"}], "is_error": true},
      {"type": "tool_result", "tool_use_id": "toolu_3", "cache_control": {"type": "ephemeral"}}
    ]}
  ]
}`

func TestRequestEncoding(t *testing.T) {
	r, body := sendRecorded(t, fullRequest(), Options{APIKey: "sk-test"})

	if r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
		t.Errorf("request %s %s, want POST /v1/messages", r.Method, r.URL.Path)
	}
	// SDK v2 sends the API key as a bearer token.
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	if r.Header.Get("Anthropic-Version") == "" {
		t.Errorf("no anthropic-version header")
	}

	got := mustJSON(t, body)
	checkCacheBreakpoints(t, got)
	if diff := cmp.Diff(mustJSON(t, []byte(fullRequestBody)), got); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}

	// The schema goes out byte for byte (compacted), so the tool list is
	// identical on every call and prompt caching holds.
	if !strings.Contains(string(body), `"input_schema":{"type":"object","properties":{"path":{"type":"string","description":"file path"}},"required":["path"],"additionalProperties":false}`) {
		t.Errorf("schema not passed through verbatim:\n%s", body)
	}
	// Every tool_result answers a tool_use of the preceding assistant turn.
	var wire struct {
		Messages []struct {
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(wire.Messages); i++ {
		uses := map[string]bool{}
		for _, b := range wire.Messages[i-1].Content {
			if b.Type == "tool_use" {
				uses[b.ID] = true
			}
		}
		for _, b := range wire.Messages[i].Content {
			if b.Type == "tool_result" && !uses[b.ToolUseID] {
				t.Errorf("message %d: tool_result %s answers no tool_use of message %d", i, b.ToolUseID, i-1)
			}
		}
	}
}

func TestCacheBreakpoints(t *testing.T) {
	text := func(s string) llm.Block { return llm.Block{Type: llm.BlockText, Text: s} }
	tests := []struct {
		name string
		req  llm.Request
	}{
		{"no system, no tools", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{text("a"), text("b")}}}}},
		{"last message is the assistant's (prefill)", llm.Request{System: "s", Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{text("a")}},
			{Role: llm.RoleAssistant, Content: []llm.Block{text("b")}},
		}}},
		{"one tool", llm.Request{Tools: []llm.ToolSpec{{Name: "t"}}, Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{text("a")}}}}},
		{"full", *fullRequest()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Model, tt.req.MaxTokens = "claude-sonnet-4-5", 4096
			_, body := sendRecorded(t, &tt.req, Options{})
			checkCacheBreakpoints(t, mustJSON(t, body))
		})
	}
}

func TestThinkingBudget(t *testing.T) {
	tests := []struct {
		name      string
		thinking  *llm.Thinking
		maxTokens int
		want      int64 // 0: thinking off
	}{
		{"nil is off", nil, 8000, 0},
		{"explicit budget", &llm.Thinking{BudgetTokens: 3000}, 8000, 3000},
		{"raised to the minimum", &llm.Thinking{BudgetTokens: 10}, 8000, 1024},
		{"kept below max_tokens", &llm.Thinking{BudgetTokens: 9000}, 8000, 7999},
		{"default is half of max_tokens", &llm.Thinking{}, 8000, 4000},
		{"default at least the minimum", &llm.Thinking{}, 1500, 1024},
		{"max_tokens leaves no room", &llm.Thinking{BudgetTokens: 2000}, 1024, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := buildParams(&llm.Request{Model: "m", MaxTokens: tt.maxTokens, Thinking: tt.thinking})
			if err != nil {
				t.Fatal(err)
			}
			var got int64
			if p.Thinking.OfEnabled != nil {
				got = p.Thinking.OfEnabled.BudgetTokens
			}
			if got != tt.want {
				t.Errorf("budget %d, want %d", got, tt.want)
			}
		})
	}
}

func TestMaxTokensDefault(t *testing.T) {
	p, err := buildParams(&llm.Request{Model: "claude-sonnet-4-20250514"})
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := llm.LookupModel("claude-sonnet-4-20250514"); p.MaxTokens != int64(info.MaxOutputTokens) {
		t.Errorf("max_tokens %d, want the catalog's %d", p.MaxTokens, info.MaxOutputTokens)
	}
}

func TestBaseURLPrefix(t *testing.T) {
	rec := &llmtest.Body{Response: okStream}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	c := newTestClient(t, srv.URL, Options{BaseURL: srv.URL + "/proxy/anthropic"})
	if _, err := llmtest.Collect(t, c.Stream(context.Background(), &llm.Request{Model: "m", MaxTokens: 10})); err != nil {
		t.Fatal(err)
	}
	if r, _ := rec.Last(t); r.URL.Path != "/proxy/anthropic/v1/messages" {
		t.Errorf("path %q, want the prefix kept", r.URL.Path)
	}
}

// TestEnvironmentIgnored checks that the SDK does not read the environment
// behind explicit Options: a token, base URL or header from the environment
// must not reach the request.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1/never")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-From-Env: yes")
	t.Setenv("ANTHROPIC_PROFILE", "does-not-exist")

	r, _ := sendRecorded(t, &llm.Request{Model: "m", MaxTokens: 10}, Options{APIKey: "explicit"})
	if got := r.Header.Get("Authorization"); got != "Bearer explicit" {
		t.Errorf("Authorization = %q, want the explicit key", got)
	}
	if r.Header.Get("X-Api-Key") != "" || r.Header.Get("X-From-Env") != "" {
		t.Errorf("environment leaked into the request: %v", r.Header)
	}

	// Without a key, nothing from the environment is sent either.
	rec := &llmtest.Body{Response: okStream}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := New(Options{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: tr}})
	if _, err := llmtest.Collect(t, c.Stream(context.Background(), &llm.Request{Model: "m", MaxTokens: 10})); err != nil {
		t.Fatal(err)
	}
	if r, _ := rec.Last(t); r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" {
		t.Errorf("credential sent without an APIKey: %v", r.Header)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "k")
	t.Setenv("ANTHROPIC_BASE_URL", "https://proxy.example/a")
	want := Options{APIKey: "k", BaseURL: "https://proxy.example/a"}
	if diff := cmp.Diff(want, OptionsFromEnv()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestThinkingConfig(t *testing.T) {
	tests := []struct {
		name     string
		model    string
		thinking *llm.Thinking
		want     string // JSON of thinking + output_config, "" when absent
	}{
		{"off", "claude-sonnet-4-5", nil, `{}`},
		{"adaptive model chooses", "claude-sonnet-4-5", &llm.Thinking{}, `{"thinking":{"type":"adaptive"}}`},
		{"adaptive with effort", "claude-opus-4-5", &llm.Thinking{Effort: "high"}, `{"output_config":{"effort":"high"},"thinking":{"type":"adaptive"}}`},
		{"explicit budget on adaptive model", "claude-sonnet-4-5", &llm.Thinking{BudgetTokens: 4000}, `{"thinking":{"budget_tokens":4000,"type":"enabled"}}`},
		{"older model default budget", "claude-sonnet-4-20250514", &llm.Thinking{}, `{"thinking":{"budget_tokens":8000,"type":"enabled"}}`},
		{"budget below minimum raised", "claude-sonnet-4-20250514", &llm.Thinking{BudgetTokens: 10}, `{"thinking":{"budget_tokens":1024,"type":"enabled"}}`},
		{"budget above output limit lowered", "claude-sonnet-4-20250514", &llm.Thinking{BudgetTokens: 99999}, `{"thinking":{"budget_tokens":15999,"type":"enabled"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := buildParams(&llm.Request{Model: tc.model, MaxTokens: 16000, Thinking: tc.thinking,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}}})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(p)
			var all map[string]json.RawMessage
			_ = json.Unmarshal(b, &all)
			got := map[string]json.RawMessage{}
			for _, k := range []string{"thinking", "output_config"} {
				if v, ok := all[k]; ok {
					got[k] = v
				}
			}
			gb, _ := json.Marshal(got)
			if string(gb) != tc.want {
				t.Fatalf("got %s, want %s", gb, tc.want)
			}
		})
	}
}

// The web search tool comes last in the tools array, carrying the tools'
// prompt-caching breakpoint, the same bytes on every call.
func TestWebSearchTool(t *testing.T) {
	hi := llmtest.Hi("claude-sonnet-4-5").Messages
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"alone", llm.Request{WebSearch: &llm.WebSearch{}},
			`[{"type":"web_search_20250305","name":"web_search","cache_control":{"type":"ephemeral"}}]`},
		{"after the function tools, with a cap", llm.Request{WebSearch: &llm.WebSearch{MaxUses: 8}, Tools: []llm.ToolSpec{{Name: "pwd"}}},
			`[{"name":"pwd","input_schema":{"type":"object","properties":{}}},{"type":"web_search_20250305","name":"web_search","max_uses":8,"cache_control":{"type":"ephemeral"}}]`},
		{"not offered", llm.Request{Tools: []llm.ToolSpec{{Name: "pwd"}}},
			`[{"name":"pwd","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Model, tt.req.MaxTokens, tt.req.Messages = "claude-sonnet-4-5", 100, hi
			_, body := sendRecorded(t, &tt.req, Options{})
			var sent struct{ Tools json.RawMessage }
			if err := json.Unmarshal(body, &sent); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(mustJSON(t, []byte(tt.want)), mustJSON(t, sent.Tools)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			checkCacheBreakpoints(t, mustJSON(t, body))
			if _, again := sendRecorded(t, &tt.req, Options{}); string(again) != string(body) {
				t.Errorf("the request changed between calls: %s", llmtest.FirstDiff(again, body))
			}
		})
	}
}

// A searching answer goes back on the next call as the API sent it: the
// server_tool_use with its input and the web_search_tool_result block
// verbatim (every result's encrypted_content), the text without its
// citations (which the API does not need back).
func TestSearchGoesBackAsSent(t *testing.T) {
	const rec = "../testdata/providers/anthropic/TestAnthropicWebSearch__claude-sonnet-4__web_search_streaming__0"
	sse, err := os.ReadFile(rec + ".sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llmtest.SSEHandler(sse))
	t.Cleanup(srv.Close)
	c := newTestClient(t, srv.URL, Options{})
	events, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest))
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Model: "claude-sonnet-4-20250514", MaxTokens: 4000, WebSearch: &llm.WebSearch{}, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "What is the current population of Tokyo? Cite your source."}}},
		llmtest.Assistant(events),
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "How does that compare to Osaka?"}}},
	}}
	_, body := sendRecorded(t, req, Options{})
	var sent struct {
		Messages []struct {
			Content []any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sentBlocks(t, sse), sent.Messages[1].Content); diff != "" {
		t.Errorf("assistant message sent back (-as the API sent it +sent):\n%s", diff)
	}
}

// sentBlocks are the content blocks of a recorded stream as the API sent
// them (decoded): each block of content_block_start with what its deltas
// add (a server tool call's input, a text's text), less the text's
// citations.
func sentBlocks(t *testing.T, sse []byte) []any {
	t.Helper()
	var blocks []map[string]any
	inputs := map[int]string{}
	for _, line := range strings.Split(string(sse), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type         string         `json:"type"`
			Index        int            `json:"index"`
			ContentBlock map[string]any `json:"content_block"`
			Delta        struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		switch {
		case ev.Type == "content_block_start":
			delete(ev.ContentBlock, "citations")
			blocks = append(blocks, ev.ContentBlock)
		case ev.Type == "content_block_delta" && ev.Delta.Type == "text_delta":
			blocks[ev.Index]["text"] = blocks[ev.Index]["text"].(string) + ev.Delta.Text
		case ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta":
			inputs[ev.Index] += ev.Delta.PartialJSON
		}
	}
	out := make([]any, len(blocks))
	for i, b := range blocks {
		if in, ok := inputs[i]; ok {
			b["input"] = mustJSON(t, []byte(in))
		}
		out[i] = b
	}
	return out
}
