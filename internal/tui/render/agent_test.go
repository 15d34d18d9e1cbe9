package render

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

// agentCalls are a subagent's calls in every state a card shows.
var agentCalls = []AgentCall{
	{Name: "Bash", Input: mustJSON(map[string]string{"command": "sleep 1"})},
	{Name: "Read", Input: mustJSON(map[string]string{"file_path": "/repo/config/load.go"})},
	{Name: "Grep", Input: mustJSON(map[string]string{"pattern": "LoadConfig"}), IsError: true},
	{Name: "Bash", Input: mustJSON(map[string]string{"command": "go test ./config/..."}), Running: true},
}

const agentAnswer = "The config loader is config/load.go: LoadConfig reads three files.\n\n" +
	"1. /etc/app.toml\n2. ~/.config/app.toml\n3. ./app.toml\n\nLater files override earlier ones."

// agents is the set of subagent cards recorded as goldens.
var agents = map[string]Agent{
	"running": {Type: "Explore", Description: "Find the config loader", Running: true, Duration: 2300 * time.Millisecond,
		Turns: 2, CostUSD: 0.0123, Calls: agentCalls},
	"running_expanded": {Type: "Explore", Description: "Find the config loader", Running: true, Duration: 2300 * time.Millisecond,
		Turns: 2, CostUSD: 0.0123, Calls: agentCalls, Expanded: true},
	"waiting": {Type: "general-purpose", Description: "Clean the build", Running: true, Waiting: true, Duration: 4 * time.Second,
		Turns: 1, Calls: []AgentCall{{Name: "Bash", Input: mustJSON(map[string]string{"command": "rm -rf build"}), Running: true, Waiting: true}}},
	"done": {Type: "Explore", Description: "Find the config loader", Duration: 12400 * time.Millisecond,
		Turns: 3, CostUSD: 0.0456, Calls: agentCalls[:3], Result: agentAnswer},
	"done_expanded": {Type: "Explore", Description: "Find the config loader", Duration: 12400 * time.Millisecond,
		Turns: 3, CostUSD: 0.0456, Calls: agentCalls[:3], Result: agentAnswer, Expanded: true},
	"error": {Type: "general-purpose", Description: "Run the tests", Duration: 3 * time.Second, Turns: 1,
		Calls: agentCalls[3:], Result: "model call failed (overloaded, HTTP 529)", IsError: true},
	"background": {Type: "Explore", Description: "Survey the docs", Detached: true, Background: true,
		Turns: 1, Calls: agentCalls[1:2], Result: "Started agent a3 in the background."},
	"background_done": {Type: "Explore", Description: "Survey the docs", Detached: true, Duration: 10 * time.Millisecond,
		Turns: 4, Calls: agentCalls[:2], Result: "Docs live in docs/; the README links them."},
}

func TestAgentCardGolden(t *testing.T) {
	for name, a := range agents {
		for _, tc := range themes {
			golden(t, "agent_"+name+"_"+tc.name, tc.theme, width, AgentCard(tc.theme, width, a))
		}
	}
}

