package shell

// One simple command: its words, its program, the commands wrappers run, scripts in strings.

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// cmd is one simple command being judged.
type cmd struct {
	argv    []wordInfo
	st      state // the state it runs in
	idx     int   // its index in Analysis.Commands
	text    string
	prog    string // argv[0] as written
	base    string // the program's name without directory, canonicalised
	wrap    int    // how many wrappers it is inside
	out     flow   // the state after it
	noFiles bool   // the program names no files (echo): skip path checks
}

// call analyses a simple command: its assignments, its words, the commands
// in its substitutions, and the rules for the program it runs.
func (z *analyzer) call(c *syntax.CallExpr, in state) flow {
	var assigns []string
	for _, as := range c.Assigns {
		z.assignSubs(as, in)
		assigns = append(assigns, z.text(as))
	}
	if len(c.Args) == 0 {
		// Plain assignments change the shell's own variables.
		st := in
		for _, as := range c.Assigns {
			if as.Name != nil {
				v, ok := z.assignValue(as, in)
				z.checkAssignment(as.Name.Value, v, ok, z.text(as))
			}
			st = z.assignVar(st, in, as)
		}
		return same(st)
	}
	words := make([]wordInfo, len(c.Args))
	for i, w := range c.Args {
		words[i] = z.resolve(w, in)
	}
	idx := z.addCommand(words, assigns, z.text(c))
	for i, w := range c.Args {
		start := len(z.sink.a.Commands)
		z.wordSubs(w, in)
		f := z.factsSince(start)
		words[i].subDownload, words[i].subDecode, words[i].subSecret = f.download, f.decode, f.secretOut
		for k := start; k < len(z.sink.a.Commands); k++ {
			canon := z.sink.a.Commands[k].Canon
			name := z.sink.a.Commands[k].Program
			if len(canon) > 1 && name == "git" {
				name += " " + canon[1]
			}
			words[i].subProgs = append(words[i].subProgs, name)
		}
	}
	for _, as := range c.Assigns {
		if as.Name == nil {
			continue
		}
		v, ok := z.assignValue(as, in)
		z.checkAssignment(as.Name.Value, v, ok, z.text(as))
	}
	// The words the program receives: known values split into fields.
	argv := make([]wordInfo, 0, len(words))
	for _, w := range words {
		if !w.split {
			argv = append(argv, w)
			continue
		}
		for _, f := range w.fields {
			fw := w
			fw.val, fw.full, fw.split, fw.fields, fw.unknownLead = f, true, false, nil, false
			argv = append(argv, fw)
		}
	}
	if len(argv) == 0 {
		return same(in) // the words expand to nothing: nothing runs
	}
	return z.simple(&cmd{argv: argv, st: in, idx: idx, text: z.text(c)})
}

// addCommand appends a Command and returns its index.
func (z *analyzer) addCommand(words []wordInfo, assigns []string, text string) int {
	c := Command{Args: make([]string, len(words)), Dynamic: make([]bool, len(words)), Text: text}
	if len(assigns) > 0 {
		c.Assigns = assigns
	}
	for i, w := range words {
		c.Args[i], c.Dynamic[i] = w.lit, w.dyn
		if w.dyn {
			c.Args[i] = w.text
		}
	}
	identify(&c, words)
	z.sink.a.Commands = append(z.sink.a.Commands, c)
	z.sink.meta = append(z.sink.meta, cmdMeta{})
	return len(z.sink.a.Commands) - 1
}

