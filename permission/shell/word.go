package shell

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// wordInfo is one shell word as the analyser understands it.
type wordInfo struct {
	node *syntax.Word
	text string // source text
	lit  string // value after quote removal, when !dyn
	dyn  bool   // not a fixed string (the brief's Dynamic)

	// val is the value with every expansion the analyser can resolve
	// substituted ($HOME, $PWD, $(pwd), variables the script set to fixed
	// strings, ~) and the others replaced by their fallback (${X:-d} → d)
	// or by nothing: "$X"/* gives "/*", which is what runs if X is empty.
	val string
	// full: val is exactly the value (no unresolved expansion). Globs and
	// braces may remain in val; see glob.
	full bool
	glob bool // unquoted glob or brace pattern in val
	// unknownLead: the word starts with an unresolved expansion, so it may
	// be anything (an option, an absolute path).
	unknownLead bool
	// alts are the possible values when the one unresolved expansion is a
	// for-loop variable over fixed words.
	alts []string
	// relPath: the only unresolved expansions are loop variables over
	// relative paths, so the word stays below the working directory.
	relPath bool
	// subst: the word holds a command or process substitution.
	subst bool
	// prevDir: the word starts with ~- and the directory before the last
	// cd is not known (it comes from outside the line).
	prevDir bool
	// tildeHome: the word starts with ~user (or ~ with no known home): a
	// home directory the analyser cannot name.
	tildeHome bool
	// subDownload: one of its substitutions runs a downloader; subDecode:
	// one decodes hidden text; subSecret: one prints secrets (set by
	// call, after walking the substitutions).
	subDownload, subDecode, subSecret bool
	// subProgs are the programs its substitutions run (git with its
	// subcommand).
	subProgs []string
	// split: the word's value is known but splits into fields (an
	// unquoted variable holding spaces); fields are the words it becomes.
	split  bool
	fields []string
	// nonPath: set by commands for words that are patterns or messages,
	// not file names (grep's pattern, git commit -m).
	nonPath bool
}

// values returns every value the word may have that the analyser knows of.
func (w wordInfo) values() []string {
	if len(w.alts) > 0 {
		return w.alts
	}
	return []string{w.val}
}

