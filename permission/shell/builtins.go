package shell

// Shell builtins: eval, source, cd, read, set and the others that change the shell itself.

import "strings"

func init() {
	register(&program{handler: hEval, unbounded: "runs a string as shell code"}, "eval")
	register(&program{handler: hSource, unbounded: "runs a file as shell code"}, "source", ".")
	register(&program{handler: hExec, unbounded: "replaces the shell with another program"}, "exec")
	register(&program{handler: hAlias, unbounded: "defines or lists aliases"}, "alias")
	register(&program{handler: hTrap, unbounded: "runs a string as code later"}, "trap")
	register(&program{handler: hEnable, unbounded: "changes the shell's builtins"}, "enable")
	register(&program{handler: hBuiltin, text: true, unbounded: "runs a builtin"}, "builtin")
	register(&program{handler: hCommand, text: true}, "command")
	register(&program{handler: hHash, text: true, unbounded: "changes where commands are found"}, "hash")
	register(&program{handler: hSet, text: true}, "set")
	register(&program{handler: hShopt, text: true, unbounded: "changes the shell's options"}, "shopt")
	register(&program{handler: hCd, pure: true}, "cd", "pushd")
	register(&program{handler: hPopd, text: true, pure: true}, "popd")
	register(&program{handler: hRead, text: true, pure: true}, "read", "mapfile", "readarray", "getopts")
	register(&program{handler: hPrintf, text: true, pure: true}, "printf")
	register(&program{handler: hUnset, text: true, pure: true}, "unset")
	register(&program{handler: hTest, text: true, pure: true}, "test", "[")
	register(&program{handler: hCompgen, text: true, unbounded: "completes words, which may run commands"}, "compgen", "complete")
	register(&program{handler: hFc, unbounded: "runs commands from the history"}, "fc")
	register(&program{handler: hBind, unbounded: "binds keys to commands"}, "bind")
	register(&program{handler: hCoproc, unbounded: "runs a command in the background"}, "coproc")
}

// --- shell builtins ---

// eval runs its arguments as shell code: analysed when fixed, Unsafe always.
func hEval(z *analyzer, c *cmd) {
	z.unsafe("eval runs a string as shell code: %s", c.text)
	parts := make([]string, 0, len(c.argv)-1)
	fixed := true
	for _, w := range c.argv[1:] {
		switch {
		case w.subDownload:
			z.dangerous(escalates, "eval runs code it downloads: %s", c.text)
		case w.subDecode:
			z.dangerous(escalates, "eval runs code it decodes, hidden from review: %s", c.text)
		}
		fixed = fixed && w.full && !w.glob
		parts = append(parts, w.val)
	}
	if !fixed && !shellSetup(c.argv[1:]) {
		z.dangerous(escalates, "eval runs code only known at run time, hidden from review: %s", c.text)
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
	if z.sink.meta[c.idx].interp {
		z.sink.meta[c.idx].shell = true // . /dev/stdin <<< '…': its script
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
	// What the alias stands for runs once the alias is used (a later line,
	// or with expand_aliases): it is judged now.
	for _, w := range c.argv[1:] {
		if name, val, ok := strings.Cut(w.val, "="); ok && name != "" && w.full {
			z.script(val, c.st, "alias "+name)
		} else if ok && !w.full {
			z.dangerous(escalates, "alias %s stands for a command only known at run time: %s", name, c.text)
		}
	}
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
	if len(c.argv) > 1 {
		z.cannotBound(c, "command with arguments runs a program")
	}
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
	if len(c.argv) == 1 || hasAny(c, "-p") {
		z.unbounded("set prints the environment")
		z.sink.meta[c.idx].secretOut = true
	}
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
	if succ.cwd != c.st.cwd || succ.cwd == "" {
		succ.oldpwd = c.st.cwd
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

// shellSetupPrograms print shell code meant for eval: eval "$(ssh-agent
// -s)" sets up the shell, it does not hide a command.
var shellSetupPrograms = set("ssh-agent", "pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv", "direnv", "brew",
	"conda", "opam", "fnm", "zoxide", "starship", "mise", "rtx", "keychain", "gpg-agent", "dircolors", "luarocks",
	"thefuck", "fzf", "atuin", "rustup")

// shellSetup: every word eval gets is fixed or the output of a shell set-up
// program.
func shellSetup(words []wordInfo) bool {
	for _, w := range words {
		if w.full && !w.glob {
			continue
		}
		if !w.subst || len(w.subProgs) == 0 || w.subDownload || w.subDecode {
			return false
		}
		for _, p := range w.subProgs {
			if !shellSetupPrograms[p] {
				return false
			}
		}
	}
	return true
}
