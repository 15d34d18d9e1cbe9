package openai

import (
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"go.uber.org/goleak"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// TestMain fails the package if any test leaves a goroutine behind: an
// abandoned stream would keep its connection's reader goroutine alive.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newTestClient returns a Client for srv with its own transport, whose idle
// connections are closed at cleanup so that goleak sees no keep-alive
// goroutines.
func newTestClient(t testing.TB, srv *httptest.Server, opts Options) *Client {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	if opts.BaseURL == "" {
		opts.BaseURL = srv.URL + "/v1"
	}
	if opts.APIKey == "" {
		opts.APIKey = "test-key"
	}
	opts.HTTPClient = &http.Client{Transport: tr}
	return New(opts)
}

// sseHandler serves body as an event stream.
func sseHandler(body []byte) http.HandlerFunc { return llmtest.SSEHandler(body) }

// collect drains seq and checks the iterator contract (llmtest.Collect).
func collect(t testing.TB, seq iter.Seq2[llm.StreamEvent, error]) ([]llm.StreamEvent, error) {
	t.Helper()
	return llmtest.Collect(t, seq)
}

// render prints events one per line for golden files (llmtest.Golden).
// Thinking carries its origin and item; encrypted reasoning is shortened to
// its start and length: it is opaque, and the conformance test compares it
// with the recording in full.
func render(events []llm.StreamEvent) string {
	g := &llmtest.Golden{ToolDeltaID: true, Thinking: func(g *llmtest.Golden, e llm.ThinkingDelta) {
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
	}}
	return g.Render(events)
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
