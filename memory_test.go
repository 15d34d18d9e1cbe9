package nova

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
)

type scripted []llm.StreamEvent

func (s scripted) Stream(context.Context, *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		for _, e := range s {
			if !yield(e, nil) {
				return
			}
		}
	}
}

// The memory extraction's model call is outside the loop: its retries are
// reported as retry events, and its stream passes unchanged.
func TestRetryHook(t *testing.T) {
	evs := scripted{
		llm.Retrying{Attempt: 1, MaxRetries: 4, Wait: 1500 * time.Millisecond, Err: &llm.Error{Kind: llm.ErrOverloaded, StatusCode: 529}},
		llm.TextDelta{Text: "- fact"},
		llm.StreamEnd{StopReason: llm.StopEndTurn},
	}
	var retries []event.Retry
	var got []llm.StreamEvent
	for ev, err := range (retryHook{evs, func(r event.Retry) { retries = append(retries, r) }}).Stream(context.Background(), &llm.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if diff := cmp.Diff([]llm.StreamEvent(evs), got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	want := []event.Retry{{Turn: 1, Kind: "overloaded", StatusCode: 529, Error: "model call failed (overloaded, HTTP 529)", Retry: 1, MaxRetries: 4, WaitMS: 1500}}
	if diff := cmp.Diff(want, retries); diff != "" {
		t.Errorf("retries (-want +got):\n%s", diff)
	}
}
