package openai

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
const okStream = "event: response.created\n" +
	`data: {"type":"response.created","response":{"id":"resp_1","model":"gpt-test","status":"in_progress","output":[]}}` + "\n\n" +
	"event: response.completed\n" +
	`data: {"type":"response.completed","response":{"id":"resp_1","model":"gpt-test","status":"completed","output":[],"usage":{"input_tokens":3,"input_tokens_details":{"cached_tokens":0},"output_tokens":1}}}` + "\n\n"

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
		Model:     "gpt-5",
		System:    "You are NovaCode.",
		MaxTokens: 8000,
		Thinking:  &llm.Thinking{Effort: "high"},
		WebSearch: &llm.WebSearch{MaxUses: 5}, // no cap to send here
		Tools: []llm.ToolSpec{
			{Name: "read", Description: "Read a file", InputSchema: json.RawMessage(
				`{"type":"object","properties":{"path":{"type":"string","description":"file path"}},"required":["path"],"additionalProperties":false}`)},
			// No top-level type: the adapter must add "type":"object".
			{Name: "grep", Description: "Search <code> & text", InputSchema: json.RawMessage(
				`{"properties":{"pattern":{"type":"string"}},"required":["pattern"]}`)},
			// No schema and no description: a tool without parameters.
			{Name: "pwd"},
		},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockText, Text: "What is in main.go?"},
				{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Origin: llm.OriginOpenAIResponses, ItemID: "rs_1", Text: "I should read it.", Signature: "enc-1"},
				// A search of ours goes back as its item (without the id
				// the API kept nothing for); Anthropic's is left out.
				{Type: llm.BlockServerToolUse, ToolUseID: "ws_1", ToolName: "web_search", Input: json.RawMessage(`{"query":"go"}`), Origin: llm.OriginOpenAIResponses},
				{Type: llm.BlockServerToolResult, ToolUseID: "ws_1", ToolName: "web_search", Origin: llm.OriginOpenAIResponses,
					Results: []llm.SearchResult{{URL: "https://go.dev/"}},
					Raw:     json.RawMessage(`{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","queries":["go"],"query":"go","sources":[{"type":"url","url":"https://go.dev/"}]}}`)},
				{Type: llm.BlockServerToolUse, ToolUseID: "srvtoolu_1", ToolName: "web_search", Input: json.RawMessage(`{"query":"go"}`), Origin: llm.OriginAnthropic},
				{Type: llm.BlockServerToolResult, ToolUseID: "srvtoolu_1", ToolName: "web_search", Origin: llm.OriginAnthropic,
					Raw: json.RawMessage(`{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]}`)},
				{Type: llm.BlockText, Text: "Reading it."},
				{Type: llm.BlockText, Text: ""}, // dropped: carries nothing
				{Type: llm.BlockToolUse, ToolUseID: "call_1", ToolName: "read", Input: json.RawMessage(`{"path": "main.go"}`)},
				// Invalid JSON from the model is sent as {}.
				{Type: llm.BlockToolUse, ToolUseID: "call_2", ToolName: "grep", Input: json.RawMessage(`{"pattern": "func ma`)},
				// No input at all: {}.
				{Type: llm.BlockToolUse, ToolUseID: "call_3", ToolName: "pwd"},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "call_1", Content: "package main"},
				{Type: llm.BlockToolResult, ToolUseID: "call_2", Content: "invalid JSON input", IsError: true},
				{Type: llm.BlockToolResult, ToolUseID: "call_3"},
				{Type: llm.BlockText, Text: "Also look at this:"},
				{Type: llm.BlockImage, MediaType: "image/jpeg", Data: "/9j/4AAQ"},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				// Reasoning without summary text still goes back.
				{Type: llm.BlockThinking, Origin: llm.OriginOpenAIResponses, ItemID: "rs_2", Signature: "enc-2"},
				// Cut before its encrypted content: dropped.
				{Type: llm.BlockThinking, Origin: llm.OriginOpenAIResponses, ItemID: "rs_3", Text: "partial"},
				// Redacted thinking is Anthropic's: dropped.
				{Type: llm.BlockRedactedThinking, Data: "opaque"},
				{Type: llm.BlockText, Text: "Done."},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "Thanks"}}},
		},
	}
}

