//go:build unix

package llmtest

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
)

// BenchNextRequest1000Turns is every adapter's BenchmarkNextRequest1000Turns:
// what building the request of turn 1,001 of a long session costs, given
// the encoding cache as turn 1,000 left it. The history has 1,000 turns
// (assistant text and a tool call, then a ~10 KB tool result), over 10 MB
// on the wire. Each iteration first sends turn 1,000's request untimed,
// which leaves the cache exactly as a session would (position-dependent
// decorations such as a cache breakpoint then move), then times turn
// 1,001's: the body is built and handed to a transport that takes it
// without copying, answering with response (a minimal stream).
//
// newClient returns the adapter's client on ct, with its cache on or off;
// Uncached is the same work with every message encoded on every call, the
// baseline of the same run. cpu-ns/op is the process's CPU time per timed
// call, heap-MB the live heap after the runs (history and cache), body-MB
// the size of turn 1,001's body.
func BenchNextRequest1000Turns(b *testing.B, model, response string, newClient func(ct *CaptureTransport, cached bool) llm.Client) {
	const turns, resultSize = 1000, 10 << 10
	prev := BenchHistory(turns, resultSize)
	msgs := append(slices.Clip(prev), BenchTurn(turns, resultSize)...)
	prev = msgs[:len(prev)]
	req := &llm.Request{
		Model:     model,
		System:    strings.Repeat("You are NovaCode, a coding agent. ", 60),
		Tools:     ToolPool,
		MaxTokens: 8000,
	}
	for _, cached := range []bool{true, false} {
		name := "Cached"
		if !cached {
			name = "Uncached"
		}
		b.Run(name, func(b *testing.B) {
			ct := &CaptureTransport{Response: response, Discard: true}
			c := newClient(ct, cached)
			send := func(msgs []llm.Message) {
				r := *req
				r.Messages = msgs
				for _, err := range c.Stream(context.Background(), &r) {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportAllocs()
			var cpu time.Duration
			n := 0
			for b.Loop() {
				b.StopTimer()
				send(prev)
				b.StartTimer()
				start := cpuTime(b)
				send(msgs)
				cpu += cpuTime(b) - start
				n++
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
			b.ReportMetric(float64(ct.Size())/1e6, "body-MB")
			// Twice: the first collection moves what sync.Pools hold
			// (encoder buffers as large as a body) to their victim caches,
			// the second frees it.
			runtime.GC()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/1e6, "heap-MB")
			runtime.KeepAlive(c)
		})
	}
}

// cpuTime returns the CPU time the process has used so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
