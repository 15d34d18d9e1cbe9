package tui

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// childOf wraps e as an event of the subagent that Task call parent
// started.
func childOf(parent string, e event.Event) event.Child {
	return event.Child{ParentToolUseID: parent, AgentID: "agent-" + parent, Event: e}
}

// taskCall is a Task call that starts a subagent.
func taskCall(id, typ, desc string, background bool) event.ToolUse {
	in, _ := json.Marshal(map[string]any{"description": desc, "prompt": "Do it.", "subagent_type": typ, "run_in_background": background})
	return event.ToolUse{Turn: 1, ID: id, Name: "Task", Input: in}
}

func input(s string) json.RawMessage { return json.RawMessage(s) }

// subagentModel is a plain model at 80×50 in the middle of a run, its
// clock stopped at *now.
func subagentModel(t *testing.T, now *time.Time) *Model {
	t.Helper()
	*now = time.Unix(1000, 0)
	timeNow = func() time.Time { return *now }
	t.Cleanup(func() { timeNow = time.Now })
	m := plainModel(Options{Model: "parent-model", Mode: "default"})
	t.Cleanup(m.Close)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 50})
	m.busy, m.runStart = true, *now
	return m
}

// feed hands the model events as the run's goroutine does, then a frame
// tick, which refreshes the live cards.
func feed(m *Model, evs ...event.Event) {
	for _, e := range evs {
		m.Update(eventMsg{ev: e, gen: m.gen})
	}
	m.Update(frameMsg{})
}

