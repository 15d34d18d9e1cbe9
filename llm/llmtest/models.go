package llmtest

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Model is one entry of the models endpoints (GET …/models and
// GET …/models/{id}). Both API shapes report the same list: Anthropic's as
// max_input_tokens and max_tokens, OpenAI's as a context_length extension
// field (the real OpenAI API reports no limits; OpenAI-compatible servers
// such as OpenRouter's do).
type Model struct {
	ID            string `json:"id"`
	ContextWindow int    `json:"context_window"`
	MaxOutput     int    `json:"max_output"`
}

// DefaultModels returns the list a new server reports: three current Claude
// models and two OpenAI ones, with their real limits.
func DefaultModels() []Model {
	return []Model{
		{ID: "claude-sonnet-4-5", ContextWindow: 200_000, MaxOutput: 64_000},
		{ID: "claude-opus-4-5", ContextWindow: 200_000, MaxOutput: 64_000},
		{ID: "claude-haiku-4-5", ContextWindow: 200_000, MaxOutput: 64_000},
		{ID: "gpt-5", ContextWindow: 400_000, MaxOutput: 128_000},
		{ID: "gpt-4o-mini", ContextWindow: 128_000, MaxOutput: 16_384},
	}
}

// SetModels replaces the list the models endpoints report, in order; an
// empty list makes them report none. Extend [DefaultModels] to keep the
// defaults.
func (s *Server) SetModels(models []Model) {
	s.mu.Lock()
	s.models = slices.Clone(models)
	s.mu.Unlock()
}

// Models returns a copy of the list the models endpoints report.
func (s *Server) Models() []Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.models)
}

func findModel(models []Model, id string) (Model, bool) {
	i := slices.IndexFunc(models, func(m Model) bool { return m.ID == id })
	if i < 0 {
		return Model{}, false
	}
	return models[i], true
}

// modelIDFromPath returns the {id} of a GET …/models/{id} request; ok is
// false for the list, …/models. The escaped path is split so that an ID
// holding an escaped slash ("openai%2Fgpt-5", as gateways name models)
// stays whole.
func modelIDFromPath(r *http.Request) (id string, ok bool) {
	p := r.URL.EscapedPath()
	i := strings.LastIndex(p, "/models/")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimSuffix(p[i+len("/models/"):], "/")
	if rest == "" {
		return "", false
	}
	id, err := url.PathUnescape(rest)
	if err != nil {
		return rest, true
	}
	return id, true
}

// modelFacts are the release details the models endpoints report for the
// models they know; others get their ID as display name and a fixed date.
type modelFacts struct {
	display string
	created time.Time
}

func factsOf(id string) modelFacts {
	date := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	switch id {
	case "claude-sonnet-4-5":
		return modelFacts{"Claude Sonnet 4.5", date(2025, 9, 29)}
	case "claude-opus-4-5":
		return modelFacts{"Claude Opus 4.5", date(2025, 11, 24)}
	case "claude-haiku-4-5":
		return modelFacts{"Claude Haiku 4.5", date(2025, 10, 15)}
	case "gpt-5":
		return modelFacts{"GPT-5", date(2025, 8, 7)}
	case "gpt-4o-mini":
		return modelFacts{"GPT-4o mini", date(2024, 7, 18)}
	}
	return modelFacts{id, date(2025, 1, 1)}
}
