//go:build unix

package anthropic

import (
	"testing"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// BenchmarkNextRequest1000Turns: see llmtest.BenchNextRequest1000Turns.
func BenchmarkNextRequest1000Turns(b *testing.B) {
	llmtest.BenchNextRequest1000Turns(b, "claude-sonnet-4-5", okStream, func(ct *llmtest.CaptureTransport, cached bool) llm.Client {
		c := captureClient(ct)
		if !cached {
			c.cache = nil
		}
		return c
	})
}
