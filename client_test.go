package nova

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/llm"
)

func TestThinkingConfig(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name     string
		settings *config.Thinking
		effort   string
		want     *llm.Thinking
	}{
		{"nothing", nil, "", nil},
		{"flag", nil, "high", &llm.Thinking{Effort: "high"}},
		{"flag keeps the configured budget", &config.Thinking{BudgetTokens: 5000, Effort: "low"}, "high", &llm.Thinking{BudgetTokens: 5000, Effort: "high"}},
		{"enabled", &config.Thinking{Enabled: &yes}, "", &llm.Thinking{}},
		{"disabled wins over budget", &config.Thinking{Enabled: &no, BudgetTokens: 5000}, "", nil},
		{"budget implies on", &config.Thinking{BudgetTokens: 5000}, "", &llm.Thinking{BudgetTokens: 5000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := thinkingConfig(config.Settings{Thinking: tc.settings}, tc.effort)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestModelInfoOverrides(t *testing.T) {
	out := 4096
	s := config.Settings{MaxOutputTokens: &out, Prices: map[string]config.Price{"claude-sonnet-4-5": {Input: 1, Output: 2, CacheRead: 0.5, CacheWrite: 0.25}}}
	got := modelInfo("claude-sonnet-4-5", s)
	if got.InputPrice != 1 || got.OutputPrice != 2 || got.CacheReadPrice != 0.5 || got.CacheWritePrice != 0.25 || got.MaxOutputTokens != 4096 || got.ContextWindow != 200_000 {
		t.Fatalf("info = %+v", got)
	}
	if base := modelInfo("claude-opus-4-5", s); base.InputPrice != 5 {
		t.Fatalf("price of another model changed: %+v", base)
	}
}
