package shell

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// cmd is one simple command being judged.
type cmd struct {
	argv    []wordInfo
	st      state // the state it runs in
	idx     int   // its index in Analysis.Commands
	text    string
	prog    string // argv[0] as written
	base    string // the program's name without directory, canonicalised
	wrap    int    // how many wrappers it is inside
	out     flow   // the state after it
	noFiles bool   // the program names no files (echo): skip path checks
}

// handler judges one program's arguments.
type handler func(z *analyzer, c *cmd)

// handlers maps canonical program names to their rules. Filled in init to
// avoid an initialisation cycle (wrappers call back into simple).
var handlers map[string]handler

// call analyses a simple command: its assignments, its words, the commands
// in its substitutions, and the rules for the program it runs.
func (z *analyzer) call(c *syntax.CallExpr, in state) flow {
	var assigns []string
	for _, as := range c.Assigns {
		z.assignSubs(as, in)
		assigns = append(assigns, z.text(as))
	}
	if len(c.Args) == 0 {
		// Plain assignments change the shell's own variables.
		st := in
		for _, as := range c.Assigns {
			if as.Name != nil {
				v, ok := z.assignValue(as, in)
				z.checkAssignment(as.Name.Value, v, ok, z.text(as))
			}
			st = z.assignVar(st, in, as)
		}
		return same(st)
	}
	words := make([]wordInfo, len(c.Args))
	for i, w := range c.Args {
		words[i] = z.resolve(w, in)
	}
	idx := z.addCommand(words, assigns, z.text(c))
	for i, w := range c.Args {
		start := len(z.sink.a.Commands)
		z.wordSubs(w, in)
		words[i].subDownload = z.anyDownload(start)
	}
	for _, as := range c.Assigns {
		if as.Name == nil {
			continue
		}
		v, ok := z.assignValue(as, in)
		z.checkAssignment(as.Name.Value, v, ok, z.text(as))
	}
	// The words the program receives: known values split into fields.
	argv := make([]wordInfo, 0, len(words))
	for _, w := range words {
		if !w.split {
			argv = append(argv, w)
			continue
		}
		for _, f := range w.fields {
			fw := w
			fw.val, fw.full, fw.split, fw.fields, fw.unknownLead = f, true, false, nil, false
			argv = append(argv, fw)
		}
	}
	if len(argv) == 0 {
		return same(in) // the words expand to nothing: nothing runs
	}
	return z.simple(&cmd{argv: argv, st: in, idx: idx, text: z.text(c)})
}

// addCommand appends a Command and returns its index.
func (z *analyzer) addCommand(words []wordInfo, assigns []string, text string) int {
	c := Command{Args: make([]string, len(words)), Dynamic: make([]bool, len(words)), Text: text}
	if len(assigns) > 0 {
		c.Assigns = assigns
	}
	for i, w := range words {
		c.Args[i], c.Dynamic[i] = w.lit, w.dyn
		if w.dyn {
			c.Args[i] = w.text
		}
	}
	identify(&c, words)
	z.sink.a.Commands = append(z.sink.a.Commands, c)
	z.sink.meta = append(z.sink.meta, cmdMeta{})
	return len(z.sink.a.Commands) - 1
}

func (z *analyzer) anyDownload(start int) bool {
	for i := start; i < len(z.sink.meta); i++ {
		if z.sink.meta[i].download {
			return true
		}
	}
	return false
}

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

// downloaders fetch data from the network.
var downloaders = set("curl", "wget", "wget2", "fetch", "aria2c", "axel", "http", "https", "xh", "xhs",
	"lwp-request", "GET", "HEAD", "POST", "lynx", "links", "elinks", "w3m", "nc", "ncat", "netcat", "socat",
	"telnet", "openssl", "ftp", "tftp", "curlie", "httpie")

// simple judges one simple command by its program.
func (z *analyzer) simple(c *cmd) (out flow) {
	c.out = same(c.st)
	name := c.argv[0]
	c.prog = name.lit
	if name.dyn {
		// The program is only known at run time ($X args, "$(echo rm)",
		// a glob): no rule can say what it is. It may also be cd,
		// eval or source, so nothing is known afterwards.
		z.unsafe("the command name is not a fixed word (%s): what runs is only known at run time", name.text)
		st := c.st.lostCwd()
		st.varsUnknown = true
		if !name.full || name.glob {
			return same(st)
		}
		// a=rm; $a -rf /: the value is known, so the dangerous checks
		// still apply to it.
		defer func() { out = same(st) }()
		c.prog = name.val
	}
	if c.prog == "" {
		z.unsafe("empty command name")
		z.unbounded("empty command name")
		return c.out
	}
	for _, r := range c.prog {
		if r <= ' ' || r >= 0x7f {
			// Commands are ASCII words. Anything else can look like
			// another command (homoglyphs, hidden characters).
			z.unsafe("the command name %q contains an unusual character", c.prog)
			break
		}
	}
	c.base = path.Base(c.prog)
	if strings.Contains(c.prog, "/") && !strings.HasPrefix(c.prog, "/") {
		z.projectCode("%s runs a program from the workspace", c.prog)
		if a, ok := z.absPath(c.prog, c.st); ok && z.sink.downloaded[a] {
			z.dangerous("runs %s, which this command downloaded", c.prog)
		}
	}
	if z.funcs[c.prog] {
		// A function of the script: its body was analysed (and the
		// definition is Unsafe). It may cd or set anything.
		st := c.st
		st = st.lostCwd()
		st.varsUnknown = true
		c.out = same(st)
		z.unbounded("%s is a function of the script", c.prog)
		return c.out
	}
	c.base = canonical(c.base)
	c.noFiles = pureCommands[c.base] && !filesChecked[c.base]
	if downloaders[c.base] {
		z.sink.meta[c.idx].download = true
	}
	if h := handlers[c.base]; h != nil {
		h(z, c)
	}
	z.checkPaths(c)
	z.effects(c)
	return c.out
}

// checkPaths makes Unsafe any fixed argument that names a path outside the
// workspace: a rule for cat is not meant for cat ../../root/.ssh/id_rsa.
// Dynamic words are left to the chain, which allows no rule for them.
func (z *analyzer) checkPaths(c *cmd) {
	if c.noFiles {
		return
	}
	for _, w := range c.argv[1:] {
		if w.nonPath {
			continue
		}
		var vals []string
		switch {
		case !w.dyn:
			vals = []string{w.lit}
		case w.full:
			vals = []string{w.val}
		case len(w.alts) > 0:
			vals = w.alts
		default:
			continue
		}
		for _, v := range vals {
			for _, p := range pathCandidates(v) {
				if r := z.outside(p, c.st); r != "" {
					z.unsafe("%s names a path outside the workspace: %s", c.base, r)
					goto next
				}
			}
		}
	next:
	}
}

