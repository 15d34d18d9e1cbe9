package shell

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// analyzer walks one parsed script. Scripts nested in strings (sh -c '…')
// get their own analyzer, sharing the sink.
type analyzer struct {
	src   string
	opt   Options
	sink  *sink
	depth int // nesting of scripts in strings
	nest  int // syntax nesting currently being walked

	// nonNumeric are variables this script assigns something other than a
	// number: evaluating one of them arithmetically can run commands.
	nonNumeric map[string]bool
	// funcs are the functions this script defines.
	funcs map[string]bool
	// ifs holds the characters besides blanks the script may set IFS to:
	// unquoted values split at them too (IFS=,; x=rm,-rf,~; $x).
	// ifsUnknown: it sets IFS to something only known at run time.
	ifs        string
	ifsUnknown bool
}

func newAnalyzer(src string, opt Options, s *sink, depth int) *analyzer {
	return &analyzer{src: src, opt: opt, sink: s, depth: depth, nonNumeric: map[string]bool{}, funcs: map[string]bool{}}
}

// state is what the analyser knows at one point of the script: the working
// directory and the values of the variables the script set. It is a value:
// branches copy it and merge what they agree on.
type state struct {
	cwd string // absolute; "" when unknown
	// cwdAlts are the directories the command may be in when cwd is ""
	// because branches disagree (cd x; … when cd may fail): the dangerous
	// checks try each. nil when nothing is known.
	cwdAlts []string
	// oldpwd is the directory before the last cd of the line ($OLDPWD,
	// ~-); "" when it comes from outside the line.
	oldpwd string
	vars   map[string]varVal
	// varsUnknown: something (a function call, eval, source) may have set
	// any variable; only variables set after it are known.
	varsUnknown bool
}

// varVal is what the analyser knows about one variable the script set.
type varVal struct {
	known bool
	val   string
	// cands are the possible values when the variable is a for-loop
	// variable over fixed words.
	cands []string
	// relPath: a loop variable over relative paths without `..` (for f
	// in *.go): its value stays inside the working directory.
	relPath bool
}

func (z *analyzer) initialState() state {
	return state{cwd: z.opt.Workspace, vars: map[string]varVal{}}
}

func (st state) setVar(name string, v varVal) state {
	m := maps.Clone(st.vars)
	if m == nil {
		m = map[string]varVal{}
	}
	m[name] = v
	st.vars = m
	return st
}

func (st state) unknownVar(name string) state { return st.setVar(name, varVal{}) }

// lostCwd: the working directory is no longer known at all.
func (st state) lostCwd() state {
	st.cwd, st.cwdAlts = "", nil
	return st
}

// atCwd: the working directory is dir.
func (st state) atCwd(dir string) state {
	st.cwd, st.cwdAlts = dir, nil
	if dir == "" {
		return st.lostCwd()
	}
	return st
}

// cwds are the directories the command may be in; nil when unknown.
func (st state) cwds() []string {
	if st.cwd != "" {
		return []string{st.cwd}
	}
	return st.cwdAlts
}

// lookup returns what is known about a variable: set by the script, or from
// the environment (HOME, PWD). ok is false when its value is unknown.
func (z *analyzer) lookup(st state, name string) (varVal, bool) {
	if v, set := st.vars[name]; set {
		return v, v.known
	}
	if st.varsUnknown {
		return varVal{}, false
	}
	switch name {
	case "HOME":
		if z.opt.Home != "" {
			return varVal{known: true, val: z.opt.Home}, true
		}
	case "PWD":
		if st.cwd != "" {
			return varVal{known: true, val: st.cwd}, true
		}
	case "OLDPWD":
		if st.oldpwd != "" {
			return varVal{known: true, val: st.oldpwd}, true
		}
	}
	return varVal{}, false
}

