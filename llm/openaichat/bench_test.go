package openaichat

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// largestFixture returns the biggest recorded stream.
func largestFixture(b *testing.B) []byte {
	b.Helper()
	var best []byte
	for _, f := range fixtures(b) {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if len(data) > len(best) {
			best = data
		}
	}
	return best
}

// sseEvents counts the server-sent events in body ([DONE] included: the
// client reads it too).
func sseEvents(body []byte) int {
	return bytes.Count(body, []byte("\n\n"))
}

// BenchmarkStreamNormalize replays the largest fixture through Client.Stream
// against a local server. ns/event and allocs/event include the loopback
// HTTP exchange and the test server's own work; the Decode sub-benchmark
// isolates SSE framing, chunk decoding and normalization.
func BenchmarkStreamNormalize(b *testing.B) {
	body := largestFixture(b)
	events := sseEvents(body)

	b.Run("Client", func(b *testing.B) {
		srv := httptest.NewServer(sseHandler(body))
		defer srv.Close()
		c := newTestClient(b, srv, Options{})
		ctx := context.Background()
		b.ReportAllocs()
		allocs := allocCounter()
		b.ResetTimer()
		for b.Loop() {
			for _, err := range c.Stream(ctx, simpleRequest) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		report(b, events, allocs())
	})

	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		allocs := allocCounter()
		b.ResetTimer()
		for b.Loop() {
			src := wire.NewSSE(bytes.NewReader(body))
			n := normalizer{newID: func(int) string { return "x" }}
			for src.Next() {
				out, done, err := n.handle(src.Current())
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range out {
					sink = e
				}
				if done {
					break
				}
			}
			if err := src.Err(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		report(b, events, allocs())
	})
}

var sink llm.StreamEvent

func report(b *testing.B, events int, mallocs uint64) {
	b.Helper()
	total := float64(b.N) * float64(events)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/event")
	b.ReportMetric(float64(mallocs)/total, "allocs/event")
}

// allocCounter returns a function that reports the heap allocations since
// it was created (for the whole process, server included).
func allocCounter() func() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	start := m.Mallocs
	return func() uint64 {
		runtime.ReadMemStats(&m)
		return m.Mallocs - start
	}
}
