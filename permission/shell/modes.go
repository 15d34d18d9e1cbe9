package shell

// chmod, chown, chgrp and the attribute changers: recursive changes of
// important trees are Dangerous.

import "strings"

func init() {
	common := "-c --changes -f --silent --quiet -v --verbose --no-preserve-root --preserve-root --dereference -h --no-dereference -H -L -P"
	register(&program{check: modeCheck, rest: asChange, opts: []option{
		flags(common),
		o("-R --recursive", recurse),
		o("--reference=", asNames),
		// GNU chmod takes a mode that looks like an option (chmod -x f).
		flags("-r -w -x -X -s -t -u -g -o -a"),
	}}, "chmod")
	register(&program{check: modeCheck, rest: asChange, opts: []option{
		flags(common),
		o("-R --recursive", recurse),
		o("--reference=", asNames),
		texts("--from="),
	}}, "chown", "chgrp")
	register(&program{handler: hAttrs, unbounded: "changes file attributes or access lists"}, "chattr", "setfacl")
	register(&program{handler: hSetcap, unbounded: "changes file capabilities"}, "setcap")
}

// modeCheck: the first operand is the mode or owner (unless --reference
// gives it, or chmod's mode looks like an option); the others change.
func modeCheck(z *analyzer, c *cmd, r *tableRun) {
	modeAsOpt := false
	for _, po := range r.opts {
		if c.base == "chmod" && !po.long && strings.Contains("rwxXstugoa", po.name) {
			modeAsOpt = true
		}
	}
	ops := r.operands
	if !r.parsed.has("reference") && len(ops) > 0 && !modeAsOpt {
		c.argv[ops[0]].nonPath = true // the mode or owner
		if m := c.argv[ops[0]]; c.base == "chmod" && m.full && setuidMode(m.val) {
			z.dangerous(escalates, "chmod %s sets the setuid or setgid bit: the program then runs with its owner's or group's rights: %s", m.text, c.text)
		}
		ops = ops[1:]
	}
	z.modeTargets(c, ops, r.has(recurse) || r.dynOpt)
}

// hAttrs: chattr and setfacl, judged like chmod.
func hAttrs(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "RcfvhHLPV", long: map[string]byte{"recursive": 'n', "reference": 'r'}})
	ops := p.operands
	if c.base == "setfacl" && len(ops) > 0 {
		c.argv[ops[0]].nonPath = true
		ops = ops[1:]
	}
	z.modeTargets(c, ops, p.has("R", "recursive") || p.dynOpt)
}

// modeTargets: chmod/chown/chgrp -R on /, ~, the workspace or their
// ancestors is Dangerous (chmod -R 777 /, chown -R nobody /), and so is a
// change of / or ~ itself.
func (z *analyzer) modeTargets(c *cmd, ops []int, recursive bool) {
	for _, i := range ops {
		w := c.argv[i]
		if recursive {
			z.destroys(w, c.st, c.base+" -R changes")
		} else if w.full && (w.val == "/" || z.opt.Home != "" && w.val == z.opt.Home) {
			z.dangerous(destroys, "%s changes %s", c.base, w.val)
		}
	}
}

// setuidMode reports whether a chmod mode sets the setuid or setgid bit:
// an octal mode with 4000 or 2000 (4755, 2755, 06755), or a symbolic
// one adding s (u+s, g+s, +s, a=rwxs).
func setuidMode(m string) bool {
	if m != "" && strings.Trim(m, "01234567") == "" {
		n := 0
		for _, d := range m {
			n = n*8 + int(d-'0')
		}
		return n&0o6000 != 0
	}
	for _, clause := range strings.Split(m, ",") {
		i := strings.IndexAny(clause, "+-=")
		if i < 0 {
			continue
		}
		if who := clause[:i]; who != "" && !strings.ContainsAny(who, "uga") {
			continue // o+s means nothing
		}
		// Each operator and the permissions after it: u+x-w=rs.
		for rest := clause[i:]; rest != ""; {
			op := rest[0]
			perms := rest[1:]
			next := strings.IndexAny(perms, "+-=")
			if next >= 0 {
				perms, rest = perms[:next], perms[next:]
			} else {
				rest = ""
			}
			if op != '-' && strings.Contains(perms, "s") {
				return true
			}
		}
	}
	return false
}

// hSetcap gives a program capabilities, some of root's rights, whenever
// it runs (setcap -r only removes them).
func hSetcap(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if w.val == "-r" || w.val == "-v" || w.val == "-h" {
			return
		}
	}
	z.dangerous(escalates, "setcap gives a program capabilities (some of root's rights) whenever it runs: %s", c.text)
}
