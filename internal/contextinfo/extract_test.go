package contextinfo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/novacode/nova/llm"
)

// fakeClient answers every call with a scripted text, or an error, and
// records the requests.
type fakeClient struct {
	answer string
	err    error
	noEnd  bool
	reqs   []*llm.Request
}

func (f *fakeClient) Stream(_ context.Context, req *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	f.reqs = append(f.reqs, req)
	return func(yield func(llm.StreamEvent, error) bool) {
		if f.err != nil {
			yield(nil, f.err)
			return
		}
		// Split the answer so the extractor has to join deltas.
		half := len(f.answer) / 2
		for _, part := range []string{f.answer[:half], f.answer[half:]} {
			if !yield(llm.TextDelta{Text: part}, nil) {
				return
			}
		}
		if !f.noEnd {
			yield(llm.StreamEnd{StopReason: llm.StopEndTurn}, nil)
		}
	}
}

func text(role llm.Role, s string) llm.Message {
	return llm.Message{Role: role, Content: []llm.Block{{Type: llm.BlockText, Text: s}}}
}

// session is a short history with a tool call, a long tool result, a
// reminder and thinking.
func session() []llm.Message {
	return []llm.Message{
		text(llm.RoleUser, "<system-reminder>\n<env>secret env</env>\n</system-reminder>\nrun the tests please"),
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockThinking, Text: "private thoughts"},
			{Type: llm.BlockText, Text: "Running them."},
			{Type: llm.BlockToolUse, ToolUseID: "t1", ToolName: "Bash", Input: json.RawMessage(`{"command":"make test"}`)},
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			{Type: llm.BlockToolResult, ToolUseID: "t1", Content: "HEAD" + strings.Repeat("x", 5000) + "TAIL", IsError: true},
		}},
		text(llm.RoleUser, "we always use `go test ./...` here, not make"),
	}
}

func TestProposeRequest(t *testing.T) {
	path := filepath.Join(tempDir(t), "NOVA.md")
	write(t, path, "# Project\n- Use tabs.\n")
	fc := &fakeClient{answer: "- Run tests with `go test ./...`.\n"}
	x := &Extractor{Client: fc, Model: "test-model", Path: path}
	facts, err := x.Propose(context.Background(), session())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Run tests with `go test ./...`."}, facts); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}
	if len(fc.reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(fc.reqs))
	}
	req := fc.reqs[0]
	if req.Model != "test-model" || req.MaxTokens != 1024 || len(req.Tools) != 0 || req.Thinking != nil {
		t.Errorf("request: model %q, max tokens %d, %d tools, thinking %v", req.Model, req.MaxTokens, len(req.Tools), req.Thinking)
	}
	if !strings.Contains(req.System, "at most 5 facts") || !strings.Contains(req.System, "NONE") {
		t.Errorf("system prompt does not state the answer format:\n%s", req.System)
	}
	if len(req.Messages) != 1 || req.Messages[0].Role != llm.RoleUser || len(req.Messages[0].Content) != 1 {
		t.Fatalf("want one user message with one block, got %+v", req.Messages)
	}
	result := "HEAD" + strings.Repeat("x", 1020) + "\n[… 2960 bytes left out …]\n" + strings.Repeat("x", 1020) + "TAIL"
	want := "Recent part of the session:\n\n<transcript>\n" +
		"[user]\nrun the tests please\n" +
		"[assistant]\nRunning them.\n[tool call Bash]\n{\"command\":\"make test\"}\n" +
		"[user]\n[tool result Bash, error]\n" + result + "\n" +
		"[user]\nwe always use `go test ./...` here, not make\n" +
		"</transcript>\n\n" +
		"The memory files already say:\n\n<memory-file>\n# Project\n- Use tabs.\n\n</memory-file>\n\n" +
		`List at most 5 new durable facts, one per line starting with "- ", or answer NONE.`
	if d := cmp.Diff(want, req.Messages[0].Text()); d != "" {
		t.Errorf("prompt (-want +got):\n%s", d)
	}
}