func TestAgentCard(t *testing.T) {
	th := NewTheme(true, true).WithWorkDir("/repo")
	bash := func(cmd string) AgentCall {
		return AgentCall{Name: "Bash", Input: mustJSON(map[string]string{"command": cmd})}
	}
	tests := []struct {
		name  string
		agent Agent
		width int
		want  string
	}{
		{"starting", Agent{Type: "Explore", Description: "Look", Running: true}, 80,
			"● Explore(Look) ⠋ 0ms\n  ⎿  starting…"},
		{"no type is a Task", Agent{Description: "Look", Running: true, Duration: 150 * time.Millisecond}, 80,
			"● Task(Look) ⠙ 150ms\n  ⎿  starting…"},
		{"last call, turns and cost", Agent{Type: "Explore", Description: "Look", Running: true, Duration: time.Second,
			Turns: 2, CostUSD: 0.5, Calls: []AgentCall{bash("ls"), bash("sleep 1")}}, 80,
			"● Explore(Look) ⠋ 1.0s\n  ⎿  Bash(sleep 1) · 2 turns · $0.5000"},
		{"a retry's note", Agent{Type: "Explore", Description: "Look", Running: true, Turns: 1, Note: "overloaded — retrying in 1.1 s (1/4)"}, 80,
			"● Explore(Look) ⠋ 0ms\n  ⎿  1 turn · overloaded — retrying in 1.1 s (1/4)"},
		{"a long call gives way to the turns", Agent{Type: "Explore", Description: "Look", Running: true, Turns: 12,
			Calls: []AgentCall{bash(strings.Repeat("x", 100))}}, 40,
			"● Explore(Look) ⠋ 0ms\n  ⎿  Bash(xxxxxxxxxxxxxxxxx…) · 12 turns"},
		{"the Task call itself is asked about", Agent{Type: "Explore", Description: "Look", Waiting: true}, 80,
			"● Explore(Look) · waiting for you"},
		{"a call of it is asked about", Agent{Type: "Explore", Description: "Look", Running: true, Waiting: true,
			Calls: []AgentCall{{Name: "Bash", Input: mustJSON(map[string]string{"command": "rm x"}), Running: true, Waiting: true}}}, 80,
			"● Explore(Look) ⠋ 0ms · waiting for you\n  ⎿  Bash(rm x)"},
		{"pending: no result yet", Agent{Type: "Explore", Description: "Look", Pending: true, Duration: 2 * time.Second, Turns: 2}, 80,
			"● Explore(Look) 2.0s\n  ⎿  Done · 2 turns"},
		{"done without text", Agent{Type: "Explore", Description: "Look", Duration: 2 * time.Second, Turns: 1}, 80,
			"● Explore(Look) 2.0s\n  ⎿  Done · 1 turn\n     (no output)"},
		{"cancelled", Agent{Type: "Explore", Description: "Look", Cancelled: true, Turns: 1,
			Calls: []AgentCall{{Name: "Bash", Input: mustJSON(map[string]string{"command": "sleep 9"}), Running: true}}, Expanded: true}, 80,
			"● Explore(Look)\n  ⎿  Cancelled · 1 turn · 1 tool call\n     ⊘ Bash(sleep 9)"},
		{"denied", Agent{Type: "Explore", Description: "Look", Denied: true, Result: "not now"}, 80,
			"● Explore(Look)\n  ⎿  Denied: not now"},
		{"running in the background", Agent{Type: "Explore", Description: "Look", Detached: true, Background: true,
			Duration: 10 * time.Millisecond, Calls: []AgentCall{bash("make")}}, 80,
			"● Explore(Look) · running in background\n  ⎿  Bash(make)"},
		{"ended in the background", Agent{Type: "Explore", Description: "Look", Detached: true,
			Duration: 10 * time.Millisecond, Turns: 2, Result: "found it"}, 80,
			"● Explore(Look)\n  ⎿  Done in background · 2 turns\n     found it"},
		{"paths relative to the work dir", Agent{Type: "Explore", Description: "Look", Running: true,
			Calls: []AgentCall{{Name: "Read", Input: mustJSON(map[string]string{"file_path": "/repo/a/b.go"})}}}, 80,
			"● Explore(Look) ⠋ 0ms\n  ⎿  Read(a/b.go)"},
		{"its own Task call by description", Agent{Type: "general-purpose", Description: "Look", Running: true,
			Calls: []AgentCall{{Name: "Task", Input: mustJSON(map[string]string{"description": "Dig deeper", "prompt": "…"})}}}, 80,
			"● general-purpose(Look) ⠋ 0ms\n  ⎿  Task(Dig deeper)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := AgentCard(th, tc.width, tc.agent)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("card (-want +got):\n%s", diff)
			}
			checkWidth(t, got, tc.width)
		})
	}
}

// Colour is additive: the dark theme's card is the NO_COLOR card plus SGR.
func TestAgentCardColourIsAdditive(t *testing.T) {
	for name, a := range agents {
		plain := AgentCard(NewTheme(true, true), width, a)
		if got := ansi.Strip(AgentCard(NewTheme(true, false), width, a)); got != plain {
			t.Errorf("%s: dark card without escapes differs:\n%s\nwant:\n%s", name, got, plain)
		}
	}
}

func TestMailLines(t *testing.T) {
	th := NewTheme(true, true)
	tests := []struct {
		width int
		lines []string
		want  string
	}{
		{80, []string{"bash_1 finished (exit 0)", "message from a2: hi"}, "↳ bash_1 finished (exit 0)\n↳ message from a2: hi"},
		{20, []string{"bash_1 finished (exit 0) after a long while"}, "↳ bash_1 finished (…"},
		{80, []string{"tabs\tand\nbreaks"}, "↳ tabs and breaks"},
	}
	for _, tc := range tests {
		got := MailLines(th, tc.width, tc.lines)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("width %d (-want +got):\n%s", tc.width, diff)
		}
	}
}

// TestAgentCardWidth: no line of a card is wider than asked, whatever the
// names, descriptions, calls and results.
func TestAgentCardWidth(t *testing.T) {
	long := strings.Repeat("word ", 40) + strings.Repeat("界", 60)
	hostile := Agent{Type: strings.Repeat("T", 90), Description: long, Turns: 123, CostUSD: 12.5, Note: long,
		Calls: []AgentCall{{Name: strings.Repeat("N", 100), Input: mustJSON(map[string]string{"command": long})}}, Result: long + "\n" + long}
	for _, th := range []Theme{NewTheme(true, false), NewTheme(true, true)} {
		for _, w := range []int{1, 3, 5, 8, 12, 20, 40, 80, 133} {
			for _, a := range agents {
				for _, exp := range []bool{false, true} {
					a.Expanded = exp
					checkWidth(t, AgentCard(th, w, a), w)
				}
			}
			for _, state := range []func(*Agent){
				func(a *Agent) { a.Running = true; a.Duration = time.Hour },
				func(a *Agent) { a.Running, a.Waiting = true, true },
				func(a *Agent) { a.Background, a.Detached = true, true },
				func(a *Agent) { a.IsError = true },
				func(a *Agent) { a.Expanded = true },
			} {
				a := hostile
				state(&a)
				got := AgentCard(th, w, a)
				checkWidth(t, got, w)
				if th.NoColor && strings.ContainsRune(got, '\x1b') {
					t.Errorf("NO_COLOR card holds an escape: %q", got)
				}
			}
			checkWidth(t, MailLines(th, w, []string{long}), w)
		}
	}
}
