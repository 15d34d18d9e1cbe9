package nova

import (
	"errors"
	"fmt"
	"net/url"

	"github.com/novacode/nova/internal/config"
)

// Provider names accepted by --provider and the "provider" setting.
const (
	providerAnthropic  = "anthropic"
	providerOpenAI     = "openai"
	providerOpenAIChat = "openai-chat"
)

// ValidProvider returns an error naming the providers unless name is one
// (or empty, which means the environment's and settings' choice), so that
// a caller can check a name before it opens a session with it.
func ValidProvider(name string) error {
	switch name {
	case "", providerAnthropic, providerOpenAI, providerOpenAIChat:
		return nil
	}
	return fmt.Errorf("unknown provider %q (available: anthropic, openai, openai-chat)", name)
}

// endpoint is the resolved choice of protocol, credentials and model.
type endpoint struct {
	Provider string
	APIKey   string
	BaseURL  string
	Model    string
}

var errNoProvider = errors.New("no model provider is configured: set ANTHROPIC_API_KEY (Anthropic), OPENAI_API_KEY (OpenAI), " +
	"or OPENAI_BASE_URL for an OpenAI-compatible server such as vLLM, Ollama or llama.cpp — " +
	"or put them in ~/.novacode/settings.json — and run again")

// chooseEndpoint picks the protocol and its settings. Precedence: flags, then
// environment variables, then settings files. With no explicit choice, the
// protocol follows whichever credentials exist.
func chooseEndpoint(flagProvider, flagModel string, s config.Settings, getenv func(string) string) (endpoint, error) {
	ep := func(name string) config.Endpoint { return s.Providers[name] }
	anthropicKey := first(getenv("ANTHROPIC_API_KEY"), ep(providerAnthropic).APIKey)
	openaiKey := first(getenv("OPENAI_API_KEY"), ep(providerOpenAI).APIKey, ep(providerOpenAIChat).APIKey)
	openaiBase := first(getenv("OPENAI_BASE_URL"), ep(providerOpenAI).BaseURL, ep(providerOpenAIChat).BaseURL)

	name := first(flagProvider, deref(s.Provider))
	if name == "" {
		switch {
		case anthropicKey != "":
			name = providerAnthropic
		case openaiBase != "" && !isOpenAIHost(openaiBase):
			// Compatible servers speak Chat Completions; few speak Responses.
			name = providerOpenAIChat
		case openaiKey != "":
			name = providerOpenAI
		default:
			return endpoint{}, errNoProvider
		}
	}

	var e endpoint
	switch name {
	case providerAnthropic:
		e = endpoint{Provider: name, APIKey: anthropicKey,
			BaseURL: first(getenv("ANTHROPIC_BASE_URL"), ep(name).BaseURL),
			Model:   first(flagModel, getenv("ANTHROPIC_MODEL"), deref(s.Model), "claude-sonnet-4-5")}
		if e.APIKey == "" {
			return e, errors.New("ANTHROPIC_API_KEY is not set; export your key (and ANTHROPIC_BASE_URL for a compatible endpoint) and run again")
		}
	case providerOpenAI, providerOpenAIChat:
		e = endpoint{Provider: name,
			APIKey:  first(getenv("OPENAI_API_KEY"), ep(name).APIKey, openaiKey),
			BaseURL: first(getenv("OPENAI_BASE_URL"), ep(name).BaseURL, openaiBase),
			Model:   first(flagModel, getenv("OPENAI_MODEL"), deref(s.Model))}
		if e.Model == "" {
			switch {
			case name == providerOpenAI:
				e.Model = "gpt-5"
			case e.BaseURL == "" || isOpenAIHost(e.BaseURL):
				e.Model = "gpt-4o-mini"
			default:
				return e, fmt.Errorf("name the model %s serves with --model (or OPENAI_MODEL, or \"model\" in settings)", e.BaseURL)
			}
		}
		if e.APIKey == "" && (e.BaseURL == "" || isOpenAIHost(e.BaseURL)) {
			return e, errors.New("OPENAI_API_KEY is not set; export your key (or OPENAI_BASE_URL for a local OpenAI-compatible server) and run again")
		}
	default:
		return endpoint{}, ValidProvider(name)
	}
	if e.BaseURL != "" {
		if u, err := url.Parse(e.BaseURL); err != nil || u.Scheme == "" || u.Host == "" {
			return e, fmt.Errorf("base URL %q is not a URL (want something like http://localhost:8000/v1)", e.BaseURL)
		}
	}
	return e, nil
}

func isOpenAIHost(base string) bool {
	u, err := url.Parse(base)
	return err == nil && (u.Host == "api.openai.com")
}

func first(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
