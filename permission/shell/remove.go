package shell

// Deleting files: rm, rmdir, unlink, shred, and the trash commands.

func init() {
	register(&program{check: rmCheck, rest: asRemove, opts: []option{
		flags("-f --force -i -I --interactive=? --one-file-system --no-preserve-root --preserve-root=? -d --dir -v --verbose -P"),
		o("-r -R --recursive", recurse),
	}}, "rm")
	register(&program{handler: hTrash, unbounded: "moves files to a trash directory"}, "srm", "trash", "trash-put")
	register(&program{rest: asRemove, opts: []option{flags("--ignore-fail-on-non-empty -p --parents -v --verbose")}}, "rmdir")
	register(&program{rest: asRemove, opts: []option{}}, "unlink")
	register(&program{check: shredCheck, rest: asWrite, opts: []option{
		flags("-f --force -u --remove=? -v --verbose -x --exact -z --zero"),
		texts("-n= --iterations= -s= --size="),
		o("--random-source=", asRead),
	}}, "shred")
}

// rmCheck: a recursive or forced delete of /, ~, the workspace, an
// ancestor of them or their contents is Dangerous; deleting a start-up
// file, key or history file is Dangerous whatever the flags (judged as the
// operands are deleted).
func rmCheck(z *analyzer, c *cmd, r *tableRun) {
	recursive := r.has(recurse) || r.dynOpt
	force := r.parsed.has("f", "force") || r.dynOpt
	if !recursive && !force {
		return
	}
	for _, i := range r.operands {
		z.destroys(c.argv[i], c.st, c.base+" -r deletes")
		if recursive {
			z.destroysRepo(c.argv[i], c.st, c.base+" -r deletes")
		}
	}
}

// hTrash: srm and the trash commands delete (or move away) their operands,
// recursively.
func hTrash(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "rRfiIdvP", long: map[string]byte{"recursive": 'n', "force": 'n',
		"interactive": 'o', "one-file-system": 'n', "no-preserve-root": 'n', "preserve-root": 'o', "dir": 'n', "verbose": 'n'}})
	for _, i := range p.operands {
		w := c.argv[i]
		z.destroys(w, c.st, c.base+" -r deletes")
		z.destroysRepo(w, c.st, c.base+" deletes")
		z.checkChange(w, c.st, c.base, "deletes")
	}
}

// shredCheck: shred overwrites files: a disk or a protected file is
// Dangerous (judged as the operands are written).
func shredCheck(z *analyzer, c *cmd, r *tableRun) {
	for _, i := range r.operands {
		z.destroys(c.argv[i], c.st, "shred overwrites")
	}
}
