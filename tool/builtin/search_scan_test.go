package builtin

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestScanRefills searches a text with a buffer of a few dozen bytes, which
// the scanner refills (and grows, and gives up growing, for the long lines)
// many times, and wants what a buffer holding the whole text gives: the
// same counts and matching lines, and the same context lines where the
// buffer can hold them (a line longer than the buffer may grow to is never
// context before a match, and context kept across a refill gives way to a
// line that needs the room).
func TestScanRefills(t *testing.T) {
	var text strings.Builder
	for i := range 400 {
		switch {
		case i%37 == 0 || i%37 == 2:
			fmt.Fprintf(&text, "needle %d\n", i)
		case i%53 == 0:
			fmt.Fprintf(&text, "%s needle in a long line %d\n", strings.Repeat("long ", 40), i)
		case i%61 == 0:
			text.WriteString(strings.Repeat("-", 300) + "\n") // longer than the small buffer can grow
		default:
			fmt.Fprintf(&text, "line %d %s\n", i, strings.Repeat("x", i%23))
		}
	}
	text.WriteString("needle at the end without a newline")
	data := text.String()
	// The lines longer than a buffer of size may grow to (2*size): shown
	// cut, once complete, and never as context before a match.
	long := func(size int) map[int]bool {
		m := map[int]bool{}
		for i, l := range strings.Split(data, "\n") {
			if len(l) >= 2*size-1 {
				m[i+1] = true
			}
		}
		return m
	}
	for _, tc := range []struct {
		pattern       string
		mode          string
		before, after int
	}{
		{"needle", modeContent, 0, 0},
		{"needle", modeContent, 2, 0},
		{"needle", modeContent, 0, 3},
		{"needle", modeContent, 4, 4},
		{`needle \d+$`, modeContent, 1, 1},
		{"needle", modeCount, 0, 0},
		{"needle at the end", modeFiles, 0, 0},
		{"nowhere", modeCount, 0, 0},
	} {
		t.Run(fmt.Sprintf("%s/%s/B%dA%d", tc.pattern, tc.mode, tc.before, tc.after), func(t *testing.T) {
			m, err := newMatcher(tc.pattern, false, false)
			if err != nil {
				t.Fatal(err)
			}
			opts := scanOpts{mode: tc.mode, before: tc.before, after: tc.after, keepLines: 1 << 20, keepBytes: 1 << 30}
			scan := func(initSize, maxSize int) (scanResult, bool) {
				sc := newScanner(context.Background(), m, opts)
				sc.initSize, sc.maxSize = initSize, maxSize
				var res scanResult
				found, err := sc.scan(strings.NewReader(data), &res, int64(len(data)))
				if err != nil {
					t.Fatal(err)
				}
				return res, found
			}
			want, wantFound := scan(1<<20, 1<<20)
			for _, size := range []int{16, 48, 100, 160, 257} {
				got, found := scan(size, 2*size)
				if found != wantFound {
					t.Errorf("buffer %d: found %v, want %v", size, found, wantFound)
				}
				if d := cmp.Diff(want.count, got.count); d != "" {
					t.Errorf("buffer %d: count (-whole +refilled):\n%s", size, d)
				}
				if tc.mode != modeContent {
					continue
				}
				// Lines longer than the buffer may grow to are cut, and
				// shown once complete: compare the numbers of all lines,
				// and the text of the short ones.
				isLong := long(size)
				// Context is compared where the buffer holds the longest
				// line (300 bytes) with the context lines kept before it
				// (at most 32 bytes each).
				withContext := 2*size >= 300+(max(tc.before, tc.after)+1)*32
				norm := func(r scanResult) []string {
					var out []string
					for _, l := range r.lines {
						if !l.match && !withContext {
							continue
						}
						text := l.text
						if isLong[l.n] {
							text = "<long>"
						}
						out = append(out, fmt.Sprintf("%d %v %s", l.n, l.match, text))
					}
					return out
				}
				if d := cmp.Diff(norm(want), norm(got)); d != "" {
					t.Errorf("buffer %d: lines (-whole +refilled):\n%s", size, d)
				}
				if withContext && want.nout != got.nout {
					t.Errorf("buffer %d: %d output lines, want %d", size, got.nout, want.nout)
				}
			}
		})
	}
}