// resolve reads a word without side effects (substitutions are walked by
// wordSubs).
func (z *analyzer) resolve(w *syntax.Word, st state) wordInfo {
	info := wordInfo{node: w, full: true}
	if w == nil {
		return info
	}
	info.text = z.text(w)
	var lit, val strings.Builder
	unresolved := 0
	var loopAlt *varVal
	altPrefix := ""
	relOnly := true
	var splitPos map[int]bool // bytes of val where unquoted values split
	splitNeeded, unquotedKnown, quotedPart := false, false, false
	expansion := func(v string, ok bool, fallback string, quoted bool, lv *varVal) {
		info.dyn = true
		if ok && !quoted && z.ifsUnknown {
			ok = false // split at characters only known at run time
		}
		if ok {
			if !quoted {
				// Unquoted, the value is split into fields and globbed.
				unquotedKnown = true
				for k := 0; k < len(v); k++ {
					if v[k] == ' ' || v[k] == '\t' || v[k] == '\n' || strings.IndexByte(z.ifs, v[k]) >= 0 {
						if splitPos == nil {
							splitPos = map[int]bool{}
						}
						splitPos[val.Len()+k] = true
						splitNeeded = true
					}
				}
				if strings.ContainsAny(v, "*?[") {
					info.glob = true
				}
			}
			val.WriteString(v)
			return
		}
		if val.Len() == 0 && fallback == "" {
			info.unknownLead = true
		}
		info.full = false
		unresolved++
		if lv != nil && len(lv.cands) > 0 {
			loopAlt = lv
			altPrefix = val.String()
		}
		if lv == nil || !lv.relPath {
			relOnly = false
		}
		val.WriteString(fallback)
	}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			s := p.Value
			if i == 0 && !strings.HasPrefix(s, "~") {
				// of=~/x and PATH=~/a:~/b look like assignments: bash
				// expands a tilde after the = and after each :.
				if out, changed, unknown := z.assignTildes(s, len(w.Parts) == 1); changed {
					if unknown {
						info.dyn = true
						expansion("", false, "", false, nil)
					}
					v, glob := unquoteLit(out)
					info.glob = info.glob || glob
					info.dyn = info.dyn || glob
					lit.WriteString(v)
					val.WriteString(v)
					continue
				}
			}
			if i == 0 && strings.HasPrefix(s, "~") {
				prefix := s
				if j := strings.IndexByte(s, '/'); j >= 0 {
					prefix = s[:j]
				} else if len(w.Parts) > 1 {
					// ~'x' or ~"$y": the tilde-prefix has quoted
					// characters, so bash does not expand it.
					prefix = ""
				}
				switch {
				case prefix == "~" && z.opt.Home != "":
					lit.WriteString(z.opt.Home)
					val.WriteString(z.opt.Home)
					s = s[1:]
				case prefix == "~+":
					// ~+ is $PWD: the working directory, or "." when
					// the analyser lost it.
					info.dyn = true
					expansion(st.cwd, st.cwd != "", ".", true, nil)
					lit.WriteString(prefix)
					s = s[len(prefix):]
				case prefix == "~-":
					// ~- is $OLDPWD: the directory before the last cd,
					// which outside this line may be any directory.
					info.dyn = true
					if st.oldpwd == "" {
						info.prevDir = true
					}
					expansion(st.oldpwd, st.oldpwd != "", "", true, nil)
					lit.WriteString(prefix)
					s = s[len(prefix):]
				case prefix != "":
					// ~user, or ~ with no known home: a home directory.
					info.dyn = true
					info.tildeHome = true
					expansion("", false, "", false, nil)
					lit.WriteString(prefix)
					s = s[len(prefix):]
				}
			}
			v, glob := unquoteLit(s)
			if glob {
				info.glob = true
				info.dyn = true
			}
			lit.WriteString(v)
			val.WriteString(v)
		case *syntax.SglQuoted:
			quotedPart = true
			v := p.Value
			if p.Dollar {
				v = decodeANSIC(v)
			}
			lit.WriteString(v)
			val.WriteString(v)
		case *syntax.DblQuoted:
			quotedPart = true
			if p.Dollar {
				// $"…" is translated through the locale catalogue:
				// its value is not what is written.
				info.dyn = true
			}
			for _, q := range p.Parts {
				switch q := q.(type) {
				case *syntax.Lit:
					v := unquoteDouble(q.Value)
					lit.WriteString(v)
					val.WriteString(v)
				default:
					v, ok, fb, lv := z.expand(q, st)
					info.prevDir = info.prevDir || !ok && val.Len() == 0 && isOldpwd(q)
					expansion(v, ok, fb, true, lv)
				}
			}
		case *syntax.ExtGlob:
			info.glob, info.dyn = true, true
			s := z.text(p)
			lit.WriteString(s)
			val.WriteString(s)
		case *syntax.BraceExp:
			info.glob, info.dyn = true, true
			s := z.text(p)
			lit.WriteString(s)
			val.WriteString(s)
		default:
			v, ok, fb, lv := z.expand(part, st)
			info.prevDir = info.prevDir || !ok && val.Len() == 0 && isOldpwd(part)
			expansion(v, ok, fb, false, lv)
		}
		switch part.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			info.subst = true
		case *syntax.DblQuoted:
			for _, q := range part.(*syntax.DblQuoted).Parts {
				if _, ok := q.(*syntax.CmdSubst); ok {
					info.subst = true
				}
			}
		}
	}
	info.lit = lit.String()
	info.val = val.String()
	if unresolved == 0 && (splitNeeded || unquotedKnown && info.val == "" && !quotedPart) {
		// x="-rf /"; rm $x runs rm with two arguments: analyse the
		// fields. An unquoted empty value leaves no word at all.
		info.split, info.full = true, false
		f := ""
		for k := 0; k < len(info.val); k++ {
			if splitPos[k] {
				if f != "" {
					info.fields = append(info.fields, f)
				}
				f = ""
				continue
			}
			f += info.val[k : k+1]
		}
		if f != "" {
			info.fields = append(info.fields, f)
		}
	}
	if unresolved == 1 && loopAlt != nil {
		suffix := info.val[len(altPrefix):]
		for _, c := range loopAlt.cands {
			info.alts = append(info.alts, altPrefix+c+suffix)
		}
	}
	info.relPath = unresolved > 0 && relOnly
	if info.dyn {
		info.lit = info.text
	}
	return info
}

