package session_test

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// A transcript is the loop's recorder as it is, with no adapter between.
var _ agent.Recorder = (*session.Transcript)(nil)

// TestRecorderMethodsWriteWhatLoadReads calls each Recorder method and
// checks the records written and the state Load makes of them.
func TestRecorderMethodsWriteWhatLoadReads(t *testing.T) {
	dir := t.TempDir()
	tr, err := session.Start(dir, "s1", testHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	summary := user("summary of before")
	total1 := llm.Usage{InputTokens: 100, OutputTokens: 10}
	total2 := llm.Usage{InputTokens: 300, OutputTokens: 30}
	steps := []func() error{
		func() error { return tr.TurnEnd(1) }, // nothing written yet: no file, no error
		func() error { return tr.Message(1, *user("fix it")) },
		func() error { return tr.Message(1, *assistant("done")) },
		func() error { return tr.Usage(1, total1, 0.01) },
		func() error { return tr.TurnEnd(1) },
		func() error {
			return tr.Boundary(2, "b1", "manual", 120, 30, []llm.Message{*summary})
		},
		func() error { return tr.Message(2, *user("and now")) },
		func() error { return tr.Message(2, *assistant("ok")) },
		func() error { return tr.Usage(2, total2, 0.03) },
		func() error { return tr.End(2, "done") },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	st := mustLoad(t, tr.Path())
	want := []session.Record{
		msg(1, user("fix it")),
		msg(1, assistant("done")),
		{Type: session.TypeBoundary, Turn: 2, BoundaryID: "b1", Reason: "manual", TokensBefore: 120, TokensAfter: 30, Messages: []llm.Message{*summary}},
		msg(2, user("and now")),
		msg(2, assistant("ok")),
	}
	ignoreTime := cmpopts.IgnoreFields(session.Record{}, "Time")
	if d := cmp.Diff(want, st.Live, ignoreTime); d != "" {
		t.Errorf("live records (-want +got):\n%s", d)
	}
	type summaryOf struct {
		Messages []llm.Message
		Turns    int
		Usage    llm.Usage
		CostUSD  float64
		Ended    bool
	}
	wantState := summaryOf{Messages: vals(summary, user("and now"), assistant("ok")), Turns: 2, Usage: total2, CostUSD: 0.03, Ended: true}
	gotState := summaryOf{st.Messages, st.Turns, st.Usage, st.CostUSD, st.Ended}
	if d := cmp.Diff(wantState, gotState); d != "" {
		t.Errorf("loaded state (-want +got):\n%s", d)
	}
}

// TestSnapshotter checks what the snapshot hook keeps, skips and reports.
func TestSnapshotter(t *testing.T) {
	type rec struct {
		Turn int
		Base string // the snapshot's file, relative to the work directory
		Had  bool   // it existed (the record has a hash)
	}
	tests := []struct {
		name     string
		badStore bool // a store that cannot save (an invalid session id)
		closed   bool // the transcript is closed: records cannot be appended
		calls    [][]string
		want     []rec
		wantErr  []string // in the error, in order; none means nil
	}{
		{name: "a file, once per turn", calls: [][]string{{"a.txt"}, {"a.txt"}},
			want: []rec{{1, "a.txt", true}}},
		{name: "a missing file is noted", calls: [][]string{{"new.txt"}},
			want: []rec{{1, "new.txt", false}}},
		{name: "directories and links are skipped", calls: [][]string{{"sub", "link", "a.txt"}},
			want: []rec{{1, "a.txt", true}}},
		{name: "a store that cannot save", badStore: true, calls: [][]string{{"a.txt", "new.txt"}},
			wantErr: []string{"a.txt (a rewind cannot restore it)", "new.txt (a rewind cannot restore it)"}},
		{name: "a closed transcript", closed: true, calls: [][]string{{"a.txt"}},
			wantErr: []string{"record snapshot of ", "a.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work, sessions := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("before"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("a.txt", filepath.Join(work, "link")); err != nil {
				t.Fatal(err)
			}
			tr, err := session.Create(sessions, "s1", testHeader)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			id := "s1"
			if tt.badStore {
				id = "../escape"
			}
			snap := tr.Snapshotter(session.NewSnapshots(sessions, id))
			if tt.closed {
				tr.Close()
			}
			var errs []string
			for _, paths := range tt.calls {
				abs := make([]string, len(paths))
				for i, p := range paths {
					abs[i] = filepath.Join(work, p)
				}
				if err := snap(1, abs); err != nil {
					errs = append(errs, err.Error())
				}
			}
			all := strings.Join(errs, "\n")
			rest := all
			for _, w := range tt.wantErr {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q: no %q (in order)", all, w)
				}
				rest = rest[i+len(w):]
			}
			if len(tt.wantErr) == 0 && all != "" {
				t.Fatalf("error %q, want none", all)
			}
			if tt.closed {
				return
			}
			var got []rec
			for _, r := range mustLoad(t, tr.Path()).Snapshots {
				rel, _ := filepath.Rel(work, r.Path)
				got = append(got, rec{r.Turn, rel, r.Hash != ""})
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("snapshot records (-want +got):\n%s", d)
			}
		})
	}
}

// TestRecorderConcurrentUse records messages on one goroutine while tools'
// goroutines snapshot files, as the loop does (run it with -race).
func TestRecorderConcurrentUse(t *testing.T) {
	work, sessions := t.TempDir(), t.TempDir()
	tr, err := session.Start(sessions, "s1", testHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	snap := tr.Snapshotter(session.NewSnapshots(sessions, "s1"))
	const tools, messages = 8, 50
	var wg sync.WaitGroup
	for i := range tools {
		p := filepath.Join(work, "f"+string(rune('a'+i)))
		if err := os.WriteFile(p, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			if err := snap(1, []string{p}); err != nil {
				t.Error(err)
			}
		})
	}
	for i := range messages {
		if err := tr.Message(1, *user(strings.Repeat("x", i))); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if err := tr.TurnEnd(1); err != nil {
		t.Fatal(err)
	}
	st := mustLoad(t, tr.Path())
	if len(st.Snapshots) != tools || len(st.Messages) != messages {
		t.Errorf("loaded %d snapshots and %d messages, want %d and %d", len(st.Snapshots), len(st.Messages), tools, messages)
	}
}

// answerClient answers every request with one text.
type answerClient struct{ text string }

func (c answerClient) Stream(context.Context, *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		if yield(llm.TextDelta{Text: c.text}, nil) {
			yield(llm.StreamEnd{StopReason: llm.StopEndTurn, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}, nil)
		}
	}
}

// TestAgentRecordsIntoATranscript: what the loop records, compaction
// included, loads back as the conversation it holds.
func TestAgentRecordsIntoATranscript(t *testing.T) {
	tr, err := session.Start(t.TempDir(), "s1", testHeader)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	a := &agent.Agent{Client: answerClient{"hello"}, Model: "claude-sonnet-4-5", Recorder: tr}
	conv := agent.NewConversation("s1", "", "hi")
	for range a.Run(context.Background(), conv) {
	}
	if _, err := a.Compact(context.Background(), conv, ""); err != nil {
		t.Fatal(err)
	}
	conv.AddUser("again")
	for range a.Run(context.Background(), conv) {
	}
	st := mustLoad(t, tr.Path())
	if d := cmp.Diff(conv.Messages, st.Messages); d != "" {
		t.Errorf("loaded conversation (-in memory +loaded):\n%s", d)
	}
	if !st.Ended || st.Turns != conv.Turns {
		t.Errorf("loaded: ended %v, turns %d; the conversation has %d", st.Ended, st.Turns, conv.Turns)
	}
}
