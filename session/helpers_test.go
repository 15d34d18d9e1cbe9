package session_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

func TestMain(m *testing.M) {
	// The crash-safety test re-executes this binary as the writer it kills.
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

var t0 = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func at(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }

func user(text string) *llm.Message {
	return &llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: text}}}
}

// assistant is a reply with text and a Read call per id.
func assistant(text string, ids ...string) *llm.Message {
	m := &llm.Message{Role: llm.RoleAssistant}
	if text != "" {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockText, Text: text})
	}
	for _, id := range ids {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockToolUse, ToolUseID: id, ToolName: "Read", Input: json.RawMessage(`{"path":"a.go"}`)})
	}
	return m
}

func results(ids ...string) *llm.Message {
	m := &llm.Message{Role: llm.RoleUser}
	for _, id := range ids {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: "result " + id})
	}
	return m
}

func interrupted(ids ...string) llm.Message {
	m := llm.Message{Role: llm.RoleUser}
	for _, id := range ids {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: session.InterruptedResult, IsError: true})
	}
	return m
}

func msg(turn int, m *llm.Message) session.Record {
	return session.Record{Type: session.TypeMessage, Turn: turn, Message: m}
}

func vals(ms ...*llm.Message) []llm.Message {
	out := make([]llm.Message, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return out
}

var testHeader = session.Record{Cwd: "/work/proj", Model: "claude-sonnet-4-5", Provider: "anthropic"}

// writeSession creates session id in dir with recs, giving records without
// a time consecutive times after the header's.
func writeSession(t testing.TB, dir, id string, recs ...session.Record) string {
	t.Helper()
	h := testHeader
	h.Time = at(0)
	tr, err := session.Create(dir, id, h)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for i, r := range recs {
		if r.Time.IsZero() {
			r.Time = at(i + 1)
		}
		if err := tr.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, id+".jsonl")
}

func mustLoad(t testing.TB, path string) *session.State {
	t.Helper()
	st, err := session.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
