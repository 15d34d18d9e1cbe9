package wire

import (
	"context"
	"errors"
	"testing"

	"github.com/novacode/nova/llm"
)

// events is a Source of ints.
type events struct {
	next []int
	cur  int
}

func (e *events) Next() bool {
	if len(e.next) == 0 {
		return false
	}
	e.cur, e.next = e.next[0], e.next[1:]
	return true
}
func (e *events) Current() int { return e.cur }
func (e *events) Err() error   { return nil }

var errBad = errors.New("bad event")

// handleInts turns n into n text deltas; 0 ends the response, -1 fails it
// after one delta.
func handleInts(n int) ([]llm.StreamEvent, bool, error) {
	switch n {
	case 0:
		return []llm.StreamEvent{llm.StreamEnd{}}, true, nil
	case -1:
		return []llm.StreamEvent{llm.TextDelta{Text: "x"}}, false, errBad
	}
	out := make([]llm.StreamEvent, n)
	for i := range out {
		out[i] = llm.TextDelta{Index: n, Text: "x"}
	}
	return out, false, nil
}

func TestPump(t *testing.T) {
	tests := []struct {
		name   string
		src    []int
		stopAt int  // the consumer stops after this many events (0: never)
		cancel bool // the caller's context ends after the first event
		over   bool
		got    string // what the consumer saw: events by Index, E for an error
	}{
		{"runs out", []int{1, 2}, 0, false, false, "122"},
		{"ends", []int{1, 0, 3}, 0, false, true, "1S"},
		{"fails after its events", []int{2, -1, 3}, 0, false, true, "220E"},
		{"consumer stops within an event's events", []int{1, 3, 3}, 3, false, true, "133"},
		{"consumer stops at an event's last", []int{1, 2, 3}, 3, false, true, "122"},
		{"cancelled", []int{1, 2}, 0, true, true, "1E"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c, err := Start(ctx, "x", 0)
			if err != nil {
				t.Fatal(err)
			}
			defer c.End()
			got := ""
			n := 0
			yield := func(ev llm.StreamEvent, err error) bool {
				if err != nil {
					got += "E"
					if tt.cancel && !errors.Is(err, context.Canceled) {
						t.Errorf("error %v, want the cancellation", err)
					}
					return true
				}
				switch e := ev.(type) {
				case llm.TextDelta:
					got += string(rune('0' + e.Index))
				case llm.StreamEnd:
					got += "S"
				}
				n++
				if tt.cancel {
					cancel()
				}
				return n != tt.stopAt
			}
			over := Pump(c, &events{next: tt.src}, handleInts, yield)
			if over != tt.over || got != tt.got {
				t.Errorf("Pump = %v, consumer saw %q; want %v, %q", over, got, tt.over, tt.got)
			}
		})
	}
}