// merge is the state after either a or b: facts they agree on survive.
func merge(a, b state) state {
	out := state{cwd: a.cwd, varsUnknown: a.varsUnknown || b.varsUnknown}
	if a.oldpwd == b.oldpwd {
		out.oldpwd = a.oldpwd
	}
	if a.cwd != b.cwd || a.cwd == "" {
		out = out.lostCwd()
		ca, cb := a.cwds(), b.cwds()
		if ca != nil && cb != nil {
			u := append(slices.Clone(ca), cb...)
			slices.Sort(u)
			u = slices.Compact(u)
			switch {
			case len(u) == 1:
				out.cwd = u[0]
			case len(u) <= 8:
				out.cwdAlts = u
			}
		}
	}
	out.vars = map[string]varVal{}
	for k, va := range a.vars {
		if vb, ok := b.vars[k]; ok && sameVar(va, vb) {
			out.vars[k] = va
		} else {
			out.vars[k] = varVal{}
		}
	}
	for k := range b.vars {
		if _, ok := a.vars[k]; !ok {
			out.vars[k] = varVal{}
		}
	}
	return out
}

func sameVar(a, b varVal) bool {
	return a.known == b.known && a.val == b.val && a.relPath == b.relPath && strings.Join(a.cands, "\x00") == strings.Join(b.cands, "\x00") && len(a.cands) == len(b.cands)
}

// flow is the state after a statement when it succeeded (what `&&` sees) and
// whatever happened (what `;` sees).
type flow struct{ succ, any state }

func same(st state) flow { return flow{st, st} }

func (z *analyzer) unsafe(format string, args ...any) {
	z.sink.add(&z.sink.a.Unsafe, "u", fmt.Sprintf(format, args...))
}

func (z *analyzer) projectCode(format string, args ...any) {
	z.sink.add(&z.sink.a.ProjectCode, "p", fmt.Sprintf(format, args...))
}

// text returns the source text of a node, or "" if its positions are
// outside the source (never expected, but the analyser must not panic).
func (z *analyzer) text(n syntax.Node) string {
	if n == nil {
		return ""
	}
	return z.span(n.Pos(), n.End())
}

func (z *analyzer) span(from, to syntax.Pos) string {
	if !from.IsValid() || !to.IsValid() {
		return ""
	}
	a, b := int(from.Offset()), int(to.Offset())
	if a < 0 || b > len(z.src) || a > b {
		return ""
	}
	return z.src[a:b]
}

// checkSource rejects characters that have no business in a command line
// and can make what the user is shown differ from what runs: control
// characters (a carriage return can hide the start of a line in a
// terminal), bidirectional overrides (right-to-left text that reorders what
// is displayed) and invisible zero-width characters.
func (z *analyzer) checkSource() {
	if !utf8.ValidString(z.src) {
		z.unsafe("the command is not valid UTF-8")
	}
	for _, r := range z.src {
		if reason := weirdRune(r); reason != "" {
			z.unsafe("the command contains %s (U+%04X), which can make it display differently from what runs", reason, r)
			return
		}
	}
}

// weirdRune says what is odd about r, or "" for an ordinary character.
// Tab and newline are ordinary.
func weirdRune(r rune) string {
	switch {
	case r == '\t' || r == '\n':
		return ""
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return "a control character"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return "a bidirectional-text control"
	case r >= 0x200b && r <= 0x200d, r == 0x2060, r == 0xfeff, r == 0x00ad, r == 0x180e:
		return "an invisible character"
	case r == utf8.RuneError:
		return "an invalid character"
	case unicode.Is(unicode.Cf, r):
		return "an invisible formatting character"
	}
	return ""
}

// prepass collects, over the whole script, the functions it defines and the
// variables it assigns non-numbers to (for the arithmetic check, which does
// not depend on order: a loop can assign after the use).
func (z *analyzer) prepass(f *syntax.File) {
	z.collectAssigned(f, func(name string, numeric bool) {
		if !numeric {
			z.nonNumeric[name] = true
		}
	})
	ifsFixed := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			if n.Name != nil {
				z.funcs[n.Name.Value] = true
			}
		case *syntax.Assign:
			if n.Name != nil && n.Name.Value == "IFS" {
				ifsFixed = true
				if n.Value == nil {
					break
				}
				if v := z.resolve(n.Value, z.initialState()); v.full {
					z.ifs += v.val
				} else {
					z.ifsUnknown = true
				}
			}
		}
		return true
	})
	z.collectAssigned(f, func(name string, _ bool) {
		if name == "IFS" && !ifsFixed {
			z.ifsUnknown = true // read IFS, printf -v IFS, a loop over it
		}
	})
}