// inner analyses the command a wrapper runs (argv[from:to]) as a command of
// its own, so that its rules, deny rules and dangerous checks apply (sudo
// rm -rf / is as dangerous as rm -rf /). assigns are environment settings
// the wrapper adds. It returns the state after the inner command.
func (z *analyzer) inner(c *cmd, from, to int, assigns []string) flow {
	if from >= to || from >= len(c.argv) {
		return same(c.st)
	}
	if to > len(c.argv) {
		to = len(c.argv)
	}
	if c.wrap >= 16 || z.nest > maxNesting {
		z.unsafe("commands wrapped too deeply to analyse: %s", c.text)
		return same(c.st)
	}
	argv := c.argv[from:to]
	text := ""
	if argv[0].node != nil && argv[len(argv)-1].node != nil {
		text = z.span(argv[0].node.Pos(), argv[len(argv)-1].node.End())
	}
	if text == "" {
		parts := make([]string, len(argv))
		for i, w := range argv {
			parts[i] = w.text
		}
		text = strings.Join(parts, " ")
	}
	words := make([]wordInfo, len(argv))
	copy(words, argv)
	for i := range words {
		words[i].nonPath = false
	}
	idx := z.addCommand(words, assigns, text)
	z.nest++
	defer func() { z.nest-- }()
	return z.simple(&cmd{argv: words, st: c.st, idx: idx, text: text, wrap: c.wrap + 1})
}

// script analyses a string that a program runs as a shell script (sh -c,
// su -c, watch, trap, eval) with its own analyser.
func (z *analyzer) script(src string, st state, what string) {
	if z.depth+1 > maxScriptDepth {
		z.unsafe("%s: scripts nested too deeply to analyse", what)
		return
	}
	f, err := parse(src)
	if err != nil {
		z.unsafe("%s: the script does not parse: %v", what, err)
		return
	}
	child := newAnalyzer(src, z.opt, z.sink, z.depth+1)
	child.nest = z.nest
	child.checkSource()
	child.prepass(f)
	child.stmtList(f.Stmts, st)
}

// scriptArg handles the word a program runs as a shell script.
func (z *analyzer) scriptArg(c *cmd, w wordInfo, what string) {
	if w.subDownload {
		z.dangerous("%s runs a script it downloads: %s", what, c.text)
	}
	if w.full && !w.glob {
		z.script(w.val, c.st, what)
		return
	}
	z.unsafe("%s runs a script only known at run time: %s", what, w.text)
}

// scriptFile handles a program running a script file (bash x.sh, python
// x.py, source x): code from the workspace, or a download.
func (z *analyzer) scriptFile(c *cmd, w wordInfo) {
	switch {
	case w.subDownload:
		z.dangerous("%s runs a script it downloads: %s", c.base, c.text)
	case w.subst:
		z.unsafe("%s runs a script produced by another command: %s", c.base, w.text)
	case !w.full:
		// The chain asks for the dynamic word anyway.
	case w.val == "-" || w.val == "/dev/stdin" || w.val == "/dev/fd/0" || w.val == "/proc/self/fd/0":
		z.stdinProgram(c)
	default:
		if a, ok := z.absPath(w.val, c.st); ok && z.sink.downloaded[a] {
			z.dangerous("%s runs %s, which this command downloaded", c.base, w.val)
		}
		z.projectCode("%s runs %s", c.base, w.val)
	}
}

// stdinProgram: an interpreter reads its program from standard input, which
// is whatever is piped in.
func (z *analyzer) stdinProgram(c *cmd) {
	z.sink.meta[c.idx].interp = true
	z.unsafe("%s reads the program to run from its standard input: %s", c.base, c.text)
}

func init() {
	handlers = map[string]handler{
		"eval":      hEval,
		"source":    hSource,
		".":         hSource,
		"exec":      hExec,
		"alias":     hAlias,
		"trap":      hTrap,
		"enable":    hEnable,
		"builtin":   hBuiltin,
		"command":   hCommand,
		"hash":      hHash,
		"set":       hSet,
		"shopt":     hShopt,
		"cd":        hCd,
		"pushd":     hCd,
		"popd":      hPopd,
		"read":      hRead,
		"mapfile":   hRead,
		"readarray": hRead,
		"getopts":   hRead,
		"printf":    hPrintf,
		"unset":     hUnset,
		"test":      hTest,
		"[":         hTest,
		"compgen":   hCompgen,
		"complete":  hCompgen,
		"fc":        hFc,
		"bind":      hBind,
		"coproc":    hCoproc,

		"sh": hShell, "bash": hShell, "zsh": hShell, "dash": hShell, "ksh": hShell, "mksh": hShell,
		"ash": hShell, "yash": hShell, "posh": hShell, "rbash": hShell, "oksh": hShell, "loksh": hShell,
		"pdksh": hShell, "ksh93": hShell, "bash5": hShell, "hush": hShell, "fish": hShell, "csh": hShell,
		"tcsh": hShell, "elvish": hShell, "nu": hShell, "xonsh": hShell, "pwsh": hShell, "powershell": hShell,
		"busybox": hBusybox,

		"python": hInterp, "perl": hInterp, "ruby": hInterp, "node": hInterp, "php": hInterp, "lua": hInterp,
		"luajit": hInterp, "Rscript": hInterp, "R": hInterp, "osascript": hInterp, "julia": hInterp,
		"tclsh": hInterp, "wish": hInterp, "expect": hInterp, "irb": hInterp, "pry": hInterp, "ts-node": hInterp,
		"tsx": hInterp, "esno": hInterp, "groovy": hInterp, "scala": hInterp, "elixir": hInterp, "iex": hInterp,
		"guile": hInterp, "racket": hInterp, "sbcl": hInterp, "clisp": hInterp, "ghci": hInterp, "runghc": hInterp,
		"deno": hDeno, "bun": hBun, "jshell": hInterp, "kotlin": hInterp, "dotnet-script": hInterp,
		"swift": hInterp, "qjs": hInterp, "gjs": hInterp, "cscript": hInterp, "wscript": hInterp,

		"xargs":    hXargs,
		"env":      hEnv,
		"nohup":    hWrapPlain,
		"nice":     hNice,
		"timeout":  hTimeout,
		"time":     hTime,
		"watch":    hWatch,
		"sudo":     hSudo,
		"doas":     hDoas,
		"su":       hSu,
		"stdbuf":   hStdbuf,
		"setsid":   hSetsid,
		"chroot":   hChroot,
		"ionice":   hIonice,
		"strace":   hStrace,
		"ltrace":   hStrace,
		"parallel": hParallel,
		"script":   hScript,
		"flock":    hFlock,
		"taskset":  hTaskset,
		"unbuffer": hWrapPlain, "caffeinate": hWrapOpts, "catchsegv": hWrapPlain, "firejail": hWrapOpts,
		"bwrap": hWrapOpaque, "systemd-run": hWrapOpaque, "run0": hWrapOpts, "pkexec": hWrapOpts,
		"runuser": hWrapOpaque, "sg": hWrapOpaque, "newgrp": hWrapOpaque, "unshare": hWrapOpts,
		"nsenter": hWrapOpaque, "proot": hWrapOpaque, "fakeroot": hWrapOpts, "fakechroot": hWrapOpts,
		"torsocks": hWrapOpts, "proxychains": hWrapOpts, "proxychains4": hWrapOpts, "tsocks": hWrapPlain,
		"valgrind": hWrapOpts, "cpulimit": hWrapOpaque, "prlimit": hWrapOpts, "numactl": hWrapOpaque,
		"chrt": hWrapOpaque, "tini": hWrapOpts, "dumb-init": hWrapOpts, "entr": hWrapOpts, "gdb": hWrapOpaque,
		"perf": hWrapOpaque, "faketime": hWrapOpaque, "with-contenv": hWrapPlain, "sshpass": hWrapOpaque,
		"ssh-agent": hWrapOpts, "dbus-run-session": hWrapOpts, "xvfb-run": hWrapOpaque, "mpirun": hWrapOpaque,
		"srun": hWrapOpaque, "nix-shell": hWrapOpaque, "direnv": hWrapOpaque, "aws-vault": hWrapOpaque,
		"op": hWrapOpaque, "dotenv": hWrapOpaque, "cross-env": hWrapOpaque, "env-cmd": hWrapOpaque,
		"winpty": hWrapPlain, "rlwrap": hWrapOpts, "at": hAt, "batch": hAt,
		"open": hOpen, "xdg-open": hOpen, "gio": hOpen, "start": hOpen, "explorer": hOpen, "wslview": hOpen,
		"sensible-browser": hOpen, "x-www-browser": hOpen,
	}
	addToolHandlers()
	addDangerHandlers()
}

