package session_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// A subagent's id is its parent's and its own joined by a dot; every other
// dotted form stays out, so no id names a path outside the directory, a
// hidden file or another session's side directory.
func TestSessionIDForms(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"3f2a6c1e-8d4b-4c1a-9e2f-0a1b2c3d4e5f", true},
		{"3f2a6c1e-8d4b-4c1a-9e2f-0a1b2c3d4e5f.agent_1", true},
		{"s1.agent_1.agent_2", true}, // a subagent of a resumed subagent
		{"s1.Agent-2", true},
		{"", false},
		{".", false},
		{"..", false},
		{"...", false},
		{".agent_1", false},
		{"s1.", false},
		{"s1..agent_1", false},
		{"s1.agent 1", false},
		{"s1.agent_1/..", false},
		{"s1.agent_é", false},
		{"s1." + strings.Repeat("a", 65), false},
		{"../x", false},
		{`a\b`, false},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			dir := t.TempDir()
			tr, err := session.Create(dir, tc.id, testHeader)
			if (err == nil) != tc.ok {
				t.Fatalf("Create(%q) = %v, want ok %v", tc.id, err, tc.ok)
			}
			if err != nil {
				return
			}
			tr.Close()
			if _, _, err := session.Open(dir, tc.id); err != nil {
				t.Errorf("Open(%q) = %v", tc.id, err)
			}
			if got := tr.Path(); filepath.Dir(got) != dir {
				t.Errorf("path %s is not in %s", got, dir)
			}
		})
	}
}

func TestSubagentID(t *testing.T) {
	tests := []struct {
		parent, agent, want, wantErr string
	}{
		{parent: "s1", agent: "agent_1", want: "s1.agent_1"},
		{parent: "s1.agent_1", agent: "agent_1", want: "s1.agent_1.agent_1"},
		{parent: "s1", agent: "", wantErr: `subagent of session s1: agent id "" is empty or longer than 64 bytes`},
		{parent: "s1", agent: "a.b", wantErr: `subagent of session s1: agent id "a.b" has a character other than a letter, digit, '_' or '-'`},
		{parent: "s1", agent: "../x", wantErr: `agent id "../x" has a character`},
		{parent: "..", agent: "agent_1", wantErr: `invalid session id ".."`},
		{parent: strings.Repeat("a", 195), agent: "agent_10", wantErr: "session id longer than 200 bytes"},
	}
	for _, tc := range tests {
		got, err := session.SubagentID(tc.parent, tc.agent)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("SubagentID(%q, %q) = %q, %v; want error %q", tc.parent, tc.agent, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("SubagentID(%q, %q) = %q, %v; want %q", tc.parent, tc.agent, got, err, tc.want)
		}
	}
}

// A subagent's transcript is a session like any other (Start: the file
// comes with the first record), whose header names its parent; List shows
// it with that parent, Latest never picks it.
func TestSubagentTranscripts(t *testing.T) {
	dir := t.TempDir()
	writeSession(t, dir, "p", msg(1, user("fix the build")), msg(1, assistant("", "task_1")))

	h := testHeader
	h.Time = at(5)
	h.Parent, h.AgentID, h.AgentType, h.Description = "p", "agent_1", "Explore", "find the tests"
	id, err := session.SubagentID("p", "agent_1")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := session.Start(dir, id, h)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tr.Path()); !errors.Is(err, fs.ErrNotExist) || tr.Exists() {
		t.Fatalf("the transcript exists before its first record: %v", err)
	}
	for i, m := range []*llm.Message{user("Find the tests of package a."), assistant("They are in a_test.go.")} {
		if err := tr.Append(session.Record{Type: session.TypeMessage, Turn: 1, Message: m, Time: at(10 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	tr.Close()

	st := mustLoad(t, filepath.Join(dir, "p.agent_1.jsonl"))
	wantHeader := h
	wantHeader.Type, wantHeader.ID, wantHeader.Version = session.TypeHeader, id, session.FormatVersion
	if diff := cmp.Diff(wantHeader, st.Header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}

	list, err := session.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []session.Info{
		{ID: id, Path: filepath.Join(dir, id+".jsonl"), Created: at(5), Updated: at(11), FirstPrompt: "Find the tests of package a.", Turns: 1,
			Model: h.Model, Cwd: h.Cwd, Parent: "p", AgentID: "agent_1", AgentType: "Explore", Description: "find the tests"},
		{ID: "p", Path: filepath.Join(dir, "p.jsonl"), Created: at(0), Updated: at(2), FirstPrompt: "fix the build", Turns: 1,
			Model: h.Model, Cwd: h.Cwd},
	}
	if diff := cmp.Diff(want, list); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	latest, err := session.Latest(dir)
	if err != nil || latest.ID != "p" {
		t.Errorf("Latest = %q, %v; want the parent, updated before its subagent", latest.ID, err)
	}

	// Resumable like any session.
	tr, st, err = session.Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if len(st.Messages) != 2 || st.Header.Parent != "p" {
		t.Errorf("Open: %d messages, parent %q", len(st.Messages), st.Header.Parent)
	}

	// Subagents alone are nothing to continue.
	only := t.TempDir()
	h.Parent = "gone"
	tr, err = session.Create(only, "gone.agent_1", h)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Append(msg(1, user("a task"))); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if _, err := session.Latest(only); !errors.Is(err, session.ErrNoSession) {
		t.Errorf("Latest of a directory of subagents = %v, want ErrNoSession", err)
	}
}
