package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		header map[string]string
		want   time.Duration
		ok     bool
	}{
		{nil, 0, false},
		{map[string]string{"Retry-After": "12"}, 12 * time.Second, true},
		{map[string]string{"Retry-After": " 12 "}, 12 * time.Second, true},
		{map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond, true},
		{map[string]string{"Retry-After": "0"}, 0, true},
		{map[string]string{"Retry-After": "-3"}, 0, true},
		{map[string]string{"Retry-After": "NaN"}, 0, true},
		{map[string]string{"Retry-After": "1e300"}, MaxRetryAfter, true},
		{map[string]string{"Retry-After": "soon"}, 0, true},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0, true},
		{map[string]string{"Retry-After": now.Add(1000 * time.Hour).Format(http.TimeFormat)}, MaxRetryAfter, true},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, true},
		{map[string]string{"Retry-After-Ms": "bad", "Retry-After": "9"}, 9 * time.Second, true},
		{map[string]string{"Retry-After-Ms": "1e300"}, MaxRetryAfter, true},
		// A zero or unparseable retry-after-ms alone is no request.
		{map[string]string{"Retry-After-Ms": "0"}, 0, false},
		{map[string]string{"Retry-After-Ms": "bad"}, 0, false},
		// Rate-limit headers are RateLimitReset's.
		{map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "1m"}, 0, false},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got, ok := RetryAfter(h, now); got != tt.want || ok != tt.ok {
			t.Errorf("RetryAfter(%v) = %v, %v; want %v, %v", tt.header, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRateLimitReset(t *testing.T) {
	tests := []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "1.5s"}, 1500 * time.Millisecond},
		{map[string]string{"X-Ratelimit-Remaining-Requests": "3", "X-Ratelimit-Reset-Requests": "1.5s"}, 0},
		// Only the exhausted limit counts, the later of two.
		{map[string]string{"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "1.5s", "X-Ratelimit-Remaining-Tokens": "5", "X-Ratelimit-Reset-Tokens": "1m"}, 1500 * time.Millisecond},
		{map[string]string{"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "20ms", "X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "1m2s"}, 62 * time.Second},
		{map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "6m0s"}, 6 * time.Minute},
		{map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "garbage"}, 0},
		{map[string]string{"X-Ratelimit-Remaining-Tokens": "0", "X-Ratelimit-Reset-Tokens": "9999h"}, MaxRetryAfter},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.header {
			h.Set(k, v)
		}
		if got := RateLimitReset(h); got != tt.want {
			t.Errorf("RateLimitReset(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestStatusKind(t *testing.T) {
	want := map[int]llm.ErrorKind{
		200: llm.ErrOther, 302: llm.ErrOther,
		400: llm.ErrInvalid, 401: llm.ErrAuth, 403: llm.ErrAuth, 404: llm.ErrInvalid, 408: llm.ErrTimeout,
		409: llm.ErrInvalid, 413: llm.ErrInvalid, 422: llm.ErrInvalid, 429: llm.ErrRateLimit,
		500: llm.ErrServer, 502: llm.ErrServer, 503: llm.ErrServer, 504: llm.ErrTimeout, 529: llm.ErrOverloaded,
	}
	got := map[int]llm.ErrorKind{}
	for status := range want {
		got[status] = StatusKind(status)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// timeoutErr is a net.Error that timed out.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

var _ net.Error = timeoutErr{}

func TestTransport(t *testing.T) {
	var syntaxErr error = json.Unmarshal([]byte("{"), new(any))
	tests := []struct {
		err     error
		started bool
		kind    llm.ErrorKind
		message string
	}{
		{syntaxErr, true, llm.ErrBrokenStream, "malformed stream event: unexpected end of JSON input"},
		{json.Unmarshal([]byte(`"x"`), new(int)), true, llm.ErrBrokenStream, "malformed stream event: json: cannot unmarshal"},
		{fmt.Errorf("read: %w", timeoutErr{}), true, llm.ErrTimeout, "read: i/o timeout"},
		{io.ErrUnexpectedEOF, true, llm.ErrBrokenStream, "stream interrupted: unexpected EOF"},
		{errors.New("connection reset"), false, llm.ErrBrokenStream, "connection failed: connection reset"},
		{&url.Error{Op: "Post", URL: "http://127.0.0.1:11434/v1/chat/completions", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}},
			false, llm.ErrConnection, "connection refused: is the server at http://127.0.0.1:11434 running? Start it, or set the base URL to where it listens"},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), false, llm.ErrConnection, "connection refused: is the server at the configured base URL running?"},
		// Refused after the stream began cannot happen; a reset then is a cut stream.
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true, llm.ErrBrokenStream, "stream interrupted: read: connection reset by peer"},
	}
	for _, tt := range tests {
		got := Transport(tt.err, tt.started)
		if got.Kind != tt.kind || len(got.Message) < len(tt.message) || got.Message[:len(tt.message)] != tt.message || !errors.Is(got, tt.err) {
			t.Errorf("Transport(%v, %v) = %v (kind %s), want kind %s, message %q…, wrapping the cause", tt.err, tt.started, got, got.Kind, tt.kind, tt.message)
		}
	}
}

func TestCall(t *testing.T) {
	t.Run("cancelled before start", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := Start(ctx, "x", 0); !errors.Is(err, context.Canceled) || err.Error() != "x: context canceled" {
			t.Errorf("Start on a cancelled context: %v", err)
		}
	})
	t.Run("endpoint checks", func(t *testing.T) {
		bad := errors.New("bad base URL")
		for _, tt := range []struct {
			ep   Endpoint
			req  *llm.Request
			want error
		}{
			{Endpoint{Name: "x", ConfigErr: bad}, &llm.Request{}, bad},
			{Endpoint{Name: "x"}, nil, &llm.Error{Kind: llm.ErrInvalid, Message: "nil request"}},
		} {
			c, err := tt.ep.Begin(context.Background(), tt.req)
			if c != nil || err == nil || err.Error() != tt.want.Error() {
				t.Errorf("Begin: %v, %v; want %v", c, err, tt.want)
			}
		}
		c, err := (&Endpoint{Name: "x"}).Begin(context.Background(), &llm.Request{})
		if err != nil {
			t.Fatal(err)
		}
		c.End()
	})
	t.Run("request timeout", func(t *testing.T) {
		c, err := Start(context.Background(), "x", time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		defer c.End()
		<-c.Context().Done()
		if !c.TimedOut() || c.Canceled() != nil {
			t.Errorf("TimedOut %v, Canceled %v", c.TimedOut(), c.Canceled())
		}
		e := c.TimeoutError()
		if e.Kind != llm.ErrTimeout || !errors.Is(e, ErrRequestTimeout) || errors.Is(e, context.Canceled) ||
			e.Error() != "model call failed (timeout): no response within 1ms" {
			t.Errorf("TimeoutError %v", e)
		}
	})
	t.Run("responded", func(t *testing.T) {
		c, err := Start(context.Background(), "x", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		c.Responded()
		if c.timer.Stop() {
			t.Errorf("the request timeout still runs after the response started")
		}
		c.End()
		if c.Context().Err() == nil || c.TimedOut() {
			t.Errorf("End: context %v, timed out %v", c.Context().Err(), c.TimedOut())
		}
	})
}