// simple judges one simple command by its program.
func (z *analyzer) simple(c *cmd) (out flow) {
	c.out = same(c.st)
	name := c.argv[0]
	c.prog = name.lit
	if name.dyn {
		// The program is only known at run time ($X args, "$(echo rm)",
		// a glob): no rule can say what it is. It may also be cd,
		// eval or source, so nothing is known afterwards.
		z.unsafe("the command name is not a fixed word (%s): what runs is only known at run time", name.text)
		z.cannotBound(c, "the command name is only known at run time: %s", name.text)
		st := c.st.lostCwd()
		st.varsUnknown = true
		if len(name.alts) > 0 && !name.glob && c.wrap < 16 {
			// for p in ls rm; do $p -rf ~; done: each program in turn.
			for _, alt := range name.alts {
				alt := alt
				argv := append([]wordInfo{{text: alt, lit: alt, val: alt, full: true}}, c.argv[1:]...)
				z.simple(&cmd{argv: argv, st: c.st, idx: c.idx, text: c.text, wrap: c.wrap + 1})
			}
			return same(st)
		}
		if !name.full || name.glob {
			if !fixedProgramName(name) {
				z.dangerous(escalates, "runs a program whose name is only known at run time (%s), hidden from review", name.text)
			}
			return same(st)
		}
		// a=rm; $a -rf /: the value is known, so the dangerous checks
		// still apply to it.
		defer func() { out = same(st) }()
		c.prog = name.val
	}
	if c.prog == "" {
		z.unsafe("empty command name")
		z.unbounded("empty command name")
		return c.out
	}
	for _, r := range c.prog {
		if r <= ' ' || r >= 0x7f {
			// Commands are ASCII words. Anything else can look like
			// another command (homoglyphs, hidden characters).
			z.unsafe("the command name %q contains an unusual character", c.prog)
			break
		}
	}
	c.base = path.Base(c.prog)
	if strings.Contains(c.prog, "/") && !strings.HasPrefix(c.prog, "/") {
		z.projectCode("%s runs a program from the workspace", c.prog)
	}
	if strings.Contains(c.prog, "/") {
		for _, a := range z.absPaths(c.prog, c.st) {
			if z.sink.wasDownloaded(a) {
				z.dangerous(escalates, "runs %s, which this command downloaded", c.prog)
				break
			}
		}
	}
	if z.funcs[c.prog] {
		// A function of the script: its body was analysed (and the
		// definition is Unsafe). It may cd or set anything.
		st := c.st
		st = st.lostCwd()
		st.varsUnknown = true
		c.out = same(st)
		z.cannotBound(c, "%s is a function of the script", c.prog)
		return c.out
	}
	c.base = canonical(c.base)
	if downloaders[c.base] {
		z.sink.meta[c.idx].download = true
	}
	projectCode, writes := len(z.sink.a.ProjectCode), len(z.sink.a.Effects.Writes)
	z.judge(c, programs[c.base])
	z.carries(c.idx, writes)
	if len(z.sink.a.ProjectCode) > projectCode && c.st.cwd != "" && z.sink.wasDownloaded(c.st.cwd) {
		z.dangerous(escalates, "%s runs code of a repository this command downloaded: %s", c.base, c.text)
	}
	z.printsEnvOrCredentials(c)
	z.sendsSecrets(c)
	return c.out
}

// judge applies a program's description to a command: its handler, or its
// option table and check; then the generic path check of the words left
// as possible paths, and the bounds of what it touches. A program the
// analyser does not know may read or write whatever it names.
func (z *analyzer) judge(c *cmd, p *program) {
	if p == nil {
		z.checkPaths(c)
		z.cannotBound(c, "%s is not a program whose files the analyser can list", c.prog)
		return
	}
	c.noFiles = p.text
	switch {
	case p.handler != nil:
		p.handler(z, c)
	default:
		if p.prepare != nil {
			p.prepare(c)
		}
		r := z.applyTable(c, p, 1)
		if p.check != nil {
			p.check(z, c, &r)
		}
		z.judgeOperands(c, p, r)
		z.tableBounds(c, p, r)
	}
	if p.pure {
		z.pureEffects(c)
	}
	z.checkPaths(c)
	switch {
	case strings.Contains(c.prog, "/"):
		// A program run by path may be anything, even one named cat.
		z.cannotBound(c, "%s is run by path", c.prog)
	case p.unbounded != "":
		z.cannotBound(c, "%s %s", c.base, p.unbounded)
	}
}

// checkPaths makes Unsafe any fixed argument that names a path outside the
// workspace: a rule for cat is not meant for cat ../../root/.ssh/id_rsa.
// Dynamic words are left to the chain, which allows no rule for them.
func (z *analyzer) checkPaths(c *cmd) {
	if c.noFiles {
		return
	}
	for _, w := range c.argv[1:] {
		if w.nonPath {
			continue
		}
		var vals []string
		switch {
		case !w.dyn:
			vals = []string{w.lit}
		case w.full:
			vals = []string{w.val}
		case len(w.alts) > 0:
			vals = w.alts
		default:
			continue
		}
		for _, v := range vals {
			for _, p := range pathCandidates(v) {
				if r := z.outside(p, c.st); r != "" {
					z.unsafe("%s names a path outside the workspace: %s", c.base, r)
					goto next
				}
			}
		}
	next:
	}
}

