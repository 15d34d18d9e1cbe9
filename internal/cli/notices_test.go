package cli

import (
	"bytes"
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/llm"
)

// What print mode writes to standard error before a run becomes the TUI's
// first notice, one line each, without the "nova: " prefix.
func TestStartNotice(t *testing.T) {
	tests := []struct{ trust, notes, want string }{
		{"", "", ""},
		{"", "nova: commands run unsandboxed\n", "commands run unsandboxed"},
		{"the workspace's settings were left out:\n  provider\n", "nova: warning: x.json: unknown settings y (ignored)\n",
			"the workspace's settings were left out:\n  provider\nwarning: x.json: unknown settings y (ignored)"},
	}
	for _, tc := range tests {
		if got := startNotice(tc.trust, tc.notes); got != tc.want {
			t.Errorf("startNotice(%q, %q) = %q, want %q", tc.trust, tc.notes, got, tc.want)
		}
	}
}

// --debug permissions: standard error in print mode; in the TUI, whose
// screen a line there would tear, a file named in the first notice.
func TestDebugLog(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	var notes strings.Builder
	w, closeLog, err := debugLog(&RootOptions{IO: ios, Print: true}, t.TempDir(), &notes)
	if err != nil || w != errOut || notes.Len() != 0 {
		t.Fatalf("print mode: %v, %v, notes %q", w, err, notes.String())
	}
	closeLog()

	dir := filepath.Join(t.TempDir(), "session")
	w, closeLog, err = debugLog(&RootOptions{IO: ios}, dir, &notes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("nova: permission: Bash ls → allow\n")); err != nil {
		t.Fatal(err)
	}
	closeLog()
	path := filepath.Join(dir, "debug.log")
	if b, err := os.ReadFile(path); err != nil || string(b) != "nova: permission: Bash ls → allow\n" {
		t.Errorf("debug.log = %q, %v", b, err)
	}
	if want := "nova: permission decisions are logged to " + path + "\n"; notes.String() != want {
		t.Errorf("notes = %q, want %q", notes.String(), want)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr = %q", errOut)
	}
}

type scripted []llm.StreamEvent

func (s scripted) Stream(context.Context, *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		for _, e := range s {
			if !yield(e, nil) {
				return
			}
		}
	}
}

// The memory extraction's model call is outside the loop: its retries are
// lines on standard error, and its stream passes unchanged.
func TestRetryLines(t *testing.T) {
	evs := scripted{
		llm.Retrying{Attempt: 1, MaxRetries: 4, Wait: 1500 * time.Millisecond, Err: &llm.Error{Kind: llm.ErrOverloaded, StatusCode: 529}},
		llm.TextDelta{Text: "- fact"},
		llm.StreamEnd{StopReason: llm.StopEndTurn},
	}
	var w bytes.Buffer
	var got []llm.StreamEvent
	for ev, err := range (retryLines{evs, &w}).Stream(context.Background(), &llm.Request{}) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev)
	}
	if diff := cmp.Diff([]llm.StreamEvent(evs), got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if want := "nova: memory extraction: model call failed (overloaded, HTTP 529); retrying in 1.5 s (1/4)\n"; w.String() != want {
		t.Errorf("stderr = %q, want %q", w.String(), want)
	}
}
