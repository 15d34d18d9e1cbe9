package openaichat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

var (
	// errProtocol is the cause of a chunk sequence or body the Chat
	// Completions protocol does not allow.
	errProtocol = errors.New("openaichat: stream protocol violation")
	// errStreamError is the cause of an error the provider reported inside
	// a 200 response (an error chunk, an `event: error`).
	errStreamError = errors.New("openaichat: provider error in the response")
)

// fromHTTPError maps an error status. Its body is parsed here in every
// dialect compatible servers send (see parseErrorBody), not only OpenAI's
// {"error":{…}}.
func fromHTTPError(se *wire.StatusError) *llm.Error {
	e, _ := parseErrorBody(se.Body)
	return &llm.Error{
		Kind:       httpKind(se.StatusCode, e),
		StatusCode: se.StatusCode,
		Message:    e.text(se.Body, se.StatusCode, requestID(se.Header)),
		RetryAfter: retryAfter(se.Header, time.Now()),
		Err:        se,
	}
}

// fromStreamError maps an error the provider sent inside a 200 response.
func fromStreamError(e apiError, raw []byte) *llm.Error {
	return &llm.Error{
		Kind:    streamKind(e),
		Message: e.text(raw, 0, ""),
		Err:     fmt.Errorf("%w: %s", errStreamError, wire.Truncate(string(bytes.TrimSpace(raw)), 300)),
	}
}

// apiError is what an error body says, whatever its dialect.
type apiError struct {
	Message string
	Type    string
	Code    string // OpenAI's code string, or a number as text
	Status  int    // an HTTP status carried in the body (numeric code), else 0
	Detail  string // upstream detail a router adds (OpenRouter metadata.raw)
}