const fullRequestBody = `{
  "model": "gpt-5",
  "store": false,
  "stream": true,
  "instructions": "You are NovaCode.",
  "max_output_tokens": 8000,
  "reasoning": {"effort": "high", "summary": "auto"},
  "include": ["reasoning.encrypted_content", "web_search_call.action.sources"],
  "tools": [
    {"type": "function", "name": "read", "description": "Read a file", "strict": false, "parameters":
      {"type": "object", "properties": {"path": {"type": "string", "description": "file path"}}, "required": ["path"], "additionalProperties": false}},
    {"type": "function", "name": "grep", "description": "Search <code> & text", "strict": false, "parameters":
      {"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}},
    {"type": "function", "name": "pwd", "strict": false, "parameters": {"type": "object", "properties": {}}},
    {"type": "web_search"}
  ],
  "input": [
    {"role": "user", "content": [
      {"type": "input_text", "text": "What is in main.go?"},
      {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,iVBORw0KGgo="}
    ]},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "I should read it."}], "encrypted_content": "enc-1"},
    {"type": "web_search_call", "status": "completed", "action": {"type": "search", "queries": ["go"], "query": "go", "sources": [{"type": "url", "url": "https://go.dev/"}]}},
    {"role": "assistant", "content": "Reading it."},
    {"type": "function_call", "call_id": "call_1", "name": "read", "arguments": "{\"path\": \"main.go\"}"},
    {"type": "function_call", "call_id": "call_2", "name": "grep", "arguments": "{}"},
    {"type": "function_call", "call_id": "call_3", "name": "pwd", "arguments": "{}"},
    {"type": "function_call_output", "call_id": "call_1", "output": "package main"},
    {"type": "function_call_output", "call_id": "call_2", "output": "Error: invalid JSON input"},
    {"type": "function_call_output", "call_id": "call_3", "output": ""},
    {"role": "user", "content": [
      {"type": "input_text", "text": "Also look at this:"},
      {"type": "input_image", "detail": "auto", "image_url": "data:image/jpeg;base64,/9j/4AAQ"}
    ]},
    {"type": "reasoning", "id": "rs_2", "summary": [], "encrypted_content": "enc-2"},
    {"role": "assistant", "content": "Done."},
    {"role": "user", "content": [{"type": "input_text", "text": "Thanks"}]}
  ]
}`

func TestRequestEncoding(t *testing.T) {
	r, body := sendRecorded(t, fullRequest(), Options{APIKey: "sk-test"})

	if r.URL.Path != "/v1/responses" || r.Method != http.MethodPost {
		t.Errorf("request %s %s, want POST /v1/responses", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization = %q", got)
	}
	if diff := cmp.Diff(mustJSON(t, []byte(fullRequestBody)), mustJSON(t, body)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	// The schema goes out byte for byte (compacted), so the tool list is
	// identical on every call and prompt caching holds.
	if !strings.Contains(string(body), `"parameters":{"type":"object","properties":{"path":{"type":"string","description":"file path"}},"required":["path"],"additionalProperties":false}`) {
		t.Errorf("schema not passed through verbatim:\n%s", body)
	}
	checkPairing(t, body)
}

// checkPairing asserts that every function_call_output answers a
// function_call sent before it, and that every call is answered.
func checkPairing(t *testing.T, body []byte) {
	t.Helper()
	var wire struct {
		Input []struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		t.Fatal(err)
	}
	calls := map[string]bool{}
	for i, it := range wire.Input {
		switch it.Type {
		case "function_call":
			calls[it.CallID] = true
		case "function_call_output":
			if !calls[it.CallID] {
				t.Errorf("input %d: output for %s answers no earlier function_call", i, it.CallID)
			}
			delete(calls, it.CallID)
		}
	}
	if len(calls) != 0 {
		t.Errorf("calls without output: %v", calls)
	}
}

// TestNextTurnOnlyAppends guards prompt caching: a new turn must only
// append to the request (the same request giving the same bytes every time
// is the conformance suite's check).
func TestNextTurnOnlyAppends(t *testing.T) {
	_, first := sendRecorded(t, fullRequest(), Options{})

	// The next turn: the same history plus an answer and a question. The
	// server caches the prompt it renders (instructions, tools, then the
	// input items), so those must be unchanged, item for item; JSON key
	// order does not matter to it.
	next := fullRequest()
	next.Messages = append(next.Messages,
		llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "You're welcome."}}},
		llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "Bye"}}},
	)
	_, second := sendRecorded(t, next, Options{})
	type parts struct {
		Instructions, Tools json.RawMessage
		Input               []json.RawMessage
	}
	var a, b parts
	if err := json.Unmarshal(first, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(second, &b); err != nil {
		t.Fatal(err)
	}
	if string(a.Instructions) != string(b.Instructions) || string(a.Tools) != string(b.Tools) {
		t.Errorf("instructions or tools changed between turns")
	}
	if len(b.Input) != len(a.Input)+2 {
		t.Fatalf("%d input items after %d, want 2 more", len(b.Input), len(a.Input))
	}
	for i := range a.Input {
		if string(a.Input[i]) != string(b.Input[i]) {
			t.Errorf("input item %d changed between turns:\n%s\n%s", i, a.Input[i], b.Input[i])
		}
	}
}

