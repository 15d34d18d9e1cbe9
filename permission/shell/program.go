package shell

// The program registry: which handler judges which program.

import (
	"strings"
	"sync"
)

// program is what the analyser knows about one program: how to read its
// words and what each of them is to it. A program that only takes options
// and operands is described by its option table alone (opts, args, rest);
// one with a language of its own (git, find, sed, a shell) by a handler.
// Either way the one description drives the Unsafe reasons, the writes,
// the Dangerous reasons and the effects of every command that runs it.
type program struct {
	// handler judges the command entirely: the table below is unused.
	handler func(z *analyzer, c *cmd)

	// opts is the option table. Options it does not list make the
	// command's effects unbounded: they may be ones that write or run.
	opts []option
	// posix: options end at the first operand. numeric: -NUM is an
	// option (head -20). wordOptions: options are whole words with one
	// dash or two, as Go's flag package reads them (gofmt -l, -cpuprofile).
	posix, numeric, wordOptions bool
	// args are the acts of the first operands, in order; rest is the act
	// of the others (asRead for cat, asWrite for rm).
	args []act
	rest act
	// trees: path operands are walked as trees whatever the options (rg,
	// du). cwd: with no path operand the program reads its working
	// directory (ls; grep only with recurse). skipsHidden: its walks
	// leave out hidden files unless an option has hidden.
	trees, cwd, skipsHidden bool
	// prepare rewrites a command's words before the table reads them
	// (tar's old-style keys: tar xzf a.tgz is tar -xzf a.tgz).
	prepare func(c *cmd)
	// check judges what the table cannot say (which operand is a pattern,
	// what a delete destroys). It runs after the options were read and
	// before the operands are judged.
	check func(z *analyzer, c *cmd, r *tableRun)

	// text: the program's words are text, not paths: no path checks
	// (echo, kill). pure: it touches nothing at all (echo, cd): no effects.
	text, pure bool
	// unbounded says why what the program touches cannot be listed (a
	// build, a network client): the line's effects are unbounded and the
	// paths it names are possible reads and writes.
	unbounded string

	specOnce sync.Once
	spec     optSpec
	byName   map[string]*option
}

// programs maps canonical program names to their descriptions. The
// families fill it in their init functions (a composite literal here would
// be an initialisation cycle: wrappers call back into simple, which reads
// it).
var programs = map[string]*program{}

// canonical maps program name variants to the handler's name.
func canonical(base string) string {
	switch {
	case strings.HasPrefix(base, "python"), strings.HasPrefix(base, "pypy"):
		if base == "python-config" || strings.HasSuffix(base, "-config") {
			return base
		}
		return "python"
	case strings.HasPrefix(base, "mkfs"), strings.HasPrefix(base, "mke2fs"), base == "mkdosfs", base == "mkntfs",
		base == "mkswap", base == "newfs", strings.HasPrefix(base, "newfs_"), base == "mkexfatfs", base == "mkfatfs":
		return "mkfs"
	case strings.HasPrefix(base, "perl5"):
		return "perl"
	case strings.HasPrefix(base, "ruby") && len(base) > 4 && (base[4] >= '0' && base[4] <= '9' || base[4] == '.'):
		return "ruby"
	case strings.HasPrefix(base, "php") && len(base) > 3 && (base[3] >= '0' && base[3] <= '9' || base[3] == '.'):
		return "php"
	case strings.HasPrefix(base, "lua") && len(base) > 3 && (base[3] >= '0' && base[3] <= '9' || base[3] == '.'):
		return "lua"
	case strings.HasPrefix(base, "pip") && (base == "pip" || base[3] >= '0' && base[3] <= '9'):
		return "pip"
	}
	switch base {
	case "gsed":
		return "sed"
	case "gawk", "mawk", "nawk", "busybox-awk", "original-awk", "onetrue-awk", "goawk", "frawk":
		return "awk"
	case "gfind":
		return "find"
	case "gtar", "bsdtar":
		return "tar"
	case "gmake", "bmake", "pmake", "remake":
		return "make"
	case "nodejs":
		return "node"
	case "fdfind":
		return "fd"
	case "grep", "egrep", "fgrep", "ggrep", "zgrep", "zegrep", "zfgrep", "pcregrep", "pcre2grep":
		return "grep"
	case "nvim", "vi", "vim", "ex", "view", "gvim", "mvim", "rvim", "vimdiff", "nvi", "elvis":
		return "vim"
	case "gxargs":
		return "xargs"
	case "gnutimeout", "gtimeout":
		return "timeout"
	case "podman", "nerdctl", "finch", "lima-nerdctl":
		return "docker"
	case "gradlew", "mvnw":
		return strings.TrimSuffix(base, "w")
	case "scp", "sftp":
		return "scp"
	}
	return base
}

// register describes the programs named by p. Each command family
// registers its programs in its own file; a name registered twice is a
// mistake, which TestProgramsRegisteredOnce reports.
func register(p *program, names ...string) {
	for _, n := range names {
		if _, dup := programs[n]; dup {
			duplicates = append(duplicates, n)
		}
		programs[n] = p
	}
}

// duplicates are the names registered more than once.
var duplicates []string

// noop is the handler of programs whose description says all there is.
func noop(*analyzer, *cmd) {}

// opaque describes a known program whose effects the analyser does not
// list: why says what it does.
func opaque(why string) *program { return &program{handler: noop, unbounded: why} }
