package wire

import (
	"context"
	"errors"
	"testing"
	"time"

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

func TestClassify(t *testing.T) {
	fromStatus := func(se *StatusError) *llm.Error {
		return &llm.Error{Kind: StatusKind(se.StatusCode), StatusCode: se.StatusCode, Err: se}
	}
	status := &StatusError{StatusCode: 429}
	tests := []struct {
		name     string
		cancel   bool // the caller's context ends
		timedOut bool // the request timeout fired
		err      error
		want     func(error) bool
	}{
		{"cancelled wins over a status", true, false, status, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"a status wins over the timeout", false, true, status, func(err error) bool {
			var le *llm.Error
			return errors.As(err, &le) && le.Kind == llm.ErrRateLimit && le.StatusCode == 429
		}},
		{"timeout", false, true, context.Canceled, func(err error) bool {
			var le *llm.Error
			return errors.As(err, &le) && le.Kind == llm.ErrTimeout && !errors.Is(err, context.Canceled)
		}},
		{"transport", false, false, errors.New("reset"), func(err error) bool {
			var le *llm.Error
			return errors.As(err, &le) && le.Kind == llm.ErrBrokenStream
		}},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithCancel(context.Background())
		timeout := time.Duration(0)
		if tt.timedOut {
			timeout = time.Nanosecond
		}
		c, err := Start(ctx, "x", timeout)
		if err != nil {
			t.Fatal(err)
		}
		if tt.timedOut {
			<-c.Context().Done()
		}
		if tt.cancel {
			cancel()
		}
		if got := c.Classify(tt.err, false, fromStatus); !tt.want(got) {
			t.Errorf("%s: %v", tt.name, got)
		}
		c.End()
		cancel()
	}
}

func TestNewEndpoint(t *testing.T) {
	e := NewEndpoint("x", "Test", Options{BaseURL: "https://API.example.com/v1"})
	if e.ConfigErr != nil || e.HTTP == nil || !e.HTTP.Host("api.example.com") || e.HTTP.Host("example.com") {
		t.Errorf("valid base: %+v", e)
	}
	e = NewEndpoint("x", "Test", Options{BaseURL: "example.com"})
	if e.ConfigErr == nil || e.HTTP != nil {
		t.Errorf("invalid base: %+v", e)
	}
}