// collectAssigned calls fn for every variable node may assign, with whether
// the value is certainly a number.
func (z *analyzer) collectAssigned(node syntax.Node, fn func(name string, numeric bool)) {
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				fn(n.Name.Value, n.Array == nil && !n.Append && numericWord(n.Value))
			}
		case *syntax.WordIter:
			if n.Name != nil {
				fn(n.Name.Value, false)
			}
		case *syntax.BinaryArithm:
			if isAssignOp(n.Op) {
				if w, ok := n.X.(*syntax.Word); ok {
					fn(w.Lit(), true)
				}
			}
		case *syntax.UnaryArithm:
			if n.Op == syntax.Inc || n.Op == syntax.Dec {
				if w, ok := n.X.(*syntax.Word); ok {
					fn(w.Lit(), true)
				}
			}
		case *syntax.CallExpr:
			for _, name := range builtinSetNames(n.Args) {
				fn(name, false)
			}
		}
		return true
	})
}

// builtinSetNames returns the variables a read/mapfile/getopts/printf -v
// call sets (as far as literal words tell).
func builtinSetNames(args []*syntax.Word) []string {
	if len(args) == 0 {
		return nil
	}
	var out []string
	lit := func(i int) string {
		if i < len(args) {
			return args[i].Lit()
		}
		return ""
	}
	switch lit(0) {
	case "read", "mapfile", "readarray":
		for i := 1; i < len(args); i++ {
			if s := lit(i); isName(s) {
				out = append(out, s)
			}
		}
		if lit(0) != "read" {
			out = append(out, "MAPFILE")
		} else {
			out = append(out, "REPLY")
		}
	case "getopts":
		out = append(out, lit(2), "OPTARG")
	case "printf":
		for i := 1; i+1 < len(args); i++ {
			if lit(i) == "-v" {
				out = append(out, lit(i+1))
			}
		}
	}
	return out
}

// numericWord: a number, or one arithmetic expansion (n=$((n+1))).
func numericWord(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	if isNumber(w.Lit()) {
		return true
	}
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.ArithmExp:
			return true
		case *syntax.DblQuoted:
			if len(p.Parts) == 1 {
				_, ok := p.Parts[0].(*syntax.ArithmExp)
				return ok
			}
		}
	}
	return false
}

func isAssignOp(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
		syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c >= '0' && c <= '9' || (i == 0 && c == '-' && len(s) > 1)) {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// enter guards against pathological nesting; leave must follow.
func (z *analyzer) enter() bool {
	z.nest++
	if z.nest > maxNesting {
		z.unsafe("the command is nested too deeply to analyse")
		return false
	}
	return true
}

func (z *analyzer) leave() { z.nest-- }

// stmtList runs statements in sequence: each starts from whatever state
// the previous one may have left.
func (z *analyzer) stmtList(list []*syntax.Stmt, in state) flow {
	f := same(in)
	for _, s := range list {
		f = z.stmt(s, f.any)
	}
	return f
}

func (z *analyzer) stmt(s *syntax.Stmt, in state) flow {
	if s == nil {
		return same(in)
	}
	if !z.enter() {
		z.leave()
		return same(in)
	}
	defer z.leave()
	if s.Coprocess || s.Disown {
		z.unsafe("background job syntax the analyser does not follow: %s", z.text(s))
	}
	var f flow
	start := len(z.sink.a.Commands)
	if s.Background {
		// A background job runs in a subshell: it changes nothing here.
		// Backgrounding itself is harmless; what runs is checked. But it
		// outlives the call, so what it touches is not bounded by it.
		z.unbounded("a background job outlives the command: %s", z.text(s))
		z.command(s.Cmd, in)
		f = same(in)
	} else {
		f = z.command(s.Cmd, in)
	}
	if z.factsSince(start).runsStdin {
		// sh <<EOF … EOF, python3 - <<'EOF' … and sh <<< '…': the text
		// is the program.
		for _, r := range s.Redirs {
			if text, ok := z.hereText(r, in); ok {
				z.runsText(start, text, in, "a shell reading a here-document")
			}
		}
	}
	writes := len(z.sink.a.Effects.Writes)
	z.redirects(s, in, start)
	z.carries(start, writes)
	if s.Negated {
		f = same(f.any)
	}
	return f
}

// command dispatches on the kind of command.
func (z *analyzer) command(cmd syntax.Command, in state) flow {
	switch c := cmd.(type) {
	case nil:
		return same(in) // redirections only: `> file`
	case *syntax.CallExpr:
		return z.call(c, in)
	case *syntax.Block:
		return z.stmtList(c.Stmts, in)
	case *syntax.Subshell:
		z.stmtList(c.Stmts, in)
		return same(in)
	case *syntax.BinaryCmd:
		return z.binary(c, in)
	case *syntax.IfClause:
		return z.ifClause(c, in)
	case *syntax.WhileClause:
		entry := z.loopEntry(c, in)
		fc := z.stmtList(c.Cond, entry)
		fb := z.stmtList(c.Do, fc.succ)
		out := merge(entry, merge(fc.any, fb.any))
		return same(out)
	case *syntax.ForClause:
		return z.forClause(c, in)
	case *syntax.CaseClause:
		z.wordSubs(c.Word, in)
		out := in
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				z.wordSubs(p, in)
			}
			fb := z.stmtList(item.Stmts, in)
			out = merge(out, fb.any)
		}
		return same(out)
	case *syntax.FuncDecl:
		return z.funcDecl(c, in)
	case *syntax.ArithmCmd:
		z.arith(c.X, in)
		return same(z.arithAssigned(c.X, in))
	case *syntax.TestClause:
		z.testExpr(c.X, in)
		return same(in)
	case *syntax.DeclClause:
		return z.declClause(c, in)
	case *syntax.LetClause:
		return z.letClause(c, in)
	case *syntax.TimeClause:
		// The `time` keyword only times the statement, which is
		// analysed like any other: its commands need their own rules.
		if c.Stmt == nil {
			return same(in)
		}
		return z.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		z.unsafe("coproc runs a command in the background connected to the shell: %s", z.text(c))
		z.wordSubs(c.Name, in)
		z.stmt(c.Stmt, in)
		return same(in)
	case *syntax.TestDecl:
		z.unsafe("bats test declarations are not shell commands: %s", z.text(c))
		z.stmt(c.Body, in)
		return same(in)
	default:
		z.unsafe("shell construct the analyser does not know: %T", cmd)
		return same(in)
	}
}

