package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Effects is what a command line touches, as far as the analyser can bound
// it. The agent runs Bash calls whose effects do not conflict side by side,
// and the permission chain lets a command that only reads inside the
// workspace run without asking (Analysis.ReadOnly).
//
// Only programs the analyser knows are bounded: plain readers (cat, grep,
// ls, find, rg, git log, …) read their operands, or their working
// directory when they walk one; plain file changers (rm, mv, cp, touch,
// mkdir, tee, sed -i, redirections) write theirs. Anything else — a build,
// a test run, a script, an interpreter, a wrapper, a path only known at run
// time, a background job — makes the line unbounded: when in doubt, the
// call runs alone.
type Effects struct {
	// Unbounded gives why the line's reach cannot be listed; empty when
	// Reads and Writes are complete.
	Unbounded []string
	// Reads are the paths the line reads, absolute and clean.
	Reads []Read
	// Writes are the paths it creates, changes or removes, absolute and
	// clean (a directory stands for everything below it).
	Writes []string
	// MayRead and MayWrite are the paths named by commands whose effects
	// the analyser cannot bound (their operands and option values,
	// absolute): what such a command might read or write. The chain applies
	// its hard checks and deny rules to them as to Reads and Writes.
	MayRead, MayWrite []string
	// Unnamed are words that may name a file but are only known at run
	// time ($F, a path after a lost cd): no rule about paths can be checked
	// against them.
	Unnamed []string
	// Env names the environment variables the line reads, other than the
	// harmless ones (HOME, PWD, PATH, LANG, …): echo $GITHUB_TOKEN reads a
	// secret as surely as cat .env does.
	Env []string
}

// Read is one path a command reads.
type Read struct {
	Path string
	// Tree: everything below Path may be read (grep -r, rg, find, git).
	Tree bool
	// Contents: file contents are read, not only names and metadata
	// (cat and grep do; ls, find and stat do not).
	Contents bool
	// SkipsHidden: a Tree read leaves out names starting with a dot (rg
	// without --hidden).
	SkipsHidden bool
	// Glob: Path is an absolute pattern (cat src/*.go); what it reads is
	// what matches when the command runs. GlobDir gives the directory the
	// matches are in.
	Glob bool
}

// GlobDir is the directory a read's matches are in: its Path, or for a
// pattern the fixed directory in front of the first wildcard.
func (r Read) GlobDir() string {
	if !r.Glob {
		return r.Path
	}
	return globDir(r.Path)
}

// Bounded reports whether every path the line touches is listed.
func (e Effects) Bounded() bool { return len(e.Unbounded) == 0 }

// ReadOnly reports whether the command line only reads: every simple
// command is a known reader with no option that runs, writes or fetches
// anything, nothing is written (no redirection into a file), and nothing
// made the analysis unsure. Where it reads is in Effects.Reads; whether
// that is inside the workspace and free of secrets is the chain's call.
func (a *Analysis) ReadOnly() bool {
	return a.ParseError == "" && len(a.Unsafe) == 0 && len(a.Dangerous) == 0 && len(a.ProjectCode) == 0 &&
		a.Effects.Bounded() && len(a.Effects.Writes) == 0 && len(a.Writes) == 0 && len(a.Effects.Env) == 0
}

// harmlessEnv are variables whose values say nothing secret.
var harmlessEnv = set("HOME", "PWD", "OLDPWD", "USER", "LOGNAME", "SHELL", "PATH", "LANG", "LANGUAGE", "TERM",
	"TMPDIR", "HOSTNAME", "HOSTTYPE", "OSTYPE", "MACHTYPE", "UID", "EUID", "PPID", "RANDOM", "SECONDS", "LINENO",
	"BASH", "BASH_VERSION", "BASHPID", "SHLVL", "COLUMNS", "LINES", "IFS", "EPOCHSECONDS", "EPOCHREALTIME",
	"PIPESTATUS", "FUNCNAME", "GOPATH", "GOROOT", "GOOS", "GOARCH", "NODE_ENV", "CI", "EDITOR", "PAGER", "TZ")