// --- shell builtins ---

// eval runs its arguments as shell code: analysed when fixed, Unsafe always.
func hEval(z *analyzer, c *cmd) {
	z.unsafe("eval runs a string as shell code: %s", c.text)
	parts := make([]string, 0, len(c.argv)-1)
	fixed := true
	for _, w := range c.argv[1:] {
		if w.subDownload {
			z.dangerous("eval runs code it downloads: %s", c.text)
		}
		fixed = fixed && w.full && !w.glob
		parts = append(parts, w.val)
	}
	if fixed && len(parts) > 0 {
		z.script(strings.Join(parts, " "), c.st, "eval")
	}
	st := c.st
	st = st.lostCwd()
	st.varsUnknown = true
	c.out = same(st)
	c.noFiles = true
}

func hSource(z *analyzer, c *cmd) {
	z.unsafe("%s runs a file as shell code in this shell: %s", c.prog, c.text)
	if len(c.argv) > 1 {
		z.scriptFile(c, c.argv[1])
	} else {
		z.stdinProgram(c)
	}
	st := c.st
	st = st.lostCwd()
	st.varsUnknown = true
	c.out = same(st)
}

func hExec(z *analyzer, c *cmd) {
	z.unsafe("exec replaces the shell with another program or changes its file descriptors: %s", c.text)
	p := getopt(c.argv, 1, optSpec{flags: "cl", withArg: "a", posix: true})
	if len(p.operands) > 0 {
		z.inner(c, p.operands[0], len(c.argv), nil)
	}
}

func hAlias(z *analyzer, c *cmd) {
	if len(c.argv) == 1 || len(c.argv) == 2 && c.argv[1].val == "-p" {
		c.noFiles = true
		return // lists aliases
	}
	z.unsafe("alias makes a word run another command: %s", c.text)
	c.noFiles = true
}

func hTrap(z *analyzer, c *cmd) {
	c.noFiles = true
	p := getopt(c.argv, 1, optSpec{flags: "lpP", posix: true})
	if p.has("l", "p", "P") || len(p.operands) < 2 {
		return // lists traps or signals
	}
	z.unsafe("trap runs a string as code when a signal arrives or the shell exits: %s", c.text)
	w := c.argv[p.operands[0]]
	if w.full && w.val != "-" && w.val != "" {
		z.scriptArg(c, w, "trap")
	}
}

func hEnable(z *analyzer, c *cmd) {
	if len(c.argv) == 1 || len(c.argv) == 2 && (c.argv[1].val == "-p" || c.argv[1].val == "-a") {
		return
	}
	z.unsafe("enable turns shell builtins on or off or loads new ones from a shared library: %s", c.text)
}

func hBuiltin(z *analyzer, c *cmd) {
	z.unsafe("builtin runs the shell builtin named by its argument: %s", c.text)
	c.out = z.inner(c, 1, len(c.argv), nil)
}

// command -v/-V only looks a name up; otherwise it runs its arguments.
func hCommand(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "pvV", posix: true})
	if p.has("v", "V") {
		c.noFiles = true
		return
	}
	z.unsafe("command runs the program named by its argument: %s", c.text)
	if len(p.operands) > 0 {
		c.out = z.inner(c, p.operands[0], len(c.argv), nil)
	}
}

func hHash(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "rldt", withArg: "p", posix: true})
	if p.has("p") || p.dynOpt {
		z.unsafe("hash -p binds a command name to any program: %s", c.text)
	}
}

// hSet: option changes that alter how later commands are read are Unsafe.
func hSet(z *analyzer, c *cmd) {
	c.noFiles = true
	safeLong := set("errexit", "nounset", "pipefail", "xtrace", "verbose", "noclobber", "noglob", "errtrace",
		"physical", "allexport", "notify", "hashall", "monitor", "noexec", "functrace", "ignoreeof", "emacs", "vi",
		"history", "histexpand", "interactive-comments", "braceexpand", "nolog", "onecmd")
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if !w.full {
			z.unsafe("set with an argument only known at run time: %s", c.text)
			return
		}
		a := w.val
		if a == "--" || a == "-" {
			return // the rest are positional parameters
		}
		if !(strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+")) {
			return
		}
		if len(a) > 1 && strings.HasSuffix(a, "o") {
			// -o name, or a cluster ending in o (-euo pipefail).
			for _, l := range a[1 : len(a)-1] {
				if !strings.ContainsRune("euxvfnCaBbhHmPTE", l) {
					z.unsafe("set %s changes how the shell reads later commands", a)
				}
			}
			if i+1 < len(c.argv) {
				i++
				if o := c.argv[i].val; !safeLong[o] || !c.argv[i].full {
					z.unsafe("set -o %s changes how the shell reads later commands", o)
				}
			}
			continue
		}
		for _, l := range a[1:] {
			if !strings.ContainsRune("euxvfnCaBbhHmPTE", l) {
				// -k puts assignments anywhere into the environment,
				// and the rest are unusual.
				z.unsafe("set %s changes how the shell reads later commands", a)
				break
			}
		}
	}
}

