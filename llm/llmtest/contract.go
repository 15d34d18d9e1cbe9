package llmtest

import (
	"iter"
	"net/http"
	"strings"
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

// HTTPClient returns a client with a transport of its own, whose idle
// connections are closed at test cleanup, so that goleak finds no
// keep-alive goroutines after the test.
func HTTPClient(t testing.TB) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// TypedEvents builds an event stream from JSON payloads, naming each event
// after its "type" member, as the Anthropic and Responses APIs do.
func TypedEvents(datas ...string) []byte {
	var b strings.Builder
	for _, d := range datas {
		typ := d[strings.Index(d, `"type":"`)+8:]
		typ = typ[:strings.IndexByte(typ, '"')]
		b.WriteString("event: " + typ + "\ndata: " + d + "\n\n")
	}
	return []byte(b.String())
}

// DataEvents builds an event stream of unnamed events, as Chat Completions
// sends them.
func DataEvents(datas ...string) []byte {
	var b strings.Builder
	for _, d := range datas {
		b.WriteString("data: " + d + "\n\n")
	}
	return []byte(b.String())
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
