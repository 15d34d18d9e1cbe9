package builtin

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
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
		{`Ser{2}`, false, true, true}, // Simplify leaves "Se", "r", "r" apart: joined again, "Serr"
		{`NewSer(?:v){1}er`, false, true, true},
		{`(?i)f{2}`, false, true, true},
		{`x{3}\d`, false, true, false},
		{`$`, false, false, false},
		{`\s*$`, false, false, false},
		{`\b[A-Z][a-z]+\b`, false, false, false},
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
			region := []byte(text)
			want := regexpLines(regexp.MustCompile(flags+tt.pattern), region)
			// By the rare byte, then (as after many misses) by the whole
			// literal; without a literal, by the DFA, then by the
			// expression over the text.
			for _, whole := range []bool{false, true} {
				for i := range m.lits {
					m.lits[i].whole = whole && !m.lits[i].fold
				}
				if whole {
					m.dfa = nil
				}
				m.reset()
				if d := cmp.Diff(want, matcherLines(m, region)); d != "" {
					t.Errorf("whole %v: matching lines@match offset (-regexp +matcher):\n%s", whole, d)
				}
			}
		})
	}
}

// TestMatcherDFA: a pattern without a usable literal is searched for by the
// lazy DFA, which finds the lines the regular expression finds line by
// line, on random patterns and texts (ASCII and not, empty lines, a last
// line without a newline), with states dropped as often as it takes.
func TestMatcherDFA(t *testing.T) {
	for _, tt := range []struct {
		pattern string
		dfa     bool
	}{
		{`[A-Z]{6,}\d`, true},
		{`^\s*$`, true},
		{`x*`, true},
		{`[a-c]+$`, true},
		{`^[^a]`, true},
		{`\b[A-Z]{3,}\b`, true},
		{`\B[a-c]+`, true},
		{strings.Repeat(`[A-Z]{1000}`, 9), false}, // a program too long: the expression alone
		{`\Aab`, false},                           // the text's start: the expression alone
		{`b+\z`, false},
	} {
		m, err := newMatcher(tt.pattern, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if (m.dfa != nil) != tt.dfa {
			t.Errorf("%s: DFA %v, want %v", tt.pattern, m.dfa != nil, tt.dfa)
		}
	}
	if m, _ := newMatcher(`[A-Z]{6,}\d`, false, true); m.dfa != nil {
		t.Errorf("a multiline search has a DFA")
	}

	rng := rand.New(rand.NewPCG(1, 2))
	atoms := []string{"a", "b", "c", "A", "B", ".", "[a-c]", "[^a\n]", `\d`, `\s`, `\w`, `[[:upper:]]`, "é", "^", "$", "(?i:b)", "K", `\b`, `\B`, "_"}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 {
			return atoms[rng.IntN(len(atoms))]
		}
		switch rng.IntN(6) {
		case 0:
			return gen(depth-1) + gen(depth-1)
		case 1:
			return "(?:" + gen(depth-1) + "|" + gen(depth-1) + ")"
		case 2:
			return "(?:" + gen(depth-1) + ")" + []string{"*", "+", "?", "{2,3}", "*?"}[rng.IntN(5)]
		default:
			return gen(depth-1) + gen(depth-1) + gen(depth-1)
		}
	}
	chars := []string{"a", "b", "c", "A", "B", "1", " ", "\t", "\n", "\n", "é", "K", "k", "\u212A", "x", "_", "-"}
	checked := 0
	for range 3000 {
		pattern := gen(1 + rng.IntN(3))
		ignoreCase := rng.IntN(3) == 0
		var text strings.Builder
		for range rng.IntN(60) {
			text.WriteString(chars[rng.IntN(len(chars))])
		}
		m, err := newMatcher(pattern, ignoreCase, false)
		if err != nil || m.lits != nil || m.dfa == nil {
			continue
		}
		checked++
		if rng.IntN(4) == 0 {
			m.dfa.maxStates = 2 // dropped again and again (past the resets, the expression goes on)
		}
		flags := "(?m)"
		if ignoreCase {
			flags = "(?mi)"
		}
		region := []byte(text.String())
		want := regexpLines(regexp.MustCompile(flags+pattern), region)
		if d := cmp.Diff(want, matcherLines(m, region)); d != "" {
			t.Fatalf("pattern %q (i=%v) in %q: lines@offset (-regexp +DFA):\n%s", pattern, ignoreCase, region, d)
		}
	}
	if checked < 500 {
		t.Errorf("only %d patterns went to the DFA", checked)
	}

	// A pattern whose states explode (2^12 of them): dropped, built again,
	// then given up for the expression, with the same lines.
	m, err := newMatcher(`[ab]*a[ab]{12}c`, false, false)
	if err != nil || m.dfa == nil {
		t.Fatalf("no DFA: %v", err)
	}
	var text strings.Builder
	for i := range 2000 {
		for range 40 {
			text.WriteByte("ab"[rng.IntN(2)])
		}
		if i%7 == 0 {
			text.WriteByte('c')
		}
		text.WriteByte('\n')
	}
	region := []byte(text.String())
	want := regexpLines(regexp.MustCompile(`(?m)[ab]*a[ab]{12}c`), region)
	if d := cmp.Diff(want, matcherLines(m, region)); d != "" || m.dfa != nil || len(want) == 0 {
		t.Errorf("exploding states: DFA given up: %v; lines@offset (-regexp +matcher):\n%s", m.dfa == nil, d)
	}
}

// regexpLines returns "line@offset" of each line of region re matches, run
// on the line alone (what follows the last newline is no line).
func regexpLines(re *regexp.Regexp, region []byte) []string {
	lines := bytes.Split(region, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	var out []string
	for i, line := range lines {
		if loc := re.FindIndex(line); loc != nil {
			out = append(out, fmt.Sprintf("%d@%d", i+1, loc[0]))
		}
	}
	return out
}

// matcherLines returns "line@offset" of each line of region m finds.
func matcherLines(m *matcher, region []byte) []string {
	var out []string
	for from := 0; from < len(region); {
		ls, le, ms, ok := m.find(region, from)
		if !ok {
			break
		}
		out = append(out, fmt.Sprintf("%d@%d", bytes.Count(region[:ls], []byte{'\n'})+1, ms-ls))
		from = le + 1
	}
	return out
}