// binary handles && and || lists, and pipelines. A long chain
// (a && b && c …) is a left-deep tree; it is walked as a list so that its
// length does not count as nesting.
func (z *analyzer) binary(c *syntax.BinaryCmd, in state) flow {
	if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
		z.pipeline(c, in)
		return same(in)
	}
	var ops []syntax.BinCmdOperator
	var rights []*syntax.Stmt
	first := (*syntax.Stmt)(nil)
	for cur := c; ; {
		ops = append(ops, cur.Op)
		rights = append(rights, cur.Y)
		if b, ok := cur.X.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) && plainStmt(cur.X) {
			cur = b
			continue
		}
		first = cur.X
		break
	}
	f := z.stmt(first, in)
	for i := len(ops) - 1; i >= 0; i-- {
		switch ops[i] {
		case syntax.AndStmt:
			fy := z.stmt(rights[i], f.succ)
			f = flow{fy.succ, merge(f.any, fy.any)}
		case syntax.OrStmt:
			fy := z.stmt(rights[i], f.any)
			f = flow{merge(f.succ, fy.succ), merge(f.any, fy.any)}
		default:
			z.unsafe("shell operator the analyser does not know: %s", ops[i])
			z.stmt(rights[i], f.any)
		}
	}
	return f
}

// plainStmt: a statement that is only its command (no redirection,
// negation or backgrounding), so it can be flattened into a list.
func plainStmt(s *syntax.Stmt) bool {
	return s != nil && !s.Negated && !s.Background && !s.Coprocess && !s.Disown && len(s.Redirs) == 0
}

// hereText returns the fixed text a here-document or here-string gives.
func (z *analyzer) hereText(r *syntax.Redirect, st state) (string, bool) {
	switch r.Op {
	case syntax.WordHdoc:
		w := z.resolve(r.Word, st)
		return w.val, w.full && !w.glob
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc == nil {
			return "", true
		}
		// A quoted delimiter (<<'EOF', <<"EOF", <<\EOF) leaves the
		// body as written.
		quoted := r.Word != nil && (r.Word.Lit() == "" || strings.Contains(r.Word.Lit(), "\\"))
		var b strings.Builder
		for _, p := range r.Hdoc.Parts {
			l, ok := p.(*syntax.Lit)
			if !ok {
				return "", false // expansions: only known at run time
			}
			b.WriteString(l.Value)
		}
		if quoted {
			return b.String(), true
		}
		return unquoteDouble(b.String()), true
	}
	return "", false
}

