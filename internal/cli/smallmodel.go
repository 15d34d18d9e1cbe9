package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/novacode/nova/llm"
)

// Small, fast models of each provider, as the catalog names them: they
// write WebFetch's summaries of long pages.
const (
	smallAnthropic = "claude-haiku-4-5"
	smallOpenAI    = "gpt-5-mini"
)

// smallModel is the model for side tasks on ep: the provider's small model
// when the endpoint serves the provider's own models, else the main model.
// A main model the catalog does not know runs on a server of its own (vLLM,
// Ollama, a gateway), which may serve nothing else.
func smallModel(ep endpoint) string {
	if _, known := llm.LookupModel(ep.Model); !known {
		return ep.Model
	}
	switch {
	case ep.Provider == providerAnthropic:
		return smallAnthropic
	case ep.BaseURL == "" || isOpenAIHost(ep.BaseURL):
		return smallOpenAI
	}
	return ep.Model
}

// smallAnswerTokens bounds a side task's answer; reasoning models spend
// part of it thinking.
const smallAnswerTokens = 8192

// askModel returns a function that sends one prompt to model through client
// and returns the answer's text (tool.Env.AskModel).
func askModel(client llm.Client, model string) func(ctx context.Context, prompt string) (string, error) {
	return func(ctx context.Context, prompt string) (string, error) {
		req := &llm.Request{
			Model:     model,
			Messages:  []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: prompt}}}},
			MaxTokens: smallAnswerTokens,
		}
		var b strings.Builder
		ended := false
		for ev, err := range client.Stream(ctx, req) {
			if err != nil {
				return "", err
			}
			switch e := ev.(type) {
			case llm.TextDelta:
				b.WriteString(e.Text)
			case llm.StreamEnd:
				ended = true
			}
		}
		if !ended {
			return "", errors.New("the model's stream ended early")
		}
		return b.String(), nil
	}
}
