package llm

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestLookupModel(t *testing.T) {
	tests := []struct {
		model     string
		found     bool
		window    int
		maxOutput int
	}{
		{"claude-sonnet-4-20250514", true, 200_000, 64_000},
		{"claude-sonnet-4-5-20250929", true, 200_000, 64_000},
		{"claude-opus-4-1", true, 200_000, 32_000},
		{"gpt-4o-mini-2024-07-18", true, 128_000, 16_384},
		{"my-local-llama", false, DefaultModelInfo.ContextWindow, DefaultModelInfo.MaxOutputTokens},
	}
	for _, tc := range tests {
		m, found := LookupModel(tc.model)
		if found != tc.found || m.ContextWindow != tc.window || m.MaxOutputTokens != tc.maxOutput {
			t.Errorf("LookupModel(%q) = %+v, %v", tc.model, m, found)
		}
	}
	// Longest prefix wins: gpt-4o-mini is not priced as gpt-4o.
	mini, _ := LookupModel("gpt-4o-mini")
	full, _ := LookupModel("gpt-4o")
	if mini.InputPrice >= full.InputPrice {
		t.Error("gpt-4o-mini resolved to gpt-4o prices")
	}
}

func TestCost(t *testing.T) {
	m, _ := LookupModel("claude-sonnet-4-5")
	u := Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000, CacheReadTokens: 1_000_000, CacheWriteTokens: 1_000_000}
	if got, want := m.Cost(u), 3+15+0.3+3.75; fmt.Sprintf("%.4f", got) != fmt.Sprintf("%.4f", want) {
		t.Fatalf("cost = %v, want %v", got, want)
	}
	if u.PromptTokens() != 3_000_000 {
		t.Fatalf("prompt tokens = %d", u.PromptTokens())
	}
}

func TestErrorClassification(t *testing.T) {
	err := fmt.Errorf("stream: %w", &Error{Kind: ErrOverloaded, StatusCode: 529, Message: "busy"})
	if !IsRetryable(err) {
		t.Error("overloaded not retryable")
	}
	if IsRetryable(&Error{Kind: ErrAuth}) || IsRetryable(errors.New("x")) {
		t.Error("auth or plain error retryable")
	}
	if got := (&Error{Kind: ErrRateLimit, StatusCode: 429, Message: "slow down"}).Error(); got != "model call failed (rate_limit, HTTP 429): slow down" {
		t.Errorf("message = %q", got)
	}
}

func TestMessageHelpers(t *testing.T) {
	m := Message{Role: RoleAssistant, Content: []Block{
		{Type: BlockThinking, Text: "hidden"}, {Type: BlockText, Text: "a"},
		{Type: BlockToolUse, ToolUseID: "1"}, {Type: BlockText, Text: "b"},
	}}
	if m.Text() != "ab" || len(m.ToolCalls()) != 1 {
		t.Fatalf("Text %q calls %d", m.Text(), len(m.ToolCalls()))
	}
}

type windowFunc func(ctx context.Context, model string) (int, error)

func (f windowFunc) ContextWindow(ctx context.Context, model string) (int, error) {
	return f(ctx, model)
}

func TestResolveContextWindow(t *testing.T) {
	calls := 0
	endpoint := windowFunc(func(ctx context.Context, model string) (int, error) {
		calls++
		if model == "local-qwen" {
			return 32768, nil
		}
		return 0, errors.New("unreachable")
	})
	tests := []struct {
		configured int
		src        WindowSource
		model      string
		want       int
		from       string
	}{
		{100_000, endpoint, "local-qwen", 100_000, WindowFromConfig},
		{0, endpoint, "local-qwen", 32768, WindowFromEndpoint},
		{0, endpoint, "local-qwen", 32768, WindowFromEndpoint}, // cached
		{0, endpoint, "claude-sonnet-4-5", 200_000, WindowFromCatalog},
		{0, nil, "mystery", DefaultModelInfo.ContextWindow, WindowFromDefault},
	}
	for _, tc := range tests {
		got, from := ResolveContextWindow(context.Background(), tc.configured, tc.src, "test-endpoint", tc.model)
		if got != tc.want || from != tc.from {
			t.Errorf("%s (configured %d): %d from %s, want %d from %s", tc.model, tc.configured, got, from, tc.want, tc.from)
		}
	}
	if calls != 2 {
		t.Errorf("endpoint asked %d times, want 2 (one cached)", calls)
	}
}
