package nova

import (
	"context"
	"strings"
	"testing"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

func TestSmallModel(t *testing.T) {
	tests := []struct {
		ep   endpoint
		want string
	}{
		{endpoint{Provider: providerAnthropic, Model: "claude-sonnet-4-5"}, smallAnthropic},
		{endpoint{Provider: providerAnthropic, Model: "claude-opus-4-5-20251101", BaseURL: "https://gateway.example/anthropic"}, smallAnthropic},
		{endpoint{Provider: providerAnthropic, Model: "glm-4.6", BaseURL: "https://compatible.example"}, "glm-4.6"},
		{endpoint{Provider: providerOpenAI, Model: "gpt-5"}, smallOpenAI},
		{endpoint{Provider: providerOpenAIChat, Model: "gpt-4o", BaseURL: "https://api.openai.com/v1"}, smallOpenAI},
		{endpoint{Provider: providerOpenAIChat, Model: "gpt-4o", BaseURL: "http://localhost:8000/v1"}, "gpt-4o"},
		{endpoint{Provider: providerOpenAIChat, Model: "qwen3-coder", BaseURL: "http://localhost:11434/v1"}, "qwen3-coder"},
	}
	for _, tt := range tests {
		if got := smallModel(tt.ep); got != tt.want {
			t.Errorf("smallModel(%+v) = %q, want %q", tt.ep, got, tt.want)
		}
	}
	for _, m := range []string{smallAnthropic, smallOpenAI} {
		if _, ok := llm.LookupModel(m); !ok {
			t.Errorf("%s is not in the model catalog", m)
		}
	}
}

// TestAskModel: the small model gets the prompt alone, through the same
// client stack as the main model, in each protocol.
func TestAskModel(t *testing.T) {
	for _, provider := range []string{providerAnthropic, providerOpenAI, providerOpenAIChat} {
		t.Run(provider, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("The page says "), llmtest.Text("hello.")}})
			defer srv.Close()
			base := srv.URL
			if provider != providerAnthropic {
				base += "/v1"
			}
			made := 0
			ask := askModel(func() llm.Client {
				made++
				c, _ := newClient(endpoint{Provider: provider, APIKey: "k", BaseURL: base, Model: "claude-sonnet-4-5"}, config.Settings{})
				return c
			}, "claude-haiku-4-5")
			if made != 0 {
				t.Error("the client was made before it was needed")
			}
			got, err := ask(context.Background(), "What does the page say?")
			if err != nil {
				t.Fatal(err)
			}
			if got != "The page says hello." || made != 1 {
				t.Errorf("answer %q (%d clients made)", got, made)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			body := reqs[0].JSON()
			if body["model"] != "claude-haiku-4-5" || !strings.Contains(string(reqs[0].Body), "What does the page say?") {
				t.Errorf("request %s", reqs[0].Body)
			}
			if _, ok := body["tools"]; ok {
				t.Errorf("the small model was offered tools: %s", reqs[0].Body)
			}
		})
	}

	srv := llmtest.NewServer(llmtest.Turn{Status: 400})
	defer srv.Close()
	client, _ := newClient(endpoint{Provider: providerAnthropic, APIKey: "k", BaseURL: srv.URL, Model: "m"}, config.Settings{})
	if _, err := askModel(func() llm.Client { return client }, "m")(context.Background(), "p"); err == nil {
		t.Error("an error response gave no error")
	}
}