// literalOutput returns what a statement prints when it is a plain echo or
// printf of fixed words, for echo '…' | sh.
func (z *analyzer) literalOutput(s *syntax.Stmt, st state) (string, bool) {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(s.Redirs) > 0 {
		return "", false
	}
	var words []string
	for _, a := range c.Args {
		w := z.resolve(a, st)
		if !w.full || w.glob {
			return "", false
		}
		words = append(words, w.val)
	}
	return printed(words)
}

// printed is what echo or printf print given their words (after quote
// removal): echo's -n, -e and -E, printf's escapes, %s, %b and %%. ok is
// false for anything else (printf %d, a command that is not echo or printf).
func printed(words []string) (string, bool) {
	switch words[0] {
	case "echo":
		args, escapes, newline := words[1:], false, true
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
			escapes = escapes && !strings.Contains(args[0], "E") || strings.Contains(args[0], "e")
			newline = newline && !strings.Contains(args[0], "n")
			args = args[1:]
		}
		out := strings.Join(args, " ")
		if escapes {
			out = echoEscapes(out)
		}
		if newline {
			out += "\n"
		}
		return out, true
	case "printf":
		if len(words) < 2 || words[1] == "-v" || words[1] == "--" && len(words) < 3 {
			return "", false
		}
		format, args := words[1], words[2:]
		if format == "--" {
			format, args = words[2], words[3:]
		}
		var b strings.Builder
		for {
			before := len(args)
			rest := format
			for len(rest) > 0 {
				i := strings.IndexByte(rest, '%')
				if i < 0 {
					b.WriteString(decodeANSIC(rest))
					break
				}
				b.WriteString(decodeANSIC(rest[:i]))
				if i+1 >= len(rest) {
					return "", false
				}
				switch rest[i+1] {
				case '%':
					b.WriteByte('%')
				case 's', 'b':
					arg := ""
					if len(args) > 0 {
						arg, args = args[0], args[1:]
					}
					if rest[i+1] == 'b' {
						arg = echoEscapes(arg)
					}
					b.WriteString(arg)
				default:
					return "", false
				}
				rest = rest[i+2:]
			}
			if len(args) == 0 || len(args) == before {
				// printf reuses its format while arguments remain.
				return b.String(), true
			}
		}
	}
	return "", false
}

// echoEscapes decodes the escapes of echo -e and printf %b: those of
// $'…', with octal written \0NNN.
func echoEscapes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == '0' {
			j := i + 2
			for j < len(s) && j < i+5 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n := 0
			for _, d := range s[i+2 : j] {
				n = n*8 + int(d-'0')
			}
			if n == 0 {
				return b.String()
			}
			b.WriteByte(byte(n))
			i = j - 1
			continue
		}
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == 'c' {
			return b.String() // \c: no further output
		}
		j := i
		for j < len(s) && !(s[j] == '\\' && j+1 < len(s) && (s[j+1] == '0' || s[j+1] == 'c')) {
			j++
		}
		b.WriteString(decodeANSIC(s[i:j]))
		i = j - 1
	}
	return b.String()
}

func (z *analyzer) ifClause(c *syntax.IfClause, in state) flow {
	if len(c.Cond) == 0 { // a plain else
		return z.stmtList(c.Then, in)
	}
	fc := z.stmtList(c.Cond, in)
	ft := z.stmtList(c.Then, fc.succ)
	fe := same(fc.any)
	if c.Else != nil {
		fe = z.ifClause(c.Else, fc.any)
	}
	return flow{merge(ft.succ, fe.succ), merge(ft.any, fe.any)}
}

// loopEntry is the state at the top of a loop body on any iteration: the
// variables the loop assigns and, if it may cd, the directory are unknown.
func (z *analyzer) loopEntry(loop syntax.Node, in state) state {
	st := in
	z.collectAssigned(loop, func(name string, _ bool) { st = st.unknownVar(name) })
	syntax.Walk(loop, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			switch name := c.Args[0].Lit(); {
			case name == "cd" || name == "pushd" || name == "popd" || z.funcs[name] || name == "eval" || name == "source" || name == "." || name == "":
				st = st.lostCwd()
			}
		}
		return true
	})
	return st
}

