package nova

import (
	"context"
	"errors"
	"strings"
	"sync"

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

// askModel returns a function that sends one prompt to model and returns
// the answer's text (tool.Env.AskModel). newClient makes its client on first
// use: a client of its own, with the main one's retries and timeouts, since
// an adapter keeps the encoding of the latest request's messages for the
// next, and a side request through the conversation's client would make
// its next request encode the whole history again.
func askModel(newClient func() llm.Client, model string) func(ctx context.Context, prompt string) (string, error) {
	client := sync.OnceValue(newClient)
	return func(ctx context.Context, prompt string) (string, error) {
		req := &llm.Request{
			Model:     model,
			Messages:  []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: prompt}}}},
			MaxTokens: smallAnswerTokens,
		}
		var b strings.Builder
		ended := false
		for ev, err := range client().Stream(ctx, req) {
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
