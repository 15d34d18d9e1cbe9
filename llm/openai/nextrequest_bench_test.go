//go:build unix

package openai

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// BenchmarkNextRequest1000Turns measures what building the request of turn
// 1,001 of a long session costs, given the cache as turn 1,000 left it: a
// history of 1,000 turns (assistant text and a tool call, then a tool result
// of about 10 KB of source-like text), over 10 MB on the wire. Each
// iteration first sends turn 1,000's request untimed, which leaves the cache
// exactly as a session would have it, then times turn 1,001's: the
// body is built and handed to a transport that takes it without copying,
// answering with a minimal stream.
//
// Uncached is the same with the encoding cache disabled: every message is
// encoded on every call, which is what every call cost before the cache.
// cpu-ns/op is the process's CPU time (user and system, garbage collection
// on the other cores included) per timed call, heap-MB the live heap after
// the runs (history and cache), body-MB the size of turn 1,001's body.
func BenchmarkNextRequest1000Turns(b *testing.B) {
	const turns, resultSize = 1000, 10 << 10
	prev := llmtest.BenchHistory(turns, resultSize)
	msgs := append(slices.Clip(prev), llmtest.BenchTurn(turns, resultSize)...)
	prev = msgs[:len(prev)]
	req := &llm.Request{
		Model:     "gpt-5",
		System:    strings.Repeat("You are NovaCode, a coding agent. ", 60),
		Tools:     llmtest.ToolPool,
		MaxTokens: 8000,
	}
	for _, cached := range []bool{true, false} {
		name := "Cached"
		if !cached {
			name = "Uncached"
		}
		b.Run(name, func(b *testing.B) {
			ct := &llmtest.CaptureTransport{Response: okStream, Discard: true}
			c := captureClient(ct, "")
			if !cached {
				c.cache = nil
			}
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
