package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrorKind classifies a failed model call so the loop and the user know what
// to do about it.
type ErrorKind string

const (
	ErrAuth         ErrorKind = "authentication" // bad or missing key: fix config
	ErrRateLimit    ErrorKind = "rate_limit"     // 429: retryable
	ErrOverloaded   ErrorKind = "overloaded"     // 529 / overloaded_error: retryable
	ErrServer       ErrorKind = "server"         // 5xx: retryable
	ErrInvalid      ErrorKind = "invalid_request"
	ErrBrokenStream ErrorKind = "broken_stream" // connection dropped or malformed stream
	ErrConnection   ErrorKind = "connection"    // the server could not be reached (refused): retryable, it may be starting
	ErrTimeout      ErrorKind = "timeout"
	ErrOther        ErrorKind = "other"
)

// Error is a failed model call, typed by Kind.
type Error struct {
	Kind       ErrorKind
	StatusCode int           // HTTP status, 0 when not applicable
	Message    string        // what the provider or transport said
	RetryAfter time.Duration // server-requested delay, 0 when none
	Err        error         // underlying cause
}

func (e *Error) Error() string {
	s := fmt.Sprintf("model call failed (%s", e.Kind)
	if e.StatusCode != 0 {
		s += fmt.Sprintf(", HTTP %d", e.StatusCode)
	}
	s += ")"
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether the same request may succeed if sent again.
func (e *Error) Retryable() bool {
	switch e.Kind {
	case ErrRateLimit, ErrOverloaded, ErrServer, ErrTimeout, ErrBrokenStream, ErrConnection:
		return true
	}
	return false
}

// WebSearchRejected reports whether err is an endpoint refusing a request
// over its web search tool (Request.WebSearch): an invalid request (HTTP
// 400, 422, …) whose message names the tool, as Anthropic-compatible
// gateways without the server tool answer. The same request without web
// search may then succeed.
func WebSearchRejected(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == ErrInvalid && e.StatusCode >= 400 &&
		strings.Contains(strings.ToLower(e.Message), "web_search")
}

// IsRetryable reports whether err is an *Error that is retryable.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable()
}
