package tui

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// answerMD is a typical Markdown answer: a heading, a list, code and a table.
const answerMD = "## Findings\n\nThe parser **drops** the last token when the input ends in `\\n`:\n\n" +
	"- `lex.go` reads one rune too few\n- `parse.go` trusts it\n\n```go\nfor i := 0; i < len(s)-1; i++ {\n\tout = append(out, s[i])\n}\n```\n\n" +
	"| file | lines |\n|------|-------|\n| lex.go | 120 |\n| parse.go | 340 |\n"

// feedSession drives n messages of a scripted session through Update, with
// a View after each as the program would: prompts, streamed Markdown
// answers, and tool cards with results, in turn.
func feedSession(m *Model, n int) {
	in := json.RawMessage(`{"file_path":"internal/parse/lex.go"}`)
	result := strings.Repeat("func lex(s string) []token {\n", 12)
	for i := range n {
		switch i % 4 {
		case 0:
			m.addText(kindUser, fmt.Sprintf("prompt %d: why does the parser drop the last token?", i))
		case 1, 3:
			for _, part := range strings.SplitAfter(answerMD, "\n\n") {
				m.Update(eventMsg{ev: event.StreamText{Text: part}, gen: m.gen})
			}
			m.Update(eventMsg{ev: event.TurnComplete{}, gen: m.gen})
		case 2:
			id := fmt.Sprintf("t%d", i)
			m.Update(eventMsg{ev: event.ToolUse{ID: id, Name: "Read", Input: in}, gen: m.gen})
			m.Update(eventMsg{ev: event.ToolResult{ID: id, Name: "Read", Content: result, DurationMS: 12}, gen: m.gen})
		}
		_ = m.View()
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkMemory200vs2000 reports the heap a session of N messages keeps
// alive (measured after GC, over the heap before the model was built), to
// show whether it grows with the length of the session.
func BenchmarkMemory200vs2000(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			var heap uint64
			for b.Loop() {
				base := liveHeap()
				m := New(Options{Dark: true})
				m.width, m.height = 80, 24
				m.resize()
				feedSession(m, n)
				if h := liveHeap(); h > base {
					heap = h - base
				}
				runtime.KeepAlive(m)
				m.Close()
			}
			b.ReportMetric(float64(heap)/(1<<20), "heap-MB")
			b.ReportMetric(float64(heap)/1024/float64(n), "heap-KB/msg")
		})
	}
}

// BenchmarkKeystrokeWhileStreaming: a key press and a frame while an answer
// streams in, one delta per iteration.
func BenchmarkKeystrokeWhileStreaming(b *testing.B) {
	m := New(Options{Dark: true})
	defer m.Close()
	feedSession(m, 40)
	m.busy = true
	m.handleEvent(event.StreamText{Text: answerMD})
	m.Update(frameMsg{})
	_ = m.View()
	i := 0
	for b.Loop() {
		m.Update(eventMsg{ev: event.StreamText{Text: "word "}, gen: m.gen})
		k := key('a')
		if i%2 == 1 {
			k = tea.KeyPressMsg{Code: tea.KeyBackspace} // keeps the input short
		}
		m.Update(k)
		_ = m.View()
		i++
	}
}

// BenchmarkLiveAnswerFrame: one frame of a 20 KB answer still streaming (a
// delta arrives, the block re-renders). "whole" is the baseline: rendering
// the whole answer, as every frame did before the stable cut.
func BenchmarkLiveAnswerFrame(b *testing.B) {
	r := newRenderer(Options{Dark: true})
	src := strings.Repeat(answerMD+"\n\n", 1+20000/len(answerMD))
	b.Run("live", func(b *testing.B) {
		blk, _ := streamAnswer(r, src, 4000)
		for b.Loop() {
			blk.text.WriteString("word ")
			blk.dirty = true
			blk.view(r, 80, false, time.Time{}, true)
		}
	})
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			r.Markdown(src, 80)
		}
	})
}