func TestProposeKeepsLastTwentyMessages(t *testing.T) {
	var h []llm.Message
	for i := range 30 {
		h = append(h, text(llm.RoleUser, fmt.Sprintf("message %02d", i)))
	}
	fc := &fakeClient{answer: "NONE"}
	x := &Extractor{Client: fc, Model: "m"}
	if _, err := x.Propose(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	p := fc.reqs[0].Messages[0].Text()
	if strings.Contains(p, "message 09") || !strings.Contains(p, "message 10") || !strings.Contains(p, "message 29") {
		t.Errorf("window wrong:\n%s", p)
	}
	if strings.Contains(p, "memory file") {
		t.Errorf("no Path, yet the prompt quotes a memory file:\n%s", p)
	}
}

func TestProposeFacts(t *testing.T) {
	existing := "# Notes\n\n## Learned by NovaCode\n\n- Use TABS for indentation\n* prefer small commits.\n"
	tests := []struct {
		name   string
		answer string
		want   []string
	}{
		{"none", "NONE", nil},
		{"none with chatter", "I found nothing.\nNONE\n", nil},
		{"lines without a dash are ignored", "Here you go:\n- one\n* two\n  - three  \n", []string{"one", "three"}},
		{"dedupe against the file, ignoring case, spacing and a final period", "- use tabs for   indentation.\n- Prefer small commits\n- new fact\n", []string{"new fact"}},
		{"dedupe within the answer", "- A\n- a.\n- b\n", []string{"A", "b"}},
		{"at most five", "- 1\n- 2\n- 3\n- 4\n- 5\n- 6\n- 7\n", []string{"1", "2", "3", "4", "5"}},
		{"runaway and empty lines dropped", "- " + strings.Repeat("z", 600) + "\n- \n- ok\n", []string{"ok"}},
		{"control characters removed", "- a\x1b[31mb\n", []string{"a[31mb"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(tempDir(t), "NOVA.md")
			write(t, path, existing)
			x := &Extractor{Client: &fakeClient{answer: tt.answer}, Model: "m", Path: path}
			got, err := x.Propose(context.Background(), session())
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("facts (-want +got):\n%s", d)
			}
		})
	}
}

// Facts the Known files (the user's memory) already hold are not proposed
// again, and the model sees those files too; a missing one is skipped.
func TestProposeKnown(t *testing.T) {
	dir := tempDir(t)
	project, user := filepath.Join(dir, "NOVA.md"), filepath.Join(dir, "user", "NOVA.md")
	write(t, project, "- Use tabs.") // no final newline
	write(t, user, "- Answer in English.\n")
	fc := &fakeClient{answer: "- use tabs\n- answer in english.\n- Run go vet before committing\n"}
	x := &Extractor{Client: fc, Model: "m", Path: project, Known: []string{user, filepath.Join(dir, "missing.md")}}
	got, err := x.Propose(context.Background(), session())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Run go vet before committing"}, got); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}
	if p := fc.reqs[0].Messages[0].Text(); !strings.Contains(p, "<memory-file>\n- Use tabs.\n- Answer in English.\n") {
		t.Errorf("the prompt does not show both files:\n%s", p)
	}
}

func TestProposeErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name    string
		x       *Extractor
		history []llm.Message
		wantErr string
		calls   int
	}{
		{"stream error is wrapped", &Extractor{Client: &fakeClient{err: boom}}, session(), "propose memory: boom", 1},
		{"stream without end", &Extractor{Client: &fakeClient{answer: "- x", noEnd: true}}, session(), "propose memory: model stream ended without StreamEnd", 1},
		{"no client", &Extractor{}, session(), "propose memory: no model client", 0},
		{"empty history makes no call", &Extractor{Client: &fakeClient{}}, nil, "", 0},
		{"only reminders makes no call", &Extractor{Client: &fakeClient{}}, []llm.Message{text(llm.RoleUser, "<system-reminder>x</system-reminder>")}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.x.Propose(context.Background(), tt.history)
			if tt.wantErr == "" {
				if err != nil || got != nil {
					t.Errorf("Propose = %v, %v; want nil, nil", got, err)
				}
			} else if err == nil || err.Error() != tt.wantErr {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
			if tt.name == "stream error is wrapped" && !errors.Is(err, boom) {
				t.Errorf("error does not wrap the cause")
			}
			if fc, ok := tt.x.Client.(*fakeClient); ok && len(fc.reqs) != tt.calls {
				t.Errorf("%d calls, want %d", len(fc.reqs), tt.calls)
			}
		})
	}
}

