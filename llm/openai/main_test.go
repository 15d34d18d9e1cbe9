package openai

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"strconv"
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

var simpleRequest = llmtest.Hi("gpt-5")

// adapter is this package as the shared conformance suite sees it: only
// what the Responses protocol does its own way.
var adapter = llmtest.Adapter{
	Recordings: []string{"../testdata/providers/openai-responses"},
	New: func(t testing.TB, serverURL string, timeout time.Duration) llm.Client {
		return newTestClient(t, serverURL, Options{RequestTimeout: timeout})
	},
	Request: simpleRequest,
	Origin:  llm.OriginOpenAIResponses,
	// Thinking carries its item; encrypted reasoning is shortened to its
	// start and length: it is opaque, and checkRecording compares it with
	// the recording in full.
	Thinking: func(g *llmtest.Golden, e llm.ThinkingDelta) {
		h := fmt.Sprintf(" origin=%s item=%s", e.Origin, e.ItemID)
		if e.Text != "" {
			g.Delta("thinking", e.Index, h, e.Text)
		}
		if e.Redacted != "" {
			g.Delta("redacted", e.Index, h, e.Redacted)
		}
		if e.Signature != "" {
			g.Line("signature[%d]%s %s", e.Index, h, abbrev(e.Signature))
		}
		if e.Text == "" && e.Redacted == "" && e.Signature == "" {
			g.Line("thinking_empty[%d]%s", e.Index, h)
		}
	},
	ToolDeltaID:          true,
	CheckRecording:       checkRecording,
	RequestFromRecording: requestFromRecording,
	Deliberate:           deliberate,
	Requests:             map[string]*llm.Request{"fullRequest": fullRequest()},
	Invalid: map[string]*llm.Request{
		"image from the assistant": {Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockImage, MediaType: "image/png", Data: "x"}}}}},
	},
	Faults: llmtest.StreamFaults{
		TimeoutCause: wire.ErrRequestTimeout,
		First:        sseCreated + sseText,
		Head:         sseCreated, Tail: okStream,
		Truncated: "stream ended before response.completed",
	},
	Cache: llmtest.CacheSuite{
		Response: okStream,
		NewClients: func(seed uint64, cached, uncached http.RoundTripper) (llm.Client, llm.Client) {
			plain := captureClient(uncached)
			plain.cache = nil
			return captureClient(cached), plain
		},
		Fresh: func(c llm.Client) []bool { return c.(*Client).cache.Fresh() },
		// Every message of the Responses API encodes alone.
		Decorated: func([]llm.Message) int { return -1 },
	},
	Garbage: []string{
		"data: {\"type\":\"response.completed\"}\n\n",
		"data: {\"type\":\"response.completed\",\"response\":null}\n\n",
		"data: {\"type\":\"response.completed\",\"response\":{\"usage\":{\"input_tokens\":\"many\"}}}\n\n",
		"data: {\"type\":\"response.incomplete\",\"response\":{\"output\":[{\"type\":\"function_call\"}]}}\n\n",
		"data: {\"type\":\"response.output_item.added\",\"output_index\":-5,\"item\":{\"type\":\"function_call\"}}\n\n" +
			"data: {\"type\":\"response.function_call_arguments.done\",\"output_index\":-5}\n\n" +
			"data: {\"type\":\"response.function_call_arguments.done\",\"output_index\":-5}\n\n",
		"data: {\"type\":\"response.output_item.done\",\"output_index\":9223372036854775807,\"item\":{\"type\":\"reasoning\",\"summary\":[{\"text\":1}]}}\n\n",
		"data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":7}}}\n\n",
		"data: {\"type\":\"error\"}\n\n",
		strings.Repeat("data: {\"type\":\"response.output_text.delta\",\"delta\":\"x\"}\n\n", 1000),
	},
}

// captureClient returns a Client whose requests go to rt instead of a
// network, at the default endpoint.
func captureClient(rt http.RoundTripper) *Client {
	return New(Options{APIKey: "test-key", HTTPClient: &http.Client{Transport: rt}})
}

// abbrev shortens an opaque string to its start and length.
func abbrev(s string) string {
	if len(s) <= 24 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q…(%d bytes)", s[:16], len(s))
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
