package shell

// Deleting files: rm, unlink, shred.

func init() {
	register(hRm, "rm", "srm", "trash", "trash-put")
	register(hUnlink, "unlink")
	register(hShred, "shred")
}

var rmSpec = optSpec{flags: "rRfiIdvP", long: map[string]byte{"recursive": 'n', "force": 'n', "interactive": 'o',
	"one-file-system": 'n', "no-preserve-root": 'n', "preserve-root": 'o', "dir": 'n', "verbose": 'n', "help": 'n', "version": 'n'}}

// hRm: a recursive or forced delete of /, ~, the workspace, an ancestor of
// them or their contents is Dangerous; deleting a start-up file, key or
// history file is Dangerous whatever the flags.
func hRm(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, rmSpec)
	recursive := p.has("r", "R", "recursive") || p.dynOpt || c.base != "rm"
	force := p.has("f", "force") || p.dynOpt
	for _, i := range p.operands {
		w := c.argv[i]
		if recursive || force {
			z.destroys(w, c.st, c.base+" -r deletes")
		}
		z.deletesProtected(w, c.st, c.base)
	}
}

func (z *analyzer) deletesProtected(w wordInfo, st state, prog string) {
	for _, v := range writeValues(w) {
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(v, st) {
			if r := z.protectedWrite(a); r != "" {
				z.dangerous("%s deletes %s: %s", prog, v, r)
				return
			}
		}
	}
}

func hUnlink(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		z.deletesProtected(w, c.st, "unlink")
	}
}

// hShred overwrites files: a disk or a protected file is Dangerous.
func hShred(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "fuvxz", withArg: "ns", long: map[string]byte{"force": 'n', "iterations": 'r',
		"random-source": 'r', "size": 'r', "remove": 'o', "verbose": 'n', "exact": 'n', "zero": 'n'}})
	for _, i := range p.operands {
		z.checkWrite(c.argv[i], c.st, "shred")
		z.destroys(c.argv[i], c.st, "shred overwrites")
	}
}