// TestToolSchemaBytesStable: the tools array of two calls is byte-identical,
// and the schema's key order is the caller's, not a re-encoding's.
func TestToolSchemaBytesStable(t *testing.T) {
	schema := `{"type":"object","required":["z","a"],"properties":{"z":{"type":"string"},"a":{"type":"integer","minimum":1}},"additionalProperties":false}`
	req := func() *llm.Request {
		return &llm.Request{Model: "gpt-4o", Tools: []llm.ToolSpec{{Name: "t", Description: "d", InputSchema: json.RawMessage(schema)}},
			Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "x"}}}}}
	}
	tools := func(body []byte) string {
		var v struct {
			Tools json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatal(err)
		}
		return string(v.Tools)
	}
	_, a := sendRecorded(t, req(), Options{})
	_, b := sendRecorded(t, req(), Options{})
	if tools(a) != tools(b) {
		t.Errorf("tools differ:\n%s\n%s", tools(a), tools(b))
	}
	if want := `[{"type":"function","name":"t","description":"d","parameters":` + schema + `,"strict":false}]`; tools(a) != want {
		t.Errorf("tools\n%s\nwant\n%s", tools(a), want)
	}
}

// TestAnthropicHistory sends a conversation that was held with Anthropic:
// its signed thinking and redacted thinking mean nothing here and are
// dropped, while text, images, tool calls and results carry over, paired.
func TestAnthropicHistory(t *testing.T) {
	req := &llm.Request{
		Model: "gpt-5",
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockText, Text: "Fix the bug in this screenshot"},
				{Type: llm.BlockImage, MediaType: "image/png", Data: "iVBORw0KGgo="},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockThinking, Origin: llm.OriginAnthropic, Text: "Let me look.", Signature: "EqQBCkgIARABGAIiQL"},
				{Type: llm.BlockRedactedThinking, Origin: llm.OriginAnthropic, Data: "EmwKAhgBEgy3va3pzix"},
				{Type: llm.BlockText, Text: "Reading the file."},
				{Type: llm.BlockToolUse, ToolUseID: "toolu_01A", ToolName: "read", Input: json.RawMessage(`{"path":"main.go"}`)},
				{Type: llm.BlockToolUse, ToolUseID: "toolu_01B", ToolName: "grep", Input: json.RawMessage(`{"pattern":"bug"}`)},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: "toolu_01A", Content: "package main"},
				{Type: llm.BlockToolResult, ToolUseID: "toolu_01B", Content: "no match", IsError: true},
			}},
			{Role: llm.RoleAssistant, Content: []llm.Block{
				// Thinking from before origins existed, signed by Anthropic:
				// no Responses item id, so it is not ours either.
				{Type: llm.BlockThinking, Text: "Old thinking.", Signature: "EqQBCkgIARAB"},
				// Chat Completions reasoning: foreign as well.
				{Type: llm.BlockThinking, Origin: llm.OriginOpenAIChat, Text: "chat reasoning", ItemID: "rs_x", Signature: "x"},
				{Type: llm.BlockText, Text: "Fixed."},
			}},
			{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "Thanks"}}},
		},
	}
	_, body := sendRecorded(t, req, Options{})
	want := `{"model": "gpt-5", "store": false, "stream": true, "input": [
		{"role": "user", "content": [
			{"type": "input_text", "text": "Fix the bug in this screenshot"},
			{"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,iVBORw0KGgo="}]},
		{"role": "assistant", "content": "Reading the file."},
		{"type": "function_call", "call_id": "toolu_01A", "name": "read", "arguments": "{\"path\":\"main.go\"}"},
		{"type": "function_call", "call_id": "toolu_01B", "name": "grep", "arguments": "{\"pattern\":\"bug\"}"},
		{"type": "function_call_output", "call_id": "toolu_01A", "output": "package main"},
		{"type": "function_call_output", "call_id": "toolu_01B", "output": "Error: no match"},
		{"role": "assistant", "content": "Fixed."},
		{"role": "user", "content": [{"type": "input_text", "text": "Thanks"}]}
	]}`
	if diff := cmp.Diff(mustJSON(t, []byte(want)), mustJSON(t, body)); diff != "" {
		t.Errorf("request body (-want +got):\n%s", diff)
	}
	checkPairing(t, body)
}

