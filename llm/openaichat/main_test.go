package openaichat

import (
	"encoding/json"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
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

// render prints events one per line for golden files (llmtest.Golden);
// reasoning from another protocol is labelled with its origin.
func render(events []llm.StreamEvent) string {
	g := &llmtest.Golden{Thinking: func(g *llmtest.Golden, e llm.ThinkingDelta) {
		k := "thinking"
		if e.Origin != llm.OriginOpenAIChat {
			k = "thinking(origin=" + e.Origin + ")"
		}
		g.Delta(k, e.Index, "", e.Text)
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

var simpleRequest = &llm.Request{
	Model: "gpt-4o", MaxTokens: 100,
	Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}},
}

// sse builds a stream body from chunk payloads ("[DONE]" included, when a
// case wants it).
func sse(datas ...string) []byte {
	var b strings.Builder
	for _, d := range datas {
		b.WriteString("data: " + d + "\n\n")
	}
	return []byte(b.String())
}
