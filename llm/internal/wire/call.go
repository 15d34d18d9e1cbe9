package wire

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/novacode/nova/llm"
)

// ErrRequestTimeout is the cause of a call whose request timeout expired
// before the response started.
var ErrRequestTimeout = errors.New("no response within the request timeout")

// Call is one model call up to the start of its response: the caller's
// context, and a per-call context that the request timeout cancels with a
// recognisable cause. The timeout bounds only the wait for the response,
// never the stream, since a long answer legitimately takes minutes.
type Call struct {
	// Name prefixes the caller's context errors ("anthropic: context
	// canceled").
	Name    string
	Timeout time.Duration

	ctx     context.Context // the caller's
	callCtx context.Context
	cancel  context.CancelCauseFunc
	timer   *time.Timer
}

// Start begins a call: from now on, timeout (0: none) bounds the wait for
// the response, until Responded. It fails with the caller's error if ctx is
// already done, so that no request is sent for it. End releases the call.
func Start(ctx context.Context, name string, timeout time.Duration) (*Call, error) {
	c := &Call{Name: name, Timeout: timeout, ctx: ctx}
	if err := c.Canceled(); err != nil {
		return nil, err
	}
	c.callCtx, c.cancel = context.WithCancelCause(ctx)
	if timeout > 0 {
		c.timer = time.AfterFunc(timeout, func() { c.cancel(ErrRequestTimeout) })
	}
	return c, nil
}

// Context is the context to send the request with.
func (c *Call) Context() context.Context { return c.callCtx }

// Responded stops the request timeout: the response has started.
func (c *Call) Responded() {
	if c.timer != nil {
		c.timer.Stop()
	}
}

// End releases the call's context and timer.
func (c *Call) End() {
	c.Responded()
	c.cancel(nil)
}

// Canceled returns the caller's context error, wrapped so that errors.Is
// finds context.Canceled or context.DeadlineExceeded, or nil while the
// caller's context is live.
func (c *Call) Canceled() error {
	if err := c.ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	return nil
}

// TimedOut reports whether the request timeout cancelled the call.
func (c *Call) TimedOut() bool {
	return c.callCtx != nil && context.Cause(c.callCtx) == ErrRequestTimeout
}

// TimeoutError is the error of a call whose request timeout expired.
//
// The transport's own error is only a context.Canceled at this point; it is
// not wrapped, so that errors.Is(err, context.Canceled) keeps meaning "the
// caller cancelled".
func (c *Call) TimeoutError() *llm.Error {
	return &llm.Error{Kind: llm.ErrTimeout, Message: fmt.Sprintf("no response within %v", c.Timeout), Err: c.TimeoutCause()}
}

// TimeoutCause is what an error about the expired request timeout wraps.
func (c *Call) TimeoutCause() error {
	return fmt.Errorf("%s: %w (%v)", c.Name, ErrRequestTimeout, c.Timeout)
}

// Classify turns a failure of the call or of its stream into what the
// caller sees: the caller's cancellation as itself (wrapped, so errors.Is
// finds context.Canceled), an error status as fromStatus makes it (what an
// error body says depends on the protocol), the request timeout, and
// anything else as a transport failure (Transport). started says whether
// any event had arrived.
func (c *Call) Classify(err error, started bool, fromStatus func(*StatusError) *llm.Error) error {
	if err := c.Canceled(); err != nil {
		return err
	}
	// An error status is the real outcome even if the timeout fired
	// meanwhile.
	var se *StatusError
	if errors.As(err, &se) {
		return fromStatus(se)
	}
	if c.TimedOut() {
		return c.TimeoutError()
	}
	return Transport(err, started)
}

// Source is a response body read as a sequence of events of type E.
type Source[E any] interface {
	Next() bool
	Current() E
	Err() error
}

// Pump yields, for every event of src in order, what handle makes of it.
// handle returns the normalized events of one wire event (yielded before its
// error), whether the response is complete, and an error that ends it.
//
// Pump stops at the first of: the consumer stopping (yield returns false),
// the response being complete, an error (yielded), the caller's context
// ending (yielded; events may already sit in the read buffer when it does,
// and the contract is to stop at once, not when the socket notices), or src
// running out. It returns true in every case but the last: then src.Err says
// whether reading failed, and if not, the body ended before the response
// did, which only the adapter can judge.
func Pump[E any](c *Call, src Source[E], handle func(E) ([]llm.StreamEvent, bool, error), yield func(llm.StreamEvent, error) bool) bool {
	for src.Next() {
		if err := c.Canceled(); err != nil {
			yield(nil, err)
			return true
		}
		out, end, err := handle(src.Current())
		for _, ev := range out {
			if !yield(ev, nil) {
				return true
			}
		}
		if err != nil {
			yield(nil, err)
			return true
		}
		if end {
			// Nothing may follow the end, so reading stops here rather than
			// waiting for the server to close the body.
			return true
		}
	}
	return false
}
