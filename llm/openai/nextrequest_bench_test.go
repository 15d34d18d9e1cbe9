//go:build unix

package openai

import (
	"testing"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// BenchmarkNextRequest1000Turns: see llmtest.BenchNextRequest1000Turns.
func BenchmarkNextRequest1000Turns(b *testing.B) {
	llmtest.BenchNextRequest1000Turns(b, "gpt-5", okStream, func(ct *llmtest.CaptureTransport, cached bool) llm.Client {
		c := captureClient(ct)
		if !cached {
			c.cache = nil
		}
		return c
	})
}
