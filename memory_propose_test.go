package nova_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm/llmtest"
)

// extractionAnswer answers the memory extraction's request (the small
// model, the extraction's system prompt) with facts, and every other one
// with "ok".
func extractionAnswer(facts string) func(r llmtest.Request) llmtest.Turn {
	return func(r llmtest.Request) llmtest.Turn {
		if r.JSON()["model"] == "claude-haiku-4-5" && strings.Contains(string(r.Body), "durable facts") {
			return text(facts)
		}
		return text("ok")
	}
}

// ProposeMemory asks the small model and writes nothing; WriteMemory
// writes what the person accepted to the file they chose (the project's or
// their own), and nothing else; a later proposal leaves out what either
// file holds.
func TestProposeAndWriteMemory(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(extractionAnswer("- Run the tests with go test ./...\n- The user wants answers in English\n- Use tabs"))
	o := testOptions(t, srv)
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	// Before the first prompt: nothing to propose, no call.
	p, err := s.ProposeMemory(context.Background(), nil)
	if err != nil || len(p.Facts) != 0 || len(modelCalls(srv)) != 0 {
		t.Fatalf("before any prompt: %+v, %v, %d calls", p, err, len(modelCalls(srv)))
	}
	want := nova.MemoryProposal{Project: filepath.Join(o.Dir, "NOVA.md"), User: filepath.Join(o.DataDir, "NOVA.md")}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}

	if _, err := collect(t, s, "how do I run the tests? and answer in English please"); err != nil {
		t.Fatal(err)
	}
	p, err = s.ProposeMemory(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want.Facts = []string{"Run the tests with go test ./...", "The user wants answers in English", "Use tabs"}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("proposal (-want +got):\n%s", diff)
	}
	calls := modelCalls(srv)
	if len(calls) != 2 || calls[1].JSON()["model"] != "claude-haiku-4-5" || !strings.Contains(string(calls[1].Body), "how do I run the tests?") {
		t.Fatalf("%d model calls; the extraction is not the small model's call over the conversation", len(calls))
	}
	for _, f := range []string{p.Project, p.User} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s was written before anyone accepted", f)
		}
	}

	if err := s.WriteMemory(p.Project, p.Facts[:1]); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteMemory(p.User, p.Facts[1:2]); err != nil {
		t.Fatal(err)
	}
	for path, fact := range map[string]string{p.Project: p.Facts[0], p.User: p.Facts[1]} {
		b, err := os.ReadFile(path)
		if err != nil || string(b) != "## Learned by NovaCode\n\n- "+fact+"\n" {
			t.Errorf("%s: %q, %v", path, b, err)
		}
	}
	if err := s.WriteMemory(filepath.Join(o.Dir, "README.md"), []string{"x"}); err == nil || !strings.Contains(err.Error(), "neither") {
		t.Errorf("WriteMemory of another file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "README.md")); err == nil {
		t.Error("WriteMemory wrote another file")
	}

	// Both files count as known: only the third fact is proposed again.
	p, err = s.ProposeMemory(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Use tabs"}, p.Facts); diff != "" {
		t.Errorf("second proposal (-want +got):\n%s", diff)
	}
}

// The autoMemory setting: suggest by default, off when set so; a value
// this version does not know is suggest, with a warning.
func TestAutoMemorySetting(t *testing.T) {
	for _, tc := range []struct {
		settings, want, notice string
	}{
		{``, nova.AutoMemorySuggest, ""},
		{`{"autoMemory":"off"}`, nova.AutoMemoryOff, ""},
		{`{"autoMemory":"suggest"}`, nova.AutoMemorySuggest, ""},
		{`{"autoMemory":"always"}`, nova.AutoMemorySuggest, `autoMemory "always" is not suggest or off`},
	} {
		srv := llmtest.NewServer()
		o := testOptions(t, srv)
		if tc.settings != "" {
			if err := os.WriteFile(filepath.Join(o.DataDir, "settings.json"), []byte(tc.settings), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		s, err := nova.Open(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AutoMemory(); got != tc.want {
			t.Errorf("%s: AutoMemory %q, want %q", tc.settings, got, tc.want)
		}
		if n := s.Notice(); (tc.notice == "") != !strings.Contains(n, "autoMemory") || !strings.Contains(n, tc.notice) {
			t.Errorf("%s: notice %q", tc.settings, n)
		}
		s.Close()
		srv.Close()
	}
}

// MemoryFiles lists what the model reads: the user's file, then the
// project's.
func TestMemoryFiles(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	o := testOptions(t, srv)
	if err := os.WriteFile(filepath.Join(o.DataDir, "NOVA.md"), []byte("Mine.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(o.Dir, "AGENTS.md"), []byte("The project's.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	files, err := s.MemoryFiles()
	if err != nil {
		t.Fatal(err)
	}
	want := []nova.MemoryFile{
		{Path: filepath.Join(o.DataDir, "NOVA.md"), Scope: "user", Content: "Mine.\n"},
		{Path: filepath.Join(o.Dir, "AGENTS.md"), Scope: "project", Content: "The project's.\n"},
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
