package shell

// The program registry: which handler judges which program.

import "strings"

// handler judges one program's arguments.
type handler func(z *analyzer, c *cmd)

// handlers maps canonical program names to their rules. The families fill
// it in their init functions (a composite literal here would be an
// initialisation cycle: wrappers call back into simple, which reads it).
var handlers = map[string]handler{}

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
	case "grep", "egrep", "fgrep", "ggrep", "zgrep", "zegrep", "zfgrep", "pcregrep", "pcre2grep", "ag", "ack", "ack-grep", "sift", "ugrep", "git-grep":
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

// pureCommands neither read nor write files nor run other programs: their
// arguments are text, not paths.
var pureCommands = set("echo", "printf", "true", "false", ":", "pwd", "basename", "dirname", "seq", "sleep",
	"yes", "expr", "test", "[", "whoami", "id", "uname", "hostname", "nproc", "tty", "arch", "logname",
	"groups", "users", "getconf", "locale", "cal", "factor", "numfmt", "tput", "clear", "exit", "return",
	"shift", "break", "continue", "wait", "jobs", "umask", "ulimit", "times", "help", "type", "which",
	"whereis", "printenv", "unset", "local", "declare", "typeset", "export", "readonly", "let", "getopts",
	"read", "mapfile", "readarray", "caller", "dirs", "disown", "suspend", "logout", "shopt", "set",
	"history", "kill", "pkill", "killall", "pgrep", "ps", "uptime", "free", "nice", "date", "env", "command",
	"builtin", "hash", "sync", "false", "tr", "cut", "wc", "uniq", "column", "rev", "fold", "fmt", "nl",
	"base32", "base64", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "sum", "od", "hexdump", "xxd",
	"strings", "jq", "bc", "dc", "awk", "sed", "grep", "sort", "head", "tail", "cat", "tac", "less", "more",
	"paste", "join", "comm", "diff", "cmp", "file", "stat", "ls", "tree", "du", "df", "find", "rg", "fd")

// filesChecked are the programs of pureCommands that do take file operands:
// their literal arguments are checked for paths outside the workspace.
var filesChecked = set("tr", "cut", "wc", "uniq", "column", "rev", "fold", "fmt", "nl", "base32", "base64",
	"md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "sum", "od", "hexdump", "xxd", "strings", "jq",
	"bc", "dc", "awk", "sed", "grep", "sort", "head", "tail", "cat", "tac", "less", "more", "paste", "join",
	"comm", "diff", "cmp", "file", "stat", "ls", "tree", "du", "df", "find", "rg", "fd", "date", "env", "hash")

// register makes h the handler of the programs named. Each command
// family registers its programs in its own file; a name registered twice
// is a mistake, which TestProgramsRegisteredOnce reports.
func register(h handler, names ...string) {
	for _, n := range names {
		if _, dup := handlers[n]; dup {
			duplicates = append(duplicates, n)
		}
		handlers[n] = h
	}
}

// duplicates are the names registered more than once.
var duplicates []string
