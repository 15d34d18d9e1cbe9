package shell

// cp, mv, install and ln: the files they write.

import (
	"path"
	"strings"
)

func init() {
	register(hCopy, "cp", "mv", "install", "ln")
}

// copyTargets returns the words cp, mv, install and ln write to: the -t
// directory or the last operand, and, as the target may be a directory,
// the target joined with each source's name (cp x ~ writes ~/x).
func (z *analyzer) copyTargets(c *cmd, p parsed) (targets, joined []wordInfo, sources []int) {
	if ts := p.get("t", "target-directory"); len(ts) > 0 {
		for _, t := range ts {
			if t.valIdx >= 0 {
				w := c.argv[t.valIdx]
				if t.valIdx == t.idx {
					w.val = t.val
				}
				targets = append(targets, w)
			}
		}
		sources = p.operands
	} else if len(p.operands) >= 2 {
		last := p.operands[len(p.operands)-1]
		targets = append(targets, c.argv[last])
		sources = p.operands[:len(p.operands)-1]
	} else if c.base == "ln" && len(p.operands) == 1 {
		// ln -s target: the link is made in the working directory under
		// the target's name.
		t := c.argv[p.operands[0]]
		t.val = path.Base(t.val)
		return []wordInfo{t}, nil, nil
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

// hCopy: cp, mv, install and ln write their target; mv also removes its
// sources.
func hCopy(z *analyzer, c *cmd) {
	spec := optSpec{flags: "abdfHilLnPprRsTuvxZ", withArg: "tS", long: map[string]byte{"target-directory": 'r',
		"suffix": 'r', "backup": 'o', "reflink": 'o', "sparse": 'r', "preserve": 'o', "no-preserve": 'r', "context": 'o',
		"no-target-directory": 'n', "strip-program": 'r', "mode": 'r', "owner": 'r', "group": 'r', "update": 'o'}}
	if c.base == "install" {
		spec.withArg = "tSgmo"
		spec.flags = "bCcdDpsTvZ"
	}
	p := getopt(c.argv, 1, spec)
	if p.has("strip-program") {
		z.unsafe("install --strip-program runs a program: %s", c.text)
	}
	if c.base == "install" && p.has("d", "directory") {
		for _, i := range p.operands {
			z.checkWrite(c.argv[i], c.st, "install -d")
		}
		return
	}
	targets, joined, sources := z.copyTargets(c, p)
	for _, t := range targets {
		z.checkWrite(t, c.st, c.base)
	}
	for _, j := range joined {
		z.dangerWrite(j, c.st, c.base)
	}
	if c.base == "mv" {
		for _, i := range sources {
			z.destroys(c.argv[i], c.st, "mv moves away")
			z.deletesProtected(c.argv[i], c.st, "mv")
		}
	}
}
