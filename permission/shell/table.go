package shell

// Option tables: what each option and operand of a program is to it, from
// which the analyser derives the command's Unsafe reasons, its writes, its
// reads and its effects.

import (
	"strings"
)

// act says what a word is to the program that receives it: the value of
// an option or an operand (the as… acts), or what an option does by being
// there (the others). One option may combine several.
type act uint32

const (
	// asText: plain text (a pattern, a number, a name, a host): not a
	// path.
	asText act = 1 << iota
	// asRead: a file whose contents are read.
	asRead
	// asNames: a path whose name and metadata are read (ls, stat).
	asNames
	// asWrite: a file created, changed or removed.
	asWrite
	// asAppend: a file appended to.
	asAppend
	// asRemove: a file or directory deleted.
	asRemove
	// asChange: a file whose mode, owner or times change (chmod, touch
	// of an existing file).
	asChange
	// asRun: a program or shell command the program runs: Unsafe.
	asRun
	// asConfig: a file of settings that can name programs to run: Unsafe.
	asConfig
	// asList: a file naming further files to read (--files0-from,
	// sha256sum -c): the reads are only known at run time.
	asList

	// recurse: path operands are walked as trees.
	recurse
	// follows: symbolic links are followed, possibly out of the tree:
	// the effects are unbounded.
	follows
	// inPlace: the file operands are rewritten (sed -i, gofmt -w).
	inPlace
	// appends: the written files are appended to (tee -a).
	appends
	// hidden: a tree walk includes hidden files (rg --hidden).
	hidden
	// runs: the option makes the program run commands: Unsafe.
	runs
	// widens: the option makes the program touch more than the table can
	// list (date -s sets the clock): the effects are unbounded.
	widens
	// decodes: the program prints decoded text (base64 -d).
	decodes
)

// valueActsMask are the acts only a value can have. (asList is also the
// act of an option that turns the operands into lists: sha256sum -c.)
const valueActsMask = asText | asRead | asNames | asWrite | asAppend | asRemove | asChange | asRun | asConfig

// option is one row of a program's option table: options that mean the
// same to the analyser.
type option struct {
	names []string // "-o", "--output": every spelling
	// args has one entry per name: 'n' no value, 'r' a required value
	// (attached or the next word), 'o' an optional value (attached only:
	// -i.bak, --color=auto).
	args []byte
	act  act
	why  string // what it does, for the reasons it gives
}

// takesValue reports whether some spelling of the option takes a value.
func (o option) takesValue() bool {
	for _, a := range o.args {
		if a != 'n' {
			return true
		}
	}
	return false
}

// o is one option row. Names are separated by spaces; a name that ends in
// "=" takes a value (-o= --output=), one that ends in "=?" takes an
// optional attached value (--color=?). what is the act of the value, or of
// the option for a flag; why explains asRun, runs and widens.
func o(names string, what act, why ...string) option {
	opt := option{act: what}
	for _, n := range strings.Fields(names) {
		arg := byte('n')
		switch {
		case strings.HasSuffix(n, "=?"):
			n, arg = strings.TrimSuffix(n, "=?"), 'o'
		case strings.HasSuffix(n, "="):
			n, arg = strings.TrimSuffix(n, "="), 'r'
		}
		opt.names = append(opt.names, n)
		opt.args = append(opt.args, arg)
	}
	if len(why) > 0 {
		opt.why = why[0]
	}
	return opt
}

// flags is a row of options that take no value and change nothing the
// analyser cares about.
func flags(names string) option { return o(names, 0) }

// texts is a row of options whose value is plain text. A name without a
// value marker takes a required value.
func texts(names string) option {
	opt := o(names, asText)
	for i, a := range opt.args {
		if a == 'n' {
			opt.args[i] = 'r'
		}
	}
	return opt
}

