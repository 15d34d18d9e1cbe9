package openaichat

import (
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// render prints events one per line for golden files. Consecutive deltas of
// the same kind and block are coalesced into one line (with their count) so
// that a golden file reads like the message it describes.
func render(events []llm.StreamEvent) string {
	var b strings.Builder
	var (
		kind  string
		index int
		n     int
		acc   strings.Builder
	)
	flush := func() {
		if n == 0 {
			return
		}
		fmt.Fprintf(&b, "%s[%d] x%d %s\n", kind, index, n, strconv.Quote(acc.String()))
		n = 0
		acc.Reset()
	}
	delta := func(k string, i int, s string) {
		if n > 0 && (k != kind || i != index) {
			flush()
		}
		kind, index = k, i
		n++
		acc.WriteString(s)
	}
	for _, ev := range events {
		switch e := ev.(type) {
		case llm.TextDelta:
			delta("text", e.Index, e.Text)
		case llm.ThinkingDelta:
			k := "thinking"
			if e.Origin != llm.OriginOpenAIChat {
				k = "thinking(origin=" + e.Origin + ")"
			}
			delta(k, e.Index, e.Text)
		case llm.ToolCallDelta:
			delta("tool_delta", e.Index, e.PartialJSON)
		case llm.ToolCallStart:
			flush()
			fmt.Fprintf(&b, "tool_start[%d] id=%s name=%s\n", e.Index, e.ID, e.Name)
		case llm.ToolCallComplete:
			flush()
			fmt.Fprintf(&b, "tool_complete[%d] id=%s name=%s input=%s\n", e.Index, e.ID, e.Name, e.Input)
		case llm.StreamEnd:
			flush()
			u := e.Usage
			fmt.Fprintf(&b, "end stop=%s model=%s usage=in:%d out:%d cache_read:%d cache_write:%d\n",
				e.StopReason, e.Model, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
		default:
			flush()
			fmt.Fprintf(&b, "unknown %#v\n", ev)
		}
	}
	flush()
	return b.String()
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