// Three Task calls run at once; their subagents' events come interleaved.
// Each card shows its own subagent's last call, turns and cost while it
// runs, and its status, turns, cost and final text once done; ctrl+o lists
// the calls. Nothing a subagent says reaches the answer, and its usage
// leaves the status line alone. A background subagent stays "running in
// background" until the Mailbox reports its end.
func TestSubagentCards(t *testing.T) {
	var now time.Time
	m := subagentModel(t, &now)
	parentUsage := event.Usage{Turn: 1, Model: "parent-model", Call: event.TokenCounts{InputTokens: 1000, OutputTokens: 40},
		Total: event.TokenCounts{InputTokens: 1000, OutputTokens: 40}, CostUSD: 0.005, ContextWindow: 200000}
	const parentStatus = "parent-model · default · ctx 0% · 1000 in / 40 out · cache 0% · $0.0050"
	final := "The loader is config/load.go.\n\nIt reads three files:\n/etc/app.toml\n~/.config/app.toml\n./app.toml"
	steps := []struct {
		name     string
		events   []event.Event
		advance  time.Duration
		expanded bool
		want     []string // lines of the screen, each found in order
		absent   []string
	}{
		{
			name: "three cards start",
			events: []event.Event{
				event.StreamText{Turn: 1, Text: "I'll split this three ways."},
				parentUsage,
				taskCall("a1", "Explore", "Find the config loader", false),
				taskCall("a2", "general-purpose", "Check the tests", false),
				taskCall("a3", "Explore", "Survey the docs", true),
			},
			advance: 500 * time.Millisecond,
			want: []string{
				"I'll split this three ways.",
				"● Explore(Find the config loader) ⠴ 500ms",
				"  ⎿  starting…",
				"● general-purpose(Check the tests) ⠴ 500ms",
				"  ⎿  starting…",
				"● Explore(Survey the docs) ⠴ 500ms",
			},
		},
		{
			name: "children interleave",
			events: []event.Event{
				childOf("a1", event.ThinkingText{Turn: 1, Text: "CHILD-THINKING"}),
				childOf("a1", event.ToolUse{Turn: 1, ID: "c1", Name: "Bash", Input: input(`{"command":"sleep 1"}`)}),
				childOf("a2", event.StreamText{Turn: 1, Text: "CHILD-TEXT"}),
				childOf("a2", event.ToolUse{Turn: 1, ID: "c2", Name: "Read", Input: input(`{"file_path":"a.go"}`)}),
				childOf("a1", event.ToolDone{Turn: 1, ID: "c1", Name: "Bash", DurationMS: 1000}),
				childOf("a1", event.ToolResult{Turn: 1, ID: "c1", Name: "Bash", Content: "CHILD-TOOL-OUTPUT", DurationMS: 1000}),
				childOf("a1", event.Usage{Turn: 1, Model: "child-model", Total: event.TokenCounts{InputTokens: 90000, OutputTokens: 900}, CostUSD: 0.01, ContextWindow: 1000}),
				childOf("a1", event.TurnComplete{Turn: 1, StopReason: "tool_use"}),
				childOf("a3", event.ToolUse{Turn: 1, ID: "c3", Name: "Glob", Input: input(`{"pattern":"docs/**"}`)}),
				childOf("a1", event.ToolUse{Turn: 2, ID: "c4", Name: "Bash", Input: input(`{"command":"go test ./config/..."}`)}),
				childOf("a1", event.Usage{Turn: 2, Model: "child-model", CostUSD: 0.02}),
				childOf("a2", event.Usage{Turn: 1, Model: "child-model", CostUSD: 0.003}),
				childOf("a2", event.StreamText{Turn: 1, Text: "MORE-CHILD-TEXT"}),
			},
			advance: time.Second,
			want: []string{
				"I'll split this three ways.",
				"● Explore(Find the config loader) ⠴ 1.5s",
				"  ⎿  Bash(go test ./config/...) · 2 turns · $0.0200",
				"● general-purpose(Check the tests) ⠴ 1.5s",
				"  ⎿  Read(a.go) · 1 turn · $0.0030",
				"● Explore(Survey the docs) ⠴ 1.5s",
				"  ⎿  Glob(pattern: \"docs/**\")",
			},
			absent: []string{"CHILD", "child-model"},
		},
		{
			name:     "ctrl+o lists each subagent's calls",
			expanded: true,
			want: []string{
				"● Explore(Find the config loader) ⠴ 1.5s",
				"  ⎿  ✓ Bash(sleep 1)",
				"     ○ Bash(go test ./config/...)",
				"     2 turns · $0.0200",
				"● general-purpose(Check the tests) ⠴ 1.5s",
				"  ⎿  ○ Read(a.go)",
				"     1 turn · $0.0030",
				"● Explore(Survey the docs) ⠴ 1.5s",
				"  ⎿  ○ Glob(pattern: \"docs/**\")",
			},
			absent: []string{"CHILD"},
		},
		{
			name: "they end; the background one goes on",
			events: []event.Event{
				childOf("a1", event.ToolDone{Turn: 2, ID: "c4", Name: "Bash", IsError: true}),
				childOf("a1", event.TurnComplete{Turn: 2, StopReason: "tool_use"}),
				childOf("a1", event.StreamText{Turn: 3, Text: "CHILD-FINAL-TEXT"}),
				childOf("a1", event.Usage{Turn: 3, Model: "child-model", CostUSD: 0.03}),
				childOf("a1", event.LoopComplete{Reason: event.ReasonDone, Turns: 3, FinalText: "CHILD-FINAL-TEXT", CostUSD: 0.03}),
				event.ToolDone{Turn: 1, ID: "a1", Name: "Task", DurationMS: 2500},
				childOf("a2", event.LoopComplete{Reason: event.ReasonError, Error: "CHILD-ERROR", Turns: 1}),
				event.ToolDone{Turn: 1, ID: "a2", Name: "Task", IsError: true, DurationMS: 2600},
				event.ToolDone{Turn: 1, ID: "a3", Name: "Task", DurationMS: 12},
				event.ToolResult{Turn: 1, ID: "a1", Name: "Task", Content: final, DurationMS: 2500,
					Subagent: &event.SubagentRun{AgentID: "agent-a1", AgentType: "Explore", Turns: 3, CostUSD: 0.0345}},
				event.ToolResult{Turn: 1, ID: "a2", Name: "Task", Content: "subagent failed: model call failed", IsError: true, DurationMS: 2600,
					Subagent: &event.SubagentRun{AgentID: "agent-a2", AgentType: "general-purpose", Turns: 1, CostUSD: 0.003}},
				event.ToolResult{Turn: 1, ID: "a3", Name: "Task", Content: "Started agent-a3 in the background.", DurationMS: 12,
					Subagent: &event.SubagentRun{AgentID: "agent-a3", AgentType: "Explore", Background: true}},
				childOf("a3", event.Usage{Turn: 1, Model: "child-model", CostUSD: 0.001}),
				event.TurnComplete{Turn: 1, StopReason: "tool_use"},
			},
			want: []string{
				"● Explore(Find the config loader) 2.5s",
				"  ⎿  Done · 3 turns · 2 tool calls · $0.0345",
				"     The loader is config/load.go.",
				"     It reads three files:",
				"     /etc/app.toml",
				"     … +2 lines (ctrl+o to expand)",
				"● general-purpose(Check the tests) 2.6s",
				"  ⎿  Error · 1 turn · 1 tool call · $0.0030",
				"     subagent failed: model call failed",
				"● Explore(Survey the docs) · running in background",
				"  ⎿  Glob(pattern: \"docs/**\") · 1 turn · $0.0010",
			},
			absent: []string{"CHILD", "Started agent-a3"},
		},
		{
			name: "the mailbox reports the ends of background work",
			events: []event.Event{
				event.Mailbox{Turn: 2, Items: []event.MailItem{
					{Kind: "command", From: "bash_1", Text: "bash_1 finished (exit 0)\nOutput: /tmp/bash_1.out"},
					{Kind: "agent", From: "agent-a3", Text: "Docs live in docs/.\nThe README links them."},
				}},
				event.StreamText{Turn: 2, Text: "All three are back."},
			},
			want: []string{
				"● Explore(Survey the docs)",
				"  ⎿  Done in background · 1 turn · 1 tool call · $0.0010",
				"     Docs live in docs/.",
				"     The README links them.",
				"↳ bash_1 finished (exit 0)",
				"↳ Explore (Survey the docs): Docs live in docs/.",
				"All three are back.",
			},
			absent: []string{"running in background", "Output: /tmp"},
		},
	}
	for _, st := range steps {
		feed(m, st.events...)
		now = now.Add(st.advance)
		m.Update(frameMsg{})
		if m.expanded != st.expanded {
			press(m, key('o', tea.ModCtrl))
		}
		lines := screenLines(m)
		if got := lines[len(lines)-1]; !strings.HasPrefix(got, parentStatus) {
			t.Errorf("%s: status line %q, want the parent's totals %q", st.name, got, parentStatus)
		}
		if missing := inOrder(lines, st.want); missing != "" {
			t.Errorf("%s: screen lacks %q (in order):\n%s", st.name, missing, strings.Join(lines, "\n"))
		}
		for _, a := range st.absent {
			if s := m.Screen(); strings.Contains(s, a) {
				t.Errorf("%s: screen shows %q:\n%s", st.name, a, s)
			}
		}
	}
	// The answer is the parent's alone: two text blocks, its own words.
	var answers []string
	for _, b := range m.blocks {
		if b.kind == kindText || b.kind == kindThinking {
			answers = append(answers, b.text.String())
		}
	}
	if diff := cmp.Diff([]string{"I'll split this three ways.", "All three are back."}, answers); diff != "" {
		t.Errorf("answer blocks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(parentUsage, m.usage); diff != "" {
		t.Errorf("the status line's usage changed with a subagent's (-parent +got):\n%s", diff)
	}
	golden(t, "subagents.golden", ansi.Strip(m.Screen()))
}

// inOrder returns the first of want not found in lines after the ones
// before it, "" when all are.
func inOrder(lines, want []string) string {
	i := 0
	for _, w := range want {
		j := slices.IndexFunc(lines[i:], func(l string) bool { return strings.TrimRight(l, " ") == w })
		if j < 0 {
			return w
		}
		i += j + 1
	}
	return ""
}

// A subagent's own end, usage, warnings and retries are its card's
// business: the run goes on, the status line keeps the run's totals and
// model, and no "Cancelled." or error line appears.
func TestSubagentEventsLeaveTheRunAlone(t *testing.T) {
	tests := []struct {
		name     string
		ev       event.Event
		wantText string // the line the event adds to the timeline, if any
	}{
		{"usage", event.Usage{Turn: 1, Model: "child-model", Total: event.TokenCounts{InputTokens: 5000}, CostUSD: 9}, ""},
		{"done", event.LoopComplete{Reason: event.ReasonDone, Turns: 2}, ""},
		{"cancelled", event.LoopComplete{Reason: event.ReasonCancelled, Turns: 2}, ""},
		{"error", event.LoopComplete{Reason: event.ReasonError, Error: "boom", Turns: 2}, ""},
		{"max turns", event.LoopComplete{Reason: event.ReasonMaxTurns, Turns: 2}, ""},
		{"todo", event.Todo{Turn: 1, Todos: []event.TodoItem{{Content: "child task", Status: "pending"}}}, ""},
		{"compact", event.Compact{TokensBefore: 10, TokensAfter: 5}, ""},
		{"retry", event.Retry{Turn: 1, Kind: "overloaded", Retry: 1, MaxRetries: 4, WaitMS: 1100}, ""},
		{"warning", event.Warning{Turn: 1, Message: "could not save Bash(ls)"}, "Explore (Look around): could not save Bash(ls)"},
		{"nested end", event.Child{ParentToolUseID: "n1", AgentID: "grandchild", Event: event.LoopComplete{Reason: event.ReasonCancelled}}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Time
			m := subagentModel(t, &now)
			usage := event.Usage{Turn: 1, Model: "parent-model", Total: event.TokenCounts{InputTokens: 100, OutputTokens: 10}, CostUSD: 0.25}
			feed(m, usage, taskCall("a1", "Explore", "Look around", false))
			blocks, status := len(m.blocks), screenLines(m)
			feed(m, childOf("a1", tc.ev))
			if diff := cmp.Diff(usage, m.usage); diff != "" {
				t.Errorf("usage (-want +got):\n%s", diff)
			}
			lines := screenLines(m)
			if got, want := lines[len(lines)-1], status[len(status)-1]; got != want {
				t.Errorf("status line %q, want %q", got, want)
			}
			if m.model != "parent-model" || m.memory.lastDone || m.todos.open() {
				t.Errorf("model %q, lastDone %v, todos open %v", m.model, m.memory.lastDone, m.todos.open())
			}
			var added []string
			for _, b := range m.blocks[blocks:] {
				added = append(added, b.text.String())
			}
			var want []string
			if tc.wantText != "" {
				want = []string{tc.wantText}
			}
			if diff := cmp.Diff(want, added); diff != "" {
				t.Errorf("timeline gained (-want +got):\n%s", diff)
			}
			if !m.tools["a1"].running {
				t.Error("the Task card stopped on its subagent's event")
			}
		})
	}
}

