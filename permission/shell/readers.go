package shell

// Readers: programs that read files and print, and listers that read names.

import "strings"

func init() {
	register(hSort, "sort")
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

func hSort(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "bcCdfghiMmnrRsuVz", withArg: "koStT", long: map[string]byte{"output": 'r',
		"compress-program": 'r', "key": 'r', "field-separator": 'r', "buffer-size": 'r', "temporary-directory": 'r',
		"files0-from": 'r', "parallel": 'r', "random-source": 'r', "batch-size": 'r', "sort": 'r', "check": 'o'}})
	for _, o := range p.opts {
		switch o.name {
		case "compress-program":
			z.unsafe("sort --compress-program runs a program: %s", c.text)
		case "o", "output":
			if o.valIdx >= 0 {
				z.checkWrite(c.argv[o.valIdx], c.st, "sort -o")
			}
		case "k", "key", "t", "field-separator", "S", "buffer-size":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		}
	}
}
