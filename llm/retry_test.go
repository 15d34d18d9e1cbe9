package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// attemptScript is what one call of scriptClient does: yield events, then
// either fail with err, block until cancelled (hang), or end cleanly.
type attemptScript struct {
	events []StreamEvent
	err    error
	hang   bool
}

type scriptClient struct {
	mu       sync.Mutex
	attempts []attemptScript
	calls    int
}

func (s *scriptClient) Stream(ctx context.Context, req *Request) iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		s.mu.Lock()
		a := s.attempts[min(s.calls, len(s.attempts)-1)]
		s.calls++
		s.mu.Unlock()
		for _, ev := range a.events {
			if !yield(ev, nil) {
				return
			}
		}
		if a.hang {
			<-ctx.Done()
			yield(nil, ctx.Err())
			return
		}
		if a.err != nil {
			yield(nil, a.err)
		}
	}
}

var okStream = attemptScript{events: []StreamEvent{TextDelta{Text: "hi"}, StreamEnd{StopReason: StopEndTurn, Usage: Usage{InputTokens: 1}}}}

func drain(c Client) ([]StreamEvent, error) {
	var evs []StreamEvent
	for ev, err := range c.Stream(context.Background(), &Request{}) {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

func TestRetry(t *testing.T) {
	rateLimited := &Error{Kind: ErrRateLimit, StatusCode: 429, RetryAfter: 3 * time.Second}
	overloaded := &Error{Kind: ErrOverloaded, StatusCode: 529}
	tests := []struct {
		name      string
		attempts  []attemptScript
		policy    RetryPolicy
		wantCalls int
		wantWaits []time.Duration
		wantErr   ErrorKind // "" = success
	}{
		{"success", []attemptScript{okStream}, RetryPolicy{}, 1, nil, ""},
		{"429 honours Retry-After", []attemptScript{{err: rateLimited}, okStream}, RetryPolicy{}, 2, []time.Duration{3 * time.Second}, ""},
		{"overloaded backs off exponentially", []attemptScript{{err: overloaded}, {err: overloaded}, {err: overloaded}, okStream}, RetryPolicy{}, 4,
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}, ""},
		{"gives up after MaxRetries", []attemptScript{{err: overloaded}}, RetryPolicy{MaxRetries: 2}, 3,
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, ErrOverloaded},
		{"Retry-After too long: no retry", []attemptScript{{err: &Error{Kind: ErrRateLimit, RetryAfter: time.Hour}}, okStream}, RetryPolicy{}, 1, nil, ErrRateLimit},
		{"auth is not retried", []attemptScript{{err: &Error{Kind: ErrAuth, StatusCode: 401}}, okStream}, RetryPolicy{}, 1, nil, ErrAuth},
		{"409 is retried", []attemptScript{{err: &Error{Kind: ErrOther, StatusCode: 409}}, okStream}, RetryPolicy{}, 2, []time.Duration{750 * time.Millisecond}, ""},
		{"not retried after yielding", []attemptScript{{events: []StreamEvent{TextDelta{Text: "par"}}, err: &Error{Kind: ErrBrokenStream}}, okStream}, RetryPolicy{}, 1, nil, ErrBrokenStream},
		{"plain errors are not retried", []attemptScript{{err: errors.New("boom")}, okStream}, RetryPolicy{}, 1, nil, "plain"},
		{"retries disabled", []attemptScript{{err: overloaded}, okStream}, RetryPolicy{MaxRetries: -1}, 1, nil, ErrOverloaded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := &scriptClient{attempts: tc.attempts}
			var waits []time.Duration
			p := tc.policy
			p.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			p.jitter = func() float64 { return 0.5 }
			_, err := drain(WithRetry(sc, p))
			if sc.calls != tc.wantCalls {
				t.Errorf("calls = %d, want %d", sc.calls, tc.wantCalls)
			}
			if diff := cmp.Diff(tc.wantWaits, waits); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
			var e *Error
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr == "plain" && (err == nil || errors.As(err, &e)):
				t.Fatalf("error = %v", err)
			case tc.wantErr != "" && tc.wantErr != "plain" && (!errors.As(err, &e) || e.Kind != tc.wantErr):
				t.Fatalf("error = %v, want kind %s", err, tc.wantErr)
			}
		})
	}
}

func TestSilentEndpointTimesOut(t *testing.T) {
	tests := []struct {
		name     string
		attempts []attemptScript
		want     string
		calls    int
	}{
		{"never answers, then answers", []attemptScript{{hang: true}, okStream}, "", 2},
		{"never answers", []attemptScript{{hang: true}}, "no answer from the model endpoint", 3},
		{"goes silent mid-stream", []attemptScript{{events: []StreamEvent{TextDelta{Text: "a"}}, hang: true}}, "went silent", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := &scriptClient{attempts: tc.attempts}
			p := RetryPolicy{MaxRetries: 2, FirstEventTimeout: 30 * time.Millisecond, IdleTimeout: 30 * time.Millisecond, BaseDelay: time.Millisecond}
			start := time.Now()
			_, err := drain(WithRetry(sc, p))
			if time.Since(start) > 5*time.Second {
				t.Fatal("timeout did not fire")
			}
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else {
				var e *Error
				if !errors.As(err, &e) || e.Kind != ErrTimeout || !strings.Contains(e.Message, tc.want) {
					t.Fatalf("error = %v", err)
				}
				if errors.Is(err, context.Canceled) {
					t.Fatal("a timeout must not look like the caller's cancel")
				}
			}
			if sc.calls != tc.calls {
				t.Fatalf("calls = %d, want %d", sc.calls, tc.calls)
			}
		})
	}
}

