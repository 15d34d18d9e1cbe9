package llm

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// RetryPolicy says how WithRetry retries failed calls and how long it waits
// for a silent endpoint. Zero fields take the defaults below.
type RetryPolicy struct {
	// MaxRetries is how many times a failed call is sent again (default 4).
	// Negative disables retries.
	MaxRetries int
	// BaseDelay is the first backoff (default 1s); each retry doubles it, up
	// to MaxDelay (default 32s), with jitter.
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter is the longest server-requested wait (Retry-After) that
	// is honoured (default 2m). A longer one ends the call with its error at
	// once: sitting silent for an hour helps nobody.
	MaxRetryAfter time.Duration
	// FirstEventTimeout bounds the wait from sending a request to its first
	// event (default 5m: a local model may chew on a long prompt before it
	// says anything). IdleTimeout bounds the silence between two events
	// (default 2m). Either expiring ends the attempt with ErrTimeout.
	FirstEventTimeout time.Duration
	IdleTimeout       time.Duration

	// sleep and jitter are replaced in tests.
	sleep  func(ctx context.Context, d time.Duration) error
	jitter func() float64
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxRetries == 0 {
		p.MaxRetries = 4
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 32 * time.Second
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = 2 * time.Minute
	}
	if p.FirstEventTimeout <= 0 {
		p.FirstEventTimeout = 5 * time.Minute
	}
	if p.IdleTimeout <= 0 {
		p.IdleTimeout = 2 * time.Minute
	}
	if p.sleep == nil {
		p.sleep = sleepCtx
	}
	if p.jitter == nil {
		p.jitter = rand.Float64
	}
	return p
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// WithRetry wraps c so that a call that fails with a retryable error (rate
// limit, overload, 5xx, 408/409, a dropped or silent connection) is sent
// again with exponential backoff and jitter, honouring Retry-After.
//
// Invariant: a stream is only restarted if it has not yet yielded anything.
// Once the caller has seen an event, replaying the call would show it the
// same text twice, so a later failure is returned as it is.
//
// Each retry is announced before its wait with a Retrying event: a wait of
// seconds must not look like a hang, and the caller is the one who knows
// where to say so (the loop turns it into an event for its frontends). It
// is not content: Retrying events only ever come before the first event of
// the attempt that answers, and a failed attempt has yielded nothing. A
// caller that stops at one ends the call without the wait.
func WithRetry(c Client, p RetryPolicy) Client {
	return &retryClient{c: c, p: p.withDefaults()}
}

type retryClient struct {
	c Client
	p RetryPolicy
}

func (r *retryClient) Stream(ctx context.Context, req *Request) iter.Seq2[StreamEvent, error] {
	return func(yield func(StreamEvent, error) bool) {
		for attempt := 0; ; attempt++ {
			yielded, err := r.attempt(ctx, req, yield)
			if err == nil {
				return
			}
			if errors.Is(err, errConsumerStopped) {
				return
			}
			wait, retry := r.shouldRetry(ctx, attempt, yielded, err)
			if !retry {
				yield(nil, err)
				return
			}
			if !yield(Retrying{Attempt: attempt + 1, MaxRetries: r.p.MaxRetries, Wait: wait, Err: err}, nil) {
				return
			}
			if serr := r.p.sleep(ctx, wait); serr != nil {
				yield(nil, fmt.Errorf("waiting to retry after %w: %w", err, serr))
				return
			}
		}
	}
}

var errConsumerStopped = errors.New("consumer stopped")

// attempt runs one call, passing its events through. It returns whether
// anything was yielded and the call's error (nil after a clean end).
func (r *retryClient) attempt(ctx context.Context, req *Request, yield func(StreamEvent, error) bool) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The watchdog cancels the attempt when the endpoint falls silent; the
	// flag tells that cancellation apart from the caller's.
	var silent atomic.Bool
	limit := r.p.FirstEventTimeout
	watchdog := time.AfterFunc(limit, func() { silent.Store(true); cancel() })
	defer watchdog.Stop()

	yielded := false
	for ev, err := range r.c.Stream(ctx, req) {
		if err != nil {
			if silent.Load() {
				what := "no answer from the model endpoint"
				if yielded {
					what = "the model stream went silent"
				}
				// Not wrapping err: it is the watchdog's own context.Canceled,
				// and the caller must not mistake a timeout for its cancel.
				return yielded, &Error{Kind: ErrTimeout, Message: fmt.Sprintf("%s for %v", what, limit)}
			}
			return yielded, err
		}
		if !watchdog.Stop() {
			// Fired between the event arriving and now: the attempt is
			// already cancelled; report the silence.
			return yielded, &Error{Kind: ErrTimeout, Message: fmt.Sprintf("the model stream went silent for %v", limit)}
		}
		yielded = true
		if !yield(ev, nil) {
			return yielded, errConsumerStopped
		}
		limit = r.p.IdleTimeout
		watchdog.Reset(limit)
	}
	return yielded, nil
}

func (r *retryClient) shouldRetry(ctx context.Context, attempt int, yielded bool, err error) (time.Duration, bool) {
	if yielded || ctx.Err() != nil || r.p.MaxRetries < 0 || attempt >= r.p.MaxRetries {
		return 0, false
	}
	var e *Error
	if !errors.As(err, &e) {
		return 0, false
	}
	if !e.Retryable() && e.StatusCode != 408 && e.StatusCode != 409 {
		return 0, false
	}
	if e.RetryAfter > 0 {
		if e.RetryAfter > r.p.MaxRetryAfter {
			return 0, false
		}
		return e.RetryAfter, true
	}
	d := r.p.BaseDelay << attempt
	if d > r.p.MaxDelay || d <= 0 {
		d = r.p.MaxDelay
	}
	// Jitter in [d/2, d): clients that failed together do not return together.
	return d/2 + time.Duration(r.p.jitter()*float64(d/2)), true
}