// expand resolves one expansion: its value if known (ok), otherwise the
// fallback an empty or unset variable would give, and the loop variable
// behind it if any.
func (z *analyzer) expand(part syntax.WordPart, st state) (val string, ok bool, fallback string, lv *varVal) {
	switch p := part.(type) {
	case *syntax.ParamExp:
		if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil || p.Slice != nil ||
			p.Repl != nil || p.Names != 0 || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Flags != nil {
			return "", false, "", nil
		}
		v, known := z.lookup(st, p.Param.Value)
		if p.Exp != nil {
			switch p.Exp.Op {
			case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
				// ${X:?} fails instead of expanding to nothing: its
				// unknown value is not empty, so stand in the source.
				if !known {
					return "", false, "${" + p.Param.Value + "}", nil
				}
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
				if known && v.val != "" {
					return v.val, true, "", nil
				}
				d := z.resolve(p.Exp.Word, st)
				if known && d.full {
					return d.val, true, "", nil
				}
				return "", false, d.val, nil
			case syntax.RemSmallSuffix, syntax.RemLargeSuffix, syntax.RemSmallPrefix, syntax.RemLargePrefix:
				// ${HOME%/*} is /home: a known value trimmed by a fixed
				// pattern is known.
				pat := z.resolve(p.Exp.Word, st)
				if !known || !pat.full || p.Exp.Word == nil {
					return "", false, "", nil
				}
				if out, ok := trimPattern(v.val, z.text(p.Exp.Word), p.Exp.Op); ok {
					return out, true, "", nil
				}
				return "", false, "", nil
			default:
				return "", false, "", nil
			}
		}
		if known {
			return v.val, true, "", nil
		}
		if vv, set := st.vars[p.Param.Value]; set {
			return "", false, "", &vv
		}
		return "", false, "", nil
	case *syntax.CmdSubst:
		// $(echo rm) and $(printf '\x72m') are what they print, less the
		// trailing newlines.
		if len(p.Stmts) == 1 {
			if out, ok := z.literalOutput(p.Stmts[0], st); ok {
				return strings.TrimRight(out, "\n"), true, "", nil
			}
		}
		// $(pwd) is the working directory.
		if len(p.Stmts) == 1 && st.cwd != "" {
			if c, isCall := p.Stmts[0].Cmd.(*syntax.CallExpr); isCall && len(p.Stmts[0].Redirs) == 0 && len(c.Assigns) == 0 && len(c.Args) >= 1 {
				if c.Args[0].Lit() == "pwd" && (len(c.Args) == 1 || len(c.Args) == 2 && (c.Args[1].Lit() == "-P" || c.Args[1].Lit() == "-L")) {
					return st.cwd, true, "", nil
				}
			}
		}
	}
	return "", false, "", nil
}

// unquoteLit removes the backslash quoting of an unquoted literal and says
// whether it holds unquoted glob or brace-expansion characters.
func unquoteLit(s string) (string, bool) {
	if !strings.ContainsAny(s, "\\*?[{") {
		return s, false
	}
	var b strings.Builder
	glob := false
	// unq holds the unquoted characters with escaped ones masked, to look
	// for patterns.
	var unq strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
			b.WriteByte(s[i])
			unq.WriteByte(0)
			continue
		}
		b.WriteByte(c)
		unq.WriteByte(c)
		if c == '*' || c == '?' {
			glob = true
		}
	}
	u := unq.String()
	if i := strings.IndexByte(u, '['); i >= 0 && strings.IndexByte(u[i+1:], ']') >= 0 {
		glob = true
	}
	if braceExpansion(u) {
		glob = true
	}
	return b.String(), glob
}

