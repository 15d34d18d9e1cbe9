package builtin

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// matcher finds the lines a Grep pattern matches. Most patterns an agent
// sends are literals or hold one ("func NewServer", "TODO|FIXME",
// "func \w+Server\("), so the pattern is searched for through literals that
// every match must contain: the rarest byte of such a literal is found with
// bytes.IndexByte (vectorised), and only the lines holding it are checked,
// with a byte comparison when the literal is the whole pattern and with the
// regular expression otherwise. A pattern without such a literal goes
// through a lazy DFA (lineDFA), which finds the lines the regular
// expression then runs on; a pattern the DFA does not handle (\A, \z, a
// multiline search) runs the regular expression over the text.
type matcher struct {
	re *regexp.Regexp // (?m), with i and s as asked: the whole pattern
	// lits: every match contains one of them (nil: no usable literal).
	lits []literal
	// exact: the pattern is an alternation of the literals (case-sensitive,
	// or folding ASCII letters that have no non-ASCII fold), so an
	// occurrence of one is a match.
	exact bool
	// after, when the pattern is a concatenation with the one literal in
	// it, matches what must follow that literal, anchored: an occurrence
	// it does not follow is passed over without running the whole
	// expression on its line, which matters when the literal is common
	// ("\(ctx, \d").
	after *regexp.Regexp
	// before are the case-sensitive literals of that concatenation ahead
	// of the literal: a line must hold them before the occurrence ("func "
	// of "func \w+Server\(").
	before [][]byte
	// dfa, for a pattern without usable literals, tells the lines that
	// match (nil: the regular expression runs over the text).
	dfa *lineDFA
}

// literal is a string every match of (one branch of) the pattern contains.
type literal struct {
	s    []byte // lowercase (ASCII) when fold
	fold bool
	// rare is the offset in s of the byte searched for; c1 and c2 are
	// that byte in both cases (equal when it has no case or !fold).
	rare   int
	c1, c2 byte
	// next1, next2 cache the next position of c1 and c2 at or after the
	// last search position (-1: not searched, len: none), so several
	// literals and two cases need one pass each over a region.
	next1, next2 int
	// misses counts the times the rare byte was found where the literal
	// was not; past missLimit the byte is not rare in these files, and a
	// case-sensitive literal is searched for whole (bytes.Index) instead.
	misses int
	whole  bool
	// byteExact: a byte comparison decides (exactFold), computed once.
	byteExact bool
}

// missLimit is how many misses make a literal searched for whole: a few
// hundred say more about a tree than the byte table does.
const missLimit = 512

// newMatcher compiles the pattern of q. The pattern has been validated
// (compileGrep).
func newMatcher(pattern string, ignoreCase, multiline bool) (*matcher, error) {
	m, err := newLitMatcher(pattern, ignoreCase, multiline)
	if err == nil && m.lits == nil && !multiline {
		m.dfa = newDFA(pattern, ignoreCase)
	}
	return m, err
}

// newLitMatcher is newMatcher without the DFA.
func newLitMatcher(pattern string, ignoreCase, multiline bool) (*matcher, error) {
	flags := "m"
	if multiline {
		flags += "s"
	}
	if ignoreCase {
		flags += "i"
	}
	re, err := regexp.Compile("(?" + flags + ")" + pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	pflags := syntax.Perl
	if ignoreCase {
		pflags |= syntax.FoldCase
	}
	if multiline {
		pflags |= syntax.DotNL
	}
	parsed, err := syntax.Parse(pattern, pflags)
	if err != nil {
		return m, nil
	}
	parsed = mergeLiterals(parsed.Simplify())
	set, ok := requiredLits(parsed)
	if !ok || len(set) == 0 || len(set) > maxLits {
		return m, nil
	}
	m.exact = pureAlternation(parsed)
	for _, r := range set {
		l, ok := makeLiteral(r)
		if !ok {
			return &matcher{re: re}, nil
		}
		if !l.exactFold() {
			m.exact = false
		}
		m.lits = append(m.lits, l)
	}
	if !m.exact && !multiline && len(set) == 1 {
		m.after, m.before = aroundLiteral(parsed, set[0])
	}
	return m, nil
}

// aroundLiteral returns, when re is a concatenation holding lit as one of
// its parts, what follows lit, compiled and anchored (nil when nothing
// does, or when it starts with an assertion about the character before it,
// \b or ^, which the anchored match cannot see), and the case-sensitive
// literals among the parts before lit.
func aroundLiteral(re *syntax.Regexp, lit litRunes) (after *regexp.Regexp, before [][]byte) {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil, nil
	}
	for i, sub := range re.Sub {
		if sub.Op != syntax.OpLiteral || !slices.Equal(sub.Rune, lit.runes) || (sub.Flags&syntax.FoldCase != 0) != lit.fold {
			continue
		}
		for _, b := range re.Sub[:i] {
			if b.Op == syntax.OpLiteral && b.Flags&syntax.FoldCase == 0 {
				before = append(before, []byte(string(b.Rune)))
			}
		}
		rest := re.Sub[i+1:]
		if len(rest) == 0 || slices.ContainsFunc(rest, seesBefore) {
			return nil, before
		}
		after, err := regexp.Compile(`\A(?:` + (&syntax.Regexp{Op: syntax.OpConcat, Sub: rest}).String() + ")")
		if err != nil {
			return nil, before
		}
		return after, before
	}
	return nil, nil
}