// envRead notes a variable the line reads: one the script did not set
// itself comes from the environment.
func (z *analyzer) envRead(name string, st state) {
	if _, set := st.vars[name]; set || harmlessEnv[name] || strings.HasPrefix(name, "LC_") || name == "" {
		return
	}
	if c := name[0]; c >= '0' && c <= '9' || strings.ContainsRune("@*#?-$!_", rune(c)) && len(name) == 1 {
		return // positional and special parameters
	}
	if !slices.Contains(z.sink.a.Effects.Env, name) {
		z.sink.a.Effects.Env = append(z.sink.a.Effects.Env, name)
	}
}

func (z *analyzer) unbounded(format string, args ...any) {
	z.sink.add(&z.sink.a.Effects.Unbounded, "x", fmt.Sprintf(format, args...))
}

func (z *analyzer) addRead(r Read) {
	for i, x := range z.sink.a.Effects.Reads {
		if x.Path == r.Path {
			z.sink.a.Effects.Reads[i].Tree = x.Tree || r.Tree
			z.sink.a.Effects.Reads[i].Contents = x.Contents || r.Contents
			z.sink.a.Effects.Reads[i].SkipsHidden = x.SkipsHidden && r.SkipsHidden
			return
		}
	}
	z.sink.a.Effects.Reads = append(z.sink.a.Effects.Reads, r)
}

// unnamedWords records every word of a command only known at run time:
// when the analyser gives up on a command, any of them may name a file.
func (z *analyzer) unnamedWords(c *cmd) {
	for _, w := range c.argv[1:] {
		if w.dyn && !w.full && !w.nonPath {
			z.unnamed(w.text)
		}
	}
}

func (z *analyzer) unnamed(text string) {
	if !slices.Contains(z.sink.a.Effects.Unnamed, text) {
		z.sink.a.Effects.Unnamed = append(z.sink.a.Effects.Unnamed, text)
	}
}

func (z *analyzer) addWrite(p string) {
	if !slices.Contains(z.sink.a.Effects.Writes, p) {
		z.sink.a.Effects.Writes = append(z.sink.a.Effects.Writes, p)
	}
}

// pureCmds touch no file at all (their words are text, or they change only
// the shell's own state, which the analyser follows).
var pureCmds = set("echo", "printf", "true", "false", ":", "pwd", "basename", "dirname", "seq", "sleep", "expr",
	"test", "[", "whoami", "id", "uname", "nproc", "tty", "arch", "logname", "groups", "getconf", "locale", "cal",
	"factor", "numfmt", "which", "type", "cd", "pushd", "popd", "dirs", "shift", "exit", "return",
	"break", "continue", "unset", "let", "getopts", "read", "mapfile", "readarray", "tr", "yes", "pgrep",
	"uptime", "free", "umask")

// contentReaders read the contents of their file operands (or standard
// input): their other words are options and the odd option value, which,
// taken for paths, only widen the reads.
var contentReaders = set("cat", "tac", "head", "tail", "wc", "nl", "cut", "column", "rev", "fold", "fmt", "paste",
	"join", "comm", "cmp", "diff", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum",
	"b2sum", "cksum", "sum", "od", "hexdump", "strings", "base64", "base32", "file", "grep", "egrep", "fgrep",
	"awk", "gawk", "mawk", "nawk", "jq", "sort", "uniq", "xxd", "sed")

// checksums verify the files a list names with -c.
var checksums = set("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum")

// metaReaders read names and metadata only.
var metaReaders = set("stat", "realpath", "readlink", "ls", "du", "tree", "find", "fd", "fdfind")

// treeWalkers read every file below their operands, or below the working
// directory when they have none.
var treeWalkers = set("rg", "ls", "du", "tree", "find", "fd", "fdfind")

// listerSpecs are the options of the listers that take a value.
var listerSpecs = map[string]optSpec{
	"ls": {withArg: "ITw", long: map[string]byte{"block-size": 'r', "color": 'o', "format": 'r', "hide": 'r',
		"ignore": 'r', "indicator-style": 'r', "quoting-style": 'r', "sort": 'r', "tabsize": 'r', "time": 'r',
		"time-style": 'r', "width": 'r', "hyperlink": 'o'}},
	"du": {withArg: "BdtX", long: map[string]byte{"block-size": 'r', "max-depth": 'r', "threshold": 'r',
		"exclude": 'r', "exclude-from": 'r', "time": 'o', "time-style": 'r'}},
	"tree": {withArg: "LPIoHT", long: map[string]byte{"charset": 'r', "filelimit": 'r', "timefmt": 'r', "sort": 'r',
		"hintro": 'r', "houtro": 'r', "fromfile": 'n'}},
	"stat": {withArg: "cf", long: map[string]byte{"format": 'r', "printf": 'r', "cached": 'r'}},
}