func (z *analyzer) forClause(c *syntax.ForClause, in state) flow {
	switch l := c.Loop.(type) {
	case *syntax.WordIter:
		var items []wordInfo
		for _, w := range l.Items {
			z.wordSubs(w, in)
			items = append(items, z.resolve(w, in))
		}
		entry := z.loopEntry(c, in)
		if l.Name != nil {
			// for PATH in …: the loop variable is an assignment too.
			z.checkAssignment(l.Name.Value, wordInfo{}, false, "for "+l.Name.Value)
			entry = entry.setVar(l.Name.Value, loopVar(items, !l.InPos.IsValid()))
		}
		fb := z.stmtList(c.Do, entry)
		return same(merge(entry, merge(in, fb.any)))
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{l.Init, l.Cond, l.Post} {
			if e != nil {
				z.arith(e, in)
			}
		}
		entry := z.loopEntry(c, in)
		fb := z.stmtList(c.Do, entry)
		return same(merge(entry, merge(in, fb.any)))
	}
	z.unsafe("loop the analyser does not know: %s", z.text(c))
	return same(in)
}

// loopVar describes a for-loop variable from its words: fixed words give
// candidate values, relative patterns without `..` stay in the directory.
func loopVar(items []wordInfo, positional bool) varVal {
	if positional || len(items) == 0 {
		return varVal{}
	}
	v := varVal{relPath: true}
	allFixed := true
	for _, it := range items {
		if !it.full {
			allFixed = false
			v.relPath = false
			continue
		}
		if it.glob {
			allFixed = false
		}
		if !safeRelative(it.val) {
			v.relPath = false
		}
		v.cands = append(v.cands, it.val)
	}
	if !allFixed {
		v.cands = nil
	}
	if len(v.cands) == 1 {
		v.known, v.val = true, v.cands[0]
	}
	return v
}

// safeRelative: a relative path that stays below the directory and is not
// an option.
func safeRelative(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "-") || strings.HasPrefix(p, "~") {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return false
		}
	}
	return true
}

func (z *analyzer) funcDecl(c *syntax.FuncDecl, in state) flow {
	name := ""
	if c.Name != nil {
		name = c.Name.Value
	}
	// A function can shadow any command (ls() { curl … | sh; }; ls), so a
	// rule for the name says nothing about what runs.
	z.unsafe("defines a shell function %q, which can stand in for any command", name)
	if name != "" && forkBomb(c.Body, name) {
		z.dangerous(destroys, "fork bomb: function %s calls itself in a pipeline or in the background", name)
	}
	z.stmt(c.Body, in)
	return same(in)
}

// forkBomb reports whether body calls name (itself) in a pipeline or in the
// background: :(){ :|:& };: and its renamed variants.
func forkBomb(body *syntax.Stmt, name string) bool {
	calls := func(n syntax.Node) bool {
		found := false
		syntax.Walk(n, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == name {
				found = true
			}
			return !found
		})
		return found
	}
	bomb := false
	syntax.Walk(body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && calls(n.X) && calls(n.Y) {
				bomb = true
			}
		case *syntax.Stmt:
			if n.Background && calls(n) {
				bomb = true
			}
		}
		return !bomb
	})
	return bomb
}

// redirects records the files a statement's redirections write and checks
// the ones it reads.
func (z *analyzer) redirects(s *syntax.Stmt, st state, start int) {
	download := false
	if c, ok := s.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 {
		download = downloaders[canonical(path.Base(z.resolve(c.Args[0], st).val))]
	}
	for _, r := range s.Redirs {
		subs := len(z.sink.a.Commands)
		if r.Word != nil {
			z.wordSubs(r.Word, st)
		}
		if r.Hdoc != nil {
			// An unquoted here-document body expands: its $(…) run.
			// A quoted one is plain text (its parts are literals only).
			z.wordSubs(r.Hdoc, st)
		}
		if r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc || r.Op == syntax.RdrIn {
			z.hereDanger(start, subs, st) // also bash < <(curl …)
		}
		if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
			// {var}>file allocates a descriptor into var.
			st = st.unknownVar(strings.Trim(r.N.Value, "{}"))
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll,
			syntax.RdrAllClob, syntax.AppAllClob, syntax.RdrInOut:
			z.redirectWrite(r, st, r.Op == syntax.AppOut || r.Op == syntax.AppAll || r.Op == syntax.AppClob || r.Op == syntax.AppAllClob, download)
			z.streamDanger(start, z.resolve(r.Word, st), st, r.Op == syntax.RdrInOut)
		case syntax.DplOut, syntax.DplIn:
			// >&2, 2>&1, <&0, >&- duplicate or close descriptors. Any
			// other word (>&file) redirects both streams to a file.
			w := z.resolve(r.Word, st)
			if w.full && isFdWord(w.val) {
				continue
			}
			if r.Op == syntax.DplIn {
				z.redirectRead(r, st)
				z.streamDanger(start, w, st, true)
				continue
			}
			z.redirectWrite(r, st, false, download)
			z.streamDanger(start, w, st, false)
		case syntax.RdrIn:
			z.redirectRead(r, st)
			z.streamDanger(start, z.resolve(r.Word, st), st, true)
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			// Input text only; its substitutions were walked above.
		default:
			z.unsafe("redirection the analyser does not know: %s", z.text(r))
		}
	}
}