// inner analyses the command a wrapper runs (argv[from:to]) as a command of
// its own, so that its rules, deny rules and dangerous checks apply (sudo
// rm -rf / is as dangerous as rm -rf /). assigns are environment settings
// the wrapper adds. It returns the state after the inner command.
func (z *analyzer) inner(c *cmd, from, to int, assigns []string) flow {
	if from >= to || from >= len(c.argv) {
		return same(c.st)
	}
	if to > len(c.argv) {
		to = len(c.argv)
	}
	if c.wrap >= 16 || z.nest > maxNesting {
		z.unsafe("commands wrapped too deeply to analyse: %s", c.text)
		return same(c.st)
	}
	argv := c.argv[from:to]
	text := ""
	if argv[0].node != nil && argv[len(argv)-1].node != nil {
		text = z.span(argv[0].node.Pos(), argv[len(argv)-1].node.End())
	}
	if text == "" {
		parts := make([]string, len(argv))
		for i, w := range argv {
			parts[i] = w.text
		}
		text = strings.Join(parts, " ")
	}
	words := make([]wordInfo, len(argv))
	copy(words, argv)
	for i := range words {
		words[i].nonPath = false
	}
	idx := z.addCommand(words, assigns, text)
	z.nest++
	defer func() { z.nest-- }()
	return z.simple(&cmd{argv: words, st: c.st, idx: idx, text: text, wrap: c.wrap + 1})
}

// script analyses a string that a program runs as a shell script (sh -c,
// su -c, watch, trap, eval) with its own analyser.
func (z *analyzer) script(src string, st state, what string) {
	if z.depth+1 > maxScriptDepth {
		z.unsafe("%s: scripts nested too deeply to analyse", what)
		return
	}
	f, err := parse(src)
	if err != nil {
		z.unsafe("%s: the script does not parse: %v", what, err)
		return
	}
	child := newAnalyzer(src, z.opt, z.sink, z.depth+1)
	child.nest = z.nest
	child.checkSource()
	child.prepass(f)
	child.stmtList(f.Stmts, st)
}

// scriptArg handles the word a program runs as a shell script.
func (z *analyzer) scriptArg(c *cmd, w wordInfo, what string) {
	switch {
	case w.subDownload:
		z.dangerous(escalates, "%s runs a script it downloads: %s", what, c.text)
	case w.subDecode:
		z.dangerous(escalates, "%s runs a script it decodes, hidden from review: %s", what, c.text)
	case !w.full || w.glob:
		z.dangerous(escalates, "%s runs a script only known at run time, hidden from review: %s", what, c.text)
	}
	if w.full && !w.glob {
		z.script(w.val, c.st, what)
		return
	}
	z.unsafe("%s runs a script only known at run time: %s", what, w.text)
}

// scriptFile handles a program running a script file (bash x.sh, python
// x.py, source x): code from the workspace, or a download.
func (z *analyzer) scriptFile(c *cmd, w wordInfo) {
	switch {
	case w.subDownload:
		z.dangerous(escalates, "%s runs a script it downloads: %s", c.base, c.text)
	case w.subst:
		z.unsafe("%s runs a script produced by another command: %s", c.base, w.text)
	case !w.full:
		// The chain asks for the dynamic word anyway.
	case w.val == "-" || w.val == "/dev/stdin" || w.val == "/dev/fd/0" || w.val == "/proc/self/fd/0":
		z.stdinProgram(c)
	default:
		if a, ok := z.absPath(w.val, c.st); ok && z.sink.wasDownloaded(a) {
			z.dangerous(escalates, "%s runs %s, which this command downloaded", c.base, w.val)
		}
		z.projectCode("%s runs %s", c.base, w.val)
	}
}

// stdinProgram: an interpreter reads its program from standard input, which
// is whatever is piped in.
func (z *analyzer) stdinProgram(c *cmd) {
	z.sink.meta[c.idx].interp = true
	if p := programs[c.base]; p != nil && p.unbounded == "runs a program" {
		z.sink.meta[c.idx].lang = c.base
	}
	z.unsafe("%s reads the program to run from its standard input: %s", c.base, c.text)
}

// fixedProgramName: the word's last path component is written out
// ($(go env GOPATH)/bin/golangci-lint): only the directory comes from an
// expansion, the program is named.
func fixedProgramName(w wordInfo) bool {
	if w.glob {
		return false
	}
	i := strings.LastIndexByte(w.text, '/')
	if i < 0 {
		return false
	}
	last := strings.TrimRight(w.text[i+1:], `"'`)
	return last != "" && !strings.ContainsAny(last, "$`*?[{\\'\"")
}