// braceExpansion reports whether u has {a,b} or {x..y}.
func braceExpansion(u string) bool {
	for i := 0; i < len(u); i++ {
		if u[i] != '{' {
			continue
		}
		depth := 0
		for j := i; j < len(u); j++ {
			switch u[j] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					inner := u[i+1 : j]
					if strings.Contains(inner, ",") || strings.Contains(inner, "..") {
						return true
					}
					j = len(u)
				}
			}
		}
	}
	return false
}

// unquoteDouble removes the backslashes that are quoting inside double
// quotes: before $ ` " \ and newline.
func unquoteDouble(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
				b.WriteByte(s[i])
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of a $'…' string the way bash does, so that
// $'\x63\x75\x72\x6c' is seen as curl. A NUL ends the string, as in bash.
func decodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'c':
			if i+1 < len(s) {
				i++
				x := s[i]
				if x == '\\' && i+1 < len(s) && s[i+1] == '\\' {
					i++
				}
				b.WriteByte(x & 0x1f)
			} else {
				b.WriteString("\\c")
			}
		case 'x', 'u', 'U':
			limit := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < limit && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			i = j - 1
			if e == 'x' {
				if n == 0 {
					return b.String()
				}
				b.WriteByte(byte(n))
			} else {
				if n == 0 {
					return b.String()
				}
				if n > utf8.MaxRune {
					n = utf8.RuneError
				}
				b.WriteRune(rune(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 32)
			i = j - 1
			if n&0xff == 0 {
				return b.String()
			}
			b.WriteByte(byte(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// wordSubs walks what runs while a word expands: command and process
// substitutions (their commands are analysed like any other), arithmetic
// (checked) and ${x@P} prompt expansion.
func (z *analyzer) wordSubs(w *syntax.Word, st state) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		z.partSubs(p, st)
	}
}

func (z *analyzer) partSubs(part syntax.WordPart, st state) {
	if !z.enter() {
		z.leave()
		return
	}
	defer z.leave()
	switch p := part.(type) {
	case *syntax.CmdSubst:
		if p.TempFile || p.ReplyVar {
			z.unsafe("mksh command substitution form: %s", z.text(p))
		}
		z.stmtList(p.Stmts, st)
	case *syntax.ProcSubst:
		z.stmtList(p.Stmts, st)
	case *syntax.ArithmExp:
		z.arith(p.X, st)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			z.partSubs(q, st)
		}
	case *syntax.ParamExp:
		z.paramSubs(p, st)
	case *syntax.BraceExp:
		for _, e := range p.Elems {
			z.wordSubs(e, st)
		}
	}
}

func (z *analyzer) paramSubs(p *syntax.ParamExp, st state) {
	if p.Param != nil {
		if p.Excl || p.Names != 0 {
			// ${!x} and ${!prefix*} reach variables by a name
			// computed at run time.
			z.envRead("!"+p.Param.Value, st)
		}
		z.envRead(p.Param.Value, st)
	}
	if p.Index != nil {
		z.arith(p.Index, st)
	}
	if p.Slice != nil {
		if p.Slice.Offset != nil {
			z.arith(p.Slice.Offset, st)
		}
		if p.Slice.Length != nil {
			z.arith(p.Slice.Length, st)
		}
	}
	if p.Repl != nil {
		z.wordSubs(p.Repl.Orig, st)
		z.wordSubs(p.Repl.With, st)
	}
	if p.Exp != nil {
		z.wordSubs(p.Exp.Word, st)
		if (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) && p.Param != nil {
			// ${X:=value} assigns X when it is unset or empty.
			z.checkAssignment(p.Param.Value, wordInfo{}, false, z.text(p))
		}
		if p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.Contains(p.Exp.Word.Lit(), "P") {
			// ${x@P} expands x as a prompt string, which runs the
			// command substitutions in its value.
			z.unsafe("${…@P} expands a variable as a prompt, which runs command substitutions in it: %s", z.text(p))
		}
	}
	if p.Excl && p.Param != nil && p.Names == 0 {
		// ${!x} reads the variable named by x; if x holds an array
		// subscript, bash evaluates it.
		if z.nonNumeric[p.Param.Value] {
			z.unsafe("indirect expansion %s uses a name this command sets: an array subscript in it would run commands", z.text(p))
		}
	}
	if p.NestedParam != nil {
		z.partSubs(p.NestedParam, st)
	}
}

// arith checks an arithmetic expression. Bash evaluates the value of every
// variable it names as arithmetic in turn, including array subscripts,
// and a subscript may hold $(…): x='a[$(cmd)]'; echo $((x)) runs cmd. So a
// variable the script sets to anything but a number, or a quoted string, is
// Unsafe; command substitutions written in the expression are analysed.
func (z *analyzer) arith(e syntax.ArithmExpr, st state) {
	if e == nil {
		return
	}
	if !z.enter() {
		z.leave()
		return
	}
	defer z.leave()
	switch e := e.(type) {
	case *syntax.BinaryArithm:
		if isAssignOp(e.Op) {
			z.arithAssign(e.X, e)
		}
		z.arith(e.X, st)
		z.arith(e.Y, st)
	case *syntax.UnaryArithm:
		if e.Op == syntax.Inc || e.Op == syntax.Dec {
			z.arithAssign(e.X, e)
		}
		z.arith(e.X, st)
	case *syntax.ParenArithm:
		z.arith(e.X, st)
	case *syntax.FlagsArithm:
		z.arith(e.X, st)
	case *syntax.Word:
		z.arithWord(e, st)
	}
}

// arithAssign judges the variable an arithmetic assignment sets: a number
// is a value too (((PATH=1)) makes commands run from ./1).
func (z *analyzer) arithAssign(x syntax.ArithmExpr, e syntax.ArithmExpr) {
	w, ok := x.(*syntax.Word)
	if !ok {
		return
	}
	name, _, _ := strings.Cut(w.Lit(), "[")
	if isName(name) {
		z.checkAssignment(name, wordInfo{}, false, z.text(e))
	}
}

func (z *analyzer) arithWord(w *syntax.Word, st state) {
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			for _, name := range arithNames(p.Value) {
				z.arithVar(name, w)
				z.envRead(name, st)
			}
		case *syntax.SglQuoted, *syntax.DblQuoted:
			z.unsafe("quoted text in arithmetic can hide a command substitution in an array subscript: %s", z.text(w))
			z.partSubs(p, st)
		case *syntax.ParamExp:
			if p.Param != nil {
				z.arithVar(p.Param.Value, w)
			}
			z.paramSubs(p, st)
		default:
			z.partSubs(p, st)
		}
	}
}

