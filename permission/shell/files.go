package shell

// File changers: truncate, dd, tee.

import "strings"

func init() {
	register(hTruncate, "truncate")
	register(hDd, "dd")
	register(hTee, "tee")
}

func hTruncate(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "co", withArg: "rs", long: map[string]byte{"no-create": 'n', "io-blocks": 'n', "reference": 'r', "size": 'r'}})
	for _, i := range p.operands {
		z.checkWrite(c.argv[i], c.st, "truncate")
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

// fileChangers write their operands.
var fileChangers = set("rm", "rmdir", "unlink", "mkdir", "touch", "truncate", "chmod", "chown", "chgrp", "tee")

// changerEffects: rm, mkdir, touch, cp, mv, ln, chmod and friends write
// their operands; cp and ln read their sources.
func (z *analyzer) changerEffects(c *cmd) {
	prog := c.argv[0].val
	switch prog {
	case "cp", "mv", "ln", "install":
		spec := optSpec{flags: "abdfHilLnPprRsTuvxZ", withArg: "tS", long: map[string]byte{"target-directory": 'r',
			"suffix": 'r', "backup": 'o', "reflink": 'o', "sparse": 'r', "preserve": 'o', "no-preserve": 'r', "context": 'o',
			"no-target-directory": 'n', "strip-program": 'r', "mode": 'r', "owner": 'r', "group": 'r', "update": 'o'}}
		if prog == "install" {
			spec.withArg, spec.flags = "tSgmo", "bCcdDpsTvZ"
		}
		p := getopt(c.argv, 1, spec)
		if p.dynOpt {
			z.unbounded("%s with an option only known at run time", prog)
			return
		}
		targets, _, sources := z.copyTargets(c, p)
		if prog == "install" && p.has("d", "directory") {
			targets, sources = nil, nil
			for _, i := range p.operands {
				targets = append(targets, c.argv[i])
			}
		}
		for _, t := range targets {
			z.writeWord(c, t)
		}
		for _, i := range sources {
			if prog == "mv" {
				z.writeWord(c, c.argv[i])
			} else {
				z.readWord(c, c.argv[i], Read{Tree: true, Contents: true})
			}
		}
		return
	case "tee":
		return // its files are writes of the analysis (writeTarget)
	}
	for _, i := range operandWords(c) {
		w := c.argv[i]
		if prog == "touch" || prog == "truncate" {
			// -r FILE and -d DATE / -s SIZE values: the reference is
			// read; the others are not paths, and widening the writes
			// to them is harmless.
			if k := i - 1; k >= 1 && (c.argv[k].val == "-r" || c.argv[k].val == "--reference") {
				z.readWord(c, w, Read{})
				continue
			}
		}
		z.writeWord(c, w)
	}
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