// spec builds the getopt description of a program's table, once.
func (p *program) optSpec() optSpec {
	p.specOnce.Do(func() {
		s := optSpec{posix: p.posix, numeric: p.numeric, words: p.wordOptions}
		p.byName = map[string]*option{"help": &infoOption, "version": &infoOption}
		s.long = map[string]byte{"help": 'n', "version": 'n'}
		for i := range p.opts {
			opt := &p.opts[i]
			for k, n := range opt.names {
				arg := opt.args[k]
				switch {
				case p.wordOptions:
					n = strings.TrimPrefix(strings.TrimPrefix(n, "-"), "-")
					s.long[n] = arg
					p.byName[n] = opt
				case strings.HasPrefix(n, "--"):
					s.long[n[2:]] = arg
					p.byName[n[2:]] = opt
				case len(n) == 2 && n[0] == '-':
					switch arg {
					case 'r':
						s.withArg += n[1:]
					case 'o':
						s.optArg += n[1:]
					default:
						s.flags += n[1:]
					}
					p.byName[n[1:]] = opt
				}
			}
		}
		p.spec = s
	})
	return p.spec
}

// option returns the table row of a parsed option, or nil when the table
// does not list it.
func (p *program) option(o opt) *option {
	p.optSpec()
	if o.dyn {
		return nil
	}
	if p.numeric && isNumber(o.name) {
		return &numericOption
	}
	return p.byName[o.name]
}

// infoOption is the row of --help and --version, which every GNU program
// takes: it prints and exits.
var infoOption = option{names: []string{"--help", "--version"}, args: []byte{'n', 'n'}}

// numericOption is the row of -NUM (head -20): a count, nothing more.
var numericOption = option{}

// tableRun is what applying a table to one command found: the parsed
// words and the acts of the options present.
type tableRun struct {
	parsed
	acts act // the union of the acts of the options present
	// unknown are options the table does not list.
	unknown []string
	// whyWidens explains a widens act a check added.
	whyWidens string
}

// has reports whether an option with the act is present.
func (r tableRun) has(a act) bool { return r.acts&a != 0 }

// applyTable reads a command's words with its program's table: option
// values and operands are judged by their acts (reads, writes, programs to
// run), the options' own acts collected. Operands are judged by
// judgeOperands, after the program's own check had its say.
func (z *analyzer) applyTable(c *cmd, p *program, from int) tableRun {
	r := tableRun{parsed: getopt(c.argv, from, p.optSpec())}
	for _, po := range r.opts {
		row := p.option(po)
		if row == nil {
			if po.dyn {
				r.unknown = append(r.unknown, c.argv[po.idx].text)
			} else {
				r.unknown = append(r.unknown, optName(po))
			}
			continue
		}
		r.acts |= row.act
		if row.act&runs != 0 {
			z.unsafe("%s %s %s: %s", c.base, optName(po), orDefault(row.why, "runs other programs"), c.text)
		}
		if po.valIdx < 0 || !row.takesValue() {
			continue
		}
		// The value (a word of its own, or attached to the option) is
		// judged by its act, not by the generic path check.
		c.argv[po.valIdx].nonPath = true
		z.judgeValue(c, row.act, optValue(c, po), optName(po), row.why)
	}
	if p.anyAct(asRun | runs | asConfig) {
		for _, i := range r.operands {
			if w := c.argv[i]; mayExpandToOption(w) {
				z.unsafe("%s gets file names from %s, which may match a file named like one of its options that runs a program: %s",
					c.base, w.text, c.text)
				break
			}
		}
	}
	return r
}

// mayExpandToOption: a pattern whose matches may start with "-" (*, *.txt,
// [a-z]*), or a loop variable over such matches: a file named
// --checkpoint-action=exec=sh is then an option of the program.
func mayExpandToOption(w wordInfo) bool {
	if w.relPath && !w.full && len(w.alts) == 0 {
		return true // for f in *; … $f
	}
	return w.glob && w.full && w.val != "" && strings.ContainsRune("*?[{", rune(w.val[0]))
}