// A subagent's permission request or question, however deeply nested,
// opens the same dialog as the run's own, labelled with the subagent, and
// the answer goes to the inner request.
func TestSubagentAsks(t *testing.T) {
	bash := input(`{"command":"rm -rf build"}`)
	tests := []struct {
		name   string
		wrap   func(event.Event) event.Event
		keys   []tea.KeyPressMsg
		want   event.Decision
		dialog string
	}{
		{"allow once", func(e event.Event) event.Event { return childOf("a1", e) },
			[]tea.KeyPressMsg{key(tea.KeyEnter)}, event.Decision{Behavior: event.Allow},
			"Subagent Explore (Clean up) asks:\nAllow Bash(rm -rf build)? runs a command\n❯ 1. Allow once"},
		{"deny with a note", func(e event.Event) event.Event { return childOf("a1", e) },
			[]tea.KeyPressMsg{key('3'), key('n'), key('o'), key(tea.KeyEnter)}, event.Decision{Behavior: event.Deny, Message: "no"},
			"Subagent Explore (Clean up) asks:\nAllow Bash(rm -rf build)?"},
		{"a subagent's subagent", func(e event.Event) event.Event {
			return childOf("a1", event.Child{ParentToolUseID: "deep", AgentID: "grandchild", Event: e})
		}, []tea.KeyPressMsg{key('2'), key(tea.KeyEnter)}, event.Decision{Behavior: event.Allow, Always: true},
			"Subagent Explore (Clean up) asks:\nAllow Bash(rm -rf build)?"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Time
			m := subagentModel(t, &now)
			feed(m, taskCall("a1", "Explore", "Clean up", false),
				childOf("a1", event.ToolUse{Turn: 1, ID: "c1", Name: "Bash", Input: bash}))
			reply := event.NewReply()
			req := event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "c1", Name: "Bash", Input: bash,
				Reason: "runs a command", Choices: []string{"allow_once", "allow_always", "deny"}}, reply)
			feed(m, tc.wrap(req))
			if m.perm != req {
				t.Fatalf("the dialog is not the inner request's: %v", m.perm)
			}
			if s := m.Screen(); !strings.Contains(s, tc.dialog) || !strings.Contains(s, "● Explore(Clean up) ⠋ 0ms · waiting for you") {
				t.Fatalf("dialog or card:\n%s", s)
			}
			// Nothing moves but a clock until the person answers: the
			// frame tick sleeps, as it does for the run's own dialogs.
			if _, cmd := m.Update(frameMsg{}); cmd != nil {
				t.Error("the frame tick goes on while the only subagent waits for the person")
			}
			press(m, tc.keys...)
			select {
			case d := <-reply.C():
				if diff := cmp.Diff(tc.want, d); diff != "" {
					t.Errorf("decision (-want +got):\n%s", diff)
				}
			default:
				t.Fatal("the inner request got no answer")
			}
			if _, cmd := m.Update(frameMsg{}); cmd == nil {
				t.Error("no frame tick for the running card after the answer")
			}
			if m.perm != nil || strings.Contains(m.Screen(), "waiting for you") {
				t.Errorf("dialog or wait left behind:\n%s", m.Screen())
			}
			if !m.tools["a1"].running {
				t.Error("the Task card stopped running")
			}
		})
	}
}

