package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
)

// memRecorder is an in-memory Recorder that also notes, for each message,
// how many events had been yielded when it was recorded.
type memRecorder struct {
	mu         sync.Mutex
	messages   []llm.Message
	turns      []int
	boundaries [][]llm.Message
	syncs, end int
	seen       *int
	seenAt     []int
}

func (m *memRecorder) Message(turn int, msg llm.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.messages = append(m.messages, msg)
	m.turns = append(m.turns, turn)
	m.seenAt = append(m.seenAt, *m.seen)
	return nil
}
func (m *memRecorder) Usage(int, llm.Usage, float64) error { return nil }
func (m *memRecorder) Boundary(turn int, c event.Compact, msgs []llm.Message) error {
	m.boundaries = append(m.boundaries, msgs)
	return nil
}
func (m *memRecorder) TurnEnd(int) error     { m.syncs++; return nil }
func (m *memRecorder) End(int, string) error { m.end++; return nil }

func TestRecorderGetsEveryMessageBeforeItsEvents(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{text(0, "looking"), call(1, "a", "Look", `{"id":"a"}`), end(llm.StopToolUse, 1, 1)},
		answer("done"),
	}}
	a := newAgent(fc, newProbe())
	seen := 0
	rec := &memRecorder{seen: &seen}
	a.Recorder = rec
	conv := agent.NewConversation("s", "", "go")
	resultAt := -1
	for e := range a.Run(context.Background(), conv) {
		if e.Type() == event.TypeToolResult {
			resultAt = seen
		}
		seen++
	}
	if len(rec.messages) != len(conv.Messages) || len(rec.messages) != 4 {
		t.Fatalf("recorded %d messages, history has %d", len(rec.messages), len(conv.Messages))
	}
	// The results message (index 2) was recorded before its event.
	if rec.seenAt[2] > resultAt {
		t.Fatalf("results recorded after %d events, their event was number %d", rec.seenAt[2], resultAt)
	}
	if want := []int{1, 1, 1, 2}; !equalInts(rec.turns, want) {
		t.Fatalf("turns %v, want %v", rec.turns, want)
	}
	if rec.syncs < 2 || rec.end != 1 {
		t.Fatalf("syncs %d, end %d", rec.syncs, rec.end)
	}
	// A second run records only what is new, with turns continuing.
	conv.AddUser("more")
	fc.scripts = [][]step{answer("again")}
	for range a.Run(context.Background(), conv) {
	}
	if len(rec.messages) != 6 || rec.turns[4] != 3 || rec.turns[5] != 3 {
		t.Fatalf("second run recorded %d messages, turns %v", len(rec.messages), rec.turns)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestAutomaticCompaction(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{
		{call(0, "a", "Big", `{"n":4000}`), end(llm.StopToolUse, 100, 10)},
		// The summary call.
		{text(0, "1. Task: test compaction."), end(llm.StopEndTurn, 1200, 30)},
		answer("continued"),
	}}
	a := newAgent(fc, nil)
	a.CompactThreshold = 500
	a.Preamble = func(context.Context) (string, error) { return "<env>preamble</env>", nil }
	seen := 0
	rec := &memRecorder{seen: &seen}
	a.Recorder = rec
	conv := agent.NewConversation("s", "sys", "go")
	evs := collect(t, a, context.Background(), conv)
	var compacts []event.Compact
	for _, e := range evs {
		if c, ok := e.(event.Compact); ok {
			compacts = append(compacts, c)
		}
	}
	if len(compacts) != 1 || compacts[0].TokensAfter >= compacts[0].TokensBefore || compacts[0].Reason != "auto" {
		t.Fatalf("compacts %+v", compacts)
	}
	reqs := fc.reqs()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Messages), "Write that summary now") {
		t.Fatal("second call is not the summary call")
	}
	after := string(reqs[2].Messages)
	if !strings.Contains(after, "preamble") || !strings.Contains(after, "1. Task: test compaction.") || strings.Contains(after, "xxxxxxxxxx") {
		t.Fatalf("request after compaction: %s", after)
	}
	if len(rec.boundaries) != 1 || last(evs).FinalText != "continued" {
		t.Fatalf("boundaries %d, final %q", len(rec.boundaries), last(evs).FinalText)
	}
}

func TestOnDemandCompaction(t *testing.T) {
	fc := &fakeClient{scripts: [][]step{answer("hello"), {text(0, "Summary: said hello."), end(llm.StopEndTurn, 10, 5)}}}
	a := newAgent(fc, nil)
	conv := agent.NewConversation("s", "", "hi")
	for range a.Run(context.Background(), conv) {
	}
	c, err := a.Compact(context.Background(), conv, "keep the greeting")
	if err != nil {
		t.Fatal(err)
	}
	if c.Reason != "manual" || len(conv.Messages) != 1 || !strings.Contains(conv.Messages[0].Text(), "Summary: said hello.") {
		t.Fatalf("compact %+v, history %+v", c, conv.Messages)
	}
	if !strings.Contains(string(fc.reqs()[1].Messages), "keep the greeting") {
		t.Fatal("focus not passed to the summary call")
	}
}