// fileChangers write their operands.
var fileChangers = set("rm", "rmdir", "unlink", "mkdir", "touch", "truncate", "chmod", "chown", "chgrp", "tee")

// gitReads are git subcommands that only read the repository (their
// forms that change something are Unsafe in the analysis already:
// branch -D, tag -d, config --set, remote add).
// config, remote -v and var are left out: what they print (remote URLs,
// credential helpers) may hold tokens, as .git/config may.
var gitReads = set("status", "log", "diff", "show", "blame", "annotate", "shortlog", "describe", "rev-parse",
	"rev-list", "ls-files", "ls-tree", "cat-file", "grep", "branch", "tag", "show-ref", "for-each-ref",
	"merge-base", "name-rev", "count-objects", "version", "check-ignore", "check-attr", "whatchanged",
	"diff-files", "diff-index", "diff-tree", "cherry", "show-branch", "range-diff", "reflog", "stash", "worktree")

// effects records what one simple command touches.
func (z *analyzer) effects(c *cmd) {
	name := c.argv[0]
	prog := name.val
	switch {
	case name.dyn:
		z.unbounded("the command name is only known at run time: %s", name.text)
		return
	case strings.Contains(prog, "/"):
		// A program by path may be anything, even one named cat.
		z.unbounded("%s is run by path", prog)
		return
	case z.funcs[prog]:
		z.unbounded("%s is a function of the script", prog)
		return
	}
	switch {
	case prog == "command" || prog == "hostname":
		// command -v only looks a name up, hostname alone prints; with
		// other arguments they run something or change the system.
		if len(c.argv) > 1 && !(prog == "command" && (c.argv[1].val == "-v" || c.argv[1].val == "-V")) {
			z.unbounded("%s with arguments", prog)
		}
	case prog == "date":
		z.dateEffects(c)
	case prog == "set":
		if len(c.argv) == 1 || slices.ContainsFunc(c.argv[1:], func(w wordInfo) bool { return w.val == "-p" || w.val == "-x" && prog == "declare" && len(c.argv) == 2 }) {
			z.unbounded("%s prints the environment", prog)
		}
	case prog == "file" && (shortCluster(c, 'C') || hasAny(c, "--compile")):
		z.unbounded("file -C writes a compiled magic file")
	case checksums[prog] && (shortCluster(c, 'c') || hasAny(c, "--check")):
		z.unbounded("%s -c reads the files its list names", prog)
	case slices.ContainsFunc(c.argv[1:], func(w wordInfo) bool { return longFlag(w.val, "files0-from") || w.val == "-files0-from" }):
		z.unbounded("%s reads the files a list names", prog)
	case pureCmds[prog]:
		z.pureEffects(c)
	case prog == "git":
		z.gitEffects(c)
	case prog == "sed":
		z.sedEffects(c)
	case prog == "sort":
		if slices.ContainsFunc(c.argv[1:], func(w wordInfo) bool {
			return w.val == "-o" || strings.HasPrefix(w.val, "-o") && len(w.val) > 2 && !strings.HasPrefix(w.val, "--") || longFlag(w.val, "output")
		}) {
			z.unbounded("sort -o writes a file")
			return
		}
		z.operandEffects(c, Read{Contents: true}, false)
	case prog == "uniq" || prog == "xxd":
		// A second operand is the output file.
		if len(operandWords(c)) > 1 {
			z.unbounded("%s writes its second operand", prog)
			return
		}
		z.operandEffects(c, Read{Contents: true}, false)
	case prog == "grep" || prog == "egrep" || prog == "fgrep":
		z.grepEffects(c)
	case prog == "rg":
		if hasAny(c, "-L", "--follow") || shortCluster(c, 'L') {
			z.unbounded("rg -L follows symbolic links out of the tree")
			return
		}
		// rg skips hidden files unless told otherwise (--hidden, -., -uu).
		hidden := hasAny(c, "--hidden", "-.", "-uu", "-uuu") || shortCluster(c, '.')
		z.operandEffects(c, Read{Tree: true, Contents: true, SkipsHidden: !hidden}, true)
	case prog == "jq":
		z.jqEffects(c)
	case prog == "awk" || prog == "gawk" || prog == "mawk" || prog == "nawk":
		if slices.ContainsFunc(c.argv[1:], func(w wordInfo) bool { return strings.Contains(w.val, "ENVIRON") }) {
			z.sink.a.Effects.Env = append(z.sink.a.Effects.Env, "ENVIRON")
		}
		z.operandEffects(c, Read{Contents: true}, false)
	case contentReaders[prog]:
		z.operandEffects(c, Read{Contents: true}, false)
	case metaReaders[prog]:
		z.metaEffects(c)
	case fileChangers[prog], prog == "cp", prog == "mv", prog == "ln", prog == "install":
		z.changerEffects(c)
	default:
		z.unbounded("%s is not a program whose files the analyser can list", prog)
		z.namedPaths(c)
	}
}

