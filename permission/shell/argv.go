package shell

import "strings"

// optSpec describes a program's options closely enough to find its operands
// and the options that matter. Unknown short options are taken as flags
// without argument, unknown long options as written.
type optSpec struct {
	flags   string // short options without argument
	withArg string // short options with a required argument (attached or next word)
	optArg  string // short options with an optional, attached-only argument (sed -i.bak)
	// long maps long option names to 'n' (no argument), 'r' (required:
	// --x=v or --x v) or 'o' (optional, only --x=v). Abbreviations that
	// are unique prefixes resolve to the full name, as getopt_long does.
	long map[string]byte
	// posix: options end at the first operand (most non-GNU programs,
	// shells, interpreters, wrappers). GNU programs permute: options may
	// follow operands until `--`.
	posix bool
	// numeric: -NUM is an option (kill -9, head -20, nice -5).
	numeric bool
	// stopAfter: short options after whose argument option parsing ends
	// (python -c CMD args…, python -m MOD args…).
	stopAfter string
	// words: options are whole words, with one dash or two (Go's flag
	// package: gofmt -w, go test -run=x): long holds them all.
	words bool
}

// opt is one option found in argv.
type opt struct {
	name   string // short letter or resolved long name
	long   bool
	val    string // its argument, when hasVal
	hasVal bool
	idx    int  // index in argv of the word holding the option
	valIdx int  // index of the word holding the argument, or -1
	dyn    bool // a word with unknown value in option position: may be any option
}

// parsed is the result of getopt.
type parsed struct {
	opts     []opt
	operands []int // argv indexes
	// dynOpt: some word in option position has an unknown value, so any
	// option may be present.
	dynOpt bool
	// dashdash is the index of the `--` that ended the options, or -1.
	dashdash int
}

func (p parsed) has(names ...string) bool {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (p parsed) get(names ...string) []opt {
	var out []opt
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				out = append(out, o)
			}
		}
	}
	return out
}

// getopt parses argv[from:] (argv[0] is the program) the way getopt_long
// would.
func getopt(argv []wordInfo, from int, spec optSpec) parsed {
	p := parsed{dashdash: -1}
	for i := from; i < len(argv); i++ {
		w := argv[i]
		a := w.val
		if !w.full && w.unknownLead && !w.operandOnly() {
			// "$X" may be any option, or an operand.
			p.dynOpt = true
			p.opts = append(p.opts, opt{idx: i, valIdx: -1, dyn: true})
			p.operands = append(p.operands, i)
			if spec.posix {
				p.operands = appendRange(p.operands, i+1, len(argv))
				return p
			}
			continue
		}
		switch {
		case a == "--":
			p.dashdash = i
			p.operands = appendRange(p.operands, i+1, len(argv))
			return p
		case spec.words && len(a) > 1 && a[0] == '-':
			name, val, hasVal := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
			o := opt{name: name, long: true, idx: i, valIdx: -1, val: val, hasVal: hasVal}
			if hasVal {
				o.valIdx = i
			} else if spec.long[name] == 'r' && i+1 < len(argv) {
				i++
				o.val, o.hasVal, o.valIdx = argv[i].val, true, i
			}
			p.opts = append(p.opts, o)
		case strings.HasPrefix(a, "--") && spec.long != nil:
			name, val, hasVal := strings.Cut(a[2:], "=")
			full, kind := resolveLong(spec.long, name)
			o := opt{name: full, long: true, idx: i, valIdx: -1, val: val, hasVal: hasVal}
			if hasVal {
				o.valIdx = i
			} else if kind == 'r' && i+1 < len(argv) {
				i++
				o.val, o.hasVal, o.valIdx = argv[i].val, true, i
			}
			p.opts = append(p.opts, o)
		case len(a) > 1 && a[0] == '-' && !(spec.long == nil && strings.HasPrefix(a, "--")):
			if spec.numeric && isNumber(a[1:]) {
				p.opts = append(p.opts, opt{name: a[1:], idx: i, valIdx: -1})
				continue
			}
			stop := false
			for j := 1; j < len(a); j++ {
				c := a[j : j+1]
				switch {
				case strings.Contains(spec.withArg, c):
					o := opt{name: c, idx: i, valIdx: -1}
					if j+1 < len(a) {
						o.val, o.hasVal, o.valIdx = a[j+1:], true, i
					} else if i+1 < len(argv) {
						i++
						o.val, o.hasVal, o.valIdx = argv[i].val, true, i
					}
					p.opts = append(p.opts, o)
					stop = strings.Contains(spec.stopAfter, c)
					j = len(a)
				case strings.Contains(spec.optArg, c):
					o := opt{name: c, idx: i, valIdx: -1}
					if j+1 < len(a) {
						o.val, o.hasVal, o.valIdx = a[j+1:], true, i
					}
					p.opts = append(p.opts, o)
					j = len(a)
				default:
					p.opts = append(p.opts, opt{name: c, idx: i, valIdx: -1})
				}
			}
			if stop {
				p.operands = appendRange(p.operands, i+1, len(argv))
				return p
			}
		default:
			p.operands = append(p.operands, i)
			if spec.posix {
				p.operands = appendRange(p.operands, i+1, len(argv))
				return p
			}
		}
	}
	return p
}

func appendRange(s []int, from, to int) []int {
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// resolveLong resolves a possibly abbreviated long option name.
func resolveLong(long map[string]byte, name string) (string, byte) {
	if k, ok := long[name]; ok {
		return name, k
	}
	match := ""
	for full := range long {
		if strings.HasPrefix(full, name) && name != "" {
			if match != "" {
				return name, 'n' // ambiguous: the program refuses it
			}
			match = full
		}
	}
	if match == "" {
		return name, 'n'
	}
	return match, long[match]
}

// longFlag reports whether arg is the long option full, possibly
// abbreviated (git and getopt_long accept unique prefixes) and possibly with
// =value. exact lists other options of the program that are a prefix of
// full and so are not abbreviations of it (--text is not --textconv).
func longFlag(arg, full string, exact ...string) bool {
	if !strings.HasPrefix(arg, "--") {
		return false
	}
	name, _, _ := strings.Cut(arg[2:], "=")
	if name == "" {
		return false
	}
	for _, e := range exact {
		if name == e {
			return false
		}
	}
	return strings.HasPrefix(full, name) && len(name) >= min(len(full), 3)
}

// shortFlag reports whether arg is a cluster of short options containing
// letter before any letter that takes an argument (argLetters).
func shortFlag(arg string, letter byte, argLetters string) bool {
	if len(arg) < 2 || arg[0] != '-' || arg[1] == '-' {
		return false
	}
	for j := 1; j < len(arg); j++ {
		if arg[j] == letter {
			return true
		}
		if strings.IndexByte(argLetters, arg[j]) >= 0 {
			return false
		}
	}
	return false
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// optName spells an option as written on a command line.
func optName(o opt) string {
	if o.long {
		return "--" + o.name
	}
	return "-" + o.name
}

// operandOnly: a word only known at run time that cannot be an option: a
// loop variable over words or relative paths none of which starts with -.
func (w wordInfo) operandOnly() bool {
	if w.relPath {
		return true
	}
	if len(w.alts) == 0 {
		return false
	}
	for _, a := range w.alts {
		if strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}
