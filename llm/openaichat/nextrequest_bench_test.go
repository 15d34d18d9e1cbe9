//go:build unix

package openaichat

import (
	"testing"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// BenchmarkNextRequest1000Turns: see llmtest.BenchNextRequest1000Turns.
func BenchmarkNextRequest1000Turns(b *testing.B) {
	llmtest.BenchNextRequest1000Turns(b, "test-model", okStream, func(ct *llmtest.CaptureTransport, cached bool) llm.Client {
		c := captureClient(ct, "http://127.0.0.1:1/v1")
		if !cached {
			c.cache = nil
		}
		return c
	})
}
