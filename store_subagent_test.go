package nova

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/session"
)

// storeOptions points a session at srv in a fresh workspace and data
// directory, reading nothing of the machine's environment.
func storeOptions(t *testing.T, srv *llmtest.Server) Options {
	t.Helper()
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	return Options{Dir: t.TempDir(), DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }, Sandbox: "off", NoContext: true}
}

func textTurn(s string) llmtest.Turn { return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(s)}} }

// send runs one prompt to its end.
func send(t *testing.T, s *Session, prompt string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, err := range s.Send(ctx, prompt) {
		if err != nil {
			t.Fatal(err)
		}
	}
	return s.Result()
}

// subagentTalk records a subagent's task and answer, as its loop would.
func subagentTalk(t *testing.T, rec *session.Transcript, task, answer string) {
	t.Helper()
	for _, m := range []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: task}}},
		{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: answer}}},
	} {
		if err := rec.Append(session.Record{Type: session.TypeMessage, Turn: 1, Message: &m}); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Sync(); err != nil {
		t.Fatal(err)
	}
}

// Subagents' transcripts start in parallel beside their parent's, appear
// with their first record, are listed under the parent, and are closed
// with the session.
func TestSubagentRecorder(t *testing.T) {
	srv := llmtest.NewServer(textTurn("On it."))
	defer srv.Close()
	o := storeOptions(t, srv)
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	send(t, s, "fix the build")
	parent := s.ID()

	const n = 8
	recs := make([]*session.Transcript, n)
	paths := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i], paths[i], errs[i] = s.subagentRecorder(fmt.Sprintf("agent_%d", i+1), "Explore", fmt.Sprintf("look %d", i+1), "claude-haiku-4-5")
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("agent_%d: %v", i+1, errs[i])
		}
		want := filepath.Join(s.store.dir, fmt.Sprintf("%s.agent_%d.jsonl", parent, i+1))
		if paths[i] != want || recs[i].Path() != want {
			t.Errorf("agent_%d: path %s, transcript %s, want %s", i+1, paths[i], recs[i].Path(), want)
		}
		if _, err := os.Stat(paths[i]); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("agent_%d: the transcript exists before its first message: %v", i+1, err)
		}
	}
	// Only subagents that said something are kept; agent_1 ends (its
	// caller closes it), the others are left open for Close.
	subagentTalk(t, recs[0], "Find the failing test.", "TestParse fails.")
	if err := recs[0].Close(); err != nil {
		t.Fatal(err)
	}
	subagentTalk(t, recs[1], "Read the build log.", "It fails to link.")

	st, err := session.Load(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := session.Record{Type: session.TypeHeader, Version: session.FormatVersion, ID: parent + ".agent_2",
		Cwd: s.dir, Model: "claude-haiku-4-5", Provider: "anthropic",
		Parent: parent, AgentID: "agent_2", AgentType: "Explore", Description: "look 2"}
	if diff := cmp.Diff(wantHeader, st.Header, cmpopts.IgnoreFields(session.Record{}, "Time")); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}

	// An id this session used already, whether its subagent said anything
	// or not, and ids that are not an agent id's form.
	for _, id := range []string{"agent_1", "agent_3"} {
		if _, _, err := s.subagentRecorder(id, "Explore", "", "m"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("%s again: %v, want ErrExist", id, err)
		}
	}
	for _, id := range []string{"", "../x", "a.b", "a/b"} {
		if rec, _, err := s.subagentRecorder(id, "Explore", "", "m"); err == nil {
			rec.Close()
			t.Errorf("agent id %q accepted", id)
		}
	}

	list, err := s.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	got := summarizeList(list)
	want := []string{parent + " fix the build", "  " + parent + ".agent_1 Explore look 1 Find the failing test.", "  " + parent + ".agent_2 Explore look 2 Read the build log."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sessions (-want +got):\n%s", diff)
	}
	if !s.Latest() {
		t.Error("the session is not the latest, its subagents are")
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for i, r := range recs {
		if err := r.Append(session.Record{Type: session.TypeMessage, Turn: 2, Message: &llm.Message{Role: llm.RoleUser}}); !errors.Is(err, os.ErrClosed) {
			t.Errorf("agent_%d: append after Close = %v, want ErrClosed", i+1, err)
		}
	}
	if _, _, err := s.subagentRecorder("agent_9", "Explore", "", "m"); err == nil {
		t.Error("a subagent started after Close")
	}
	entries, _ := os.ReadDir(s.store.dir)
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, e.Name())
		}
	}
	if diff := cmp.Diff([]string{parent + ".agent_1.jsonl", parent + ".agent_2.jsonl", parent + ".jsonl"}, names); diff != "" {
		t.Errorf("transcripts (-want +got):\n%s", diff)
	}
}