// namedPaths records what a command the analyser cannot bound names: each
// operand and option value that may be a path might be read or written.
func (z *analyzer) namedPaths(c *cmd) {
	fx := &z.sink.a.Effects
	add := func(w wordInfo) {
		vals, ok := z.wordPaths(c, w)
		if !ok {
			return
		}
		for _, v := range vals {
			if v == "-" || harmlessReads[v] || strings.Contains(v, "://") {
				continue
			}
			for _, a := range z.absPaths(v, c.st) {
				if !slices.Contains(fx.MayRead, a) {
					fx.MayRead = append(fx.MayRead, a)
					fx.MayWrite = append(fx.MayWrite, a)
				}
			}
		}
	}
	for _, i := range operandWords(c) {
		add(c.argv[i])
	}
	for _, w := range c.argv[1:] {
		if w.nonPath || !w.full {
			continue
		}
		// --file=x, -o/path, of=x (dd), @file (curl -d @f).
		for _, v := range attachedPaths(w.val) {
			add(wordInfo{text: v, lit: v, val: v, full: true})
		}
	}
}

// pureEffects: pure commands read no file, but a glob among their words
// lists a directory (echo ~/.ssh/*), and test names paths whose existence
// it reveals (test -f ~/.ssh/id_rsa).
func (z *analyzer) pureEffects(c *cmd) {
	for _, w := range c.argv[1:] {
		switch {
		case w.glob:
			z.readWord(c, w, Read{})
		case (c.argv[0].val == "test" || c.argv[0].val == "[") && w.full &&
			(strings.HasPrefix(w.val, "/") || strings.HasPrefix(w.val, "~") || hasDotDot(w.val)):
			z.readWord(c, w, Read{})
		}
	}
}

// metaEffects: listers read names below their operands.
func (z *analyzer) metaEffects(c *cmd) {
	prog := c.argv[0].val
	follows := false
	switch prog {
	case "find":
		follows = hasAny(c, "-L", "-H", "-follow")
	case "ls":
		// ls -L only looks through the links it lists; with -R it
		// walks into them.
		follows = (shortCluster(c, 'L') || hasAny(c, "--dereference")) && (shortCluster(c, 'R') || hasAny(c, "--recursive"))
	case "du":
		follows = shortCluster(c, 'L') || hasAny(c, "--dereference")
	case "tree":
		follows = shortCluster(c, 'l') // tree -L is a depth
	case "fd", "fdfind":
		follows = shortCluster(c, 'L') || hasAny(c, "--follow")
	}
	if follows {
		z.unbounded("%s follows symbolic links, which may lead out of the tree", prog)
		return
	}
	if prog == "tree" && (shortCluster(c, 'o') || hasAny(c, "-o")) {
		z.unbounded("tree -o writes a file")
		return
	}
	if prog == "find" {
		z.findEffects(c)
		return
	}
	if spec, ok := listerSpecs[prog]; ok {
		// Their option values are not paths: without this, tree -L 2
		// would read "2" instead of the working directory.
		p := getopt(c.argv, 1, spec)
		if p.dynOpt {
			z.unbounded("%s with an option only known at run time", prog)
			z.unnamedWords(c)
			return
		}
		for _, o := range p.opts {
			if o.valIdx > o.idx {
				c.argv[o.valIdx].nonPath = true
			}
		}
	}
	walks := treeWalkers[prog] && !(prog == "ls" && !shortCluster(c, 'R') && !hasAny(c, "--recursive"))
	z.operandEffects(c, Read{Tree: walks}, treeWalkers[prog])
}