func hShopt(z *analyzer, c *cmd) {
	c.noFiles = true
	p := getopt(c.argv, 1, optSpec{flags: "psuqo", posix: true})
	if !p.has("s", "u") && !p.dynOpt {
		return // prints options
	}
	ok := set("nullglob", "globstar", "dotglob", "extglob", "failglob", "nocaseglob", "nocasematch",
		"globasciiranges", "xpg_echo", "inherit_errexit", "checkwinsize", "histappend", "cmdhist", "lithist")
	for _, i := range p.operands {
		if w := c.argv[i]; !w.full || !ok[w.val] {
			z.unsafe("shopt %s changes how the shell reads or runs later commands", w.text)
		}
	}
}

// hCd follows the working directory: relative paths after it are judged
// against the new directory. A cd that fails leaves the old one, so only
// commands that run after it succeeded (cd x && …) see the new one.
func hCd(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "LPe@", posix: true, numeric: c.base == "pushd"})
	succ := c.st
	switch {
	case p.dynOpt:
		succ = succ.lostCwd()
	case len(p.operands) == 0:
		if c.base == "pushd" {
			succ = succ.lostCwd() // swaps with the directory stack
		} else {
			// cd alone goes home.
			succ = succ.atCwd(z.opt.Home)
			if z.opt.Home == "" || !within(z.opt.Home, z.opt.Workspace) {
				z.unsafe("cd with no directory goes to the home directory, outside the workspace")
			}
		}
	default:
		w := c.argv[p.operands[0]]
		switch {
		case !w.full || w.glob || w.val == "-" || strings.HasPrefix(w.val, "+") || strings.HasPrefix(w.val, "-"):
			succ = succ.lostCwd()
		default:
			if a, ok := z.absPath(w.val, c.st); ok {
				succ = succ.atCwd(a)
			} else {
				succ = succ.lostCwd()
			}
		}
	}
	c.out = flow{succ, merge(c.st, succ)}
}

func hPopd(z *analyzer, c *cmd) {
	succ := c.st
	succ = succ.lostCwd()
	c.out = flow{succ, merge(c.st, succ)}
	c.noFiles = true
}

// hRead: read, mapfile, readarray and getopts set the variables they
// name. A name with a subscript (read 'a[$(cmd)]') makes bash evaluate the
// subscript; a risky name (read PATH) changes what later commands run.
func hRead(z *analyzer, c *cmd) {
	c.noFiles = true
	var names []wordInfo
	switch c.base {
	case "read":
		p := getopt(c.argv, 1, optSpec{flags: "ers", withArg: "adinNptu", posix: true})
		for _, o := range p.get("a") {
			if o.valIdx >= 0 {
				names = append(names, c.argv[o.valIdx])
			}
		}
		for _, i := range p.operands {
			names = append(names, c.argv[i])
		}
	case "getopts":
		if len(c.argv) > 2 {
			names = append(names, c.argv[2])
		}
	default: // mapfile, readarray
		p := getopt(c.argv, 1, optSpec{flags: "t", withArg: "dnOsuCc", posix: true})
		if p.has("C") {
			z.unsafe("%s -C runs a callback command: %s", c.base, c.text)
		}
		for _, i := range p.operands {
			names = append(names, c.argv[i])
		}
	}
	st := c.st
	for _, w := range names {
		z.assignsName(w, c.base)
		if w.full && isName(w.val) {
			st = st.unknownVar(w.val)
		}
	}
	c.out = same(st.unknownVar("REPLY"))
}

// assignsName judges a variable name a builtin assigns to.
func (z *analyzer) assignsName(w wordInfo, prog string) {
	switch {
	case !w.full:
		z.unsafe("%s assigns a variable whose name is only known at run time: %s", prog, w.text)
	case strings.Contains(w.val, "["):
		z.unsafe("%s assigns an array element by subscript, which bash evaluates and can run commands: %s", prog, w.text)
	default:
		z.checkAssignment(w.val, wordInfo{}, false, prog+" "+w.val)
	}
}

func hPrintf(z *analyzer, c *cmd) {
	c.noFiles = true
	for i := 1; i+1 < len(c.argv); i++ {
		if c.argv[i].val == "-v" {
			w := c.argv[i+1]
			z.assignsName(w, "printf -v")
			if w.full {
				c.out = same(c.st.unknownVar(w.val))
			}
		}
		if c.argv[i].val == "--" || !strings.HasPrefix(c.argv[i].val, "-") {
			break
		}
	}
}

func hUnset(z *analyzer, c *cmd) {
	c.noFiles = true
	st := c.st
	for _, w := range c.argv[1:] {
		if strings.Contains(w.val, "[") || !w.full {
			z.unsafe("unset with an array subscript or a name only known at run time can run commands: %s", w.text)
		}
		if isName(w.val) {
			st = st.unknownVar(w.val)
		}
	}
	c.out = same(st)
}

func hTest(z *analyzer, c *cmd) {
	c.noFiles = true
	for i := 1; i+1 < len(c.argv); i++ {
		if v := c.argv[i].val; (v == "-v" || v == "-R") && strings.Contains(c.argv[i+1].val, "[") {
			z.unsafe("test -v with an array subscript evaluates the subscript, which can run commands: %s", c.text)
		}
	}
}

func hCompgen(z *analyzer, c *cmd) {
	c.noFiles = true
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "-") && strings.ContainsAny(w.val, "CF") || !w.full {
			z.unsafe("%s -C/-F runs a command or function: %s", c.base, c.text)
			return
		}
	}
}

func hFc(z *analyzer, c *cmd) {
	z.unsafe("fc runs commands from the history through an editor: %s", c.text)
}

func hBind(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "x") || !w.full {
			z.unsafe("bind -x binds a key to a shell command: %s", c.text)
			return
		}
	}
}

func hCoproc(z *analyzer, c *cmd) {
	z.unsafe("coproc runs a command in the background connected to the shell: %s", c.text)
	c.out = z.inner(c, 1, len(c.argv), nil)
}

// --- shells and interpreters ---

