package cli

import (
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
