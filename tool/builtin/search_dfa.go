package builtin

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
)

// lineDFA tells which lines a pattern without a usable literal matches
// ("[A-Z]{6,}\d", "^\s*$", "\b[A-Z]{3,}\b"), where Go's regexp would run its
// NFA over every byte, several times slower than ripgrep's DFA. It is a
// lazy DFA over the compiled program of the whole pattern, built a state at
// a time as the text needs it, over ASCII bytes only: it answers "does this
// line hold a match?", and the regular expression then runs on that one
// line for the match's place (so a state the DFA gets wrong could only
// lose a line, never add one: the tests compare it with the expression). A
// line holding a non-ASCII byte is left to the regular expression (the
// program's instructions are runes); so are patterns with text anchors
// (\A, \z) and multiline searches (newDFA refuses them).
//
// A state is a set of the program's instructions waiting for a byte, the
// program's start always among them (a match may start anywhere), with
// what the empty-width instructions need to know of the byte before: at a
// line's start (^ holds), a word byte (\b). Its closure at a position
// follows them; what they need of the byte after is the byte the
// transition reads ($ holds only before the newline, at the line's end).
// A transition into a match is marked (dfaMatchHere): a match ends before
// that byte.
//
// One lineDFA per search worker (clone): its states are built as it reads.
type lineDFA struct {
	prog *syntax.Prog
	// start is the state at a line's start.
	start int32
	// trans holds 128 entries per state: the state after an ASCII byte,
	// dfaMatchHere, or dfaUnknown when not yet built.
	trans []int32
	// matchEnd: the state's closure at the line's end holds a match.
	matchEnd []bool
	sets     [][]uint32 // each state's instructions
	ctx      []dfaCtx   // and what it knows of the byte before
	index    map[string]int32
	// resets counts the times the states were dropped for being more
	// than maxStates; past dfaMaxResets the pattern is left to the regular
	// expression.
	resets    int
	maxStates int
	stored    int // instructions held by the states (their sets and keys)
	// scratch for closure and step
	seen  []uint32 // generation per instruction
	gen   uint32
	stack []uint32
	next  []uint32
	key   []byte
}

// dfaCtx is what a state knows of the byte before it.
type dfaCtx uint8

const (
	dfaLineStart dfaCtx = 1 << iota // none: the line starts here
	dfaAfterWord                    // a word byte (\w)
)

// Entries of lineDFA.trans that are not states.
const (
	dfaUnknown   = -1
	dfaMatchHere = -2
)

// dfaMaxStates bounds a worker's states (128 entries of 4 bytes each: 512
// KiB), and dfaMaxStored the instructions their sets hold (8 bytes each,
// with the key: 1 MiB), so that a search's memory stays bounded whatever
// the pattern; past either the states are dropped and built again, and
// past dfaMaxResets the DFA gives up (a pattern whose states explode). A
// program longer than dfaMaxInsts is left to the regular expression.
const (
	dfaMaxStates = 1024
	dfaMaxStored = 1 << 17
	dfaMaxResets = 8
	dfaMaxInsts  = 1 << 13
)

// newDFA returns a DFA for pattern (compiled with (?m) and, when asked,
// (?i), as matcher.re is), or nil when the pattern has what it does not
// handle.
func newDFA(pattern string, ignoreCase bool) *lineDFA {
	flags := syntax.Perl &^ syntax.OneLine // (?m): ^ and $ at lines
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil || len(prog.Inst) > dfaMaxInsts {
		return nil
	}
	const handled = syntax.EmptyBeginLine | syntax.EmptyEndLine | syntax.EmptyWordBoundary | syntax.EmptyNoWordBoundary
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth && syntax.EmptyOp(in.Arg)&^handled != 0 {
			return nil
		}
	}
	d := &lineDFA{prog: prog, maxStates: dfaMaxStates}
	d.init()
	return d
}

// clone returns a DFA of its own for a worker, with no states yet.
func (d *lineDFA) clone() *lineDFA {
	if d == nil {
		return nil
	}
	c := &lineDFA{prog: d.prog, maxStates: d.maxStates}
	c.init()
	return c
}

func (d *lineDFA) init() {
	d.trans, d.matchEnd, d.sets, d.ctx = d.trans[:0], d.matchEnd[:0], d.sets[:0], d.ctx[:0]
	d.stored = 0
	d.index = make(map[string]int32)
	if d.seen == nil {
		d.seen = make([]uint32, len(d.prog.Inst))
	}
	d.start = d.state([]uint32{uint32(d.prog.Start)}, dfaLineStart)
}

