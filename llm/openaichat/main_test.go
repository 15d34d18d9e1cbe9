package openaichat

import (
	"cmp"
	"encoding/json"
	"flag"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
	"github.com/novacode/nova/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// TestMain fails the package if any test leaves a goroutine behind: an
// abandoned stream would keep its connection's reader goroutine alive.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newTestClient returns a Client for the server at serverURL (its API under
// /v1) with its own transport, whose idle connections are closed at cleanup
// so that goleak sees no keep-alive goroutines.
func newTestClient(t testing.TB, serverURL string, opts Options) *Client {
	opts.BaseURL = cmp.Or(opts.BaseURL, serverURL+"/v1")
	opts.APIKey = cmp.Or(opts.APIKey, "test-key")
	opts.HTTPClient = llmtest.HTTPClient(t)
	return New(opts)
}

var simpleRequest = llmtest.Hi("gpt-4o")

// adapter is this package as the shared conformance suite sees it: only
// what Chat Completions does its own way.
var adapter = llmtest.Adapter{
	// The shared corpus, then this package's own recordings of services
	// the corpus lacks (OpenRouter, Azure; see its README).
	Recordings: []string{"../testdata/providers/openai-chat", "testdata/recordings"},
	New: func(t testing.TB, serverURL string, timeout time.Duration) llm.Client {
		return newTestClient(t, serverURL, Options{RequestTimeout: timeout})
	},
	Request: simpleRequest,
	Origin:  llm.OriginOpenAIChat,
	// Reasoning from another protocol would be labelled with its origin.
	Thinking: func(g *llmtest.Golden, e llm.ThinkingDelta) {
		k := "thinking"
		if e.Origin != llm.OriginOpenAIChat {
			k = "thinking(origin=" + e.Origin + ")"
		}
		g.Delta(k, e.Index, "", e.Text)
	},
	CheckRecording:       checkRecording,
	RequestFromRecording: requestFromRecording,
	Deliberate:           deliberate,
	Requests:             map[string]*llm.Request{"fullRequest": fullRequest()},
	Invalid: map[string]*llm.Request{
		"tool_use from the user":         {Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolUse, ToolUseID: "x"}}}}},
		"tool_result from the assistant": {Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "x"}}}}},
	},
	Faults: llmtest.StreamFaults{
		TimeoutCause: wire.ErrRequestTimeout,
		First:        sseText,
		Head:         sseText, Tail: okStream,
		Truncated: "stream ended before finish_reason",
	},
	Cache: llmtest.CacheSuite{
		Response: okStream,
		NewClients: func(seed uint64, cached, uncached http.RoundTripper) (llm.Client, llm.Client) {
			// OpenAI's own dialect for even seeds, a compatible server's
			// for odd ones.
			base := ""
			if seed%2 == 1 {
				base = "http://127.0.0.1:1/v1"
			}
			plain := captureClient(uncached, base)
			plain.cache = nil
			return captureClient(cached, base), plain
		},
		Fresh: func(c llm.Client) []bool { return c.(*Client).cache.Fresh() },
		// A chat message depends on the one before it (which the edits
		// exercise), never on its position.
		Decorated: func([]llm.Message) int { return -1 },
	},
	Garbage: []string{
		"data: {\"choices\":null}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-5}]}}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":99999999999999999999}]}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":{\"a\":1}}}]}\n\n",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":[1,2]}}]}\n\n",
		"data: {\"usage\":{\"prompt_tokens\":1e400}}\n\n",
		"data: {\"error\":null,\"choices\":[]}\n\n",
		"data: [DONE]\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"after\"}}]}\n\n",
		strings.Repeat("data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"arguments\":\"x\"}}]}}]}\n\n", 50),
	},
}

// captureClient returns a Client whose requests go to rt instead of a
// network. baseURL may be empty (the default endpoint).
func captureClient(rt http.RoundTripper, baseURL string) *Client {
	return New(Options{APIKey: "test-key", BaseURL: baseURL, HTTPClient: &http.Client{Transport: rt}})
}

// mustJSON decodes s into a generic value for comparisons.
func mustJSON(t testing.TB, s []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		t.Fatalf("invalid JSON %q: %v", s, err)
	}
	return v
}

// sse builds a stream body from chunk payloads ("[DONE]" included, when a
// case wants it).
var sse = llmtest.DataEvents