func TestAppend(t *testing.T) {
	tests := []struct {
		name   string
		before *string // nil: no file
		facts  []string
		want   string
	}{
		{"creates the file", nil, []string{"a", "b"}, "## Learned by NovaCode\n\n- a\n- b\n"},
		{"empty file", ptr(""), []string{"a"}, "## Learned by NovaCode\n\n- a\n"},
		{"adds the section after the content", ptr("# P\nkeep  this \n"), []string{"a"}, "# P\nkeep  this \n\n## Learned by NovaCode\n\n- a\n"},
		{"unterminated last line", ptr("# P\nlast"), []string{"a"}, "# P\nlast\n\n## Learned by NovaCode\n\n- a\n"},
		{"already ends with a blank line", ptr("# P\n\n"), []string{"a"}, "# P\n\n## Learned by NovaCode\n\n- a\n"},
		{
			"inserts at the end of an existing section, before the next one",
			ptr("# P\n\n## Learned by NovaCode\n\n- old\n\n## Later\n  body\n"),
			[]string{"new"},
			"# P\n\n## Learned by NovaCode\n\n- old\n- new\n\n## Later\n  body\n",
		},
		{
			"subheadings and fences stay inside the section",
			ptr("## Learned by NovaCode\n- old\n### Sub\n```\n## not a heading\n```\n# Next\n"),
			[]string{"new"},
			"## Learned by NovaCode\n- old\n### Sub\n```\n## not a heading\n```\n- new\n# Next\n",
		},
		{
			"section at the end without a final newline",
			ptr("x\n## Learned by NovaCode\n- old"),
			[]string{"new"},
			"x\n## Learned by NovaCode\n- old\n- new\n",
		},
		{
			"empty section",
			ptr("## Learned by NovaCode\n## Next\n"),
			[]string{"new"},
			"## Learned by NovaCode\n- new\n## Next\n",
		},
		{
			"heading in a fence does not count",
			ptr("```\n## Learned by NovaCode\n```\n"),
			[]string{"new"},
			"```\n## Learned by NovaCode\n```\n\n## Learned by NovaCode\n\n- new\n",
		},
		{
			"CRLF file gets CRLF lines",
			ptr("# P\r\n\r\n## Learned by NovaCode\r\n\r\n- old\r\n"),
			[]string{"new"},
			"# P\r\n\r\n## Learned by NovaCode\r\n\r\n- old\r\n- new\r\n",
		},
		{
			"known and repeated facts are dropped",
			ptr("## Learned by NovaCode\n- Old fact.\n"),
			[]string{"old fact", "", "  ", "x", "X"},
			"## Learned by NovaCode\n- Old fact.\n- x\n",
		},
		{"nothing new leaves the file alone", ptr("- same\n"), []string{"Same"}, "- same\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tempDir(t)
			path := filepath.Join(dir, "NOVA.md")
			if tt.before != nil {
				write(t, path, *tt.before)
			}
			x := &Extractor{Path: path}
			if err := x.Append(tt.facts); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, string(got)); d != "" {
				t.Errorf("file (-want +got):\n%s", d)
			}
			// Appending the same facts again changes nothing.
			if err := x.Append(tt.facts); err != nil {
				t.Fatal(err)
			}
			again, _ := os.ReadFile(path)
			if string(again) != string(got) {
				t.Errorf("second Append changed the file:\n%s", again)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want only NOVA.md (temporary file left?)", len(entries))
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestAppendKeepsModeAndSymlink(t *testing.T) {
	dir := tempDir(t)
	real := filepath.Join(dir, "shared", "memory.md")
	write(t, real, "x\n")
	if err := os.Chmod(real, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "NOVA.md")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	if err := (&Extractor{Path: link}).Append([]string{"fact"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	got, _ := os.ReadFile(real)
	if want := "x\n\n## Learned by NovaCode\n\n- fact\n"; string(got) != want {
		t.Errorf("content %q, want %q", got, want)
	}
}

func TestAppendErrors(t *testing.T) {
	if err := (&Extractor{}).Append([]string{"x"}); err == nil {
		t.Error("Append without Path succeeded")
	}
	missing := filepath.Join(tempDir(t), "no", "such", "NOVA.md")
	err := (&Extractor{Path: missing}).Append([]string{"x"})
	if err == nil || !strings.HasPrefix(err.Error(), "append memory: create temporary file") {
		t.Errorf("err = %v", err)
	}
}

// TestProposeThenAppend is the intended flow: what Propose returns, Append
// writes, and the next Propose no longer offers it.
func TestProposeThenAppend(t *testing.T) {
	path := filepath.Join(tempDir(t), "NOVA.md")
	write(t, path, "# Project\n")
	fc := &fakeClient{answer: "- Tests: go test ./...\n- Lint: go vet ./...\n"}
	x := &Extractor{Client: fc, Model: "m", Path: path}
	facts, err := x.Propose(context.Background(), session())
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Append(facts); err != nil {
		t.Fatal(err)
	}
	again, err := x.Propose(context.Background(), session())
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 0 {
		t.Errorf("second Propose offered %v again", again)
	}
	got, _ := os.ReadFile(path)
	want := "# Project\n\n## Learned by NovaCode\n\n- Tests: go test ./...\n- Lint: go vet ./...\n"
	if d := cmp.Diff(want, string(got)); d != "" {
		t.Errorf("file (-want +got):\n%s", d)
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 4, "ab\n[… 6 bytes left out …]\nij"},
		// Both cut points fall inside a two-byte rune: they move outwards
		// at the head (backwards) and the tail (forwards).
		{"aéééééb", 4, "a\n[… 10 bytes left out …]\nb"},
	}
	for _, tt := range tests {
		if got := cut(tt.s, tt.n); got != tt.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