func (z *analyzer) arithVar(name string, w *syntax.Word) {
	if z.nonNumeric[name] {
		z.unsafe("arithmetic evaluates $%s, which this command sets to text: an array subscript in it would run commands (%s)", name, z.text(w))
	}
}

// arithNames returns the variable names in an arithmetic literal.
func arithNames(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			j := i
			for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9') {
				j++
			}
			out = append(out, s[i:j])
			i = j
			continue
		}
		if c >= '0' && c <= '9' {
			// Skip numbers, including 0x1f and 64#zz.
			for i < len(s) && (s[i] == '_' || s[i] == '#' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
				i++
			}
			continue
		}
		i++
	}
	return out
}

// arithAssigned marks the variables an arithmetic expression assigns as
// unknown (they hold numbers).
func (z *analyzer) arithAssigned(e syntax.ArithmExpr, st state) state {
	z.collectAssigned(e, func(name string, _ bool) { st = st.unknownVar(name) })
	return st
}

// testExpr walks [[ … ]]. Its arithmetic comparisons (-eq, -lt, …) evaluate
// both sides as arithmetic, and -v/-R with an array subscript evaluates
// the subscript.
func (z *analyzer) testExpr(e syntax.TestExpr, st state) {
	if e == nil {
		return
	}
	if !z.enter() {
		z.leave()
		return
	}
	defer z.leave()
	switch e := e.(type) {
	case *syntax.BinaryTest:
		switch e.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			for _, x := range []syntax.TestExpr{e.X, e.Y} {
				if w, ok := x.(*syntax.Word); ok {
					z.arithWord(w, st)
				} else {
					z.testExpr(x, st)
				}
			}
		default:
			z.testExpr(e.X, st)
			z.testExpr(e.Y, st)
		}
	case *syntax.UnaryTest:
		if e.Op == syntax.TsVarSet || e.Op == syntax.TsRefVar {
			if w, ok := e.X.(*syntax.Word); ok && strings.Contains(z.text(w), "[") {
				z.unsafe("[[ -v ]] with an array subscript evaluates the subscript, which can run commands: %s", z.text(w))
			}
		}
		z.testExpr(e.X, st)
	case *syntax.ParenTest:
		z.testExpr(e.X, st)
	case *syntax.Word:
		z.wordSubs(e, st)
	}
}