func TestReasoningParams(t *testing.T) {
	tests := []struct {
		name     string
		thinking *llm.Thinking
		want     string // the reasoning object, "" for none
	}{
		{"nil is off", nil, ""},
		{"default effort", &llm.Thinking{}, `{"effort":"medium","summary":"auto"}`},
		{"explicit effort", &llm.Thinking{Effort: "low"}, `{"effort":"low","summary":"auto"}`},
		{"budget is not an OpenAI notion", &llm.Thinking{BudgetTokens: 5000, Effort: "high"}, `{"effort":"high","summary":"auto"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, body := sendRecorded(t, &llm.Request{Model: "o4-mini", Thinking: tt.thinking}, Options{})
			var v struct {
				Reasoning json.RawMessage `json:"reasoning"`
				Include   []string        `json:"include"`
			}
			if err := json.Unmarshal(body, &v); err != nil {
				t.Fatal(err)
			}
			if string(v.Reasoning) != tt.want {
				t.Errorf("reasoning %s, want %s", v.Reasoning, tt.want)
			}
			wantInclude := []string(nil)
			if tt.want != "" {
				wantInclude = []string{"reasoning.encrypted_content"}
			}
			if diff := cmp.Diff(wantInclude, v.Include); diff != "" {
				t.Errorf("include (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMaxOutputTokensMinimum(t *testing.T) {
	_, body := sendRecorded(t, &llm.Request{Model: "gpt-4o", MaxTokens: 5}, Options{})
	var v struct {
		MaxOutputTokens int `json:"max_output_tokens"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	if v.MaxOutputTokens != minOutputTokens {
		t.Errorf("max_output_tokens %d, want the API minimum %d", v.MaxOutputTokens, minOutputTokens)
	}
}

func TestMinimalRequest(t *testing.T) {
	// No system, no tools, no limit: none of those fields is sent.
	_, body := sendRecorded(t, &llm.Request{Model: "gpt-4o"}, Options{})
	want := `{"model":"gpt-4o","store":false,"stream":true,"input":[]}`
	if diff := cmp.Diff(mustJSON(t, []byte(want)), mustJSON(t, body)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBaseURLPrefix(t *testing.T) {
	for _, base := range []string{"/proxy/openai/v1", "/proxy/openai/v1/"} {
		rec := &llmtest.Body{Response: okStream}
		srv := httptest.NewServer(rec)
		c := newTestClient(t, srv.URL, Options{BaseURL: srv.URL + base})
		if _, err := llmtest.Collect(t, c.Stream(context.Background(), &llm.Request{Model: "m"})); err != nil {
			t.Fatal(err)
		}
		if r, _ := rec.Last(t); r.URL.Path != "/proxy/openai/v1/responses" {
			t.Errorf("base %q: path %q, want the prefix kept", base, r.URL.Path)
		}
		srv.Close()
	}
}

// TestEnvironmentIgnored checks that the SDK does not read the environment
// behind explicit Options: a key, base URL, organization, project or header
// from the environment must not reach the request.
func TestEnvironmentIgnored(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_ADMIN_KEY", "env-admin-key")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/never")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-env")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-From-Env: yes")

	r, _ := sendRecorded(t, &llm.Request{Model: "m"}, Options{APIKey: "explicit"})
	if got := r.Header.Get("Authorization"); got != "Bearer explicit" {
		t.Errorf("Authorization = %q, want the explicit key", got)
	}
	for _, h := range []string{"OpenAI-Organization", "OpenAI-Project", "X-From-Env"} {
		if v := r.Header.Get(h); v != "" {
			t.Errorf("environment leaked into the request: %s: %s", h, v)
		}
	}

	// Without a key, nothing from the environment is sent either.
	rec := &llmtest.Body{Response: okStream}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := New(Options{BaseURL: srv.URL + "/v1", HTTPClient: &http.Client{Transport: tr}})
	if _, err := llmtest.Collect(t, c.Stream(context.Background(), &llm.Request{Model: "m"})); err != nil {
		t.Fatal(err)
	}
	if r, _ := rec.Last(t); r.Header.Get("Authorization") != "" {
		t.Errorf("credential sent without an APIKey: %v", r.Header)
	}
}

func TestOptionsFromEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "k")
	t.Setenv("OPENAI_BASE_URL", "https://proxy.example/v1")
	want := Options{APIKey: "k", BaseURL: "https://proxy.example/v1"}
	if diff := cmp.Diff(want, OptionsFromEnv()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The web_search tool comes after the function tools and asks for the
// sources of each search, the same bytes on every call.
func TestWebSearchTool(t *testing.T) {
	hi := llmtest.Hi("gpt-5").Messages
	tests := []struct {
		name           string
		req            llm.Request
		tools, include string
	}{
		{"alone", llm.Request{WebSearch: &llm.WebSearch{}}, `[{"type":"web_search"}]`, `["web_search_call.action.sources"]`},
		{"with function tools and reasoning", llm.Request{WebSearch: &llm.WebSearch{}, Thinking: &llm.Thinking{}, Tools: []llm.ToolSpec{{Name: "pwd"}}},
			`[{"type":"function","name":"pwd","parameters":{"type":"object","properties":{}},"strict":false},{"type":"web_search"}]`,
			`["reasoning.encrypted_content","web_search_call.action.sources"]`},
		{"not offered", llm.Request{Tools: []llm.ToolSpec{{Name: "pwd"}}},
			`[{"type":"function","name":"pwd","parameters":{"type":"object","properties":{}},"strict":false}]`, `null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.Model, tt.req.Messages = "gpt-5", hi
			_, body := sendRecorded(t, &tt.req, Options{})
			var sent struct{ Tools, Include json.RawMessage }
			if err := json.Unmarshal(body, &sent); err != nil {
				t.Fatal(err)
			}
			if string(sent.Include) == "" {
				sent.Include = json.RawMessage("null")
			}
			if diff := cmp.Diff(tt.tools+tt.include, string(sent.Tools)+string(sent.Include)); diff != "" {
				t.Errorf("tools and include (-want +got):\n%s", diff)
			}
			if _, again := sendRecorded(t, &tt.req, Options{}); string(again) != string(body) {
				t.Errorf("the request changed between calls: %s", llmtest.FirstDiff(again, body))
			}
		})
	}
}

// A search goes back on the next call as the item the API sent, less its
// id, and the cited text as plain assistant text.
func TestSearchGoesBackAsSent(t *testing.T) {
	sse, err := os.ReadFile("../testdata/providers/openai-responses/TestOpenAIWebSearch__openai-gpt-4.1__web_search_streaming__0.sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(llmtest.SSEHandler(sse))
	t.Cleanup(srv.Close)
	events, err := llmtest.Collect(t, newTestClient(t, srv.URL, Options{}).Stream(context.Background(), simpleRequest))
	if err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Model: "gpt-4.1", WebSearch: &llm.WebSearch{}, Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "What is the current population of Tokyo? Cite your source."}}},
		llmtest.Assistant(events),
	}}
	_, body := sendRecorded(t, req, Options{})
	var sent struct {
		Input []json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	var item struct {
		Item json.RawMessage `json:"item"`
	}
	for _, line := range strings.Split(string(sse), "\n") {
		if strings.Contains(line, `"response.output_item.done"`) && strings.Contains(line, `"web_search_call"`) {
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &item); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	want := mustJSON(t, item.Item).(map[string]any)
	delete(want, "id")
	if len(sent.Input) != 3 {
		t.Fatalf("input items %s", body)
	}
	if diff := cmp.Diff(want, mustJSON(t, sent.Input[1])); diff != "" {
		t.Errorf("web_search_call sent back (-as the API sent it, less its id +sent):\n%s", diff)
	}
	if got := mustJSON(t, sent.Input[2]).(map[string]any); got["role"] != "assistant" || !strings.HasPrefix(got["content"].(string), "Here is the most recent") {
		t.Errorf("answer sent back as %v", got)
	}
}