// Subagents run at once, so their questions can come together: one dialog
// at a time, in the order they came, each answer to its own request; the
// run's own request waits its turn too.
func TestSubagentAsksQueue(t *testing.T) {
	var now time.Time
	m := subagentModel(t, &now)
	feed(m, taskCall("a1", "Explore", "Clean up", false), taskCall("a2", "general-purpose", "Pick a database", false))
	permReply, quesReply, ownReply := event.NewReply(), event.NewAnswerReply(), event.NewReply()
	feed(m,
		childOf("a1", event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "c1", Name: "Bash", Input: input(`{"command":"make clean"}`),
			Choices: []string{"allow_once", "allow_always", "deny"}}, permReply)),
		childOf("a2", event.NewQuestion(event.Question{Turn: 1, ID: "q1", Question: "Which database?", Options: []string{"Postgres", "SQLite"}}, quesReply)),
		event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "own", Name: "Bash", Input: input(`{"command":"ls"}`),
			Choices: []string{"allow_once", "allow_always", "deny"}}, ownReply),
	)
	if s := m.Screen(); !strings.Contains(s, "Subagent Explore (Clean up) asks:\nAllow Bash(make clean)?") || strings.Contains(s, "Which database?") {
		t.Fatalf("first dialog:\n%s", s)
	}
	press(m, key(tea.KeyEnter))
	if d := recv(t, permReply.C(), "the first answer"); d.Behavior != event.Allow {
		t.Errorf("first answer %+v", d)
	}
	if s := m.Screen(); !strings.Contains(s, "Subagent general-purpose (Pick a database) asks:\n? Which database?") {
		t.Fatalf("second dialog:\n%s", s)
	}
	press(m, key(tea.KeyDown), key(tea.KeyEnter))
	if a := recv(t, quesReply.C(), "the second answer"); a.Option != "SQLite" {
		t.Errorf("second answer %+v", a)
	}
	s := m.Screen()
	if !strings.Contains(s, "Allow Bash(ls)?") || strings.Contains(s, "Subagent") && strings.Contains(s, "asks:") {
		t.Fatalf("the run's own dialog, unlabelled:\n%s", s)
	}
	press(m, key(tea.KeyEnter))
	recv(t, ownReply.C(), "the run's own answer")
	if m.perm != nil || m.ques != nil || len(m.asks) > 0 {
		t.Errorf("dialogs left: perm %v, question %v, queued %d", m.perm, m.ques, len(m.asks))
	}

	// Esc cancels the run: every dialog, open or queued, goes.
	feed(m,
		childOf("a1", event.NewPermissionRequest(event.PermissionRequest{ID: "c2", Name: "Bash", Input: input(`{"command":"x"}`)}, event.NewReply())),
		childOf("a2", event.NewPermissionRequest(event.PermissionRequest{ID: "c3", Name: "Bash", Input: input(`{"command":"y"}`)}, event.NewReply())))
	press(m, key(tea.KeyEscape))
	m.Update(frameMsg{})
	if m.perm != nil || len(m.asks) > 0 || strings.Contains(m.Screen(), "waiting for you") {
		t.Errorf("after esc: perm %v, queued %d\n%s", m.perm, len(m.asks), m.Screen())
	}
}

