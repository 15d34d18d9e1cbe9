package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

func TestRewindFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    RewindOptions
		wantErr string
	}{
		{name: "list", args: []string{"--list", "--cwd", "/w"}, want: RewindOptions{List: true, Cwd: "/w"}},
		{name: "turn", args: []string{"--turn", "2", "--files-only", "--session", "abc"}, want: RewindOptions{Turn: 2, FilesOnly: true, Session: "abc"}},
		{name: "neither", args: []string{}, wantErr: "say which turn to go back to with --turn N (see --list)"},
		{name: "not a number", args: []string{"--turn", "two"}, wantErr: `invalid argument "two"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *RewindOptions
			cmd := newCmdRewind(ios, func(ctx context.Context, o *RewindOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(ios.Out)
			cmd.SetErr(ios.ErrOut)
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(RewindOptions{}, "IO")); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// A transcript as every version writes it: prompts, the model's calls and
// the loop's own messages (tool results, a reminder, the request to
// continue a cut answer), snapshots of the files changed.
func writeRewindTranscript(t *testing.T, home, ws string) string {
	t.Helper()
	dir := session.ProjectDir(home, ws)
	tr, err := session.Create(dir, "s1", session.Record{Cwd: ws, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	text := func(role llm.Role, s string) *llm.Message {
		return &llm.Message{Role: role, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
	}
	call := func(id string) *llm.Message {
		return &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolUse, ToolUseID: id, ToolName: "Write", Input: json.RawMessage(`{}`)}}}
	}
	result := func(id string) *llm.Message {
		return &llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: id, Content: "ok"}}}
	}
	recs := []session.Record{
		{Type: session.TypeMessage, Turn: 1, Message: text(llm.RoleUser, "<system-reminder>\nenv\n</system-reminder>\nfix the build\nthen run the tests")},
		{Type: session.TypeMessage, Turn: 1, Message: call("a")},
		{Type: session.TypeSnapshot, Turn: 1, Path: filepath.Join(ws, "main.go")},
		{Type: session.TypeMessage, Turn: 1, Message: result("a")},
		{Type: session.TypeMessage, Turn: 2, Message: text(llm.RoleUser, "<system-reminder>todos</system-reminder>")},
		{Type: session.TypeMessage, Turn: 2, Message: call("b")},
		{Type: session.TypeSnapshot, Turn: 2, Path: filepath.Join(ws, "main_test.go")},
		{Type: session.TypeMessage, Turn: 2, Message: result("b")},
		{Type: session.TypeMessage, Turn: 3, Message: text(llm.RoleAssistant, "cut")},
		{Type: session.TypeMessage, Turn: 3, Message: text(llm.RoleUser, "Your previous response was cut off. Continue.")},
		{Type: session.TypeMessage, Turn: 4, Message: text(llm.RoleAssistant, "Fixed.")},
		{Type: session.TypeEnd, Turn: 4, Reason: "done"},
		{Type: session.TypeMessage, Turn: 5, Message: text(llm.RoleUser, "now document it")},
		{Type: session.TypeMessage, Turn: 5, Message: call("c")},
		{Type: session.TypeSnapshot, Turn: 5, Path: "/elsewhere/notes.md"},
		{Type: session.TypeMessage, Turn: 5, Message: result("c")},
		{Type: session.TypeMessage, Turn: 6, Message: text(llm.RoleAssistant, "Documented.")},
		{Type: session.TypeEnd, Turn: 6, Reason: "done"},
	}
	for _, r := range recs {
		if err := tr.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Path()
}

// nova rewind counts turns per prompt, labelled by the prompt's first line;
// --turn N goes back to before the Nth prompt.
func TestRewindCountsPrompts(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("NOVA_HOME", home)
	path := writeRewindTranscript(t, home, ws)

	ios, _, out, _ := iostreams.Test()
	if err := runRewind(&RewindOptions{IO: ios, Cwd: ws, List: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "rewind-list.golden", out.String())

	ios, _, _, _ = iostreams.Test()
	err := runRewind(&RewindOptions{IO: ios, Cwd: ws, Turn: 3})
	if err == nil || err.Error() != "session s1: there is no turn 3: the conversation has 2 (one per prompt; list them with nova rewind --list)" {
		t.Fatalf("--turn 3: %v", err)
	}

	ios, _, out, _ = iostreams.Test()
	if err := runRewind(&RewindOptions{IO: ios, Cwd: ws, Turn: 2}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "conversation now ends before turn 2 (now document it)") {
		t.Errorf("rewind said:\n%s", out)
	}
	st, err := session.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range session.Prompts(st) {
		texts = append(texts, p.Label())
	}
	if diff := cmp.Diff([]string{"fix the build"}, texts); diff != "" || len(st.Messages) != 9 {
		t.Errorf("after --turn 2: %d messages, prompts (-want +got):\n%s", len(st.Messages), diff)
	}
}

// writeStored writes a transcript of one prompt and answer, at minute min
// of a fixed day.
func writeStored(t *testing.T, dir, id string, header session.Record, min int, prompt string) {
	t.Helper()
	at := time.Date(2026, 3, 1, 9, min, 0, 0, time.UTC)
	header.Time = at
	tr, err := session.Create(dir, id, header)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, r := range []session.Record{
		{Type: session.TypeMessage, Turn: 1, Time: at, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: prompt}}}},
		{Type: session.TypeUsage, Turn: 1, Time: at.Add(30 * time.Second), Usage: &llm.Usage{InputTokens: 10}, CostUSD: float64(min) / 1000},
	} {
		if err := tr.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}

// nova sessions lists each session's subagents under it, oldest first,
// labelled by their type and task; a subagent whose session is gone is
// listed on its own.
func TestSessionsListSubagents(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("NOVA_HOME", home)
	dir := session.ProjectDir(home, ws)
	sub := func(parent, agent, typ, desc string) session.Record {
		return session.Record{Cwd: ws, Model: "claude-haiku-4-5", Parent: parent, AgentID: agent, AgentType: typ, Description: desc}
	}
	main := session.Record{Cwd: ws, Model: "claude-sonnet-4-5"}
	writeStored(t, dir, "s1", main, 1, "explain the parser")
	writeStored(t, dir, "s2", main, 10, "fix the build\nand run the tests")
	writeStored(t, dir, "s2.agent_2", sub("s2", "agent_2", "general-purpose", "run the tests"), 14, "Run go test ./... and report failures.")
	writeStored(t, dir, "s2.agent_1", sub("s2", "agent_1", "Explore", "find the build files"), 12, "Find every file the build reads.")
	writeStored(t, dir, "s2.agent_1.agent_1", sub("s2.agent_1", "agent_1", "Explore", ""), 20, "Look in ./scripts.")
	writeStored(t, dir, "gone.agent_1", sub("gone", "agent_1", "", ""), 5, "A task whose session was deleted.")

	list, err := nova.ListSessions(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := writeSessions(&b, list, time.UTC); err != nil {
		t.Fatal(err)
	}
	golden(t, "sessions.golden", b.String())

	ios, _, out, _ := iostreams.Test()
	if err := runSessions(&SessionsOptions{IO: ios, Cwd: ws, JSON: true}); err != nil {
		t.Fatal(err)
	}
	golden(t, "sessions-json.golden", out.String())

	b.Reset()
	if err := writeSessions(&b, nil, time.UTC); err != nil || b.String() != "No sessions in this workspace yet.\n" {
		t.Errorf("no sessions: %q, %v", b.String(), err)
	}
}
