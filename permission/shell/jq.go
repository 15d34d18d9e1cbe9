package shell

// jq: its filter and the files it reads.

import (
	"slices"
	"strings"
)

func init() {
	register(&program{check: jqCheck, rest: asRead, opts: []option{
		flags("-n --null-input -r --raw-output -j --join-output -a --ascii-output -c --compact-output -s --slurp " +
			"-S --sort-keys -C --color-output -M --monochrome-output -e --exit-status -h --help -R --raw-input --tab " +
			"--seq --stream --stream-errors --args --jsonargs --unbuffered -V --raw-output0 -0 --binary -b"),
		texts("--indent= --arg= --argjson="),
		o("-f= --from-file=", asRead),
		o("--slurpfile= --rawfile=", asText),
		o("-L=", widens, "loads modules from a directory"),
	}}, "jq")
}

// jqCheck: jq's first operand is its filter (unless -f gives one); --arg
// and --argjson take a name and a value, --slurpfile and --rawfile a name
// and a file; after --args the operands are values. The filter may read
// the environment ($ENV, env) or load modules from jq's search path
// (import, include).
func jqCheck(z *analyzer, c *cmd, r *tableRun) {
	drop := func(i int) {
		r.operands = slices.DeleteFunc(r.operands, func(k int) bool { return k == i })
	}
	for _, o := range r.opts {
		if o.valIdx < 0 || o.valIdx+1 >= len(c.argv) {
			continue
		}
		switch o.name {
		case "arg", "argjson":
			c.argv[o.valIdx+1].nonPath = true
			drop(o.valIdx + 1)
		case "slurpfile", "rawfile":
			z.readWord(c, c.argv[o.valIdx+1], Read{Contents: true})
			drop(o.valIdx + 1)
		}
	}
	if !r.parsed.has("f", "from-file") && len(r.operands) > 0 {
		f := c.argv[r.operands[0]]
		c.argv[r.operands[0]].nonPath = true
		if strings.Contains(f.val, "env") || strings.Contains(f.val, "ENV") {
			z.sink.a.Effects.Env = append(z.sink.a.Effects.Env, "jq $ENV")
		}
		if strings.Contains(f.val, "import") || strings.Contains(f.val, "include") {
			r.acts |= widens
			r.whyWidens = "a filter that loads modules"
		}
	}
	if r.parsed.has("args", "jsonargs") {
		for _, i := range r.operands {
			c.argv[i].nonPath = true // values, not files
		}
	}
}
