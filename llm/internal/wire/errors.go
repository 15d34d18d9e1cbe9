package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/novacode/nova/llm"
)

// StatusKind classifies an HTTP error status by what the protocols agree
// on; an adapter refines it with what its error bodies say. A status below
// 400 is no error status: ErrOther.
func StatusKind(status int) llm.ErrorKind {
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
	}
	return llm.ErrOther
}

// Transport classifies a failure to send a request or to read its stream
// that is neither an API error nor the caller's cancellation. started says
// whether any event had arrived.
func Transport(err error, started bool) *llm.Error {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return &llm.Error{Kind: llm.ErrBrokenStream, Message: "malformed stream event: " + err.Error(), Err: err}
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &llm.Error{Kind: llm.ErrTimeout, Message: err.Error(), Err: err}
	}
	if !started && errors.Is(err, syscall.ECONNREFUSED) {
		// Nothing listens there: most often a local server (Ollama, vLLM,
		// the proxy) that is not running, or a base URL with a wrong
		// port. "broken_stream" and the dial error would not say so.
		return &llm.Error{Kind: llm.ErrConnection, Err: err,
			Message: fmt.Sprintf("connection refused: is the server at %s running? Start it, or set the base URL to where it listens", serverOf(err))}
	}
	msg := "connection failed: "
	if started {
		msg = "stream interrupted: "
	}
	// A transport failure before or during the stream is worth retrying,
	// which is what ErrBrokenStream says.
	return &llm.Error{Kind: llm.ErrBrokenStream, Message: msg + err.Error(), Err: err}
}

// serverOf is the scheme and host a failed request went to, from the
// *url.Error the HTTP client returns; "the configured base URL" when err
// carries none.
func serverOf(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	}
	return "the configured base URL"
}

// MaxRetryAfter caps a parsed delay, so an absurd header cannot overflow a
// time.Duration.
const MaxRetryAfter = 24 * time.Hour

// RetryAfter parses the server's requested delay: retry-after-ms (sent by
// Anthropic and OpenAI for sub-second precision) or Retry-After, in seconds
// or as an HTTP date. An unparseable or past value gives 0. ok says whether
// the server asked at all, so that a caller may fall back on other headers
// (RateLimitReset) only when it did not.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if h == nil {
		return 0, false
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(min(ms, float64(MaxRetryAfter/time.Millisecond)) * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if !(s > 0) { // also rejects NaN
			return 0, true
		}
		return time.Duration(min(s, MaxRetryAfter.Seconds()) * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxRetryAfter), true
	}
	return 0, true
}

// RateLimitReset reads OpenAI's (and Groq's) x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens (Go duration syntax: "6m0s", "20ms") of the limit
// whose x-ratelimit-remaining is 0: when the exhausted limit refills. Absent
// or unparseable headers give 0.
func RateLimitReset(h http.Header) time.Duration {
	var d time.Duration
	for _, limit := range []string{"requests", "tokens"} {
		if strings.TrimSpace(h.Get("X-Ratelimit-Remaining-"+limit)) != "0" {
			continue
		}
		if r, err := time.ParseDuration(strings.TrimSpace(h.Get("X-Ratelimit-Reset-" + limit))); err == nil && r > d {
			d = r
		}
	}
	return min(d, MaxRetryAfter)
}

// Truncate shortens s to n bytes and an ellipsis, for error messages that
// quote a body.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