// isOldpwd: the part is $OLDPWD, the directory before the last cd.
func isOldpwd(part syntax.WordPart) bool {
	p, ok := part.(*syntax.ParamExp)
	return ok && p.Param != nil && p.Param.Value == "OLDPWD" && p.Exp == nil && !p.Excl && !p.Length
}

// trimPattern removes the shortest or longest prefix or suffix of val that
// the shell pattern (as written) matches, as ${v%p}, ${v%%p}, ${v#p} and
// ${v##p} do. ok is false for a pattern it cannot read.
func trimPattern(val, pattern string, op syntax.ParExpOperator) (string, bool) {
	re, ok := patternRegexp(pattern)
	if !ok {
		return "", false
	}
	match := func(s string) bool { return re.MatchString(s) }
	n := len(val)
	switch op {
	case syntax.RemSmallSuffix:
		for i := n; i >= 0; i-- {
			if match(val[i:]) {
				return val[:i], true
			}
		}
	case syntax.RemLargeSuffix:
		for i := 0; i <= n; i++ {
			if match(val[i:]) {
				return val[:i], true
			}
		}
	case syntax.RemSmallPrefix:
		for i := 0; i <= n; i++ {
			if match(val[:i]) {
				return val[i:], true
			}
		}
	case syntax.RemLargePrefix:
		for i := n; i >= 0; i-- {
			if match(val[:i]) {
				return val[i:], true
			}
		}
	}
	return val, true
}

// patternRegexp translates a shell pattern as written (quotes make
// characters literal) into an anchored regular expression.
func patternRegexp(p string) (*regexp.Regexp, bool) {
	var b strings.Builder
	b.WriteString("^")
	quote := byte(0)
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			b.WriteString(regexp.QuoteMeta(string(c)))
		case c == '\'' || c == '"':
			quote = c
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(string(p[i])))
		case c == '*':
			b.WriteString("(?s:.*)")
		case c == '?':
			b.WriteString("(?s:.)")
		case c == '[':
			j := strings.IndexByte(p[i+1:], ']')
			if j < 0 {
				return nil, false
			}
			class := p[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, "\\", "\\\\") + "]")
			i += j + 1
		case c == '$' || c == '`':
			return nil, false // an expansion in the pattern
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return re, err == nil
}

// assignTildes expands the tilde-prefixes of a word that looks like an
// assignment (name=~/x, name=a:~/b), as bash does for any such word: after
// the first = and after each following :. changed says whether there was
// one; unknown whether one is only known at run time (~user, ~+, ~-, or ~
// with no known home). alone: the literal is the whole word (a prefix at
// its end is complete).
func (z *analyzer) assignTildes(s string, alone bool) (out string, changed, unknown bool) {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 || !isName(s[:eq]) || strings.ContainsAny(s, "\\") {
		return s, false, false
	}
	var b strings.Builder
	b.WriteString(s[:eq+1])
	segs := strings.Split(s[eq+1:], ":")
	for k, seg := range segs {
		if k > 0 {
			b.WriteByte(':')
		}
		if !strings.HasPrefix(seg, "~") {
			b.WriteString(seg)
			continue
		}
		prefix, rest := seg, ""
		if j := strings.IndexByte(seg, '/'); j >= 0 {
			prefix, rest = seg[:j], seg[j:]
		} else if k == len(segs)-1 && !alone {
			b.WriteString(seg) // ~"x": a quoted tilde-prefix is not expanded
			continue
		}
		changed = true
		if prefix == "~" && z.opt.Home != "" {
			b.WriteString(z.opt.Home + rest)
			continue
		}
		unknown = true
		b.WriteString(rest)
	}
	return b.String(), changed, unknown
}