func TestRetryStopsWhenCallerCancels(t *testing.T) {
	sc := &scriptClient{attempts: []attemptScript{{err: &Error{Kind: ErrOverloaded}}}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var err error
	for ev, e := range WithRetry(sc, RetryPolicy{}).Stream(ctx, &Request{}) {
		if _, ok := ev.(Retrying); ok {
			cancel() // during the announced wait
		}
		err = e
	}
	if !errors.Is(err, context.Canceled) || sc.calls != 1 {
		t.Fatalf("err %v after %d calls", err, sc.calls)
	}
}

// Each retry is announced, before its wait and before anything of the
// attempt that answers; the failed attempts yield nothing else.
func TestRetryIsAnnounced(t *testing.T) {
	overloaded := &Error{Kind: ErrOverloaded, StatusCode: 529}
	rateLimited := &Error{Kind: ErrRateLimit, StatusCode: 429, RetryAfter: 3 * time.Second}
	sc := &scriptClient{attempts: []attemptScript{{err: overloaded}, {err: rateLimited}, okStream}}
	var log []string
	p := RetryPolicy{MaxRetries: 3, jitter: func() float64 { return 0.5 }}
	p.sleep = func(ctx context.Context, d time.Duration) error { log = append(log, "sleep "+d.String()); return nil }
	var got []StreamEvent
	for ev, err := range WithRetry(sc, p).Stream(context.Background(), &Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
		log = append(log, fmt.Sprintf("%T", ev))
	}
	want := []StreamEvent{
		Retrying{Attempt: 1, MaxRetries: 3, Wait: 750 * time.Millisecond, Err: overloaded},
		Retrying{Attempt: 2, MaxRetries: 3, Wait: 3 * time.Second, Err: rateLimited},
		okStream.events[0], okStream.events[1],
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	wantLog := []string{"llm.Retrying", "sleep 750ms", "llm.Retrying", "sleep 3s", "llm.TextDelta", "llm.StreamEnd"}
	if diff := cmp.Diff(wantLog, log); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// A consumer that stops at the announcement ends the call: no wait, no
// second attempt.
func TestRetryAnnouncementStopsTheCall(t *testing.T) {
	sc := &scriptClient{attempts: []attemptScript{{err: &Error{Kind: ErrOverloaded}}, okStream}}
	p := RetryPolicy{}
	p.sleep = func(context.Context, time.Duration) error { t.Error("slept after the consumer stopped"); return nil }
	for ev := range WithRetry(sc, p).Stream(context.Background(), &Request{}) {
		if _, ok := ev.(Retrying); !ok {
			t.Fatalf("first event %T, want Retrying", ev)
		}
		break
	}
	if sc.calls != 1 {
		t.Fatalf("%d calls, want 1", sc.calls)
	}
}

func TestUsageEstimate(t *testing.T) {
	req := &Request{System: strings.Repeat("s", 400), Messages: []Message{{Role: RoleUser, Content: []Block{{Type: BlockText, Text: strings.Repeat("u", 400)}}}}}
	sc := &scriptClient{attempts: []attemptScript{{events: []StreamEvent{TextDelta{Text: strings.Repeat("o", 80)}, StreamEnd{StopReason: StopEndTurn}}}}}
	var end StreamEnd
	for ev, err := range WithUsageEstimate(sc).Stream(context.Background(), req) {
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := ev.(StreamEnd); ok {
			end = e
		}
	}
	if want := (Usage{InputTokens: 200, OutputTokens: 20, Estimated: true}); end.Usage != want {
		t.Fatalf("usage = %+v, want %+v", end.Usage, want)
	}
	// A count of searches alone is no usage: the tokens are estimated, the
	// count kept.
	sc = &scriptClient{attempts: []attemptScript{{events: []StreamEvent{TextDelta{Text: strings.Repeat("o", 80)}, StreamEnd{StopReason: StopEndTurn, Usage: Usage{WebSearchRequests: 2}}}}}}
	evs, _ := drain(WithUsageEstimate(sc))
	if want := (Usage{OutputTokens: 20, WebSearchRequests: 2, Estimated: true}); evs[len(evs)-1].(StreamEnd).Usage != want {
		t.Fatalf("usage = %+v, want %+v", evs[len(evs)-1].(StreamEnd).Usage, want)
	}
	// Reported usage is left alone.
	sc = &scriptClient{attempts: []attemptScript{okStream}}
	evs, _ = drain(WithUsageEstimate(sc))
	if u := evs[len(evs)-1].(StreamEnd).Usage; u.Estimated || u.InputTokens != 1 {
		t.Fatalf("usage = %+v", u)
	}
}
