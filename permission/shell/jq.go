package shell

// jq: its filter and the files it reads.

import (
	"slices"
	"strings"
)

// jqEffects: jq's first operand is its filter (unless -f gives one).
func (z *analyzer) jqEffects(c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "nrjacsSCMeh", withArg: "fL", long: map[string]byte{
		"from-file": 'r', "arg": 'r', "argjson": 'r', "slurpfile": 'r', "rawfile": 'r', "indent": 'r', "args": 'n',
		"jsonargs": 'n', "raw-output": 'n', "join-output": 'n', "null-input": 'n', "slurp": 'n', "compact-output": 'n',
		"tab": 'n', "sort-keys": 'n', "exit-status": 'n', "seq": 'n', "stream": 'n', "raw-input": 'n', "ascii-output": 'n'}})
	if p.dynOpt || p.has("L") {
		z.unbounded("jq with an option only known at run time, or a module path")
		return
	}
	ops := p.operands
	if !p.has("f", "from-file") && len(ops) > 0 {
		// The filter may read the environment ($ENV, env) or load
		// modules from jq's search path (import, include).
		f := c.argv[ops[0]].val
		if strings.Contains(f, "env") || strings.Contains(f, "ENV") {
			z.sink.a.Effects.Env = append(z.sink.a.Effects.Env, "jq $ENV")
		}
		if strings.Contains(f, "import") || strings.Contains(f, "include") {
			z.unbounded("a jq filter that loads modules")
		}
	}
	if !p.has("f", "from-file") && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range p.opts {
		switch o.name {
		case "f", "from-file":
			if o.valIdx >= 0 {
				z.readWord(c, optValue(c, o), Read{Contents: true})
			}
		case "slurpfile", "rawfile":
			// --rawfile NAME FILE: FILE is the next word.
			if o.valIdx >= 0 && o.valIdx+1 < len(c.argv) {
				z.readWord(c, c.argv[o.valIdx+1], Read{Contents: true})
				ops = slices.DeleteFunc(ops, func(i int) bool { return i == o.valIdx+1 })
			}
		}
	}
	if p.has("args", "jsonargs") {
		ops = nil // the remaining words are values, not files
	}
	for _, i := range ops {
		z.readWord(c, c.argv[i], Read{Contents: true})
	}
}