// judgeValue judges one option value or operand by its act.
func (z *analyzer) judgeValue(c *cmd, a act, w wordInfo, what, why string) {
	label := c.base
	if what != "" {
		label += " " + what
	}
	switch {
	case a&asRun != 0:
		z.unsafe("%s %s: %s", label, orDefault(why, "runs a program the command names"), c.text)
	case a&asConfig != 0:
		z.unsafe("%s reads settings from %s, which can name programs to run: %s", label, w.text, c.text)
		z.readWord(c, w, Read{Contents: true})
	case a&asList != 0:
		z.unbounded("%s reads the files a list names", label)
		z.readWord(c, w, Read{Contents: true})
	case a&(asWrite|asAppend) != 0:
		z.writeFile(c, w, a&asAppend != 0, label)
	case a&asRemove != 0:
		z.changeFile(c, w, label, "deletes")
	case a&asChange != 0:
		z.changeFile(c, w, label, "changes")
	case a&asRead != 0:
		z.checkReadPath(c, w, label)
		z.readWord(c, w, Read{Contents: true})
	case a&asNames != 0:
		z.checkReadPath(c, w, label)
		z.readWord(c, w, Read{})
	}
}

// checkReadPath judges a path a program reads outside the generic check of
// its operands (an option's value in a word of its own).
func (z *analyzer) checkReadPath(c *cmd, w wordInfo, label string) {
	if !w.full {
		return
	}
	for _, v := range pathCandidates(w.val) {
		if r := z.outside(v, c.st); r != "" {
			z.unsafe("%s names a path outside the workspace: %s", label, r)
			return
		}
	}
}

// judgeOperands judges a command's operands by the program's operand acts:
// the first ones by position, the others alike. Operands the program's
// check marked as text are left alone. With no path operand a program that
// walks its working directory (ls, rg; grep -r) reads it.
func (z *analyzer) judgeOperands(c *cmd, p *program, r tableRun) {
	paths := 0
	for k, i := range r.operands {
		a := p.rest
		if k < len(p.args) {
			a = p.args[k]
		}
		if c.argv[i].nonPath {
			continue
		}
		if r.has(inPlace) && a&(asRead|asNames) != 0 {
			a = asWrite // gofmt -w, sed -i: the files are rewritten
		}
		switch {
		case a == 0 || a&asText != 0:
			c.argv[i].nonPath = true
		case a&(asRead|asNames) != 0:
			paths++
			z.readWord(c, c.argv[i], p.readOf(a, r))
		default:
			// Judged by its act (a write is checked as a write, not
			// as a read of a path).
			c.argv[i].nonPath = true
			if r.has(appends) && a&asWrite != 0 {
				a = asAppend
			}
			z.judgeValue(c, a, c.argv[i], "", "")
		}
	}
	if paths == 0 && (p.cwd || r.has(recurse) && p.rest&(asRead|asNames) != 0) {
		z.readWord(c, wordInfo{text: ".", lit: ".", val: ".", full: true}, p.readOf(p.rest, r))
	}
}

// readOf is the read of one path operand with act a.
func (p *program) readOf(a act, r tableRun) Read {
	rd := Read{Contents: a&asRead != 0, Tree: p.trees || r.has(recurse)}
	rd.SkipsHidden = rd.Tree && p.skipsHidden && !r.has(hidden)
	return rd
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// anyAct reports whether an option of the table has one of the acts.
func (p *program) anyAct(a act) bool {
	for _, o := range p.opts {
		if o.act&a != 0 {
			return true
		}
	}
	return false
}

// why returns the explanation of the first option present with the act.
func (p *program) why(a act, r tableRun) string {
	if a == widens && r.whyWidens != "" {
		return r.whyWidens
	}
	for _, po := range r.opts {
		if row := p.option(po); row != nil && row.act&a != 0 {
			return optName(po) + " " + orDefault(row.why, "touches more than the analyser can list")
		}
	}
	return "touches more than the analyser can list"
}