// holdsBefore reports whether b, the line up to an occurrence of the
// literal, holds the literals that must come before it.
func (m *matcher) holdsBefore(b []byte) bool {
	for _, l := range m.before {
		if !bytes.Contains(b, l) {
			return false
		}
	}
	return true
}

// seesBefore reports whether re holds an assertion that looks at the
// character before it.
func seesBefore(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	return slices.ContainsFunc(re.Sub, seesBefore)
}

// maxLits bounds the literals searched for at once: each is one pass.
const maxLits = 6

// litRunes is a literal of the syntax tree.
type litRunes struct {
	runes []rune
	fold  bool
}

// mergeLiterals joins the literals that follow each other in a
// concatenation into one, as Simplify leaves them apart when it expands a
// repetition (x{3} is x, x, x): "xxx" is a literal worth searching for
// where each x alone is not.
func mergeLiterals(re *syntax.Regexp) *syntax.Regexp {
	for i, sub := range re.Sub {
		re.Sub[i] = mergeLiterals(sub)
	}
	if re.Op != syntax.OpConcat {
		return re
	}
	subs := make([]*syntax.Regexp, 0, len(re.Sub))
	for _, sub := range re.Sub {
		if n := len(subs); n > 0 && sub.Op == syntax.OpLiteral && subs[n-1].Op == syntax.OpLiteral &&
			sub.Flags&syntax.FoldCase == subs[n-1].Flags&syntax.FoldCase {
			prev := *subs[n-1]
			prev.Rune = append(slices.Clip(prev.Rune), sub.Rune...)
			subs[n-1] = &prev
			continue
		}
		subs = append(subs, sub)
	}
	if len(subs) == 1 {
		return subs[0]
	}
	merged := *re
	merged.Sub = subs
	return &merged
}

