package llmtest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

// ErrorHandler answers with status, header, a Content-Type and body, the
// way an API or a proxy in front of it fails a request.
func ErrorHandler(status int, header map[string]string, contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

// JSONError is an ErrorHandler for a JSON body.
func JSONError(status int, header map[string]string, body string) http.HandlerFunc {
	return ErrorHandler(status, header, "application/json", body)
}

// WantError is the part of an *llm.Error a case checks; Message is a
// substring.
type WantError struct {
	Kind       llm.ErrorKind
	StatusCode int
	RetryAfter time.Duration
	Message    string
}

// CheckError checks that err is an *llm.Error as want describes, wrapping a
// cause, and returns it.
func CheckError(t testing.TB, err error, want WantError) *llm.Error {
	t.Helper()
	var le *llm.Error
	if !errors.As(err, &le) {
		t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
	}
	got := WantError{Kind: le.Kind, StatusCode: le.StatusCode, RetryAfter: le.RetryAfter, Message: want.Message}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("error %q (-want +got):\n%s", le, diff)
	}
	if !strings.Contains(le.Message, want.Message) {
		t.Errorf("message %q does not contain %q", le.Message, want.Message)
	}
	if le.Err == nil {
		t.Errorf("error %q wraps no cause", le)
	}
	return le
}

// ErrorCase is a server failing a call and what the adapter must make of it.
type ErrorCase struct {
	Name    string
	Handler http.HandlerFunc
	Want    WantError
	// Events is the golden rendering of what came before the error.
	Events string
}

// Errors runs the cases against clients of the adapter: each call ends with
// the error the case wants, after exactly the events it lists, and was sent
// once (retries are llm.WithRetry's, never the adapter's).
func (a Adapter) Errors(t *testing.T, cases []ErrorCase) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			var hits atomic.Int32
			srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				tt.Handler(w, r)
			}))
			c := a.New(t, srv.URL, 0)
			events, err := Collect(t, c.Stream(context.Background(), a.Request))
			CheckError(t, err, tt.Want)
			if diff := cmp.Diff(tt.Events, a.Render(events)); diff != "" {
				t.Errorf("events before the error (-want +got):\n%s", diff)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

// StreamCase is a stream body (of event shapes the recordings lack, say)
// and its golden rendering.
type StreamCase struct {
	Name string
	Body []byte
	Want string
	// Lax marks a stream that breaks a rule of CheckEvents on purpose (a
	// tool input that is not JSON, say): only its single, final StreamEnd
	// is checked.
	Lax bool
}

// Streams replays the cases through clients of the adapter: each ends
// without error, renders as its Want and keeps the event contract.
func (a Adapter) Streams(t *testing.T, cases []StreamCase) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			c := a.New(t, serve(t, SSEHandler(tt.Body)).URL, 0)
			events, err := Collect(t, c.Stream(context.Background(), a.Request))
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if diff := cmp.Diff(tt.Want, a.Render(events)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !tt.Lax {
				CheckEvents(t, events, a.Origin)
				return
			}
			for i, ev := range events {
				if _, end := ev.(llm.StreamEnd); end != (i == len(events)-1) {
					t.Errorf("event %d of %d: %#v; want one StreamEnd, last", i, len(events), ev)
				}
			}
		})
	}
}
