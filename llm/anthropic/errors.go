package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// classify turns a failure of the SDK stream into what the caller sees:
// the cancellation of the caller's context as itself (wrapped, so errors.Is
// finds context.Canceled), everything else as an *llm.Error. started says
// whether any event had arrived.
func classify(call *wire.Call, err error, last *lastAttempt, started bool) error {
	if err := call.Canceled(); err != nil {
		return err
	}
	// An API error is the real outcome even if the timeout fired meanwhile.
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) {
		return fromAPIError(apiErr)
	}
	if call.TimedOut() {
		return timeoutError(call, last)
	}
	return wire.Transport(err, started)
}

// timeoutError reports an expired RequestTimeout. When the SDK was waiting to
// retry a failed attempt, the error is that attempt's (a 429 stays a rate
// limit, with its Retry-After), so the caller can back off properly.
func timeoutError(call *wire.Call, last *lastAttempt) *llm.Error {
	if last.status == 0 {
		return call.TimeoutError()
	}
	retry, _ := wire.RetryAfter(last.header, time.Now())
	return &llm.Error{
		Kind:       statusKind(last.status),
		StatusCode: last.status,
		Message:    fmt.Sprintf("HTTP %d and no successful retry within %v", last.status, call.Timeout),
		RetryAfter: retry,
		Err:        call.TimeoutCause(),
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
		out.RetryAfter, _ = wire.RetryAfter(e.Response.Header, time.Now())
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

// statusKind classifies an error status; a 200 is an error event of a type
// we do not know, inside a stream: the server gave up on the response, so
// trying again is reasonable.
func statusKind(status int) llm.ErrorKind {
	if status == http.StatusOK {
		return llm.ErrServer
	}
	return wire.StatusKind(status)
}

// apiMessage is the human-readable part of an API error: the API's own
// message, else the start of whatever body a proxy sent, else the status text.
// The request id is kept because support asks for it.
func apiMessage(e *anthropic.Error) string {
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(e.RawJSON())
		msg = wire.Truncate(msg, 300)
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
