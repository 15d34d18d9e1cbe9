package nova

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/anthropic"
	"github.com/novacode/nova/llm/openai"
	"github.com/novacode/nova/llm/openaichat"
)

// adapter is a protocol client that can also report context windows.
type adapter interface {
	llm.Client
	llm.WindowSource
}

// newAdapter builds the protocol client for ep. Retries are left to
// llm.WithRetry around it, one policy for every protocol.
func newAdapter(ep endpoint) adapter {
	switch ep.Provider {
	case providerOpenAI:
		return openai.New(openai.Options{APIKey: ep.APIKey, BaseURL: ep.BaseURL})
	case providerOpenAIChat:
		return openaichat.New(openaichat.Options{APIKey: ep.APIKey, BaseURL: ep.BaseURL})
	default:
		return anthropic.New(anthropic.Options{APIKey: ep.APIKey, BaseURL: ep.BaseURL, MaxRetries: -1})
	}
}

// newClient wraps the adapter in the retry, timeout and usage-estimate
// layers every protocol shares. Retries are announced in the stream
// (llm.Retrying), which the loop turns into retry events for whichever
// frontend runs: nothing here may write to the terminal the TUI owns.
func newClient(ep endpoint, s config.Settings) (llm.Client, adapter) {
	a := newAdapter(ep)
	var p llm.RetryPolicy
	if s.MaxRetries != nil {
		p.MaxRetries = *s.MaxRetries
		if p.MaxRetries == 0 {
			p.MaxRetries = -1 // "maxRetries": 0 in a file means none
		}
	}
	if t := s.Timeouts; t != nil {
		p.FirstEventTimeout = t.FirstEvent.Duration
		p.IdleTimeout = t.Idle.Duration
	}
	return llm.WithUsageEstimate(llm.WithRetry(a, p)), a
}

// modelInfo is the catalog entry for model with the settings' overrides.
func modelInfo(model string, s config.Settings) llm.ModelInfo {
	info, _ := llm.LookupModel(model)
	if p, ok := s.Prices[model]; ok {
		info.InputPrice, info.OutputPrice = p.Input, p.Output
		info.CacheReadPrice, info.CacheWritePrice = p.CacheRead, p.CacheWrite
	}
	if s.MaxOutputTokens != nil && *s.MaxOutputTokens > 0 {
		info.MaxOutputTokens = *s.MaxOutputTokens
	}
	return info
}

// thinkingConfig turns the settings and --effort into a request setting.
func thinkingConfig(s config.Settings, effort string) *llm.Thinking {
	t := s.Thinking
	switch {
	case effort != "":
		th := &llm.Thinking{Effort: effort}
		if t != nil {
			th.BudgetTokens = t.BudgetTokens
		}
		return th
	case t == nil:
		return nil
	case t.Enabled != nil && !*t.Enabled:
		return nil
	case t.Enabled != nil || t.BudgetTokens > 0 || t.Effort != "":
		return &llm.Thinking{BudgetTokens: t.BudgetTokens, Effort: t.Effort}
	}
	return nil
}

// modelResolver resolves models for a session that may switch between
// them (/model NAME) exactly as the CLI resolves the one it starts with.
type modelResolver struct {
	settings config.Settings
	windows  *llm.WindowResolver
	source   llm.WindowSource
	sourceID string // the endpoint's identity in windows' cache
	current  string // the model the session started with
}

// lookupTimeout bounds asking the endpoint for a context window; past it
// the catalog answers.
const lookupTimeout = 10 * time.Second

// resolve returns model's limits and prices (catalog and settings) and its
// context window (settings, else the endpoint, else the catalog).
func (m *modelResolver) resolve(ctx context.Context, model string) (llm.ModelInfo, int) {
	configured := 0
	if m.settings.ContextWindow != nil {
		configured = *m.settings.ContextWindow
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	w, _ := m.windows.Resolve(ctx, configured, m.source, m.sourceID, model)
	return modelInfo(model, m.settings), w
}

// known lists the models /model offers: the catalog's, those the settings
// price, and the one the session started with, each with what is known
// without asking the endpoint.
func (m *modelResolver) known() []ModelInfo {
	names := llm.CatalogModels()
	for n := range m.settings.Prices {
		names = append(names, n)
	}
	names = append(names, m.current)
	slices.Sort(names)
	var out []ModelInfo
	for _, n := range slices.Compact(names) {
		if n == "" {
			continue
		}
		info := modelInfo(n, m.settings)
		w := info.ContextWindow
		if m.settings.ContextWindow != nil && *m.settings.ContextWindow > 0 {
			w = *m.settings.ContextWindow
		}
		out = append(out, ModelInfo{Name: n, ContextWindow: w, InputPrice: info.InputPrice, OutputPrice: info.OutputPrice})
	}
	return out
}

// ModelInfo is what is known of a model: its context window in tokens and
// its prices in USD per million tokens (0 when unknown).
type ModelInfo struct {
	Name                    string
	ContextWindow           int
	InputPrice, OutputPrice float64
}

// Models lists the models the session knows without asking the endpoint:
// the catalog's, those the settings price, and the one in use.
func (s *Session) Models() []ModelInfo { return s.models.known() }

// SetModel switches the model for the rest of the session, resolved as at
// Open (catalog, the settings' prices and limits, the context window from
// the settings, the endpoint or the catalog). It waits for a Send running.
func (s *Session) SetModel(ctx context.Context, name string) (ModelInfo, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return ModelInfo{}, fmt.Errorf("%q is not a model name", name)
	}
	info, window := s.models.resolve(ctx, name)
	s.running.Lock()
	defer s.running.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.agent
	a.Model, a.ModelInfo = name, &info
	a.ContextWindow = func() int { return window }
	return ModelInfo{Name: name, ContextWindow: window, InputPrice: info.InputPrice, OutputPrice: info.OutputPrice}, nil
}
