package anthropic

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/novacode/nova/llm/llmtest"
)

// BenchmarkStreamNormalize: see llmtest.Adapter.BenchStreamNormalize.
// Decoding is the SDK's own (its event union type), normalization ours.
func BenchmarkStreamNormalize(b *testing.B) {
	adapter.BenchStreamNormalize(b, func(b *testing.B, body []byte) {
		res := &http.Response{
			StatusCode: 200,
			Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
			Body:       io.NopCloser(bytes.NewReader(body)),
		}
		llmtest.Drain(b, ssestream.NewStream[anthropic.MessageStreamEventUnion](ssestream.NewDecoder(res), nil), new(normalizer).handle)
	})
}
