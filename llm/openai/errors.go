package openai

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// fromHTTPError maps an error status. The error code and type of the
// body's {"error":{…}} are the better signal (a 429 is a rate limit, unless
// its code says the quota is spent, which no retry fixes); the status is
// the fallback for bodies without them (proxies, gateways), whose text then
// is the message.
func fromHTTPError(se *wire.StatusError) *llm.Error {
	var top struct {
		Error json.RawMessage `json:"error"`
	}
	var e struct {
		Code    wire.Text `json:"code"` // a string, or a number on some servers
		Type    wire.Text `json:"type"`
		Message wire.Text `json:"message"`
	}
	raw := ""
	if json.Unmarshal(se.Body, &top) == nil && len(top.Error) > 0 && string(top.Error) != "null" {
		if json.Unmarshal(top.Error, &e) == nil {
			raw = string(top.Error)
		} else {
			// {"error":"…"}, as Ollama and others send it.
			_ = json.Unmarshal(top.Error, &e.Message)
		}
	}
	if raw == "" {
		// Not the API's error JSON: a proxy's text says more than a status
		// line.
		raw = strings.TrimSpace(string(se.Body[:min(len(se.Body), 4096)]))
	}
	code, typ, msg := string(e.Code), string(e.Type), string(e.Message)
	out := &llm.Error{
		Kind:       errorKind(code, typ, msg, se.StatusCode),
		StatusCode: se.StatusCode,
		Message:    errorMessage(code, typ, msg, raw),
		RetryAfter: retryAfter(se.Header, se.StatusCode, time.Now()),
		Err:        se,
	}
	if out.Message == "" {
		out.Message = http.StatusText(se.StatusCode)
	}
	if id := se.Header.Get("X-Request-Id"); id != "" {
		// Support asks for it.
		out.Message += " (request-id " + id + ")"
	}
	return out
}

// eventError is the cause of a failure the stream itself reported (an
// `error` event, response.failed, or an error chunk).
type eventError struct {
	event string // the event type
	raw   string // the error JSON as received
}

func (e *eventError) Error() string { return "openai: " + e.event + ": " + e.raw }

// streamError maps an error reported inside a 200 stream: the `error` event
// (code and message at the top level) or response.failed (the response's
// error object). There is no status to fall back on; an unknown code means
// the server gave up on the response, so trying again is reasonable.
func streamError(event, code, typ, message, raw string) *llm.Error {
	if raw == "null" {
		raw = ""
	}
	msg := errorMessage(code, typ, message, raw)
	if msg == "" {
		msg = event + " without details"
	}
	return &llm.Error{
		Kind:    errorKind(code, typ, message, http.StatusOK),
		Message: msg,
		Err:     &eventError{event: event, raw: raw},
	}
}

// fromErrorChunk maps a data line whose top-level "error" member (errJSON)
// is an object (code, type, message) or a plain string: the form Chat
// Completions and many proxies use.
func fromErrorChunk(ev wire.Event, errJSON json.RawMessage) *llm.Error {
	var e struct {
		Code    json.RawMessage `json:"code"` // a string, or a number on some proxies
		Type    string          `json:"type"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(errJSON, &e) != nil {
		_ = json.Unmarshal(errJSON, &e.Message)
	}
	code := strings.Trim(string(e.Code), `"`)
	if code == "null" {
		code = ""
	}
	return streamError(cmp.Or(ev.Type, "error chunk"), code, e.Type, e.Message, strings.TrimSpace(string(ev.Data)))
}

// errorKind classifies an error by its code, then its type, then the HTTP
// status (http.StatusOK for errors inside a stream). An "overloaded" server
// error is told apart by its words, since OpenAI has no dedicated code.
func errorKind(code, typ, message string, status int) llm.ErrorKind {
	kind, ok := codeKind(code)
	if !ok {
		kind, ok = codeKind(typ)
	}
	if !ok {
		kind = statusKind(status)
	}
	if kind == llm.ErrServer && (status == 529 || strings.Contains(strings.ToLower(message), "overloaded")) {
		kind = llm.ErrOverloaded
	}
	return kind
}

// codeKind maps an OpenAI error code or type (or the ones OpenAI-compatible
// servers use) onto an llm.ErrorKind.
func codeKind(code string) (llm.ErrorKind, bool) {
	switch code {
	case "":
		return "", false
	case "invalid_api_key", "authentication_error", "invalid_authentication", "permission_error",
		"permission_denied", "unauthorized", "insufficient_permissions", "account_deactivated":
		return llm.ErrAuth, true
	case "rate_limit_exceeded", "rate_limit_error", "too_many_requests":
		return llm.ErrRateLimit, true
	case "insufficient_quota", "billing_hard_limit_reached", "billing_not_active", "billing_error":
		// Not retryable, and not a key problem either.
		return llm.ErrOther, true
	case "server_error", "internal_error", "internal_server_error", "api_error", "service_unavailable":
		return llm.ErrServer, true
	case "timeout", "request_timeout", "timeout_error", "vector_store_timeout":
		return llm.ErrTimeout, true
	case "invalid_request_error", "context_length_exceeded", "string_above_max_length", "model_not_found",
		"not_found_error", "invalid_prompt", "invalid_value", "unknown_parameter", "missing_required_parameter",
		"data_residency_mismatch", "bio_policy", "misalignment_policy_violation", "request_too_large":
		return llm.ErrInvalid, true
	}
	switch {
	case strings.Contains(code, "overloaded"):
		return llm.ErrOverloaded, true
	case strings.Contains(code, "rate_limit"):
		return llm.ErrRateLimit, true
	case strings.HasPrefix(code, "invalid_"), strings.HasPrefix(code, "unsupported_"), strings.Contains(code, "image"):
		// invalid_image, invalid_encrypted_content, unsupported_value,
		// image_too_large, …: the request itself is at fault.
		return llm.ErrInvalid, true
	}
	return "", false
}

// statusKind classifies an HTTP status (http.StatusOK for errors inside a
// stream, where an error of unknown code means the server gave up on the
// response).
func statusKind(status int) llm.ErrorKind {
	switch status {
	case http.StatusOK:
		return llm.ErrServer
	case http.StatusConflict:
		// A transient lock conflict on the API's side; the SDKs retry it.
		return llm.ErrServer
	}
	return wire.StatusKind(status)
}

// errorMessage is the human-readable part of an error: "code: message",
// else the start of the raw body.
func errorMessage(code, typ, message, raw string) string {
	if message == "" {
		message = wire.Truncate(raw, 300)
	}
	if message == "" {
		return ""
	}
	if code == "" {
		code = typ
	}
	if code != "" && !strings.HasPrefix(message, code) {
		message = code + ": " + message
	}
	return message
}

// retryAfter is the server's requested delay (wire.RetryAfter). A 429
// without one falls back on OpenAI's x-ratelimit-reset-* header of the
// exhausted limit.
func retryAfter(h http.Header, status int, now time.Time) time.Duration {
	if d, ok := wire.RetryAfter(h, now); ok || status != http.StatusTooManyRequests {
		return d
	}
	return wire.RateLimitReset(h)
}