// parseErrorBody reads the error shapes seen in the wild:
//
//	{"error":{"message":…,"type":…,"code":…}}   OpenAI, llama.cpp, Groq, OpenRouter
//	{"error":"…"}                               Ollama, xAI
//	{"object":"error","message":…,"code":400}   vLLM
//	{"detail":"…"}                              FastAPI-based servers
//	[{"error":{…}}]                             Google's compatibility layer
func parseErrorBody(b []byte) (apiError, bool) {
	var e apiError
	t := bytes.TrimSpace(b)
	if len(t) > 0 && t[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(t, &arr) != nil || len(arr) == 0 {
			return e, false
		}
		t = arr[0]
	}
	if len(t) == 0 || t[0] != '{' {
		return e, false
	}
	var top struct {
		Error   json.RawMessage `json:"error"`
		Message json.RawMessage `json:"message"`
		Detail  json.RawMessage `json:"detail"`
		Type    json.RawMessage `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(t, &top) != nil {
		return e, false
	}
	e.Message, e.Type = jsonText(top.Message), jsonText(top.Type)
	e.setCode(top.Code)
	if e.Message == "" {
		e.Message = jsonText(top.Detail)
	}
	if s := jsonText(top.Error); s != "" {
		e.Message = s
	} else if len(top.Error) > 0 && top.Error[0] == '{' {
		var inner struct {
			Message  json.RawMessage `json:"message"`
			Type     json.RawMessage `json:"type"`
			Code     json.RawMessage `json:"code"`
			Status   json.RawMessage `json:"status"`
			Metadata struct {
				Raw          json.RawMessage `json:"raw"`
				ProviderName string          `json:"provider_name"`
			} `json:"metadata"`
		}
		if json.Unmarshal(top.Error, &inner) == nil {
			e.Message, e.Type = jsonText(inner.Message), jsonText(inner.Type)
			e.setCode(inner.Code)
			// Google's layer adds "status":"INVALID_ARGUMENT" beside a
			// numeric code; it names the error like a type.
			if st := jsonText(inner.Status); e.Type == "" && st != "" {
				if _, err := strconv.Atoi(st); err != nil {
					e.Type = st
				}
			}
			if raw := jsonText(inner.Metadata.Raw); raw != "" {
				e.Detail = raw
				if p := inner.Metadata.ProviderName; p != "" {
					e.Detail = p + ": " + raw
				}
			}
		}
	}
	return e, e.Message != "" || e.Type != "" || e.Code != ""
}

// setCode records a code, which providers send as a string or a number; a
// number in the HTTP range is also taken as a status.
func (e *apiError) setCode(raw json.RawMessage) {
	s := jsonText(raw)
	if s == "" {
		return
	}
	e.Code = s
	if n, err := strconv.Atoi(s); err == nil && n >= 100 && n <= 599 {
		e.Status = n
	}
}

// jsonText returns a JSON string's value, a number's text, or "" for
// anything else. Raw objects (OpenRouter's metadata.raw is sometimes one)
// are returned compacted.
func jsonText(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch c := t[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(t, &s) == nil {
			return s
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return string(t)
	}
	return ""
}

// text is the human-readable message of an error: the provider's message
// (with its code or type in front), else the start of whatever body a proxy
// sent, else the status text. The request id is kept because support asks
// for it.
func (e apiError) text(body []byte, status int, reqID string) string {
	msg := e.Message
	if e.Detail != "" {
		msg += " (" + wire.Truncate(e.Detail, 300) + ")"
	}
	if msg == "" && e.Type == "" && e.Code == "" {
		msg = wire.Truncate(strings.TrimSpace(string(body)), 300)
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	label := e.Code
	if label == "" || e.Status != 0 {
		// A numeric code says no more than the status.
		label = e.Type
	}
	if label != "" && !strings.HasPrefix(msg, label) {
		if msg == "" {
			msg = label
		} else {
			msg = label + ": " + msg
		}
	}
	if reqID != "" {
		msg += " (request-id " + reqID + ")"
	}
	return msg
}

func requestID(h http.Header) string {
	if id := h.Get("X-Request-Id"); id != "" {
		return id
	}
	return h.Get("Request-Id")
}

// quotaExhausted is OpenAI's 429 for an account out of credit: retrying
// cannot help, so it is not reported as a rate limit.
func (e apiError) quotaExhausted() bool {
	return e.Code == "insufficient_quota" || e.Type == "insufficient_quota"
}

// httpKind classifies an error status, refined by what the body says.
func httpKind(status int, e apiError) llm.ErrorKind {
	if e.quotaExhausted() {
		return llm.ErrOther
	}
	kind := wire.StatusKind(status)
	if kind == llm.ErrServer && e.mentions("overloaded") {
		// OpenAI and several hosts answer 503 "overloaded".
		return llm.ErrOverloaded
	}
	return kind
}

// streamKind classifies an error reported inside a 200 stream, where only the
// body can tell: a numeric code (vLLM, OpenRouter) is read as a status, else
// the code or type names the kind. Unknown errors are server-side failures,
// which are worth another try.
func streamKind(e apiError) llm.ErrorKind {
	if e.quotaExhausted() {
		return llm.ErrOther
	}
	if e.Status != 0 {
		return httpKind(e.Status, e)
	}
	name := strings.ToLower(e.Code + " " + e.Type)
	switch {
	case strings.Contains(name, "overloaded"):
		return llm.ErrOverloaded
	case strings.Contains(name, "rate_limit"), strings.Contains(name, "too_many_requests"):
		return llm.ErrRateLimit
	case strings.Contains(name, "auth"), strings.Contains(name, "permission"), strings.Contains(name, "api_key"):
		return llm.ErrAuth
	case strings.Contains(name, "timeout"):
		return llm.ErrTimeout
	case strings.Contains(name, "invalid_request"), strings.Contains(name, "badrequest"),
		strings.Contains(name, "bad_request"), strings.Contains(name, "context_length"):
		return llm.ErrInvalid
	case e.mentions("overloaded"):
		return llm.ErrOverloaded
	}
	return llm.ErrServer
}

func (e apiError) mentions(word string) bool {
	return strings.Contains(strings.ToLower(e.Code+" "+e.Type+" "+e.Message), word)
}

// retryAfter is the server's requested delay (wire.RetryAfter), failing
// which OpenAI and Groq's x-ratelimit-reset-* header of the exhausted limit.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if d, ok := wire.RetryAfter(h, now); ok {
		return d
	}
	return wire.RateLimitReset(h)
}
