package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"
)

// lines is n numbered lines, each ending with eol.
func lines(n int, eol string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d%s", i, eol)
	}
	return b.String()
}

// A paste is the same text whatever line endings the terminal sent: CR (what
// terminals send inside a bracketed paste), LF, or CRLF (copied from a
// Windows file). It is counted and collapsed by its lines, and the run gets
// it with "\n" endings.
func TestPasteLineEndings(t *testing.T) {
	tests := []struct {
		name      string
		paste     string
		wantInput string
		wantSent  string
	}{
		{"100 lines, CR", lines(100, "\r"), "[Pasted text #1 +100 lines]", lines(100, "\n")},
		{"100 lines, LF", lines(100, "\n"), "[Pasted text #1 +100 lines]", lines(100, "\n")},
		{"100 lines, CRLF", lines(100, "\r\n"), "[Pasted text #1 +100 lines]", lines(100, "\n")},
		{"100 lines, CR, no final newline", strings.TrimSuffix(lines(100, "\r"), "\r"), "[Pasted text #1 +100 lines]", strings.TrimSuffix(lines(100, "\n"), "\n")},
		{"mixed", "a\r\nb\rc\nd\r" + lines(30, "\r"), "[Pasted text #1 +34 lines]", "a\nb\nc\nd\n" + lines(30, "\n")},
		{"20 lines collapse", lines(20, "\r"), "[Pasted text #1 +20 lines]", lines(20, "\n")},
		{"19 lines go in as typed", lines(19, "\r\n"), lines(19, "\n"), lines(19, "\n")},
		{"3 lines, CRLF", "a\r\nb\r\nc", "a\nb\nc", "a\nb\nc"},
		{"one line", "hello", "hello", "hello"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recordingRunner{}
			m := plainModel(Options{Runner: r})
			defer m.Close()
			m.Update(tea.PasteMsg{Content: tc.paste})
			if diff := cmp.Diff(tc.wantInput, m.input.Value()); diff != "" {
				t.Fatalf("input (-want +got):\n%s", diff)
			}
			press(m, key(tea.KeyEnter))
			if diff := cmp.Diff([]string{tc.wantSent}, r.wait(t, 1)); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
		})
	}
}