// A Mailbox is one dim line an item: who, and the first line of what the
// model was told, cut to the width.
func TestMailboxLines(t *testing.T) {
	long := "bash_7 finished (exit 1) after printing a great many lines that do not fit on one row"
	tests := []struct {
		name  string
		item  event.MailItem
		width int
		want  string
	}{
		{"command naming itself", event.MailItem{Kind: "command", From: "bash_1", Text: "bash_1 finished (exit 0)\nOutput: /tmp/o"}, 80, "↳ bash_1 finished (exit 0)"},
		{"command", event.MailItem{Kind: "command", From: "bash_2", Text: "Killed.\nmore"}, 80, "↳ bash_2: Killed."},
		{"no text", event.MailItem{Kind: "command", From: "bash_3"}, 80, "↳ bash_3 finished"},
		{"unknown agent", event.MailItem{Kind: "agent", From: "agent-x", Text: "Found it."}, 80, "↳ agent-x: Found it."},
		{"message", event.MailItem{Kind: "message", From: "agent-y", Text: "  Ready when you are.\n\nDetails"}, 80, "↳ message from agent-y: Ready when you are."},
		{"cut to the width", event.MailItem{Kind: "command", From: "bash_7", Text: long}, 40, "↳ bash_7 finished (exit 1) after printi…"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := plainModel(Options{})
			defer m.Close()
			m.Update(tea.WindowSizeMsg{Width: tc.width, Height: 20})
			m.handleEvent(event.Mailbox{Turn: 2, Items: []event.MailItem{tc.item}})
			if got := screenLines(m)[0]; got != tc.want {
				t.Errorf("line %q, want %q", got, tc.want)
			}
		})
	}
}

