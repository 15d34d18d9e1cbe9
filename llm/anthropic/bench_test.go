package anthropic

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/novacode/nova/llm"
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

// sseEvents counts the server-sent events in body (ping included: the
// client decodes it too).
func sseEvents(body []byte) int {
	return bytes.Count(body, []byte("\n\n"))
}

// BenchmarkStreamNormalize replays the largest fixture through Client.Stream
// against a local server. ns/event and allocs/event include the loopback
// HTTP exchange and the test server's own work; the Decode sub-benchmark
// isolates SSE parsing, SDK decoding and normalization.
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
			res := &http.Response{
				StatusCode: 200,
				Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
				Body:       io.NopCloser(bytes.NewReader(body)),
			}
			stream := ssestream.NewStream[anthropic.MessageStreamEventUnion](ssestream.NewDecoder(res), nil)
			var n normalizer
			for stream.Next() {
				cur := stream.Current()
				ev, _, err := n.event(&cur)
				if err != nil {
					b.Fatal(err)
				}
				sink = ev
			}
			if err := stream.Err(); err != nil {
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
