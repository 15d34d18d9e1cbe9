package session

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/novacode/nova/llm"
)

// infoFromLoad is what List said when it loaded every transcript whole:
// the reference summarize must agree with.
func infoFromLoad(t *testing.T, path string) (Info, error) {
	t.Helper()
	st, err := Load(path)
	if err != nil {
		return Info{}, err
	}
	return Info{Path: path, Created: st.Header.Time, Updated: st.Updated, FirstPrompt: st.FirstPrompt,
		Turns: st.Turns, CostUSD: st.CostUSD, Model: st.Header.Model, Cwd: st.Header.Cwd}, nil
}

// randomTranscript writes a session the way the loop does: prompts (some
// tool-result messages come first), assistant messages with calls, tool
// results of random size (some far past the tail window), usage records
// with running costs, snapshots, compaction boundaries, rewinds (the next
// run continues after the highest turn), sometimes an end record, and
// sometimes a torn last line.
func randomTranscript(t *testing.T, dir string, rng *rand.Rand, n int) string {
	t.Helper()
	id := fmt.Sprintf("s%04d", n)
	tr, err := Create(dir, id, Record{Type: TypeHeader, Time: time.Unix(1_700_000_000, 0).UTC(), Cwd: "/w", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Unix(1_700_000_100, 0).UTC()
	next := func() time.Time { clock = clock.Add(time.Duration(rng.IntN(5000)) * time.Millisecond); return clock }
	turn, cost := 0, 0.0
	app := func(r Record) {
		if err := tr.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if rng.IntN(4) == 0 { // a session that starts with tool results (no prompt yet)
		app(Record{Type: TypeMessage, Time: next(), Turn: 1, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: "x", Content: "r"}}}})
	}
	for run := range rng.IntN(6) {
		turn++
		app(Record{Type: TypeMessage, Time: next(), Turn: turn, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: fmt.Sprintf("prompt %d of %s", run, id)}}}})
		for k := range 1 + rng.IntN(4) {
			if k > 0 {
				turn++
			}
			callID := fmt.Sprintf("c%d", turn)
			app(Record{Type: TypeMessage, Time: next(), Turn: turn, Message: &llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				{Type: llm.BlockToolUse, ToolUseID: callID, ToolName: "Read", Input: []byte(`{}`)}}}})
			if rng.IntN(3) > 0 {
				cost += 0.01
				app(Record{Type: TypeUsage, Time: next(), Turn: turn, Usage: &llm.Usage{InputTokens: 10}, CostUSD: cost})
			}
			if rng.IntN(5) == 0 {
				app(Record{Type: TypeSnapshot, Time: next(), Turn: turn, Path: "/w/a.go"})
			}
			size := 10 + rng.IntN(2000)
			if rng.IntN(6) == 0 {
				size = tailWindow + rng.IntN(3*tailWindow) // past the first window
			}
			app(Record{Type: TypeMessage, Time: next(), Turn: turn, Message: &llm.Message{Role: llm.RoleUser, Content: []llm.Block{
				{Type: llm.BlockToolResult, ToolUseID: callID, Content: strings.Repeat("x", size)}}}})
		}
		if rng.IntN(5) == 0 {
			app(Record{Type: TypeBoundary, Time: next(), Turn: turn, BoundaryID: "b", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "summary"}}}}})
		}
		if turn > 1 && rng.IntN(4) == 0 {
			app(Record{Type: TypeRewind, Time: next(), Turn: 1 + rng.IntN(turn)})
		}
	}
	if rng.IntN(3) == 0 {
		app(Record{Type: TypeEnd, Time: next()})
	}
	tr.Close()
	if rng.IntN(4) == 0 { // torn: the process died while writing one more line
		f, err := os.OpenFile(tr.Path(), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"type":"message","time":"2030-01-01T00:00:00Z","turn":999,"message":{"role":"us`)
		f.Close()
	}
	return tr.Path()
}

// TestSummarizeAgreesWithLoad: reading the two ends of a transcript gives
// the listing that loading all of it gives, for many random sessions.
func TestSummarizeAgreesWithLoad(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		path := randomTranscript(t, dir, rng, n)
		want, err := infoFromLoad(t, path)
		if err != nil {
			t.Fatalf("%s: Load: %v", path, err)
		}
		got, err := summarize(path)
		if err != nil {
			t.Fatalf("%s: summarize: %v", path, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%s: summarize differs from Load (-load +summarize):\n%s", filepath.Base(path), diff)
		}
	}
}

func TestSummarizeRejectsWhatLoadRejects(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := map[string]string{
		"empty":                    "",
		"no header":                `{"type":"message","time":"2025-01-01T00:00:00Z","turn":1}` + "\n",
		"torn header":              `{"type":"hea`,
		"invalid line before last": `{"type":"header","time":"2025-01-01T00:00:00Z"}` + "\nnot json\n" + `{"type":"end","time":"2025-01-01T00:00:01Z"}` + "\n",
		"record without a type":    `{"type":"header","time":"2025-01-01T00:00:00Z"}` + "\n{}\n" + `{"type":"end","time":"2025-01-01T00:00:01Z"}` + "\n",
	}
	for name, body := range tests {
		t.Run(name, func(t *testing.T) {
			p := write(strings.ReplaceAll(name, " ", "-")+".jsonl", body)
			if _, err := Load(p); err == nil {
				t.Fatal("Load accepted it: the case proves nothing")
			}
			if info, err := summarize(p); err == nil {
				t.Errorf("summarize accepted it: %+v", info)
			}
		})
	}
}