// hShell: sh -c STRING runs a string (analysed, and Unsafe); sh FILE runs a
// workspace script (ProjectCode); sh alone, sh -s or sh - reads the script
// from standard input (Unsafe, and Dangerous after a download).
func hShell(z *analyzer, c *cmd) {
	pwsh := c.base == "pwsh" || c.base == "powershell"
	fish := c.base == "fish"
	cmdMode, stdin := false, false
	cmdIdx := -1 // the script string, when an option takes it (fish -c STR)
	i := 1
loop:
	for ; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		if !w.full && w.unknownLead {
			// "$X" or <(…): an operand (the script), or an option
			// only known at run time. Either way Unsafe; judged as
			// the script so that a download in it is seen.
			if !cmdMode && !w.subst {
				z.unsafe("%s with an argument only known at run time: %s", c.base, c.text)
			}
			break loop
		}
		switch {
		case a == "--":
			i++
			break loop
		case a == "-":
			stdin = true
			i++
			break loop
		case pwsh && (strings.HasPrefix(a, "-") || strings.HasPrefix(a, "/")):
			switch {
			case isPwshCommand(a):
				cmdMode, cmdIdx = true, i+1
				break loop
			case isPwshFile(a):
				if i+1 < len(c.argv) {
					z.scriptFile(c, c.argv[i+1])
				}
				return
			}
		case strings.HasPrefix(a, "--"):
			name, v, hasVal := strings.Cut(a[2:], "=")
			switch name {
			case "command", "commands":
				cmdMode = true
				if hasVal {
					w.val = v
					z.unsafe("%s --%s runs a string as a shell script: %s", c.base, name, c.text)
					z.scriptArg(c, w, c.base+" --"+name)
					return
				}
				cmdIdx = i + 1
				break loop
			case "init-command", "rcfile", "init-file":
				z.unsafe("%s --%s runs a start-up file or command: %s", c.base, name, c.text)
				if !hasVal {
					i++
				}
			}
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			letters := a[1:]
			if strings.ContainsAny(letters, "si") {
				stdin = true
			}
			if fish {
				if strings.Contains(letters, "C") {
					z.unsafe("fish -C runs an initial command: %s", c.text)
					i++
				}
				if strings.Contains(letters, "c") {
					cmdMode, cmdIdx = true, i+1
					break loop
				}
				continue
			}
			if strings.Contains(letters, "c") {
				cmdMode = true
			}
			if letters == "o" || letters == "O" {
				i++ // -o option-name
			}
		default:
			break loop
		}
	}
	switch {
	case cmdMode:
		z.unsafe("%s -c runs a string as a shell script: %s", c.base, c.text)
		if cmdIdx < 0 {
			cmdIdx = i // POSIX shells: the first operand
		}
		if cmdIdx < len(c.argv) {
			c.argv[cmdIdx].nonPath = true
			z.scriptArg(c, c.argv[cmdIdx], c.base+" -c")
		}
	case stdin || i >= len(c.argv):
		z.stdinProgram(c)
		z.sink.meta[c.idx].shell = !pwsh
	default:
		z.scriptFile(c, c.argv[i])
	}
}

func isPwshCommand(a string) bool {
	l := strings.ToLower(strings.TrimLeft(a, "-/"))
	return l != "" && (strings.HasPrefix("command", l) || strings.HasPrefix("encodedcommand", l) || l == "ec" || l == "e" || l == "c")
}

func isPwshFile(a string) bool {
	l := strings.ToLower(strings.TrimLeft(a, "-/"))
	return l == "f" || l == "file"
}

// interpSpec describes an interpreter's options: which run inline code,
// which edit files in place, which load a module.
type interpSpec struct {
	opts    optSpec
	inline  []string // options whose argument (or the option) is code
	inplace []string
	module  []string // run a module found on a path that includes the workspace
	// scriptOpt: options whose argument is the script file.
	scriptOpt []string
	// noStdin: with no script the program does not read code from stdin.
	noStdin bool
}

var interpSpecs = map[string]interpSpec{
	"python": {opts: optSpec{flags: "bBdEhiIOPqRsSuvVx", withArg: "cmWX", stopAfter: "cm", posix: true,
		long: map[string]byte{"check-hash-based-pycs": 'r', "help": 'n', "version": 'n', "help-env": 'n', "help-xoptions": 'n', "help-all": 'n'}},
		inline: []string{"c"}, module: []string{"m"}},
	"perl": {opts: optSpec{flags: "acnpsStTuUvwWX", withArg: "eEIMm", optArg: "ilxCdDF0", posix: true},
		inline: []string{"e", "E"}, inplace: []string{"i"}},
	"ruby": {opts: optSpec{flags: "acdhlnpsSvwy", withArg: "eErICF", optArg: "ixW0TK", posix: true,
		long: map[string]byte{"disable": 'r', "enable": 'r', "encoding": 'r', "external-encoding": 'r', "internal-encoding": 'r', "jit": 'n', "yjit": 'n', "verbose": 'n', "version": 'n', "help": 'n', "copyright": 'n'}},
		inline: []string{"e"}, inplace: []string{"i"}},
	"node": {opts: optSpec{flags: "ichv", withArg: "eprC", posix: true,
		long: map[string]byte{"eval": 'r', "print": 'r', "require": 'r', "import": 'r', "loader": 'r', "experimental-loader": 'r',
			"env-file": 'r', "env-file-if-exists": 'r', "input-type": 'r', "conditions": 'r', "inspect": 'o', "inspect-brk": 'o',
			"title": 'r', "test": 'n', "watch": 'n', "check": 'n', "interactive": 'n', "run": 'r'}},
		inline: []string{"e", "p", "eval", "print", "run"}, module: []string{"r", "require", "import", "loader", "experimental-loader", "env-file", "env-file-if-exists"}},
	"php": {opts: optSpec{flags: "ahHilmnqsvwe", withArg: "cdfrBRESztF", posix: true},
		inline: []string{"r", "B", "R", "E"}, scriptOpt: []string{"f", "F"}},
	"lua":       {opts: optSpec{flags: "ivEW", withArg: "el", posix: true}, inline: []string{"e"}, module: []string{"l"}},
	"luajit":    {opts: optSpec{flags: "ivEbd", withArg: "elOjb", posix: true}, inline: []string{"e"}, module: []string{"l"}},
	"Rscript":   {opts: optSpec{flags: "", withArg: "e", posix: true, long: map[string]byte{"default-packages": 'r', "verbose": 'n', "vanilla": 'n', "no-environ": 'n', "help": 'n', "version": 'n'}}, inline: []string{"e"}},
	"R":         {opts: optSpec{flags: "fqs", withArg: "egd", posix: true, long: map[string]byte{"file": 'r', "vanilla": 'n', "no-save": 'n', "slave": 'n', "quiet": 'n', "silent": 'n', "args": 'n'}}, inline: []string{"e"}, scriptOpt: []string{"f", "file"}},
	"osascript": {opts: optSpec{flags: "is", withArg: "elo", posix: true}, inline: []string{"e"}},
	"julia":     {opts: optSpec{flags: "hvqi", withArg: "eEpLJCtO", posix: true, long: map[string]byte{"eval": 'r', "print": 'r', "load": 'r', "project": 'o', "threads": 'r', "startup-file": 'r', "history-file": 'r', "banner": 'r', "color": 'r', "sysimage": 'r', "procs": 'r'}}, inline: []string{"e", "E", "eval", "print"}, module: []string{"L", "load"}},
	"expect":    {opts: optSpec{flags: "dDinNv", withArg: "cfb", posix: true}, inline: []string{"c"}, scriptOpt: []string{"f"}},
	"groovy":    {opts: optSpec{flags: "dhnpv", withArg: "ecil", posix: true}, inline: []string{"e"}},
	"elixir":    {opts: optSpec{withArg: "er", posix: true, long: map[string]byte{"eval": 'r', "rpc-eval": 'r', "require": 'r', "pa": 'r', "pz": 'r', "app": 'r', "no-halt": 'n', "sname": 'r', "name": 'r', "cookie": 'r', "werl": 'n', "hidden": 'n'}}, inline: []string{"e", "eval", "rpc-eval"}, module: []string{"r", "require"}},
	"guile":     {opts: optSpec{flags: "hvqs", withArg: "celLx", posix: true}, inline: []string{"c", "e"}, module: []string{"l", "L"}},
	"racket":    {opts: optSpec{flags: "ivh", withArg: "eftlrpkm", posix: true}, inline: []string{"e"}, module: []string{"f", "t", "l", "r", "p"}},
	"sbcl":      {opts: optSpec{posix: true, long: map[string]byte{"eval": 'r', "load": 'r', "script": 'r', "non-interactive": 'n', "noinform": 'n', "core": 'r', "dynamic-space-size": 'r'}}, inline: []string{"eval"}, module: []string{"load", "script"}},
	"scala":     {opts: optSpec{withArg: "ecp", posix: true}, inline: []string{"e"}},
	"swift":     {opts: optSpec{posix: true}, noStdin: true},
	"kotlin":    {opts: optSpec{withArg: "e", posix: true}, inline: []string{"e"}},
	"jshell":    {opts: optSpec{posix: true}},
	"ghci":      {opts: optSpec{withArg: "e", posix: true}, inline: []string{"e"}},
	"qjs":       {opts: optSpec{flags: "hiImq", withArg: "eI", posix: true, long: map[string]byte{"eval": 'r', "include": 'r', "std": 'n', "module": 'n', "script": 'n'}}, inline: []string{"e", "eval"}},
}

