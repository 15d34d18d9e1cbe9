package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/novacode/nova/llm"
)

// classify turns a failure of the SDK stream into what the caller sees:
// the cancellation of ctx as itself (wrapped, so errors.Is finds
// context.Canceled), everything else as an *llm.Error. callCtx is the
// per-call context whose cause tells a RequestTimeout apart; started says
// whether any event had arrived.
func classify(ctx, callCtx context.Context, err error, last *lastAttempt, started bool, timeout time.Duration) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("anthropic: %w", ctxErr)
	}
	// An API error is the real outcome even if the timeout fired meanwhile.
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		return fromAPIError(apiErr)
	}
	if context.Cause(callCtx) == errRequestTimeout {
		return timeoutError(last, timeout)
	}

	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return &llm.Error{Kind: llm.ErrBrokenStream, Message: "malformed stream event: " + err.Error(), Err: err}
	}

	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &llm.Error{Kind: llm.ErrTimeout, Message: err.Error(), Err: err}
	}
	msg := "connection failed: "
	if started {
		msg = "stream interrupted: "
	}
	// A transport failure before or during the stream is worth retrying,
	// which is what ErrBrokenStream says.
	return &llm.Error{Kind: llm.ErrBrokenStream, Message: msg + err.Error(), Err: err}
}

// timeoutError reports an expired RequestTimeout. When the SDK was waiting to
// retry a failed attempt, the error is that attempt's (a 429 stays a rate
// limit, with its Retry-After), so the caller can back off properly.
//
// The SDK's own error is only a context.Canceled at this point; it is not
// wrapped, so that errors.Is(err, context.Canceled) keeps meaning "the caller
// cancelled".
func timeoutError(last *lastAttempt, timeout time.Duration) *llm.Error {
	cause := fmt.Errorf("%w (%v)", errRequestTimeout, timeout)
	if last.status == 0 {
		return &llm.Error{Kind: llm.ErrTimeout, Message: fmt.Sprintf("no response within %v", timeout), Err: cause}
	}
	return &llm.Error{
		Kind:       statusKind(last.status),
		StatusCode: last.status,
		Message:    fmt.Sprintf("HTTP %d and no successful retry within %v", last.status, timeout),
		RetryAfter: retryAfter(last.header, time.Now()),
		Err:        cause,
	}
}

// fromAPIError maps an API error, whether an HTTP error status or an
// `event: error` inside a 200 stream. The error type in the body is the
// better signal (a mid-stream overloaded_error has status 200), so it decides
// and the status is the fallback for bodies without one (proxies, gateways).
func fromAPIError(e *anthropic.Error) *llm.Error {
	kind, ok := typeKind(e.Type())
	if !ok {
		kind = statusKind(e.StatusCode)
	}
	out := &llm.Error{Kind: kind, Message: apiMessage(e), Err: e}
	// A mid-stream error arrives on a 200 response; "HTTP 200" would only
	// mislead, and no status is what llm.Error.StatusCode documents for it.
	if e.StatusCode >= 400 {
		out.StatusCode = e.StatusCode
	}
	if e.Response != nil {
		out.RetryAfter = retryAfter(e.Response.Header, time.Now())
	}
	return out
}

func typeKind(t anthropic.ErrorType) (llm.ErrorKind, bool) {
	switch t {
	case anthropic.ErrorTypeAuthenticationError, anthropic.ErrorTypePermissionError:
		return llm.ErrAuth, true
	case anthropic.ErrorTypeRateLimitError:
		return llm.ErrRateLimit, true
	case anthropic.ErrorTypeOverloadedError:
		return llm.ErrOverloaded, true
	case anthropic.ErrorTypeAPIError:
		return llm.ErrServer, true
	case anthropic.ErrorTypeTimeoutError:
		return llm.ErrTimeout, true
	case anthropic.ErrorTypeInvalidRequestError, anthropic.ErrorTypeNotFoundError, "request_too_large":
		return llm.ErrInvalid, true
	case anthropic.ErrorTypeBillingError:
		// Not retryable, and not a key problem either.
		return llm.ErrOther, true
	}
	return "", false
}

func statusKind(status int) llm.ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.ErrAuth
	case status == http.StatusTooManyRequests:
		return llm.ErrRateLimit
	case status == 529:
		return llm.ErrOverloaded
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return llm.ErrTimeout
	case status >= 500:
		return llm.ErrServer
	case status >= 400:
		return llm.ErrInvalid
	case status == http.StatusOK:
		// An error event of a type we do not know, inside a stream: the
		// server gave up on the response, so trying again is reasonable.
		return llm.ErrServer
	}
	return llm.ErrOther
}

// apiMessage is the human-readable part of an API error: the API's own
// message, else the start of whatever body a proxy sent, else the status text.
// The request id is kept because support asks for it.
func apiMessage(e *anthropic.Error) string {
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.RawJSON())
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
	}
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	if t := string(e.Type()); t != "" {
		msg = t + ": " + msg
	}
	if e.RequestID != "" {
		msg += " (request-id " + e.RequestID + ")"
	}
	return msg
}

// maxRetryAfter caps a parsed delay, so an absurd header cannot overflow a
// time.Duration.
const maxRetryAfter = 24 * time.Hour

// retryAfter parses the server's requested delay: retry-after-ms (which the
// API sends for sub-second precision) or Retry-After, in seconds or as an
// HTTP date. Absent or unparseable headers give 0.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(min(ms, float64(maxRetryAfter/time.Millisecond)) * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s > 0) { // also rejects NaN
			return 0
		}
		return time.Duration(min(s, maxRetryAfter.Seconds()) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), maxRetryAfter)
	}
	return 0
}
