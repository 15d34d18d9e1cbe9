package tui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
)

// /model lists the known models; /model NAME switches through SetModel,
// off the UI goroutine, and the status line follows: the new name, and the
// context the conversation fills measured against the new window.
func TestModelCommand(t *testing.T) {
	var asked []string
	m := plainModel(Options{Model: "claude-sonnet-4-5", Mode: "default",
		Models: func() []ModelInfo {
			return []ModelInfo{
				{Name: "claude-sonnet-4-5", ContextWindow: 200_000, InputPrice: 3, OutputPrice: 15},
				{Name: "gpt-4.1", ContextWindow: 1_047_576, InputPrice: 2, OutputPrice: 8},
				{Name: "local", ContextWindow: 32_768},
			}
		},
		SetModel: func(_ context.Context, name string) (ModelInfo, error) {
			asked = append(asked, name)
			if name == "nope" {
				return ModelInfo{}, errors.New(`"nope" is not a model name`)
			}
			return ModelInfo{Name: name, ContextWindow: 400_000, InputPrice: 1.25, OutputPrice: 10}, nil
		},
	})
	defer m.Close()
	m.usage = event.Usage{Model: "claude-sonnet-4-5", Call: event.TokenCounts{InputTokens: 20_000}, ContextWindow: 200_000,
		Total: event.TokenCounts{InputTokens: 30_000, OutputTokens: 100}, CostUSD: 0.5}

	if cmd := m.submit("/model"); cmd != nil {
		t.Fatal("/model without a name ran a command")
	}
	want := "Model: claude-sonnet-4-5\nKnown models (/model NAME switches; any other name the endpoint serves works too):\n" +
		"  claude-sonnet-4-5 · 200k context · $3/$15 per Mtok in/out\n" +
		"  gpt-4.1 · 1.04M context · $2/$8 per Mtok in/out\n" +
		"  local · 32k context"
	if diff := cmp.Diff(want, lastText(m)); diff != "" {
		t.Errorf("/model (-want +got):\n%s", diff)
	}

	cmd := m.submit("/model gpt-5")
	if cmd == nil {
		t.Fatal("/model gpt-5 did not switch")
	}
	m.Update(cmd())
	if diff := cmp.Diff("Model: gpt-5 · 400k context · $1.25/$10 per Mtok in/out — from the next prompt on", lastText(m)); diff != "" {
		t.Errorf("after the switch (-want +got):\n%s", diff)
	}
	status := m.r.Status(200, m.status())
	if !strings.HasPrefix(status, "gpt-5 · default · ctx 5% · ") || !strings.Contains(status, "$0.5000") {
		t.Errorf("status line after the switch: %q", status)
	}

	m.Update(m.submit("/model nope")())
	if got := lastText(m); got != `/model: "nope" is not a model name` {
		t.Errorf("a refused switch: %q", got)
	}
	if m.model != "gpt-5" {
		t.Errorf("a refused switch changed the model to %q", m.model)
	}

	m.busy = true
	if cmd := m.submit("/model claude-opus-4-5"); cmd != nil {
		t.Error("switched during a run")
	}
	if got := lastText(m); got != "/model: wait for the run to finish" {
		t.Errorf("during a run: %q", got)
	}
	if diff := cmp.Diff([]string{"gpt-5", "nope"}, asked); diff != "" {
		t.Errorf("SetModel calls (-want +got):\n%s", diff)
	}
}

// /hooks shows what the CLI says about the hooks.
func TestHooksCommand(t *testing.T) {
	m := plainModel(Options{Model: "m", Mode: "default", Hooks: func() string { return "Hooks:\n  PreToolUse Bash ./check.sh" }})
	defer m.Close()
	if cmd := m.submit("/hooks"); cmd != nil {
		t.Fatal("/hooks ran a command")
	}
	if got := lastText(m); got != "Hooks:\n  PreToolUse Bash ./check.sh" {
		t.Errorf("/hooks: %q", got)
	}
	m = plainModel(Options{Model: "m", Mode: "default"})
	defer m.Close()
	m.submit("/hooks")
	if got := lastText(m); got != "/hooks is not available" {
		t.Errorf("/hooks without Hooks: %q", got)
	}
}