// hInterp: inline code (-e, -c) and in-place edits are Unsafe; a script
// file is ProjectCode; no script means the program comes from standard
// input.
func hInterp(z *analyzer, c *cmd) {
	spec, ok := interpSpecs[c.base]
	if !ok {
		spec = interpSpec{opts: optSpec{posix: true}}
	}
	p := getopt(c.argv, 1, spec.opts)
	if p.dynOpt {
		z.unsafe("%s with an option only known at run time: %s", c.base, c.text)
	}
	inline := false
	for _, o := range p.opts {
		switch {
		case contains(spec.inline, o.name):
			inline = true
			z.unsafe("%s -%s runs code given on the command line: %s", c.base, o.name, c.text)
			if o.valIdx >= 0 && c.argv[o.valIdx].subDownload {
				z.dangerous("%s runs code it downloads: %s", c.base, c.text)
			}
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		case contains(spec.inplace, o.name):
			z.unsafe("%s -%s edits files in place: %s", c.base, o.name, c.text)
		case contains(spec.module, o.name):
			z.projectCode("%s -%s %s loads code that the workspace may provide", c.base, o.name, o.val)
			if o.name == "m" || o.name == "r" || o.name == "require" || o.name == "import" {
				inline = true // python -m runs a module instead of a script
			}
		case contains(spec.scriptOpt, o.name):
			inline = true
			if o.valIdx >= 0 {
				z.scriptFile(c, c.argv[o.valIdx])
			}
		case o.name == "i" && (c.base == "python" || c.base == "node" || c.base == "lua" || c.base == "php"):
			z.stdinProgram(c)
			inline = true
		}
	}
	if inline {
		return
	}
	if len(p.operands) == 0 && p.has("version", "help", "V", "h") || len(p.operands) == 0 && c.base != "python" && p.has("v") {
		return // prints its version or help
	}
	if len(p.operands) == 0 {
		if !spec.noStdin {
			z.stdinProgram(c)
		}
		return
	}
	z.scriptFile(c, c.argv[p.operands[0]])
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// hDeno: deno eval CODE is inline code; deno run/test/task run workspace
// or remote code.
func hDeno(z *analyzer, c *cmd) {
	if len(c.argv) < 2 {
		z.stdinProgram(c)
		return
	}
	sub := c.argv[1]
	switch sub.val {
	case "eval":
		z.unsafe("deno eval runs code given on the command line: %s", c.text)
	case "repl":
		z.stdinProgram(c)
	case "run", "test", "task", "bench", "serve", "compile", "install":
		for _, w := range c.argv[2:] {
			if strings.Contains(w.val, "://") && !strings.HasPrefix(w.val, "-") {
				z.unsafe("deno %s runs code from the network: %s", sub.val, w.val)
			}
		}
		z.projectCode("deno %s runs code from the workspace", sub.val)
	default:
		if !strings.HasPrefix(sub.val, "-") {
			z.projectCode("deno runs %s", sub.val)
		}
	}
}

// hBun: bun -e is inline code; bun run/test/x/install and bun FILE run
// workspace (or package) code.
func hBun(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if w.val == "-e" || w.val == "--eval" || w.val == "-p" || w.val == "--print" || strings.HasPrefix(w.val, "--eval=") || strings.HasPrefix(w.val, "--print=") {
			z.unsafe("bun %s runs code given on the command line: %s", w.val, c.text)
			return
		}
	}
	if len(c.argv) < 2 {
		z.stdinProgram(c)
		return
	}
	switch sub := c.argv[1].val; sub {
	case "run", "test", "x", "install", "i", "add", "build", "create", "pm", "exec", "update", "link":
		z.projectCode("bun %s runs package scripts or code from the workspace", sub)
	case "repl":
		z.stdinProgram(c)
	default:
		if !strings.HasPrefix(sub, "-") {
			z.projectCode("bun runs %s", sub)
		}
	}
}

func hBusybox(z *analyzer, c *cmd) {
	if len(c.argv) < 2 || strings.HasPrefix(c.argv[1].val, "-") {
		return
	}
	z.unsafe("busybox runs the applet named by its argument: %s", c.text)
	c.out = z.inner(c, 1, len(c.argv), nil)
}

// --- wrappers: programs that run their arguments as a command ---

func wrapperUnsafe(z *analyzer, c *cmd) {
	z.unsafe("%s runs another command, which a rule for %s does not cover: %s", c.base, c.base, c.text)
}

