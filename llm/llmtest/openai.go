package llmtest

// This file holds what the two OpenAI formats (responses.go, chat.go) share:
// request options, error shapes, usage arithmetic and the models endpoint.

import (
	"net/http"
)

// openaiHead is the part of an OpenAI request body both formats read.
type openaiHead struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage       bool  `json:"include_usage"`
		IncludeObfuscation *bool `json:"include_obfuscation"`
	} `json:"stream_options"`
}

// model is the model a response claims unless the turn names one: the real
// API echoes the requested one (in a dated form).
func (h openaiHead) model() string {
	if h.Model != "" {
		return h.Model
	}
	return DefaultOpenAIModel
}

// obfuscate reports whether stream events carry the "obfuscation" padding
// field, which the real API adds unless the request turns it off.
func (h openaiHead) obfuscate() bool {
	return h.StreamOptions.IncludeObfuscation == nil || *h.StreamOptions.IncludeObfuscation
}

// padding is the value of an "obfuscation" field: filler that evens out the
// size of delta events so their length does not leak the token. The real
// API fills to 16 bytes with random characters; these are fixed so that
// streams are reproducible.
func padding(delta string) string {
	const filler = "Qx7vN2kLp9RtZs4W"
	return filler[:(16-len(delta)%16)%16]
}

// inputTokens is the OpenAI input (prompt) figure, which counts cache reads;
// cache writes have no OpenAI counterpart and are left out.
func inputTokens(t Turn) int64 { return t.Usage.InputTokens + t.Usage.CacheReadTokens }

// reasoningTokens estimates the part of the output tokens spent thinking,
// which OpenAI reports separately: a token per four bytes of thinking text
// (or redacted data), never more than the output tokens.
func reasoningTokens(t Turn) int64 {
	var n int64
	for _, b := range t.Blocks {
		switch b.Kind {
		case KindThinking:
			n += int64(len(b.Text)+3) / 4
		case KindRedactedThinking:
			n += int64(len(b.Data)+3) / 4
		}
	}
	return min(n, t.Usage.OutputTokens)
}

// openaiKind translates an error type as scripts write it (Anthropic's
// vocabulary) into the OpenAI error type and code of the same failure.
// Other values are taken as OpenAI types already and kept.
func openaiKind(typ string) (oType, code string) {
	switch typ {
	case "rate_limit_error":
		return "requests", "rate_limit_exceeded"
	case "overloaded_error", "api_error":
		return "server_error", ""
	case "authentication_error":
		return "invalid_request_error", "invalid_api_key"
	case "permission_error":
		return "request_forbidden", ""
	case "not_found_error":
		return "invalid_request_error", "model_not_found"
	case "request_too_large":
		return "invalid_request_error", ""
	}
	return typ, ""
}

// openaiErrorDefaults gives the error type, code and message the real API
// uses for status.
func openaiErrorDefaults(status int) (typ, code, msg string) {
	switch status {
	case 400:
		return "invalid_request_error", "", "Invalid request"
	case 401:
		return "invalid_request_error", "invalid_api_key", "Incorrect API key provided."
	case 403:
		// What a client outside OpenAI's supported regions gets.
		return "request_forbidden", "unsupported_country_region_territory", "Country, region, or territory not supported"
	case 404:
		return "invalid_request_error", "model_not_found", "The model does not exist or you do not have access to it."
	case 413:
		return "invalid_request_error", "", "Request too large."
	case 429:
		return "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again later."
	case 503, 529:
		return "server_error", "", "That model is currently overloaded with other requests. You can retry your request."
	}
	if status < 500 {
		return "invalid_request_error", "", http.StatusText(status)
	}
	return "server_error", "", "The server had an error while processing your request. Sorry about that!"
}

// openaiStatusError is the error response for t's error Status.
func openaiStatusError(t Turn) apiError {
	e := apiError{status: t.Status, retryAfter: t.RetryAfter}
	e.typ, e.code, e.msg = openaiErrorDefaults(t.Status)
	if t.ErrorType != "" {
		e.typ, e.code = openaiKind(t.ErrorType)
	}
	if t.ErrorCode != "" {
		e.code = t.ErrorCode
	}
	if t.ErrorMessage != "" {
		e.msg = t.ErrorMessage
	}
	return e
}

// openaiStreamErrorStatus is the error status that stands in for se when the
// answer is not streamed.
func openaiStreamErrorStatus(se StreamError) apiError {
	e := apiError{status: http.StatusInternalServerError, msg: se.Message}
	e.typ, e.code = openaiKind(se.Type)
	switch se.Type {
	case "overloaded_error":
		e.status = http.StatusServiceUnavailable
	case "rate_limit_error":
		e.status = http.StatusTooManyRequests
	}
	return e
}

// oError is the OpenAI error object, of error responses and Chat's
// in-stream error chunk.
type oError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func newOError(e apiError) oError {
	o := oError{Message: e.msg, Type: e.typ}
	if e.param != "" {
		o.Param = &e.param
	}
	if e.code != "" {
		o.Code = &e.code
	}
	return o
}

// writeOpenAIError writes an OpenAI-shaped JSON error response.
func writeOpenAIError(w http.ResponseWriter, e apiError) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.retryAfter != "" {
		h.Set("Retry-After", e.retryAfter)
	}
	w.WriteHeader(e.status)
	_, _ = w.Write(marshal(struct {
		Error oError `json:"error"`
	}{newOError(e)}))
}

// openaiModels answers GET /v1/models with the server's model list and
// GET /v1/models/{id} with one of its models.
func (s *Server) openaiModels(x *exchange) {
	models := s.Models()
	if id, ok := modelIDFromPath(x.r); ok {
		m, found := findModel(models, id)
		if !found {
			x.writeError(apiError{status: http.StatusNotFound, typ: "invalid_request_error", code: "model_not_found",
				param: "model", msg: "The model '" + id + "' does not exist"})
			return
		}
		x.writeJSON(newOModel(m))
		return
	}
	list := oModelList{Object: "list", Data: make([]oModel, len(models))}
	for i, m := range models {
		list.Data[i] = newOModel(m)
	}
	x.writeJSON(list)
}

func newOModel(m Model) oModel {
	return oModel{ID: m.ID, Object: "model", Created: factsOf(m.ID).created.Unix(), OwnedBy: "system", ContextLength: m.ContextWindow}
}

type oModelList struct {
	Object string   `json:"object"`
	Data   []oModel `json:"data"`
}

type oModel struct {
	ID            string `json:"id"`
	Object        string `json:"object"`
	Created       int64  `json:"created"`
	OwnedBy       string `json:"owned_by"`
	ContextLength int    `json:"context_length"`
}