// requiredLits returns literals such that every match of re contains one of
// them; ok is false when there is none worth searching for.
func requiredLits(re *syntax.Regexp) ([]litRunes, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return []litRunes{{re.Rune, re.Flags&syntax.FoldCase != 0}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLits(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLits(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []litRunes
		for _, sub := range re.Sub {
			if set, ok := requiredLits(sub); ok && litScore(set) > litScore(best) {
				best = set
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []litRunes
		for _, sub := range re.Sub {
			set, ok := requiredLits(sub)
			if !ok {
				return nil, false
			}
			all = append(all, set...)
		}
		return all, len(all) <= maxLits
	}
	return nil, false
}

// litScore rates a set of literals: the shortest one's length, so that the
// most selective set of a concatenation is searched for; 0 is useless.
func litScore(set []litRunes) int {
	if len(set) == 0 {
		return 0
	}
	score := 1 << 30
	for _, l := range set {
		n := 0
		for _, r := range l.runes {
			n += utf8.RuneLen(r)
		}
		score = min(score, n)
	}
	if score < 2 {
		// A single byte is still worth searching for when it is not one
		// of the commonest (the "-" of a date pattern): the expression
		// then runs on the lines holding it, not over everything.
		for _, l := range set {
			if len(l.runes) == 1 && (l.runes[0] >= utf8.RuneSelf || byteRank[l.runes[0]] >= commonByte) {
				return 0
			}
		}
		return 1
	}
	return score*8 - len(set)
}

// commonByte is the rank (byteRank) from which a byte is too common to be
// searched for on its own: the 20 commonest, spaces and e, t, a, …
const commonByte = 236

// pureAlternation reports whether re is a literal or an alternation of
// literals, so that finding a literal is finding a match.
func pureAlternation(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return true
	case syntax.OpCapture:
		return pureAlternation(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !pureAlternation(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// foldsOutsideASCII: ASCII letters whose Unicode case folding reaches a
// non-ASCII rune (k: KELVIN SIGN, s: LONG S), which a byte comparison would
// miss.
func foldsOutsideASCII(c byte) bool { return c == 'k' || c == 's' || c == 'K' || c == 'S' }

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// makeLiteral picks the byte to search for; ok is false when no byte of the
// literal is certain to appear in every match.
func makeLiteral(r litRunes) (literal, bool) {
	l := literal{s: []byte(string(r.runes)), fold: r.fold}
	best := -1
	for i, c := range l.s {
		if l.fold {
			if isASCIILetter(c) {
				// The parser keeps a fold's smallest rune (K for k).
				l.s[i] = c | 0x20
				c |= 0x20
			}
			if c >= utf8.RuneSelf || foldsOutsideASCII(c) {
				continue // not certain to be this byte in a match
			}
		}
		if best < 0 || l.freq(c) < l.freq(l.s[best]) {
			best = i
		}
	}
	if best < 0 {
		return l, false
	}
	l.rare = best
	l.byteExact = l.exactFold()
	l.c1, l.c2 = l.s[best], l.s[best]
	if l.fold && isASCIILetter(l.c1) {
		l.c2 = l.c1 &^ 0x20
	}
	return l, true
}

// freq is how common c is in text (byteRank), doubled for a letter that is
// searched for in both cases.
func (l *literal) freq(c byte) int {
	f := int(byteRank[c])
	if l.fold && isASCIILetter(c) {
		f = int(max(byteRank[c|0x20], byteRank[c&^0x20])) + 16
	}
	return f
}

// exactFold reports whether a byte comparison decides a match of l.
func (l *literal) exactFold() bool {
	if !l.fold {
		return true
	}
	for _, c := range l.s {
		if c >= utf8.RuneSelf || foldsOutsideASCII(c) {
			return false
		}
	}
	return true
}

// clone returns a matcher of its own for one worker: the literals' cached
// positions are per search.
func (m *matcher) clone() *matcher {
	c := *m
	c.lits = slices.Clone(m.lits)
	c.dfa = m.dfa.clone()
	return &c
}

// reset forgets the cached positions: a new region is searched.
func (m *matcher) reset() {
	for i := range m.lits {
		m.lits[i].next1, m.lits[i].next2 = -1, -1
	}
}

// nextByte returns the next position at or after from of the literal's
// rare byte in either case, or -1.
func (l *literal) nextByte(b []byte, from int) int {
	find := func(c byte, cached *int) int {
		if *cached >= from {
			return *cached
		}
		if l.whole {
			// The first occurrence whose rare byte is at or after from
			// starts at or after from-rare.
			start := max(from-l.rare, 0)
			if i := bytes.Index(b[start:], l.s); i >= 0 {
				*cached = start + i + l.rare
			} else {
				*cached = len(b)
			}
			return *cached
		}
		if i := bytes.IndexByte(b[from:], c); i >= 0 {
			*cached = from + i
		} else {
			*cached = len(b)
		}
		return *cached
	}
	p := find(l.c1, &l.next1)
	if l.c2 != l.c1 {
		p = min(p, find(l.c2, &l.next2))
	}
	if p >= len(b) {
		return -1
	}
	return p
}

// presence is what a byte comparison says of a literal at a position.
type presence uint8

const (
	absent  presence = iota
	present          // there (a match of an exact pattern)
	unsure           // non-ASCII text around: only the regular expression can tell
)

// at reports whether the literal occurs in b at i. A case-folding literal
// is compared folding ASCII letters; where that fails but non-ASCII text is
// near, a Unicode folding (K for k, ſ for s, É for é) might still match,
// and the answer is unsure.
func (l *literal) at(b []byte, i int) presence {
	if i >= 0 && i+len(l.s) <= len(b) {
		if !l.fold {
			if string(b[i:i+len(l.s)]) == string(l.s) {
				return present
			}
			return absent
		}
		if foldEqual(b[i:i+len(l.s)], l.s) {
			return present
		}
	} else if !l.fold {
		return absent
	}
	if l.byteExact {
		return absent
	}
	// A folded form may be longer or shorter: look around the literal's
	// span, a few bytes wider on each side, for non-ASCII bytes.
	from, to := max(i-2*utf8.UTFMax, 0), min(i+len(l.s)+2*utf8.UTFMax, len(b))
	if from < to && hasNonASCII(b[from:to]) {
		return unsure
	}
	return absent
}

// hasNonASCII reports whether b holds a byte of 0x80 or more, eight bytes
// at a time.
func hasNonASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// foldEqual compares b with the lowercase ASCII literal s, folding b's
// ASCII letters.
func foldEqual(b, s []byte) bool {
	for j, c := range s {
		d := b[j]
		if isASCIILetter(d) {
			d |= 0x20
		}
		if d != c {
			return false
		}
	}
	return true
}

// find returns the next line of region at or after from (a line start) that
// the pattern matches: the line's bounds (without its newline) and the
// match's start within region; ok is false when there is none. region ends
// at a line end (or at the end of the data). Successive calls on one region
// (after reset) must not go back.
func (m *matcher) find(region []byte, from int) (ls, le, ms int, ok bool) {
	if m.lits == nil {
		for m.dfa != nil && from < len(region) {
			ls, le, what := m.dfa.find(region, from)
			switch what {
			case dfaNone:
				return 0, 0, 0, false
			case dfaGiveUp:
				m.dfa, from = nil, ls // the regular expression goes on from here
			default: // dfaMatch, dfaUnsure: the expression has the last word
				if loc := m.re.FindIndex(region[ls:le]); loc != nil {
					return ls, le, ls + loc[0], true
				}
				from = le + 1
			}
		}
		for from < len(region) {
			loc := m.re.FindIndex(region[from:])
			if loc == nil || (from+loc[0] == len(region) && region[len(region)-1] == '\n') {
				// None, or an empty match after the last newline, which
				// is on no line (an empty match at the end of a last line
				// without a newline, $ of "abc", is on that line).
				return 0, 0, 0, false
			}
			at := from + loc[0]
			ls = bytes.LastIndexByte(region[from:at], '\n') + 1 + from
			le = lineEnd(region, at)
			// The match over the region may span lines; a line match must
			// not.
			if loc := m.re.FindIndex(region[ls:le]); loc != nil {
				return ls, le, ls + loc[0], true
			}
			from = le + 1
		}
		return 0, 0, 0, false
	}
	for pos := from; pos < len(region); {
		at := -1
		var hit *literal
		for i := range m.lits {
			if p := m.lits[i].nextByte(region, pos); p >= 0 && (at < 0 || p < at) {
				at, hit = p, &m.lits[i]
			}
		}
		if at < 0 {
			return 0, 0, 0, false
		}
		ms = at - hit.rare
		there := hit.at(region, ms)
		if there == absent {
			if hit.misses++; hit.misses == missLimit && !hit.fold {
				hit.whole = true
				hit.next1, hit.next2 = -1, -1
			}
			pos = at + 1 // not the literal here; maybe later on this line
			continue
		}
		le = lineEnd(region, at)
		if m.after != nil && there == present && !m.after.Match(region[ms+len(hit.s):le]) {
			pos = at + 1 // not followed as a match needs; maybe later on this line
			continue
		}
		ls = bytes.LastIndexByte(region[from:at], '\n') + 1 + from
		if m.exact && there == present {
			return ls, le, ms, true
		}
		if there == present && !m.holdsBefore(region[ls:ms]) {
			pos = at + 1
			continue
		}
		if loc := m.re.FindIndex(region[ls:le]); loc != nil {
			return ls, le, ls + loc[0], true
		}
		from, pos = le+1, le+1
	}
	return 0, 0, 0, false
}

// lineEnd returns the index of the newline ending the line holding i, or
// len(b).
func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(b)
}