// summarizeList is a listing as lines: id and first prompt, subagents
// indented under their parent with their type and description.
func summarizeList(list []SessionInfo) []string {
	var out []string
	var walk func(indent string, l []SessionInfo)
	walk = func(indent string, l []SessionInfo) {
		for _, in := range l {
			line := indent + in.ID
			if in.Parent != "" {
				line += " " + in.AgentType + " " + in.Description
			}
			out = append(out, line+" "+in.FirstPrompt)
			walk(indent+"  ", in.Subagents)
		}
	}
	walk("", list)
	return out
}

func TestInMemorySessionKeepsNoSubagents(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	o := storeOptions(t, srv)
	o.InMemory = true
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, path, err := s.subagentRecorder("agent_1", "Explore", "look", "m")
	if rec != nil || path != "" || err != nil {
		t.Fatalf("subagentRecorder = %v, %q, %v; want nothing", rec, path, err)
	}
}

// nova --resume <parent>.<agent> continues the subagent's conversation
// like any session; nova -c still continues the parent, though the
// subagent ran last.
func TestResumeSubagent(t *testing.T) {
	srv := llmtest.NewServer(textTurn("On it."), textTurn("The fix is in parse.go."), textTurn("Back to the build."))
	defer srv.Close()
	o := storeOptions(t, srv)
	s, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	send(t, s, "fix the build")
	parent := s.ID()
	rec, _, err := s.subagentRecorder("agent_1", "general-purpose", "find the bug", s.Model())
	if err != nil {
		t.Fatal(err)
	}
	subagentTalk(t, rec, "Find the bug in the parser.", "It is an off-by-one in parse.go.")
	s.Close()

	o.Resume = parent + ".agent_1"
	s, err = Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	h := s.History()
	if h == nil || len(h.Entries) == 0 {
		t.Fatalf("the resumed subagent shows no history: %+v", h)
	}
	res := send(t, s, "where exactly?")
	s.Close()
	if res.SessionID != o.Resume || res.Text != "The fix is in parse.go." {
		t.Fatalf("result = %+v", res)
	}
	body := string(modelRequests(srv)[1].Body)
	for _, want := range []string{"Find the bug in the parser.", "It is an off-by-one in parse.go.", "where exactly?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the resumed subagent's request lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "fix the build") {
		t.Errorf("the subagent's request carries its parent's conversation:\n%s", body)
	}
	list, err := ListSessions(o.Dir, o.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{parent + " fix the build", "  " + o.Resume + " general-purpose find the bug Find the bug in the parser."}, summarizeList(list)); diff != "" {
		t.Errorf("sessions after resuming the subagent (-want +got):\n%s", diff)
	}
	if list[0].Subagents[0].Turns != 2 {
		t.Errorf("the subagent's turns = %d, want 2", list[0].Subagents[0].Turns)
	}

	o.Resume, o.Continue = "", true
	res = func() Result {
		s, err := Open(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		// The earlier run's subagent keeps its id.
		if _, _, err := s.subagentRecorder("agent_1", "Explore", "", "m"); !errors.Is(err, fs.ErrExist) {
			t.Errorf("agent_1 of an earlier run again: %v, want ErrExist", err)
		}
		return send(t, s, "and now?")
	}()
	if res.SessionID != parent {
		t.Errorf("nova -c continued %s, want the parent %s", res.SessionID, parent)
	}
}

func modelRequests(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}
