package openai

import (
	"bytes"
	"testing"

	"github.com/novacode/nova/llm/internal/wire"
	"github.com/novacode/nova/llm/llmtest"
)

// BenchmarkStreamNormalize: see llmtest.Adapter.BenchStreamNormalize.
func BenchmarkStreamNormalize(b *testing.B) {
	adapter.BenchStreamNormalize(b, func(b *testing.B, body []byte) {
		llmtest.Drain(b, wire.NewSSE(bytes.NewReader(body)), new(normalizer).handle)
	})
}
