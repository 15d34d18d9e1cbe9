package shell

// cp, mv, install and ln: they write their target (the -t directory or the
// last operand, and the source's name in it); cp and install read their
// sources, mv deletes them, ln points at them.

import (
	"path"
	"strings"
)

func init() {
	target := o("-t= --target-directory=", asWrite)
	backup := texts("--backup=? -S= --suffix=")
	register(&program{check: copyCheck, rest: asRead, opts: []option{target, backup,
		flags("--attributes-only -b --copy-contents -d -f --force -i --interactive -H -l --link -L --dereference " +
			"-n --no-clobber -P --no-dereference -p --parents --remove-destination --strip-trailing-slashes -s " +
			"--symbolic-link -T --no-target-directory -u -v --verbose -x --one-file-system -Z --debug --keep-directory-symlink"),
		o("-a --archive -r -R --recursive", recurse),
		texts("--preserve=? --no-preserve= --reflink=? --sparse= --context=? --update=?"),
	}}, "cp")
	register(&program{check: copyCheck, rest: asRemove, opts: []option{target, backup,
		flags("-b -f --force -i --interactive -n --no-clobber --strip-trailing-slashes -T --no-target-directory -u -v " +
			"--verbose -Z --debug --no-copy --exchange"),
		texts("--context=? --update=?"),
	}}, "mv")
	register(&program{check: copyCheck, rest: asNames, opts: []option{target, backup,
		flags("-b -d -F --directory -f --force -i --interactive -L --logical -n --no-dereference -P --physical -r " +
			"--relative -s --symbolic -T --no-target-directory -v --verbose"),
	}}, "ln")
	register(&program{check: copyCheck, rest: asRead, opts: []option{target, backup,
		flags("-b -c -C --compare -d --directory -D -p --preserve-timestamps -s --strip -T --no-target-directory -v " +
			"--verbose --preserve-context -Z --debug"),
		texts("-g= --group= -m= --mode= -o= --owner= --context=?"),
		o("--strip-program=", asRun, "runs a program to strip what it installs"),
	}}, "install")
}

// copyCheck judges the target of cp, mv, ln and install: written, and,
// as it may be a directory, the source's name inside it is judged too (cp
// x ~ writes ~/x). mv moves its sources away: moving /, the home directory
// or the workspace destroys them. The sources are judged by the operand
// act (read, deleted or pointed at).
func copyCheck(z *analyzer, c *cmd, r *tableRun) {
	for _, o := range r.get("m", "mode") {
		if v := optValue(c, o); c.base == "install" && v.full && setuidMode(v.val) {
			z.dangerous(escalates, "install -m %s sets the setuid or setgid bit: %s", v.val, c.text)
		}
	}
	if c.base == "install" && r.parsed.has("d", "directory") {
		for _, i := range r.operands {
			c.argv[i].nonPath = true
			z.writeFile(c, c.argv[i], false, "install -d")
		}
		return
	}
	targets, joined, sources := z.copyTargets(c, r.parsed)
	if r.parsed.has("t", "target-directory") {
		targets = nil // judged by the table
	}
	for _, t := range targets {
		z.writeFile(c, t, false, c.base)
	}
	for _, j := range joined {
		z.dangerWrite(j, c.st, c.base)
	}
	if c.base == "mv" {
		for _, i := range sources {
			z.destroys(c.argv[i], c.st, "mv moves away")
			z.destroysRepo(c.argv[i], c.st, "mv moves away")
		}
	}
	r.operands = sources
}

// copyTargets returns the words cp, mv, install and ln write to: the -t
// directory or the last operand (marked as judged), and, as the target may
// be a directory, the target joined with each source's name (cp x ~ writes
// ~/x).
func (z *analyzer) copyTargets(c *cmd, p parsed) (targets, joined []wordInfo, sources []int) {
	if ts := p.get("t", "target-directory"); len(ts) > 0 {
		for _, t := range ts {
			if t.valIdx >= 0 {
				targets = append(targets, optValue(c, t))
			}
		}
		sources = p.operands
	} else if len(p.operands) >= 2 {
		last := p.operands[len(p.operands)-1]
		c.argv[last].nonPath = true
		targets = append(targets, c.argv[last])
		sources = p.operands[:len(p.operands)-1]
	} else if c.base == "ln" && len(p.operands) == 1 {
		// ln -s target: the link is made in the working directory under
		// the target's name.
		t := c.argv[p.operands[0]]
		t.val = path.Base(t.val)
		t.lit = t.val
		return []wordInfo{t}, nil, p.operands
	} else {
		sources = p.operands
	}
	if p.has("T", "no-target-directory") {
		return targets, nil, sources
	}
	for _, t := range targets {
		for _, s := range sources {
			src := c.argv[s]
			if !src.full || !t.full {
				continue
			}
			j := t
			j.val = strings.TrimRight(t.val, "/") + "/" + path.Base(strings.TrimRight(src.val, "/"))
			joined = append(joined, j)
		}
	}
	return targets, joined, sources
}
