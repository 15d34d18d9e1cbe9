package anthropic

import (
	"encoding/json"
	"iter"
	"net/http"
	"net/http/httptest"
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
		opts.BaseURL = srv.URL
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

// render prints events one per line for golden files (llmtest.Golden);
// a thinking delta shows its text, signature or redacted data.
func render(events []llm.StreamEvent) string {
	g := &llmtest.Golden{Thinking: func(g *llmtest.Golden, e llm.ThinkingDelta) {
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
	}}
	return g.Render(events)
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