// innerWithEnv runs argv[from:] after leading NAME=value words, which the
// wrapper (env, sudo) puts in the environment.
func innerWithEnv(z *analyzer, c *cmd, from int) {
	var assigns []string
	i := from
	for ; i < len(c.argv); i++ {
		w := c.argv[i]
		name, _, ok := strings.Cut(w.val, "=")
		if !ok || !isName(name) {
			break
		}
		c.argv[i].nonPath = false
		val := w
		_, val.val, _ = strings.Cut(w.val, "=")
		z.checkAssignment(name, val, true, w.text)
		assigns = append(assigns, w.text)
	}
	z.inner(c, i, len(c.argv), assigns)
}

func hWrapPlain(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	z.inner(c, 1, len(c.argv), nil)
}

// hWrapOpts: a wrapper whose options are all flags (best effort: the inner
// command is found after the leading -words).
func hWrapOpts(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	i := 1
	for i < len(c.argv) && strings.HasPrefix(c.argv[i].val, "-") && c.argv[i].full {
		if c.argv[i].val == "--" {
			i++
			break
		}
		i++
	}
	z.inner(c, i, len(c.argv), nil)
}

// hWrapOpaque: a wrapper whose arguments the analyser does not take apart.
func hWrapOpaque(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
}

func hXargs(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	p := getopt(c.argv, 1, optSpec{flags: "0prtxo", withArg: "adEILnPs", optArg: "eil", posix: true,
		long: map[string]byte{"null": 'n', "arg-file": 'r', "delimiter": 'r', "eof": 'o', "replace": 'o', "max-lines": 'o',
			"max-args": 'r', "max-procs": 'r', "max-chars": 'r', "interactive": 'n', "no-run-if-empty": 'n', "verbose": 'n',
			"exit": 'n', "open-tty": 'n', "process-slot-var": 'r', "show-limits": 'n'}})
	for _, o := range p.opts {
		if o.valIdx >= 0 && o.name != "a" && o.name != "arg-file" {
			c.argv[o.valIdx].nonPath = true
		}
	}
	if len(p.operands) > 0 {
		z.inner(c, p.operands[0], len(c.argv), nil)
	} else {
		z.inner(c, len(c.argv)-1, len(c.argv)-1, nil) // xargs alone runs echo
	}
}

func hEnv(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "i0v", withArg: "uCSP", posix: true,
		long: map[string]byte{"ignore-environment": 'n', "null": 'n', "unset": 'r', "chdir": 'r', "split-string": 'r',
			"debug": 'n', "default-signal": 'o', "ignore-signal": 'o', "block-signal": 'o', "list-signal-handling": 'n', "argv0": 'r'}})
	if p.has("S", "split-string") {
		z.unsafe("env -S splits a string into a command: %s", c.text)
	}
	for _, o := range p.opts {
		if (o.name == "u" || o.name == "unset") && o.valIdx >= 0 {
			c.argv[o.valIdx].nonPath = true
		}
	}
	// Skip NAME=value operands to find the command.
	first := -1
	for _, i := range p.operands {
		w := c.argv[i]
		if name, _, ok := strings.Cut(w.val, "="); ok && isName(name) {
			continue
		}
		first = i
		break
	}
	if first < 0 {
		// Only prints the (modified) environment.
		for _, i := range p.operands {
			c.argv[i].nonPath = true
		}
		return
	}
	wrapperUnsafe(z, c)
	start := first
	if len(p.operands) > 0 {
		start = p.operands[0]
	}
	innerWithEnv(z, c, start)
}

func hNice(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{withArg: "n", numeric: true, posix: true, long: map[string]byte{"adjustment": 'r'}})
	if len(p.operands) == 0 {
		return // prints the niceness
	}
	wrapperUnsafe(z, c)
	z.inner(c, p.operands[0], len(c.argv), nil)
}

func hTimeout(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	p := getopt(c.argv, 1, optSpec{flags: "v", withArg: "sk", posix: true,
		long: map[string]byte{"signal": 'r', "kill-after": 'r', "preserve-status": 'n', "foreground": 'n', "verbose": 'n'}})
	if len(p.operands) > 1 {
		c.argv[p.operands[0]].nonPath = true
		z.inner(c, p.operands[1], len(c.argv), nil)
	}
}

// hTime is the time program (\time, /usr/bin/time); the time keyword is
// parsed as part of the statement and is transparent.
func hTime(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	p := getopt(c.argv, 1, optSpec{flags: "pvqa", withArg: "fo", posix: true,
		long: map[string]byte{"format": 'r', "output": 'r', "append": 'n', "portability": 'n', "verbose": 'n', "quiet": 'n'}})
	for _, o := range p.get("o", "output") {
		if o.valIdx >= 0 {
			z.checkWrite(c.argv[o.valIdx], c.st, "time -o")
		}
	}
	for _, o := range p.get("f", "format") {
		if o.valIdx >= 0 {
			c.argv[o.valIdx].nonPath = true
		}
	}
	if len(p.operands) > 0 {
		z.inner(c, p.operands[0], len(c.argv), nil)
	}
}

// hWatch: watch joins its arguments and runs them with sh -c, unless -x.
func hWatch(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	p := getopt(c.argv, 1, optSpec{flags: "bceghtxwrpC", withArg: "nq", optArg: "d", posix: true,
		long: map[string]byte{"interval": 'r', "differences": 'o', "precise": 'n', "no-title": 'n', "beep": 'n',
			"errexit": 'n', "chgexit": 'n', "equexit": 'r', "exec": 'n', "color": 'n', "no-color": 'n', "no-wrap": 'n', "no-rerun": 'n', "shotsdir": 'r'}})
	if len(p.operands) == 0 {
		return
	}
	if p.has("x", "exec") {
		z.inner(c, p.operands[0], len(c.argv), nil)
		return
	}
	var parts []string
	for _, i := range p.operands {
		w := c.argv[i]
		if !w.full {
			z.unsafe("watch runs a command only known at run time: %s", c.text)
			return
		}
		parts = append(parts, w.val)
	}
	z.script(strings.Join(parts, " "), c.st, "watch")
}

