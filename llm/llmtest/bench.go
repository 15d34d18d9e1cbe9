package llmtest

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"github.com/novacode/nova/llm"
)

// BenchStreamNormalize is every adapter's BenchmarkStreamNormalize: it
// replays the largest recorded stream of the protocol. /Client runs it
// through the client against a local server, so ns/event and allocs/event
// include the loopback HTTP exchange and the server's own work; /Decode
// isolates SSE framing, decoding and normalization, given the same bytes
// from memory to decode (which must normalize every event of body). Compare
// with llm's BenchmarkBaselineDecode in the same run.
func (a Adapter) BenchStreamNormalize(b *testing.B, decode func(b *testing.B, body []byte)) {
	body := a.LargestRecording(b)
	events := bytes.Count(body, []byte("\n\n"))

	b.Run("Client", func(b *testing.B) {
		c := a.New(b, serve(b, SSEHandler(body)).URL, 0)
		ctx := context.Background()
		b.ReportAllocs()
		allocs := allocCounter()
		for b.Loop() {
			for _, err := range c.Stream(ctx, a.Request) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		perEvent(b, events, allocs())
	})

	b.Run("Decode", func(b *testing.B) {
		b.ReportAllocs()
		allocs := allocCounter()
		for b.Loop() {
			decode(b, body)
		}
		perEvent(b, events, allocs())
	})
}

// Drain normalizes every event of src with handle, as an adapter's stream
// loop does, for the /Decode benchmarks. src is an adapter's event source
// (the SDK's stream, or server-sent events read from memory).
func Drain[E any](b *testing.B, src interface {
	Next() bool
	Current() E
	Err() error
}, handle func(E) ([]llm.StreamEvent, bool, error)) {
	for src.Next() {
		out, end, err := handle(src.Current())
		if err != nil {
			b.Fatal(err)
		}
		for _, ev := range out {
			// The events must not be optimised away.
			runtime.KeepAlive(ev)
		}
		if end {
			return
		}
	}
	if err := src.Err(); err != nil {
		b.Fatal(err)
	}
}

// perEvent reports the time and allocations per event of the benchmark.
func perEvent(b *testing.B, events int, mallocs uint64) {
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
