package shell

import "strings"

// Searchers: grep, rg, fd, and the grep look-alikes that walk trees on
// their own (ag, ack).

func init() {
	register(&program{check: grepCheck, rest: asRead, numeric: true, opts: []option{
		flags("-E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp -i -y --ignore-case --no-ignore-case " +
			"-w --word-regexp -x --line-regexp -z --null-data -s --no-messages -v --invert-match -V --version -b --byte-offset " +
			"-n --line-number --line-buffered -H --with-filename -h --no-filename -o --only-matching -q --quiet --silent " +
			"-a --text -I -L --files-without-match -l --files-with-matches -c --count -T --initial-tab -Z --null " +
			"--no-group-separator -U --binary -u --unix-byte-offsets"),
		o("-r --recursive", recurse),
		o("-R --dereference-recursive", recurse|follows),
		texts("-e= --regexp= -m= --max-count= --label= --binary-files= -d= --directories= -D= --devices= --include= " +
			"--exclude= --exclude-dir= -B= --before-context= -A= --after-context= -C= --context= --group-separator= " +
			"--color=? --colour=?"),
		o("-f= --file= --exclude-from=", asRead),
	}}, "grep")
	register(&program{check: rgCheck, rest: asRead, trees: true, cwd: true, skipsHidden: true, opts: []option{
		flags("--auto-hybrid-regex --no-auto-hybrid-regex --binary --no-binary --block-buffered --no-block-buffered " +
			"-b --byte-offset -s --case-sensitive --column --no-column -c --count --count-matches --crlf --no-crlf --debug " +
			"--trace --files -l --files-with-matches --files-without-match -F --fixed-strings --no-fixed-strings " +
			"--glob-case-insensitive --no-glob-case-insensitive -h --help --heading --no-heading --no-hidden " +
			"-i --ignore-case --ignore-file-case-insensitive --no-ignore-file-case-insensitive --include-zero " +
			"--no-include-zero -v --invert-match --no-invert-match --json --no-json --line-buffered --no-line-buffered " +
			"-n --line-number -N --no-line-number -x --line-regexp --max-columns-preview --no-max-columns-preview --mmap " +
			"--no-mmap -U --multiline --no-multiline --multiline-dotall --no-multiline-dotall --no-config -I --no-filename " +
			"--no-ignore --ignore --no-ignore-dot --ignore-dot --no-ignore-exclude --ignore-exclude --no-ignore-files " +
			"--ignore-files --no-ignore-global --ignore-global --no-ignore-messages --ignore-messages --no-ignore-parent " +
			"--ignore-parent --no-ignore-vcs --ignore-vcs --no-messages --messages --no-pcre2-unicode --pcre2-unicode " +
			"--no-require-git --require-git --no-unicode --unicode -0 --null --null-data --one-file-system " +
			"--no-one-file-system -o --only-matching --passthru --passthrough -P --pcre2 --no-pcre2 --pcre2-version -p " +
			"--pretty -q --quiet -z --search-zip --no-search-zip -S --smart-case --stats --no-stats -a --text --no-text " +
			"--trim --no-trim --type-list -u --unrestricted -V --version --vimgrep -H --with-filename -w --word-regexp " +
			"--no-follow --stop-on-nonmatch --no-context-separator --no-sort-files --sort-files"),
		o("-. --hidden", hidden),
		o("-L --follow", follows),
		texts("-A= --after-context= -B= --before-context= -C= --context= --color= --colors= --context-separator= " +
			"--dfa-size-limit= -E= --encoding= --engine= --field-context-separator= --field-match-separator= -g= --glob= " +
			"--iglob= -M= --max-columns= -m= --max-count= --max-depth= -d= --maxdepth= --max-filesize= --path-separator= " +
			"--pre-glob= --regex-size-limit= -e= --regexp= -r= --replace= --sort= --sortr= -j= --threads= -t= --type= " +
			"--type-add= --type-clear= -T= --type-not= --generate= --hyperlink-format="),
		o("-f= --file= --ignore-file=", asRead),
		o("--pre= --hostname-bin=", asRun, "runs a program"),
	}}, "rg")
	register(&program{handler: hFd}, "fd")
	register(&program{handler: hGrepLike, unbounded: "searches trees with options the analyser does not list"},
		"ag", "ack", "ack-grep", "sift", "ugrep", "pt")
}

// grepCheck: the pattern is text, not a path, unless -e or -f give it;
// -d recurse is -r.
func grepCheck(z *analyzer, c *cmd, r *tableRun) {
	for _, o := range r.get("d", "directories") {
		if v := optValue(c, o); !v.full || v.val == "recurse" {
			r.acts |= recurse
		}
	}
	if !r.parsed.has("e", "regexp", "f", "file") && len(r.operands) > 0 {
		c.argv[r.operands[0]].nonPath = true
	}
}

// rgCheck: the first operand is the pattern unless -e/-f give one or rg
// only lists (--files, --type-list); -uu includes hidden files.
func rgCheck(z *analyzer, c *cmd, r *tableRun) {
	if len(r.get("u", "unrestricted")) >= 2 {
		r.acts |= hidden
	}
	if !r.parsed.has("e", "regexp", "f", "file", "files", "type-list") && len(r.operands) > 0 {
		c.argv[r.operands[0]].nonPath = true
	}
}

// hGrepLike: the first operand of ag and its kind is the pattern.
func hGrepLike(z *analyzer, c *cmd) {
	for i := 1; i < len(c.argv); i++ {
		if w := c.argv[i]; w.full && !strings.HasPrefix(w.val, "-") {
			c.argv[i].nonPath = true
			return
		}
	}
}

// hFd: -x and -X run a command for every file found; the first operand is
// the pattern, the others are the directories searched (or the working
// directory), walked for names.
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
			z.cannotBound(c, "fd runs commands")
			return
		}
		if o.valIdx >= 0 && o.name != "base-directory" && o.name != "search-path" && o.name != "ignore-file" {
			c.argv[o.valIdx].nonPath = true
		}
	}
	if p.has("L", "follow") {
		z.cannotBound(c, "fd follows symbolic links, which may lead out of the tree")
		return
	}
	if p.dynOpt {
		z.cannotBound(c, "fd with an option only known at run time")
		return
	}
	ops := p.operands
	if len(ops) > 0 {
		c.argv[ops[0]].nonPath = true
		ops = ops[1:]
	}
	for _, o := range p.get("base-directory", "search-path") {
		z.readWord(c, optValue(c, o), Read{Tree: true})
	}
	for _, i := range ops {
		z.readWord(c, c.argv[i], Read{Tree: true})
	}
	if len(ops) == 0 && !p.has("base-directory", "search-path") {
		z.readWord(c, wordInfo{text: ".", lit: ".", val: ".", full: true}, Read{Tree: true})
	}
}