// state returns the state of the instructions set (sorted, without
// duplicates) after a byte as ctx says, made when new.
func (d *lineDFA) state(set []uint32, ctx dfaCtx) int32 {
	d.key = append(d.key[:0], byte(ctx))
	for _, pc := range set {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if s, ok := d.index[string(d.key)]; ok {
		return s
	}
	s := int32(len(d.sets))
	d.sets = append(d.sets, slices.Clone(set))
	d.stored += len(set)
	d.ctx = append(d.ctx, ctx)
	d.index[string(d.key)] = s
	for range 128 {
		d.trans = append(d.trans, dfaUnknown)
	}
	d.matchEnd = append(d.matchEnd, d.closure(s, true, false, nil))
	return s
}

// closure follows the instructions of state s that read no byte, given
// whether the line ends next (eol) and whether the next byte is a word
// byte, and calls visit with each one that reads a byte. It reports
// whether a match is among them.
func (d *lineDFA) closure(s int32, eol, nextWord bool, visit func(*syntax.Inst)) bool {
	ctx := d.ctx[s]
	bol, prevWord := ctx&dfaLineStart != 0, ctx&dfaAfterWord != 0
	d.gen++
	if d.gen == 0 { // wrapped: forget every generation
		clear(d.seen)
		d.gen = 1
	}
	matched := false
	d.stack = append(d.stack[:0], d.sets[s]...)
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] == d.gen {
			continue
		}
		d.seen[pc] = d.gen
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			d.stack = append(d.stack, in.Out)
		case syntax.InstEmptyWidth:
			op := syntax.EmptyOp(in.Arg)
			if (op&syntax.EmptyBeginLine == 0 || bol) && (op&syntax.EmptyEndLine == 0 || eol) &&
				(op&syntax.EmptyWordBoundary == 0 || prevWord != nextWord) &&
				(op&syntax.EmptyNoWordBoundary == 0 || prevWord == nextWord) {
				d.stack = append(d.stack, in.Out)
			}
		case syntax.InstMatch:
			matched = true
		default:
			if visit != nil {
				visit(in)
			}
		}
	}
	return matched
}

// step builds the entry of state s for byte c (ASCII, not a newline): the
// state after it, or dfaMatchHere. It returns dfaUnknown when the states
// were too many too often: the DFA is done.
func (d *lineDFA) step(s int32, c byte) int32 {
	if len(d.sets) >= d.maxStates || d.stored >= dfaMaxStored {
		if d.resets++; d.resets > dfaMaxResets {
			return dfaUnknown
		}
		// Drop every state, and make s again.
		set, ctx := d.sets[s], d.ctx[s]
		d.init()
		s = d.state(set, ctx)
	}
	word := syntax.IsWordChar(rune(c))
	d.next = append(d.next[:0], uint32(d.prog.Start))
	matched := d.closure(s, false, word, func(in *syntax.Inst) {
		var ok bool
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1:
			ok = in.MatchRune(rune(c))
		case syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			ok = true
		}
		if ok {
			d.next = append(d.next, in.Out)
		}
	})
	t := int32(dfaMatchHere)
	if !matched {
		slices.Sort(d.next)
		d.next = slices.Compact(d.next)
		var ctx dfaCtx
		if word {
			ctx = dfaAfterWord
		}
		t = d.state(d.next, ctx)
	}
	d.trans[int(s)<<7|int(c)] = t
	return t
}

// dfaLine is what lineDFA.find reports of a line.
type dfaLine int8

const (
	dfaNone   dfaLine = iota // no line matches
	dfaMatch                 // the line matches
	dfaUnsure                // the line holds a non-ASCII byte: ask the regular expression
	dfaGiveUp                // too many states: ask the regular expression from here on
)

// find returns the first line at or after from (a line start) that
// matches or holds a non-ASCII byte, with its bounds.
func (d *lineDFA) find(b []byte, from int) (ls, le int, what dfaLine) {
	s, ls := d.start, from
	for i := from; i < len(b); i++ {
		c := b[i]
		if c == '\n' {
			if d.matchEnd[s] {
				return ls, i, dfaMatch
			}
			s, ls = d.start, i+1
			continue
		}
		if c >= 0x80 {
			return ls, lineEnd(b, i), dfaUnsure
		}
		t := d.trans[int(s)<<7|int(c)]
		if t < 0 {
			if t == dfaUnknown {
				t = d.step(s, c)
			}
			switch t {
			case dfaMatchHere:
				return ls, lineEnd(b, i), dfaMatch
			case dfaUnknown:
				return ls, 0, dfaGiveUp
			}
		}
		s = t
	}
	if ls < len(b) && d.matchEnd[s] {
		return ls, len(b), dfaMatch
	}
	return 0, 0, dfaNone
}