// findEffects: find walks its start points (those before the first
// expression word; . when none); a few tests read another file's metadata.
func (z *analyzer) findEffects(c *cmd) {
	i := 1
	for i < len(c.argv) && (c.argv[i].val == "-H" || c.argv[i].val == "-L" || c.argv[i].val == "-P" ||
		c.argv[i].val == "-D" || c.argv[i].val == "-O" || strings.HasPrefix(c.argv[i].val, "-O")) {
		if c.argv[i].val == "-D" || c.argv[i].val == "-O" {
			i++
		}
		i++
	}
	starts := 0
	for ; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.full && (strings.HasPrefix(w.val, "-") || w.val == "(" || w.val == "!" || w.val == ")" || w.val == ",") {
			break
		}
		starts++
		z.readWord(c, w, Read{Tree: true})
	}
	if starts == 0 {
		z.readWord(c, wordInfo{text: ".", lit: ".", val: ".", full: true}, Read{Tree: true})
	}
	for ; i+1 < len(c.argv); i++ {
		switch c.argv[i].val {
		case "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from":
			i++
			z.readWord(c, c.argv[i], Read{})
		}
	}
}

// dateEffects: date -s sets the clock; -f and -r read a file.
func (z *analyzer) dateEffects(c *cmd) {
	for i := 1; i < len(c.argv); i++ {
		a := c.argv[i].val
		switch {
		case a == "-s" || strings.HasPrefix(a, "-s") && !strings.HasPrefix(a, "--") || longFlag(a, "set"):
			z.unbounded("date -s sets the system clock")
		case a == "-f" || a == "-r" || longFlag(a, "file") || longFlag(a, "reference"):
			if !strings.Contains(a, "=") && i+1 < len(c.argv) {
				i++
				z.readWord(c, c.argv[i], Read{Contents: true})
			} else if _, v, ok := strings.Cut(a, "="); ok {
				z.readWord(c, wordInfo{text: v, lit: v, val: v, full: true}, Read{Contents: true})
			}
		}
	}
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

// sedEffects: sed -n only prints what its script selects; sed -i edits its
// files (recorded as writes by the analysis); plain sed counts as
// unbounded, as its output is usually meant to replace a file.
func (z *analyzer) sedEffects(c *cmd) {
	p := getopt(c.argv, 1, sedSpec)
	switch {
	case p.has("i", "in-place"):
		z.operandEffects(c, Read{Contents: true}, false)
	case p.has("n", "quiet", "silent"):
		z.operandEffects(c, Read{Contents: true}, false)
	default:
		z.unbounded("sed without -n")
	}
}

// jqEffects: jq's first operand is its filter (unless -f gives one).
func (z *analyzer) jqEffects(c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "nrjacsSCMeh", withArg: "fL", long: map[string]byte{
		"from-file": 'r', "arg": 'r', "argjson": 'r', "slurpfile": 'r', "rawfile": 'r', "indent": 'r', "args": 'n',
		"jsonargs": 'n', "raw-output": 'n', "join-output": 'n', "null-input": 'n', "slurp": 'n', "compact-output": 'n',
		"tab": 'n', "sort-keys": 'n', "exit-status": 'n', "seq": 'n', "stream": 'n', "raw-input": 'n', "ascii-output": 'n'}})
	if p.dynOpt || p.has("L") {
		z.unbounded("jq with an option only known at run time, or a module path")
		z.unnamedWords(c)
		return
	}
	ops := p.operands
	if !p.has("f", "from-file") && len(ops) > 0 {
		// The filter may read the environment ($ENV, env) or load
		// modules from jq's search path (import, include).
		f := c.argv[ops[0]].val
		if strings.Contains(f, "env") || strings.Contains(f, "ENV") {
			z.sink.a.Effects.Env = append(z.sink.a.Effects.Env, "jq $ENV")
		}
		if strings.Contains(f, "import") || strings.Contains(f, "include") {
			z.unbounded("a jq filter that loads modules")
		}
	}
	if !p.has("f", "from-file") && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range p.opts {
		switch o.name {
		case "f", "from-file":
			if o.valIdx >= 0 {
				z.readWord(c, optValue(c, o), Read{Contents: true})
			}
		case "slurpfile", "rawfile":
			// --rawfile NAME FILE: FILE is the next word.
			if o.valIdx >= 0 && o.valIdx+1 < len(c.argv) {
				z.readWord(c, c.argv[o.valIdx+1], Read{Contents: true})
				ops = slices.DeleteFunc(ops, func(i int) bool { return i == o.valIdx+1 })
			}
		}
	}
	if p.has("args", "jsonargs") {
		ops = nil // the remaining words are values, not files
	}
	for _, i := range ops {
		z.readWord(c, c.argv[i], Read{Contents: true})
	}
}

