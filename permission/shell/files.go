package shell

// File changers: touch, mkdir, truncate, tee, dd.

import "strings"

func init() {
	register(&program{rest: asWrite, opts: []option{
		flags("-a -c --no-create -f -h --no-dereference -m"),
		texts("-d= --date= -t= --time="),
		o("-r= --reference=", asNames),
	}}, "touch")
	register(&program{rest: asWrite, opts: []option{
		flags("-p --parents -v --verbose -Z"),
		texts("-m= --mode= --context=?"),
	}}, "mkdir")
	register(&program{rest: asWrite, opts: []option{
		flags("-c --no-create -o --io-blocks"),
		texts("-s= --size="),
		o("-r= --reference=", asNames),
	}}, "truncate")
	register(&program{handler: hTee}, "tee")
	register(&program{handler: hDd, unbounded: "copies data between files and devices"}, "dd")
}

// hTee writes its file operands like a redirection does.
func hTee(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "aip", long: map[string]byte{"append": 'n', "ignore-interrupts": 'n', "output-error": 'o', "help": 'n', "version": 'n'}})
	appendMode := p.has("a", "append")
	for _, i := range p.operands {
		c.argv[i].nonPath = true // judged as a write
		z.writeTarget(c.argv[i], c.st, appendMode, "tee")
	}
}

// hDd: of= a disk or protected file is Dangerous.
func hDd(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "of=") {
			t := w
			t.val = strings.TrimPrefix(w.val, "of=")
			t.unknownLead = t.val == "" && !w.full
			z.checkWrite(t, c.st, "dd")
		}
	}
}