func hSudo(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "AbEeHiKklnPSsVvN", withArg: "ugpChDrtTUR", posix: true,
		long: map[string]byte{"user": 'r', "group": 'r', "prompt": 'r', "chdir": 'r', "close-from": 'r', "host": 'r',
			"role": 'r', "type": 'r', "other-user": 'r', "command-timeout": 'r', "chroot": 'r', "preserve-env": 'o',
			"login": 'n', "shell": 'n', "non-interactive": 'n', "stdin": 'n', "edit": 'n', "list": 'n', "validate": 'n',
			"remove-timestamp": 'n', "reset-timestamp": 'n', "background": 'n', "askpass": 'n', "set-home": 'n',
			"preserve-groups": 'n', "version": 'n', "help": 'n', "bell": 'n'}})
	if p.has("l", "list", "v", "validate", "k", "K", "V", "version", "h", "help", "reset-timestamp", "remove-timestamp") && len(p.operands) == 0 {
		return
	}
	z.unsafe("sudo runs a command as another user (usually root): %s", c.text)
	if p.has("e", "edit") {
		z.unsafe("sudo -e edits files as root: %s", c.text)
		return
	}
	if len(p.operands) == 0 {
		if p.has("s", "shell", "i", "login") {
			z.stdinProgram(c)
		}
		return
	}
	if p.has("s", "shell", "i", "login") {
		// sudo -s cmd runs cmd through the shell: sh -c "cmd args".
		var parts []string
		for _, i := range p.operands {
			parts = append(parts, c.argv[i].val)
		}
		z.script(strings.Join(parts, " "), c.st, "sudo -s")
		return
	}
	innerWithEnv(z, c, p.operands[0])
}

func hDoas(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "nsL", withArg: "uC", posix: true})
	if p.has("L") || p.has("C") && len(p.operands) == 0 {
		return
	}
	z.unsafe("doas runs a command as another user (usually root): %s", c.text)
	if len(p.operands) == 0 {
		z.stdinProgram(c)
		return
	}
	z.inner(c, p.operands[0], len(c.argv), nil)
}

func hSu(z *analyzer, c *cmd) {
	z.unsafe("su runs a shell as another user: %s", c.text)
	p := getopt(c.argv, 1, optSpec{flags: "flmpPTh", withArg: "cgGsw", long: map[string]byte{"command": 'r',
		"session-command": 'r', "shell": 'r', "group": 'r', "supp-group": 'r', "login": 'n', "preserve-environment": 'n',
		"whitelist-environment": 'r', "fast": 'n', "pty": 'n', "help": 'n', "version": 'n'}})
	for _, o := range p.get("c", "command", "session-command") {
		if o.valIdx >= 0 {
			z.scriptArg(c, c.argv[o.valIdx], "su -c")
			c.argv[o.valIdx].nonPath = true
			return
		}
	}
	z.stdinProgram(c)
}

func hStdbuf(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	p := getopt(c.argv, 1, optSpec{withArg: "ioe", posix: true, long: map[string]byte{"input": 'r', "output": 'r', "error": 'r'}})
	if len(p.operands) > 0 {
		z.inner(c, p.operands[0], len(c.argv), nil)
	}
}

func hSetsid(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	p := getopt(c.argv, 1, optSpec{flags: "cfw", posix: true, long: map[string]byte{"ctty": 'n', "fork": 'n', "wait": 'n'}})
	if len(p.operands) > 0 {
		z.inner(c, p.operands[0], len(c.argv), nil)
	}
}

func hChroot(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	p := getopt(c.argv, 1, optSpec{posix: true, long: map[string]byte{"userspec": 'r', "groups": 'r', "skip-chdir": 'n'}})
	if len(p.operands) > 1 {
		z.inner(c, p.operands[1], len(c.argv), nil)
	} else if len(p.operands) == 1 {
		z.stdinProgram(c)
	}
}

func hIonice(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "tPpu", withArg: "cn", posix: true, long: map[string]byte{"class": 'r', "classdata": 'r', "pid": 'n', "pgid": 'n', "uid": 'n', "ignore": 'n'}})
	if p.has("p", "P", "u", "pid", "pgid", "uid") || len(p.operands) == 0 {
		return
	}
	wrapperUnsafe(z, c)
	z.inner(c, p.operands[0], len(c.argv), nil)
}

func hStrace(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "cCdDfFhiknqrtTvVwxyYzZ", withArg: "abeEIoOpPsSuUX", posix: true})
	if len(p.operands) == 0 {
		return // attaches with -p
	}
	wrapperUnsafe(z, c)
	for _, o := range p.get("o") {
		if o.valIdx >= 0 {
			z.checkWrite(c.argv[o.valIdx], c.st, c.base+" -o")
		}
	}
	z.inner(c, p.operands[0], len(c.argv), nil)
}

func hParallel(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
}

func hScript(z *analyzer, c *cmd) {
	z.unsafe("script runs a shell or command and records the session to a file: %s", c.text)
	p := getopt(c.argv, 1, optSpec{flags: "aefqkhV", withArg: "cEIOBTm", long: map[string]byte{"command": 'r', "append": 'n',
		"return": 'n', "flush": 'n', "force": 'n', "quiet": 'n', "echo": 'r', "log-in": 'r', "log-out": 'r', "log-io": 'r',
		"log-timing": 'r', "logging-format": 'r', "output-limit": 'r', "timing": 'o'}})
	for _, o := range p.get("c", "command") {
		if o.valIdx >= 0 {
			z.scriptArg(c, c.argv[o.valIdx], "script -c")
			c.argv[o.valIdx].nonPath = true
			return
		}
	}
	z.stdinProgram(c)
}

func hFlock(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "sxunoFh", withArg: "wEc", posix: true, long: map[string]byte{"shared": 'n',
		"exclusive": 'n', "unlock": 'n', "nonblock": 'n', "timeout": 'r', "conflict-exit-code": 'r', "close": 'n',
		"command": 'r', "no-fork": 'n', "verbose": 'n'}})
	if cs := p.get("c", "command"); len(cs) > 0 {
		o := cs[0]
		wrapperUnsafe(z, c)
		if o.valIdx >= 0 {
			z.scriptArg(c, c.argv[o.valIdx], "flock -c")
			c.argv[o.valIdx].nonPath = true
		}
		return
	}
	if len(p.operands) > 1 {
		wrapperUnsafe(z, c)
		z.inner(c, p.operands[1], len(c.argv), nil)
	}
}

func hTaskset(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "acpV", posix: true, long: map[string]byte{"all-tasks": 'n', "cpu-list": 'n', "pid": 'n'}})
	if p.has("p", "pid") || len(p.operands) < 2 {
		return
	}
	wrapperUnsafe(z, c)
	c.argv[p.operands[0]].nonPath = true
	z.inner(c, p.operands[1], len(c.argv), nil)
}

// hAt: at and batch read commands from standard input (or -f file) and run
// them later.
func hAt(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if w.val == "-l" || w.val == "-r" || w.val == "-d" || w.val == "-c" {
			return
		}
	}
	z.unsafe("%s schedules commands to run later: %s", c.base, c.text)
	z.sink.meta[c.idx].interp = true
}

func hOpen(z *analyzer, c *cmd) {
	if c.base == "gio" && (len(c.argv) < 2 || c.argv[1].val != "open") {
		return
	}
	z.unsafe("%s opens its argument with whatever program is registered for it: %s", c.base, c.text)
}
