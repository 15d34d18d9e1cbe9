package shell

// File changers: touch, mkdir, truncate, tee, dd, and the other programs
// that create files (mkfifo, link, sponge, mktemp).

import (
	"slices"
	"strings"
)

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
	register(&program{handler: hDd}, "dd")
	register(&program{rest: asWrite, opts: []option{flags("-Z"), texts("-m= --mode= --context=?")}}, "mkfifo")
	register(&program{args: []act{asWrite}, rest: asText, opts: []option{flags("-Z"), texts("-m= --mode= --context=?")}}, "mknod")
	register(&program{args: []act{asNames, asWrite}, rest: asText}, "link")
	register(&program{rest: asWrite, opts: []option{
		flags("-c --collapse-range -d --dig-holes -i --insert-range -n --keep-size -p --punch-hole -z --zero-range -x --posix -v --verbose"),
		texts("-l= --length= -o= --offset="),
	}}, "fallocate")
	register(&program{rest: asWrite, opts: []option{o("-a", appends)}}, "sponge")
	register(&program{handler: hMktemp}, "mktemp")
	register(&program{handler: hPatch}, "patch")
}

// hMktemp creates a file (or, with -d, a directory) with a random name in
// $TMPDIR, the -p directory, or the directory of its template.
func hMktemp(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "dqtu", withArg: "p", long: map[string]byte{"directory": 'n', "dry-run": 'n',
		"quiet": 'n', "suffix": 'r', "tmpdir": 'o'}})
	if p.has("u", "dry-run") {
		return // only prints a name
	}
	tmpl := "tmp.XXXXXXXXXX"
	if len(p.operands) > 0 {
		w := c.argv[p.operands[0]]
		c.argv[p.operands[0]].nonPath = true
		if !w.full {
			z.cannotBound(c, "mktemp with a template only known at run time")
			return
		}
		tmpl = w.val
	}
	dir := ""
	for _, o := range p.get("p", "tmpdir") {
		dir = optValue(c, o).val
	}
	if dir == "" && (p.has("t") || len(p.operands) == 0) {
		dir = "$TMPDIR"
	}
	if dir != "" && !strings.HasPrefix(tmpl, "/") {
		tmpl = dir + "/" + tmpl
	}
	// The name is only known at run time; the place is judged.
	w := wordInfo{text: tmpl, lit: tmpl, val: strings.TrimPrefix(tmpl, "$TMPDIR"), dyn: true}
	w.unknownLead = strings.HasPrefix(tmpl, "$TMPDIR")
	z.target(w, c.st, false, "mktemp", "writes")
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

// hDd: dd reads if= and writes of= (a disk or protected file is
// Dangerous); its other operands are settings.
func hDd(z *analyzer, c *cmd) {
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		c.argv[i].nonPath = true
		key, val, ok := strings.Cut(w.val, "=")
		switch {
		case !ok && !w.full:
			z.cannotBound(c, "dd with an operand only known at run time")
		case key == "of":
			z.writeFile(c, valuePart(w, val), hasConv(c, "notrunc"), "dd")
		case key == "if":
			v := valuePart(w, val)
			z.checkReadPath(c, v, "dd")
			z.readWord(c, v, Read{Contents: true})
		}
	}
}

// hasConv reports whether a dd command has the conversion flag.
func hasConv(c *cmd, flag string) bool {
	for _, w := range c.argv[1:] {
		if v, ok := strings.CutPrefix(w.val, "conv="); ok && slices.Contains(strings.Split(v, ","), flag) {
			return true
		}
	}
	return false
}

// hPatch: patch writes the files its patch names, which only the patch
// knows (unbounded: its operands are possible writes); -o names one output
// instead; -i, or the second operand, is the patch, read.
func hPatch(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "bcCeEfFlnNRsStuUvZ", withArg: "BdDgiopMrVxYzF", optArg: "", long: map[string]byte{
		"output": 'r', "input": 'r', "directory": 'r', "strip": 'r', "prefix": 'r', "suffix": 'r', "basename-prefix": 'r',
		"reject-file": 'r', "backup": 'n', "dry-run": 'n', "check": 'n', "forward": 'n', "reverse": 'n', "quiet": 'n',
		"silent": 'n', "force": 'n', "batch": 'n', "unified": 'n', "context": 'n', "ed": 'n', "normal": 'n',
		"merge": 'o', "posix": 'n', "ifdef": 'r', "get": 'r', "version-control": 'r', "fuzz": 'r', "binary": 'n',
		"follow-symlinks": 'n', "read-only": 'r', "quoting-style": 'r', "set-time": 'n', "set-utc": 'n', "verbose": 'n'}})
	for _, o := range p.opts {
		if o.valIdx < 0 {
			continue
		}
		v := optValue(c, o)
		c.argv[o.valIdx].nonPath = true
		switch o.name {
		case "o", "output":
			if v.val != "-" {
				z.writeFile(c, v, false, "patch -o")
			}
		case "r", "reject-file":
			z.writeFile(c, v, false, "patch -r")
		case "i", "input":
			z.checkReadPath(c, v, "patch -i")
			z.readWord(c, v, Read{Contents: true})
		case "d", "directory":
			c.argv[o.valIdx].nonPath = false // where it writes: checked as a path
		}
	}
	if p.has("dry-run", "check", "C") {
		z.cannotBound(c, "patch --dry-run reads the files its patch names")
		return
	}
	if !p.has("o", "output") {
		z.patchWrites(c, "patch")
	}
	z.cannotBound(c, "patch writes the files its patch names")
}

// patchWrites records the files a patch names as one write only known at
// run time: no rule can vouch for them (a patch may create .git/hooks/x).
func (z *analyzer) patchWrites(c *cmd, what string) {
	z.sink.a.Writes = append(z.sink.a.Writes, Write{Path: "(the files the patch names)", Dynamic: true})
	z.unnamed("the files " + what + "'s patch names")
}