// /bashes lists the background commands, shows one, and kills one off the
// UI goroutine.
func TestBashesCommand(t *testing.T) {
	list := []BashInfo{
		{ID: "bash_1", Command: "npm run dev", Description: "Dev server", Running: true, Duration: 75 * time.Second, Output: "/tmp/s/bash_1.out"},
		{ID: "bash_2", Command: "go test ./...\n  -race", ExitCode: 1, Duration: 3200 * time.Millisecond, Agent: "agent-a1"},
		{ID: "bash_10", Command: "sleep " + strings.Repeat("9", 100), Killed: true, Duration: 2 * time.Second},
	}
	tests := []struct {
		name    string
		opts    Options
		command string
		want    string
	}{
		{"list", Options{Bashes: func() []BashInfo { return list }}, "/bashes",
			"Background commands (/bashes ID shows one, /bashes kill ID stops it):\n" +
				"  bash_1   running  1m15s  npm run dev\n" +
				"  bash_2   exit 1    3.2s  go test ./...   -race  (subagent agent-a1)\n" +
				"  bash_10  killed    2.0s  sleep " + strings.Repeat("9", 46) + "…"},
		{"none", Options{Bashes: func() []BashInfo { return nil }}, "/bashes", "There are no background commands."},
		{"unavailable", Options{}, "/bashes", "/bashes is not available"},
		{"one", Options{Bashes: func() []BashInfo { return list }}, "/bashes bash_1",
			"bash_1 · running · 1m15s\n  command: npm run dev\n  description: Dev server\n  output: /tmp/s/bash_1.out"},
		{"unknown", Options{Bashes: func() []BashInfo { return list }}, "/bashes bash_9",
			"/bashes: no background command bash_9 (the commands: bash_1, bash_2, bash_10)"},
		{"kill without an ID", Options{Bashes: func() []BashInfo { return list }}, "/bashes kill", "/bashes kill takes a command's ID (/bashes lists them)"},
		{"kill unavailable", Options{Bashes: func() []BashInfo { return list }}, "/bashes kill bash_1", "/bashes kill is not available"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := plainModel(tc.opts)
			defer m.Close()
			if cmd := m.submit(tc.command); cmd != nil {
				t.Fatalf("%s returned a command", tc.command)
			}
			if diff := cmp.Diff(tc.want, lastText(m)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}

	var killed []string
	m := plainModel(Options{Bashes: func() []BashInfo { return list }, KillBash: func(id string) error {
		killed = append(killed, id)
		if id == "bash_2" {
			return errors.New("bash_2 has already ended")
		}
		return nil
	}})
	defer m.Close()
	for _, tc := range []struct{ id, want string }{
		{"bash_1", "Killed bash_1: npm run dev"},
		{"bash_2", "/bashes kill bash_2: bash_2 has already ended"},
	} {
		cmd := m.submit("/bashes kill " + tc.id)
		if cmd == nil {
			t.Fatal("/bashes kill ran on the UI goroutine")
		}
		m.Update(cmd())
		if got := lastText(m); got != tc.want {
			t.Errorf("kill %s: %q, want %q", tc.id, got, tc.want)
		}
	}
	if diff := cmp.Diff([]string{"bash_1", "bash_2"}, killed); diff != "" {
		t.Errorf("killed (-want +got):\n%s", diff)
	}
	// /help lists it and / completes it, as the other commands.
	m.submit("/help")
	if !strings.Contains(lastText(m), "/bashes") {
		t.Errorf("/help lacks /bashes:\n%s", lastText(m))
	}
	typeText(m, "/bas")
	if diff := cmp.Diff([]string{"bashes"}, m.comp.matches); diff != "" {
		t.Errorf("completion of /bas (-want +got):\n%s", diff)
	}
}

// Through the whole program: three subagents at once, one of which asks;
// the dialog names it, the answer reaches its request, and the run ends
// with the three cards done and only the run's own answer as the answer.
func TestSubagentsThroughTheProgram(t *testing.T) {
	reply := event.NewReply()
	decided := make(chan event.Decision, 1)
	r := &scriptRunner{run: func(ctx context.Context, yield func(event.Event) bool) {
		for _, e := range []event.Event{
			event.StreamText{Turn: 1, Text: "Three helpers are on it."},
			taskCall("a1", "Explore", "Find the config loader", false),
			taskCall("a2", "Explore", "Find the tests", false),
			taskCall("a3", "general-purpose", "Clean the build", false),
			childOf("a1", event.ToolUse{Turn: 1, ID: "c1", Name: "Grep", Input: input(`{"pattern":"LoadConfig"}`)}),
			childOf("a3", event.ToolUse{Turn: 1, ID: "c3", Name: "Bash", Input: input(`{"command":"rm -rf build"}`)}),
			childOf("a2", event.StreamText{Turn: 1, Text: "CHILD-TEXT"}),
			childOf("a3", event.NewPermissionRequest(event.PermissionRequest{Turn: 1, ID: "c3", Name: "Bash", Input: input(`{"command":"rm -rf build"}`),
				Reason: "runs a command", Choices: []string{"allow_once", "allow_always", "deny"}}, reply)),
		} {
			if !yield(e) {
				return
			}
		}
		select {
		case d := <-reply.C():
			decided <- d
		case <-ctx.Done():
			return
		}
		for _, e := range []event.Event{
			childOf("a3", event.ToolDone{Turn: 1, ID: "c3", Name: "Bash"}),
			childOf("a1", event.ToolDone{Turn: 1, ID: "c1", Name: "Grep"}),
			childOf("a1", event.LoopComplete{Reason: event.ReasonDone, Turns: 2}),
			childOf("a2", event.LoopComplete{Reason: event.ReasonDone, Turns: 1}),
			childOf("a3", event.LoopComplete{Reason: event.ReasonDone, Turns: 2}),
			event.ToolDone{Turn: 1, ID: "a1", Name: "Task", DurationMS: 1200},
			event.ToolDone{Turn: 1, ID: "a2", Name: "Task", DurationMS: 900},
			event.ToolDone{Turn: 1, ID: "a3", Name: "Task", DurationMS: 3100},
			event.ToolResult{Turn: 1, ID: "a1", Name: "Task", Content: "config/load.go", DurationMS: 1200,
				Subagent: &event.SubagentRun{AgentID: "agent-a1", AgentType: "Explore", Turns: 2, CostUSD: 0.012}},
			event.ToolResult{Turn: 1, ID: "a2", Name: "Task", Content: "config/load_test.go", DurationMS: 900,
				Subagent: &event.SubagentRun{AgentID: "agent-a2", AgentType: "Explore", Turns: 1, CostUSD: 0.004}},
			event.ToolResult{Turn: 1, ID: "a3", Name: "Task", Content: "Removed build/.", DurationMS: 3100,
				Subagent: &event.SubagentRun{AgentID: "agent-a3", AgentType: "general-purpose", Turns: 2, CostUSD: 0.02}},
			event.TurnComplete{Turn: 1, StopReason: "tool_use"},
			event.StreamText{Turn: 2, Text: "All done."},
			event.Usage{Turn: 2, Model: "claude-test", Call: event.TokenCounts{InputTokens: 3000, OutputTokens: 60},
				Total: event.TokenCounts{InputTokens: 5000, OutputTokens: 100}, CostUSD: 0.05, ContextWindow: 200000},
			event.LoopComplete{Reason: event.ReasonDone, Turns: 2},
		} {
			if !yield(e) {
				return
			}
		}
	}}
	m := New(Options{Runner: r, Model: "claude-test", Mode: "default", NoColor: true, Dark: true})
	defer m.Close()
	tm := newTestProgram(t, m, 80, 30)
	tm.Type("find the config")
	tm.Send(key(tea.KeyEnter))
	waitFor(t, tm, "asks:")
	tm.Send(key(tea.KeyEnter))
	if d := recv(t, decided, "the subagent's decision"); d != (event.Decision{Behavior: event.Allow}) {
		t.Errorf("decision %+v", d)
	}
	waitFor(t, tm, "All done.")
	tm.Type("/exit")
	tm.Send(key(tea.KeyEnter))
	final := tm.final(t)
	final.Close()
	golden(t, "subagents-program.golden", ansi.Strip(final.Screen()))
}

// scriptRunner runs its function as every run's events.
type scriptRunner struct {
	run func(ctx context.Context, yield func(event.Event) bool)
}

func (s *scriptRunner) Run(ctx context.Context, _ string) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) { s.run(ctx, yield) }
}