func isFdWord(s string) bool {
	s = strings.TrimSuffix(s, "-")
	return s == "" || isNumber(s) && !strings.HasPrefix(s, "-")
}

// harmlessTargets are write targets that are not files.
var harmlessTargets = map[string]bool{
	"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true, "/dev/tty": true,
	"/dev/fd/1": true, "/dev/fd/2": true,
}

func (z *analyzer) redirectWrite(r *syntax.Redirect, st state, appendMode bool, download bool) {
	w := z.resolve(r.Word, st)
	z.writeTarget(w, st, appendMode, "redirection "+z.text(r))
	if download && w.full {
		// curl … > x.sh: running x.sh later runs the download.
		if a, ok := z.absPath(w.val, st); ok {
			z.sink.downloaded[a] = true
		}
	}
}

// writeTarget records a Write for a file a command writes and checks it.
func (z *analyzer) writeTarget(w wordInfo, st state, appendMode bool, what string) {
	z.target(w, st, appendMode, what, "writes")
}

// target records a file a command writes, deletes or changes (verb says
// which): in Analysis.Writes as written (joined to the new directory after
// a cd, its source text when only known at run time), in the effects as
// absolute paths, and judged by checkChange. A loop variable over fixed
// words writes each of them.
func (z *analyzer) target(w wordInfo, st state, appendMode bool, what, verb string) {
	if w.full && harmlessTargets[w.val] || w.full && w.val == "" && w.text == "" {
		return // not a file, or no word at all (an option without its value)
	}
	if len(w.alts) > 0 && !w.glob {
		for _, alt := range w.alts {
			a := w
			a.val, a.lit, a.text, a.full, a.dyn, a.alts, a.unknownLead = alt, alt, alt, true, false, nil, false
			z.target(a, st, appendMode, what, verb)
		}
		return
	}
	if !w.full || w.glob || w.val == "" {
		// The target is only known at run time (or, with a glob or
		// brace, may be several files): the chain asks.
		z.sink.a.Writes = append(z.sink.a.Writes, Write{Path: w.text, Dynamic: true, Append: appendMode})
		z.unbounded("%s %s a file only known at run time", what, verb)
		z.unnamed(w.text)
		z.checkChange(w, st, what, verb)
		return
	}
	if abs := z.absPaths(w.val, st); len(abs) > 0 {
		for _, a := range abs {
			z.addWrite(a)
		}
	} else {
		z.unbounded("%s %s relative to a directory the analyser could not follow", what, verb)
		z.unnamed(w.val)
	}
	p := w.val
	dyn := false
	if !strings.HasPrefix(p, "/") && st.cwd != z.opt.Workspace {
		if st.cwd == "" {
			dyn = true
			p = w.text
		} else {
			p = joinPath(st.cwd, p)
		}
	}
	z.sink.a.Writes = append(z.sink.a.Writes, Write{Path: p, Dynamic: dyn, Append: appendMode, Remove: verb == "deletes"})
	z.checkChange(w, st, what, verb)
}

func (z *analyzer) redirectRead(r *syntax.Redirect, st state) {
	w := z.resolve(r.Word, st)
	z.checkRead(w, st, "redirection "+z.text(r))
	z.readWord(&cmd{argv: []wordInfo{{val: "redirection " + z.text(r)}}, st: st, idx: -1}, w, Read{Contents: true})
}
