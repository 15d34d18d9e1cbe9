package llmtest

import (
	"iter"
	"net/http"
	"testing"

	"github.com/novacode/nova/llm"
)

// SSEHandler serves body as an event stream: a recorded stream replayed as
// it was captured.
func SSEHandler(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}
}

// Collect drains seq and checks the llm.Client iterator contract on the
// way: at most one error, nothing after it, and no nil event without one.
func Collect(t testing.TB, seq iter.Seq2[llm.StreamEvent, error]) ([]llm.StreamEvent, error) {
	t.Helper()
	var events []llm.StreamEvent
	var err error
	for ev, e := range seq {
		if err != nil {
			t.Fatalf("element after the error %v: %v, %v", err, ev, e)
		}
		if e != nil {
			if ev != nil {
				t.Errorf("error %v yielded together with event %#v", e, ev)
			}
			err = e
			continue
		}
		if ev == nil {
			t.Fatalf("nil event without error")
		}
		events = append(events, ev)
	}
	return events, err
}
