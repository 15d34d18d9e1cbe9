package builtin

import (
	"bytes"
	"fmt"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMatcherFind checks the literal fast path against the plain regular
// expression run on each line: the same lines must match.
func TestMatcherFind(t *testing.T) {
	text := "package main\n" +
		"func NewServer(ctx context.Context) *Server {\n" +
		"\tsrv := newServer() // NEWSERVER\n" +
		"NewServe NewServer\n" +
		"\u212Aept the Kelvin sign\n" + // K (KELVIN SIGN) folds to k
		"\u017Fecret with a long s\n" + // ſ folds to s
		"Grüße und GRÜSSE, grÜße\n" +
		"TODO: fix\nFIXME later\n" +
		"x(ctx, y) (ctx, 1) newServer(ctx\n" +
		"NewServer( before func NewServer(\n" + "a func NewServer( once\n" + "NewServer( but func after\n" +
		"\n" +
		"the end without a newline"
	tests := []struct {
		pattern    string
		ignoreCase bool
		wantLits   bool // a literal is searched for
		wantExact  bool
	}{
		{"NewServer", false, true, true},
		{"newserver", true, true, false},
		{"kept", true, true, false},
		{"secret", true, true, false},
		{"context", true, true, true},
		{"grüße", true, true, false},
		{"TODO|FIXME", false, true, true},
		{"todo|fixme", true, true, true},
		{`func \w+Server\(`, false, true, false},
		{`^NewServe\b`, false, true, false},
		{`Server$`, false, true, false},
		{`\bsrv\b`, false, true, false},
		{`^$`, false, false, false},
		{`x*`, false, false, false},
		{`[A-Z]{4,}`, false, false, false},
		{`e`, false, true, true},
		{`(?:New)+Server`, false, true, false},
		{`Server\(ctx`, false, true, true},
		{`\(ctx, \d`, false, true, false},
		{`[A-Z]{2}[a-z]+\(ctx`, false, true, false},
		{`newServer\b`, false, true, false},
		{`NewServer\b\(`, false, true, false},
		{`NEWSERVER.*$`, true, true, false},
		{`fix(me)? later`, true, true, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/i=%v", tt.pattern, tt.ignoreCase), func(t *testing.T) {
			m, err := newMatcher(tt.pattern, tt.ignoreCase, false)
			if err != nil {
				t.Fatal(err)
			}
			if (m.lits != nil) != tt.wantLits || m.exact != tt.wantExact {
				t.Errorf("literals %v, exact %v; want %v, %v", m.lits != nil, m.exact, tt.wantLits, tt.wantExact)
			}
			flags := "(?m)"
			if tt.ignoreCase {
				flags = "(?mi)"
			}
			re := regexp.MustCompile(flags + tt.pattern)
			var want, got []string
			for i, line := range bytes.Split([]byte(text), []byte{'\n'}) {
				if loc := re.FindIndex(line); loc != nil {
					want = append(want, fmt.Sprintf("%d@%d", i+1, loc[0]))
				}
			}
			region := []byte(text)
			// By the rare byte, then (as after many misses) by the whole
			// literal.
			for _, whole := range []bool{false, true} {
				for i := range m.lits {
					m.lits[i].whole = whole && !m.lits[i].fold
				}
				got = got[:0]
				m.reset()
				for from := 0; from < len(region); {
					ls, le, ms, ok := m.find(region, from)
					if !ok {
						break
					}
					got = append(got, fmt.Sprintf("%d@%d", bytes.Count(region[:ls], []byte{'\n'})+1, ms-ls))
					from = le + 1
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("whole %v: matching lines@match offset (-regexp +matcher):\n%s", whole, d)
				}
			}
		})
	}
}
