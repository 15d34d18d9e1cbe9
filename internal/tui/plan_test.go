package tui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// A plan's request shows the plan in the timeline and the plan's three
// choices; each answer is the decision its choice stands for, an approval
// shows the new mode in the status line, keep planning sends the typed
// feedback.
func TestPlanDialog(t *testing.T) {
	const plan = "# Plan\n\n1. Rename `main`\n2. Add a test"
	cases := []struct {
		name     string
		keys     func(m *Model)
		want     event.Decision
		wantMode string
		wantNote string
	}{
		{"enter approves with acceptEdits", func(m *Model) { press(m, key(tea.KeyEnter)) },
			event.Decision{Behavior: event.Allow, Mode: "acceptEdits"}, "acceptEdits", "Plan approved. Permission mode: acceptEdits"},
		{"2 approves with default", func(m *Model) { press(m, key('2'), key(tea.KeyEnter)) },
			event.Decision{Behavior: event.Allow, Mode: "default"}, "default", "Plan approved. Permission mode: default"},
		{"keep planning with feedback", func(m *Model) {
			press(m, key(tea.KeyUp))
			typeText(m, "split step 2")
			press(m, key(tea.KeyEnter))
		}, event.Decision{Behavior: event.Deny, Message: "split step 2"}, "plan", "Keep planning: split step 2"},
		{"down twice, no words", func(m *Model) { press(m, key(tea.KeyDown), key(tea.KeyDown), key(tea.KeyEnter)) },
			event.Decision{Behavior: event.Deny}, "plan", "Keep planning"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := plainModel(Options{Mode: "plan"})
			defer m.Close()
			m.busy = true
			m.handleEvent(event.ToolUse{Turn: 1, ID: "p", Name: "ExitPlanMode", Input: json.RawMessage(`{"plan":"# Plan"}`)})
			reply := event.NewReply()
			m.handleEvent(event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "p", Name: "ExitPlanMode",
				Input: json.RawMessage(`{"plan":"# Plan"}`), Reason: "the plan needs your approval", Choices: event.PlanChoices, Plan: plan}, reply))
			scr := m.Screen()
			for _, want := range []string{"The model's plan, for your approval:", "1. Rename `main`", "2. Add a test",
				"Approve the plan above?", "❯ 1. Yes, and accept edits", "  2. Yes, and ask before each edit", "  3. No, keep planning"} {
				if !strings.Contains(scr, want) {
					t.Errorf("screen lacks %q:\n%s", want, scr)
				}
			}
			if strings.Contains(scr, "Allow once") {
				t.Errorf("the call's choices are shown for a plan:\n%s", scr)
			}
			c.keys(m)
			select {
			case d := <-reply.C():
				if diff := cmp.Diff(c.want, d); diff != "" {
					t.Error(diff)
				}
			default:
				t.Fatal("no decision")
			}
			if m.perm != nil || m.input.Value() != "" {
				t.Error("dialog or feedback left behind")
			}
			if m.mode != c.wantMode {
				t.Errorf("mode %q, want %q", m.mode, c.wantMode)
			}
			if !strings.Contains(m.Screen(), c.wantNote) {
				t.Errorf("no %q:\n%s", c.wantNote, m.Screen())
			}
		})
	}
}

// Shift+Tab cycles the modes with a plan's dialog open, as without.
func TestShiftTabWithAPlanOpen(t *testing.T) {
	modes := []string{"default", "acceptEdits", "plan"}
	i := 2
	m := plainModel(Options{Mode: "plan", ModeCycle: func() string { i = (i + 1) % 3; return modes[i] }})
	defer m.Close()
	m.handleEvent(event.NewPermissionRequest(event.PermissionRequest{ID: "p", Name: "ExitPlanMode", Input: json.RawMessage(`{}`),
		Choices: event.PlanChoices, Plan: "x"}, event.NewReply()))
	press(m, key(tea.KeyTab, tea.ModShift))
	if m.mode != "default" || m.perm == nil {
		t.Fatalf("mode %q, dialog open %v", m.mode, m.perm != nil)
	}
}

// A request without a plan (an empty plan file) says so.
func TestEmptyPlan(t *testing.T) {
	m := plainModel(Options{Mode: "plan"})
	defer m.Close()
	m.handleEvent(event.NewPermissionRequest(event.PermissionRequest{ID: "p", Name: "ExitPlanMode", Input: json.RawMessage(`{}`),
		Choices: event.PlanChoices}, event.NewReply()))
	if !strings.Contains(m.Screen(), "The model gave no plan") {
		t.Errorf("an empty plan is not said:\n%s", m.Screen())
	}
}
