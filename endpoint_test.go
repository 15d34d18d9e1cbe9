package nova

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/internal/config"
)

func TestChooseEndpoint(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name      string
		flag      string
		model     string
		env       map[string]string
		settings  config.Settings
		want      endpoint
		wantError string
	}{
		{name: "anthropic key", env: map[string]string{"ANTHROPIC_API_KEY": "a"},
			want: endpoint{Provider: "anthropic", APIKey: "a", Model: "claude-sonnet-4-5"}},
		{name: "anthropic wins when both keys", env: map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"},
			want: endpoint{Provider: "anthropic", APIKey: "a", Model: "claude-sonnet-4-5"}},
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "o"},
			want: endpoint{Provider: "openai", APIKey: "o", Model: "gpt-5"}},
		{name: "local server", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1", "OPENAI_MODEL": "qwen3"},
			want: endpoint{Provider: "openai-chat", BaseURL: "http://localhost:11434/v1", Model: "qwen3"}},
		{name: "local server needs a model", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"},
			wantError: "name the model http://localhost:11434/v1 serves with --model"},
		{name: "flag beats env", flag: "openai-chat", model: "gpt-4.1", env: map[string]string{"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"},
			want: endpoint{Provider: "openai-chat", APIKey: "o", Model: "gpt-4.1"}},
		{name: "settings", settings: config.Settings{Provider: str("openai"), Model: str("o4-mini"),
			Providers: map[string]config.Endpoint{"openai": {APIKey: "s", BaseURL: "https://gw.example/v1"}}},
			want: endpoint{Provider: "openai", APIKey: "s", BaseURL: "https://gw.example/v1", Model: "o4-mini"}},
		{name: "env beats settings", env: map[string]string{"ANTHROPIC_API_KEY": "env", "ANTHROPIC_MODEL": "claude-opus-4-5"},
			settings: config.Settings{Model: str("claude-haiku-4-5"), Providers: map[string]config.Endpoint{"anthropic": {APIKey: "file"}}},
			want:     endpoint{Provider: "anthropic", APIKey: "env", Model: "claude-opus-4-5"}},
		{name: "nothing configured", wantError: "no model provider is configured"},
		{name: "openai without key", flag: "openai", wantError: "OPENAI_API_KEY is not set"},
		{name: "anthropic without key", flag: "anthropic", wantError: "ANTHROPIC_API_KEY is not set"},
		{name: "unknown", flag: "gemini", wantError: `unknown provider "gemini"`},
		{name: "bad URL", env: map[string]string{"OPENAI_BASE_URL": "localhost:8000", "OPENAI_MODEL": "m"}, flag: "openai-chat", wantError: "is not a URL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseEndpoint(tc.flag, tc.model, tc.settings, func(k string) string { return tc.env[k] })
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) {
					t.Fatalf("error = %v, want %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("endpoint (-want +got):\n%s", diff)
			}
		})
	}
}
