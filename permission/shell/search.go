package shell

// Searchers: grep, rg, fd.

func init() {
	register(hGrep, "grep", "rg")
	register(hFd, "fd")
}

// grepEffects: -r walks its operands (or the working directory); -R also
// follows links, which may leave the tree.
func (z *analyzer) grepEffects(c *cmd) {
	if shortCluster(c, 'R') || hasAny(c, "--dereference-recursive") {
		z.unbounded("grep -R follows symbolic links, which may lead out of the tree")
		return
	}
	recursive := shortCluster(c, 'r') || hasAny(c, "--recursive") || hasAny(c, "-d", "--directories=recurse")
	z.operandEffects(c, Read{Tree: recursive, Contents: true}, recursive)
}

// hGrep: the pattern is text, not a path. rg --pre and --hostname-bin run
// programs.
func hGrep(z *analyzer, c *cmd) {
	spec := optSpec{flags: "abcEFGhHiIlLnoqrRsTUvVwxyzZP", withArg: "efmABCdDX", long: map[string]byte{
		"regexp": 'r', "file": 'r', "max-count": 'r', "after-context": 'r', "before-context": 'r', "context": 'r',
		"directories": 'r', "devices": 'r', "include": 'r', "exclude": 'r', "exclude-dir": 'r', "exclude-from": 'r',
		"label": 'r', "color": 'o', "colour": 'o', "binary-files": 'r', "group-separator": 'r'}}
	if c.base == "rg" {
		spec = optSpec{flags: "abcFhHiIlLnNopqsSuUvVwxz0", withArg: "efgmtTABCEjMrdQ", long: map[string]byte{
			"regexp": 'r', "file": 'r', "glob": 'r', "iglob": 'r', "type": 'r', "type-not": 'r', "type-add": 'r',
			"type-clear": 'r', "max-count": 'r', "after-context": 'r', "before-context": 'r', "context": 'r',
			"encoding": 'r', "threads": 'r', "max-columns": 'r', "replace": 'r', "max-depth": 'r', "maxdepth": 'r',
			"pre": 'r', "pre-glob": 'r', "hostname-bin": 'r', "sort": 'r', "sortr": 'r', "colors": 'r', "color": 'r',
			"engine": 'r', "path-separator": 'r', "context-separator": 'r', "field-match-separator": 'r',
			"field-context-separator": 'r', "dfa-size-limit": 'r', "regex-size-limit": 'r', "max-filesize": 'r',
			"ignore-file": 'r', "generate": 'r', "hyperlink-format": 'r', "files": 'n', "type-list": 'n'}}
		for _, w := range c.argv[1:] {
			if longFlag(w.val, "pre", "pre-glob") || longFlag(w.val, "hostname-bin") {
				z.unsafe("rg %s runs a program: %s", w.val, c.text)
			}
		}
	}
	p := getopt(c.argv, 1, spec)
	explicit := false
	for _, o := range p.opts {
		switch o.name {
		case "e", "regexp", "f", "file":
			explicit = true
		}
		if o.valIdx >= 0 && o.name != "f" && o.name != "file" && o.name != "exclude-from" && o.name != "ignore-file" {
			c.argv[o.valIdx].nonPath = true
		}
	}
	if !explicit && !p.has("files", "type-list") && len(p.operands) > 0 {
		c.argv[p.operands[0]].nonPath = true
	}
}

func hFd(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "HIuspLa0lqgFiS1", withArg: "xXetEdScjo", long: map[string]byte{
		"exec": 'r', "exec-batch": 'r', "extension": 'r', "type": 'r', "exclude": 'r', "max-depth": 'r', "min-depth": 'r',
		"exact-depth": 'r', "size": 'r', "changed-within": 'r', "changed-before": 'r', "color": 'r', "threads": 'r',
		"owner": 'r', "base-directory": 'r', "search-path": 'r', "format": 'r', "path-separator": 'r', "ignore-file": 'r',
		"max-results": 'r', "batch-size": 'r', "and": 'r', "hyperlink": 'o'}})
	for _, o := range p.opts {
		if o.name == "x" || o.name == "X" || o.name == "exec" || o.name == "exec-batch" {
			z.unsafe("fd %s runs a command for every file it finds: %s", optName(o), c.text)
			if o.valIdx >= 0 {
				end := o.valIdx + 1
				for end < len(c.argv) && c.argv[end].val != ";" {
					end++
				}
				z.inner(c, o.valIdx, end, nil)
			}
			return
		}
		if o.valIdx >= 0 && o.name != "base-directory" && o.name != "search-path" && o.name != "ignore-file" {
			c.argv[o.valIdx].nonPath = true
		}
	}
	if len(p.operands) > 0 {
		c.argv[p.operands[0]].nonPath = true
	}
}
