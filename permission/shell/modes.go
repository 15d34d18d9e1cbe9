package shell

// chmod, chown, chgrp and friends: recursive mode and owner changes.

import "strings"

func init() {
	register(hChmod, "chmod", "chown", "chgrp", "chattr", "setfacl")
}

// hChmod: chmod/chown/chgrp -R on /, ~, the workspace or their ancestors
// is Dangerous (chmod -R 777 /, chown -R nobody /).
func hChmod(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "RcfvhHLPV", long: map[string]byte{"recursive": 'n', "reference": 'r',
		"from": 'r', "changes": 'n', "silent": 'n', "quiet": 'n', "verbose": 'n', "dereference": 'n', "no-dereference": 'n',
		"preserve-root": 'n', "no-preserve-root": 'n', "help": 'n', "version": 'n'}})
	recursive := p.has("R", "recursive") || p.dynOpt
	ops := p.operands
	// chmod -x file: GNU chmod takes a mode that looks like an option.
	modeAsOpt := false
	for _, o := range p.opts {
		if c.base == "chmod" && !o.long && strings.Contains("rwxXstugoa", o.name) {
			modeAsOpt = true
		}
	}
	if !p.has("reference") && len(ops) > 0 && c.base != "chattr" && !modeAsOpt {
		c.argv[ops[0]].nonPath = true // the mode or owner
		ops = ops[1:]
	}
	for _, i := range ops {
		w := c.argv[i]
		if recursive {
			z.destroys(w, c.st, c.base+" -R changes")
		} else if w.full && (w.val == "/" || z.opt.Home != "" && w.val == z.opt.Home) {
			z.dangerous("%s changes %s", c.base, w.val)
		}
	}
}
