package nova

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/llm"
)

// windowSource answers every context-window question with n.
type windowSource int

func (w windowSource) ContextWindow(context.Context, string) (int, error) { return int(w), nil }

// /model NAME resolves the model as the start does: the catalog's limits
// and prices with the settings' over them, the context window from the
// settings, else the endpoint, else the catalog; the agent uses all of it
// from the next run on.
func TestSetModel(t *testing.T) {
	window := 32_768
	tests := []struct {
		name     string
		settings config.Settings
		source   llm.WindowSource
		model    string
		want     ModelInfo
	}{
		{"catalog", config.Settings{}, nil, "claude-opus-4-5", ModelInfo{Name: "claude-opus-4-5", ContextWindow: 200_000, InputPrice: 5, OutputPrice: 25}},
		{"endpoint", config.Settings{}, windowSource(64_000), "qwen3-coder", ModelInfo{Name: "qwen3-coder", ContextWindow: 64_000}},
		{"settings", config.Settings{ContextWindow: &window, Prices: map[string]config.Price{"qwen3-coder": {Input: 0.1, Output: 0.2}}}, windowSource(64_000), "qwen3-coder",
			ModelInfo{Name: "qwen3-coder", ContextWindow: 32_768, InputPrice: 0.1, OutputPrice: 0.2}},
		{"unknown", config.Settings{}, nil, "mystery", ModelInfo{Name: "mystery", ContextWindow: 128_000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := &agent.Agent{Model: "claude-sonnet-4-5"}
			s := &Session{agent: a, models: &modelResolver{settings: tc.settings, windows: new(llm.WindowResolver), source: tc.source, current: "claude-sonnet-4-5"}}
			got, err := s.SetModel(context.Background(), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if a.Model != tc.model || a.ModelInfo == nil || a.ModelInfo.InputPrice != tc.want.InputPrice || a.ContextWindow() != tc.want.ContextWindow {
				t.Errorf("agent: model %q, info %+v, window %d", a.Model, a.ModelInfo, a.ContextWindow())
			}
		})
	}
	s := &Session{agent: &agent.Agent{}, models: &modelResolver{windows: new(llm.WindowResolver)}}
	if _, err := s.SetModel(context.Background(), "two words"); err == nil {
		t.Error("a name with a space was taken")
	}
}

func TestKnownModels(t *testing.T) {
	m := &modelResolver{settings: config.Settings{Prices: map[string]config.Price{"qwen3-coder": {Input: 0.1, Output: 0.2}}}, current: "my-finetune"}
	var names []string
	for _, k := range m.known() {
		names = append(names, k.Name)
		if k.Name == "claude-sonnet-4-5" && (k.ContextWindow != 200_000 || k.InputPrice != 3) {
			t.Errorf("claude-sonnet-4-5: %+v", k)
		}
	}
	want := append(llm.CatalogModels(), "my-finetune", "qwen3-coder")
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
