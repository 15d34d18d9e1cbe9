package shell

// awk: programs that may run commands or write files.

import "strings"

func init() {
	register(hAwk, "awk")
}

// hAwk: system(), pipes and redirections in an awk program run commands or
// write files. Conservatively any program containing system, |, > or
// getline is Unsafe, as is a program from a file (-f) or an extension.
func hAwk(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "bcCgMNnOPrsStVh", withArg: "FvfeEil", optArg: "dDLop", long: map[string]byte{
		"field-separator": 'r', "assign": 'r', "file": 'r', "source": 'r', "exec": 'r', "include": 'r', "load": 'r',
		"sandbox": 'n', "characters-as-bytes": 'n', "traditional": 'n', "copyright": 'n', "dump-variables": 'o',
		"debug": 'o', "lint": 'o', "bignum": 'n', "use-lc-numeric": 'n', "non-decimal-data": 'n', "optimize": 'n',
		"no-optimize": 'n', "pretty-print": 'o', "profile": 'o', "posix": 'n', "re-interval": 'n', "version": 'n', "help": 'n'}})
	sandbox := p.has("S", "sandbox")
	var progs []wordInfo
	for _, o := range p.opts {
		switch o.name {
		case "f", "file", "E", "exec", "i", "include", "l", "load":
			z.unsafe("awk -%s runs a program or extension the analyser does not read: %s", o.name, c.text)
			if o.name == "f" || o.name == "file" || o.name == "E" || o.name == "exec" {
				progs = append(progs, wordInfo{full: true, val: "BEGIN{}"}) // the program is there
			}
		case "e", "source":
			if o.valIdx >= 0 {
				w := c.argv[o.valIdx]
				if o.valIdx == o.idx {
					w.val = o.val
				}
				c.argv[o.valIdx].nonPath = true
				progs = append(progs, w)
			}
		case "v", "assign", "F", "field-separator":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		case "o", "pretty-print", "p", "profile", "d", "dump-variables":
			if o.hasVal {
				z.checkWrite(wordInfo{text: o.val, lit: o.val, val: o.val, full: true}, c.st, "awk -"+o.name)
			}
		}
	}
	ops := p.operands
	if len(progs) == 0 && len(ops) > 0 {
		c.argv[ops[0]].nonPath = true
		progs = append(progs, c.argv[ops[0]])
		ops = ops[1:]
	}
	for _, i := range ops {
		if name, _, ok := strings.Cut(c.argv[i].val, "="); ok && isName(name) {
			c.argv[i].nonPath = true // var=value operand
		}
	}
	for _, w := range progs {
		if !w.full {
			z.unsafe("awk program only known at run time: %s", w.text)
			continue
		}
		if sandbox {
			continue
		}
		if strings.Contains(w.val, "system") || strings.ContainsAny(w.val, "|>") || strings.Contains(w.val, "getline") || strings.Contains(w.val, "@") {
			z.unsafe("awk program may run commands or write files (system, |, >, getline or @load): %s", w.text)
		}
	}
}
