package anthropic

import (
	"cmp"
	"encoding/json"
	"flag"
	"net/http"
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

// newTestClient returns a Client for the server at baseURL with its own
// transport, whose idle connections are closed at cleanup so that goleak
// sees no keep-alive goroutines. The SDK's retries are off unless opts
// says otherwise.
func newTestClient(t testing.TB, baseURL string, opts Options) *Client {
	opts.BaseURL = cmp.Or(opts.BaseURL, baseURL)
	opts.APIKey = cmp.Or(opts.APIKey, "test-key")
	opts.HTTPClient = llmtest.HTTPClient(t)
	if opts.MaxRetries == 0 {
		opts.MaxRetries = -1
	}
	return New(opts)
}

var simpleRequest = llmtest.Hi("claude-sonnet-4-20250514")

// adapter is this package as the shared conformance suite sees it: only
// what the Messages protocol does its own way.
var adapter = llmtest.Adapter{
	Recordings: []string{"../testdata/providers/anthropic"},
	New: func(t testing.TB, baseURL string, timeout time.Duration) llm.Client {
		return newTestClient(t, baseURL, Options{RequestTimeout: timeout})
	},
	Request: simpleRequest,
	Origin:  llm.OriginAnthropic,
	// A thinking delta shows its text, signature or redacted data.
	Thinking: func(g *llmtest.Golden, e llm.ThinkingDelta) {
		switch {
		case e.Redacted != "":
			g.Delta("redacted", e.Index, "", e.Redacted)
		case e.Signature != "" && e.Text == "":
			g.Delta("signature", e.Index, "", e.Signature)
		default:
			g.Delta("thinking", e.Index, "", e.Text)
			if e.Signature != "" {
				g.Delta("signature", e.Index, "", e.Signature)
			}
		}
	},
	CheckRecording:       checkRecording,
	RequestFromRecording: requestFromRecording,
	Deliberate:           deliberate,
	Requests:             map[string]*llm.Request{"fullRequest": fullRequest()},
	Faults: llmtest.StreamFaults{
		TimeoutCause: wire.ErrRequestTimeout,
		First:        sseStart + sseText,
		Head:         sseStart, Tail: okStream,
		Truncated: "stream ended before message_stop",
	},
	Cache: llmtest.CacheSuite{
		Response: okStream,
		NewClients: func(seed uint64, cached, uncached http.RoundTripper) (llm.Client, llm.Client) {
			plain := captureClient(uncached)
			plain.cache = nil
			return captureClient(cached), plain
		},
		Fresh: func(c llm.Client) []bool { return c.(*Client).cache.Fresh() },
		// The last user message carries the prompt-caching breakpoint.
		Decorated: lastUser,
	},
	Garbage: []string{
		"data: {\"type\":\"content_block_start\",\"index\":-5,\"content_block\":{\"type\":\"tool_use\"}}\n\n" +
			"data: {\"type\":\"content_block_stop\",\"index\":-5}\n\n",
		"data: {\"type\":\"message_delta\",\"usage\":{\"input_tokens\":\"many\"}}\n\n",
		"event: error\ndata: {\"type\":\"error\"}\n\n",
	},
}

// captureClient returns a Client whose requests go to rt instead of a
// network, at the default endpoint.
func captureClient(rt http.RoundTripper) *Client {
	return New(Options{APIKey: "test-key", HTTPClient: &http.Client{Transport: rt}})
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