// gitEffects: the read-only subcommands read the repository: every file in
// it (status, diff, log -p), taken as the workspace and the directory git
// runs in, plus the paths named on the line.
func (z *analyzer) gitEffects(c *cmd) {
	cwd := c.st
	i := 1
	for ; i < len(c.argv); i++ {
		a := c.argv[i].val
		if !c.argv[i].full {
			z.unbounded("git with words only known at run time")
			return
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch a {
		case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
			"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects":
		case "-C":
			if i+1 >= len(c.argv) {
				return
			}
			i++
			w := c.argv[i]
			if !w.full {
				z.unbounded("git -C with a directory only known at run time")
				return
			}
			if dirs := z.absPaths(w.val, cwd); len(dirs) == 1 {
				cwd = cwd.atCwd(dirs[0])
			} else {
				z.unbounded("git -C from a directory the analyser could not follow")
				return
			}
		default:
			z.unbounded("git option %s", a)
			return
		}
	}
	if i >= len(c.argv) {
		return // git alone prints its usage
	}
	sub := c.argv[i].val
	args := c.argv[i+1:]
	first := ""
	if len(args) > 0 {
		first = args[0].val
	}
	ok := gitReads[sub]
	switch sub {
	case "stash":
		ok = first == "list" || first == "show"
	case "reflog":
		ok = first == "" || first == "show" || strings.HasPrefix(first, "-")
	case "worktree":
		ok = first == "list"
	}
	if !ok {
		z.unbounded("git %s may change the repository or reach a remote", sub)
		return
	}
	contents := false
	if sub == "grep" && slices.ContainsFunc(args, func(w wordInfo) bool {
		return longFlag(w.val, "untracked") || longFlag(w.val, "no-index")
	}) {
		contents = true // it searches files git does not track (.env)
	}
	if sub == "diff" && slices.ContainsFunc(args, func(w wordInfo) bool { return w.val == "--no-index" }) {
		contents = true
	}
	for _, d := range append([]string{z.opt.Workspace}, cwd.cwds()...) {
		if d != "" {
			z.addRead(Read{Path: d, Tree: true, Contents: contents})
		}
	}
	if len(cwd.cwds()) == 0 {
		z.unbounded("git runs in a directory the analyser could not follow")
	}
	// Paths named on the line (git diff -- f, git show HEAD:f): checked
	// like any read, so that a secret named there is asked about.
	for _, w := range args {
		if w.nonPath || !w.full {
			continue
		}
		v := w.val
		if strings.HasPrefix(v, "-") {
			// --contents=FILE (blame) and the like.
			for _, p := range attachedPaths(v) {
				for _, a := range z.absPaths(p, cwd) {
					z.addRead(Read{Path: a, Contents: true})
				}
			}
			continue
		}
		if _, after, found := strings.Cut(v, ":"); found {
			v = after
		}
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(v, cwd) {
			z.addRead(Read{Path: a, Contents: true})
		}
	}
}

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
			z.unnamedWords(c)
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

// operandEffects records reads of a command's operands: every word that is
// not an option and not marked as text by the command's handler, plus the
// paths attached to options (--file=x). walksCwd: with no operand the
// program reads its working directory (rg, find, ls).
func (z *analyzer) operandEffects(c *cmd, r Read, walksCwd bool) {
	any := false
	for _, i := range operandWords(c) {
		any = true
		z.readWord(c, c.argv[i], r)
	}
	for _, w := range c.argv[1:] {
		if w.nonPath || !w.full || !strings.HasPrefix(w.val, "-") || w.val == "-" {
			continue
		}
		for _, v := range attachedPaths(w.val) {
			z.readWord(c, wordInfo{text: v, lit: v, val: v, full: true}, r)
		}
	}
	if walksCwd && !any {
		z.readWord(c, wordInfo{text: ".", lit: ".", val: ".", full: true}, r)
	}
}

// attachedPaths are the paths an option word carries: --file=x, -o/path.
func attachedPaths(opt string) []string {
	if c := pathCandidates(opt); len(c) > 1 {
		return c[1:]
	}
	return nil
}

// operandWords returns the indexes of a command's words that may be paths:
// not options (until --), not marked as text by the handler.
func operandWords(c *cmd) []int {
	var out []int
	dashdash := false
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.nonPath {
			continue
		}
		if !dashdash && w.full && !w.glob {
			if w.val == "--" {
				dashdash = true
				continue
			}
			if strings.HasPrefix(w.val, "-") && w.val != "-" {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// readWord records a read of one word's path.
func (z *analyzer) readWord(c *cmd, w wordInfo, r Read) {
	if w.nonPath {
		return
	}
	vals, ok := z.wordPaths(c, w)
	if !ok {
		return
	}
	for _, v := range vals {
		if v == "-" || harmlessReads[v] {
			continue
		}
		rr := r
		rr.Glob = w.glob
		for _, a := range z.absPaths(v, c.st) {
			rr.Path = a
			z.addRead(rr)
		}
	}
}

// writeWord records a write of one word's path.
func (z *analyzer) writeWord(c *cmd, w wordInfo) {
	vals, ok := z.wordPaths(c, w)
	if !ok {
		return
	}
	for _, v := range vals {
		if harmlessTargets[v] {
			continue
		}
		if w.glob {
			z.unbounded("%s writes files matched by a pattern: %s", c.argv[0].val, w.text)
			return
		}
		for _, a := range z.absPaths(v, c.st) {
			z.addWrite(a)
		}
	}
}

// wordPaths returns the values a path word may have; ok is false (and the
// line unbounded) when they are only known at run time or relative to a
// directory the analyser lost.
func (z *analyzer) wordPaths(c *cmd, w wordInfo) ([]string, bool) {
	var vals []string
	switch {
	case !w.dyn:
		vals = []string{w.lit}
		if w.glob {
			vals = []string{w.val}
		}
	case w.full:
		vals = []string{w.val}
	case len(w.alts) > 0:
		vals = w.alts
	default:
		z.unbounded("%s names a path only known at run time: %s", c.argv[0].val, w.text)
		z.unnamed(w.text)
		return nil, false
	}
	for _, v := range vals {
		if !strings.HasPrefix(v, "/") && len(c.st.cwds()) == 0 {
			z.unbounded("%s names %s relative to a directory the analyser could not follow", c.argv[0].val, v)
			z.unnamed(v)
			return nil, false
		}
	}
	return vals, true
}

// globDir is the fixed directory in front of a glob pattern's first
// wildcard: /ws/src/*.go → /ws/src, /ws/a/b*/c → /ws/a.
func globDir(p string) string {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return p
	}
	return path.Dir(p[:i] + "x")
}

// hasAny reports whether a command has one of the words (an option spelled
// exactly, or --opt=value forms given whole).
func hasAny(c *cmd, words ...string) bool {
	for _, w := range c.argv[1:] {
		if slices.Contains(words, w.val) {
			return true
		}
	}
	return false
}

// shortCluster reports whether a word of the command is a cluster of short
// options holding letter (-rn has r).
func shortCluster(c *cmd, letter byte) bool {
	for _, w := range c.argv[1:] {
		if w.val == "--" {
			return false
		}
		if len(w.val) > 1 && w.val[0] == '-' && w.val[1] != '-' && strings.IndexByte(w.val[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// optValue returns the word holding an option's value.
func optValue(c *cmd, o opt) wordInfo {
	w := c.argv[o.valIdx]
	if o.valIdx == o.idx {
		w.val, w.lit, w.text = o.val, o.val, o.val
	}
	return w
}
