package agent_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

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
	compacts   []event.Compact // what each Boundary was told
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
func (m *memRecorder) Boundary(turn int, id, reason string, before, after int64, msgs []llm.Message) error {
	m.boundaries = append(m.boundaries, msgs)
	m.compacts = append(m.compacts, event.Compact{BoundaryID: id, Reason: reason, TokensBefore: before, TokensAfter: after})
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
	// The boundary record and the compact event describe one compaction.
	if d := cmp.Diff(compacts, rec.compacts); d != "" {
		t.Errorf("Boundary arguments differ from the compact event (-event +recorded):\n%s", d)
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

// Compaction on a turn with a new prompt and reminders: the summary covers
// the history before them, and the first request after it carries the
// prompt and the reminders verbatim. Over three compactions, every request
// extends the one before it byte for byte, but for the history a summary
// replaced.
func TestCompactionKeepsTheNewestPromptAndReminders(t *testing.T) {
	big := func(s string) []step {
		// An answer long enough to put the next turn over the threshold.
		return []step{text(0, s+strings.Repeat(" and more", 800)), end(llm.StopEndTurn, 100, 10)}
	}
	summary := func(n int) []step {
		return []step{text(0, fmt.Sprintf("SUMMARY-%d", n)), end(llm.StopEndTurn, 100, 10)}
	}
	fc := &fakeClient{scripts: [][]step{
		big("working 1"),
		summary(2), big("working 2"),
		summary(3), big("working 3"),
		summary(4), answer("working 4"),
	}}
	a := newAgent(fc, nil)
	a.CompactThreshold = 1000
	a.Preamble = func(context.Context) (string, error) { return "<env>preamble</env>", nil }
	a.Hooks.PreSend = append(a.Hooks.PreSend, func(ctx context.Context, ti *agent.TurnInfo) error {
		ti.Remind(fmt.Sprintf("REMINDER-%d", ti.Turn))
		return nil
	})
	seen := 0
	a.Recorder = &memRecorder{seen: &seen}
	conv := agent.NewConversation("s", "sys", "PROMPT-1")
	var compacts int
	for run := 1; run <= 4; run++ {
		if run > 1 {
			conv.AddUser(fmt.Sprintf("PROMPT-%d", run))
		}
		for _, e := range collect(t, a, context.Background(), conv) {
			if _, ok := e.(event.Compact); ok {
				compacts++
			}
		}
	}
	if compacts != 3 {
		t.Fatalf("%d compactions, want 3", compacts)
	}
	reqs := fc.reqs()
	if len(reqs) != 7 {
		t.Fatalf("%d model calls, want 7", len(reqs))
	}
	isSummary := func(r recorded) bool { return strings.Contains(string(r.Messages), "Write that summary now") }
	for i := 1; i < len(reqs); i++ {
		prev, cur := reqs[i-1], reqs[i]
		if isSummary(prev) {
			// The first request after a summary: the summary, then the
			// turn's prompt and reminder as written.
			n := (i + 2) / 2 // run number
			want := []string{fmt.Sprintf("SUMMARY-%d", n), fmt.Sprintf("PROMPT-%d", n), fmt.Sprintf("<system-reminder>\nREMINDER-%d\n</system-reminder>\n", n)}
			if len(cur.msgs) != 3 || !strings.Contains(cur.msgs[0].Text(), want[0]) || !strings.Contains(cur.msgs[0].Text(), "preamble") ||
				cur.msgs[1].Text() != want[1] || cur.msgs[2].Text() != want[2] {
				t.Fatalf("request %d after compaction: %s", i, cur.Messages)
			}
			if strings.Contains(string(prev.Messages), want[1]) || strings.Contains(string(prev.Messages), fmt.Sprintf("REMINDER-%d", n)) {
				t.Errorf("the summary call of run %d was given the prompt it keeps: %s", n, prev.Messages)
			}
			continue
		}
		// Every other request extends the one before it.
		if len(cur.msgs) < len(prev.msgs) {
			t.Fatalf("request %d is shorter than request %d", i, i-1)
		}
		if d := cmp.Diff(prev.msgs, cur.msgs[:len(prev.msgs)]); d != "" {
			t.Fatalf("request %d does not extend request %d (-prev +cur):\n%s", i, i-1, d)
		}
	}
}
