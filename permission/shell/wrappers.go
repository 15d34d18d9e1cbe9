package shell

// Wrappers: programs that run their arguments as a command.

import "strings"

func init() {
	register(wrapper(hXargs), "xargs")
	register(wrapper(hEnv), "env")
	register(&program{handler: hNice, text: true, unbounded: "runs another command"}, "nice")
	register(wrapper(hTimeout), "timeout")
	register(wrapper(hTime), "time")
	register(wrapper(hWatch), "watch")
	register(wrapper(hStdbuf), "stdbuf")
	register(wrapper(hSetsid), "setsid")
	register(wrapper(hChroot), "chroot")
	register(wrapper(hIonice), "ionice")
	register(wrapper(hStrace), "strace", "ltrace")
	register(wrapper(hParallel), "parallel")
	register(wrapper(hScript), "script")
	register(wrapper(hFlock), "flock")
	register(wrapper(hTaskset), "taskset")
	register(wrapper(hWrapPlain), "nohup", "unbuffer", "catchsegv", "tsocks", "with-contenv", "winpty")
	register(wrapper(hWrapOpts), "caffeinate", "firejail", "unshare", "fakeroot", "fakechroot",
		"torsocks", "proxychains", "proxychains4", "valgrind", "prlimit", "tini", "dumb-init", "entr",
		"ssh-agent", "dbus-run-session", "rlwrap")
	register(wrapper(hWrapOpaque), "bwrap", "newgrp", "proot", "cpulimit",
		"numactl", "chrt", "gdb", "perf", "faketime", "sshpass", "xvfb-run", "mpirun", "srun", "nix-shell",
		"direnv", "aws-vault", "op", "dotenv", "cross-env", "env-cmd")
	register(wrapper(hSystemdRun), "systemd-run")
	register(&program{handler: hOpen, unbounded: "opens its argument with another program"}, "open", "xdg-open", "gio", "start", "explorer", "wslview", "sensible-browser", "x-www-browser")
}

// wrapper describes a program that runs another command: what that command
// touches is its own business, but the wrapper's reach is not bounded.
func wrapper(h func(z *analyzer, c *cmd)) *program {
	return &program{handler: h, unbounded: "runs another command"}
}

// wrapperUnsafe: a rule for a wrapper does not cover what it runs.
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
		for _, o := range p.get("S", "split-string") {
			z.scriptArg(c, optValue(c, o), "env -S")
		}
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
		// Only prints the (modified) environment, tokens and all.
		for _, i := range p.operands {
			c.argv[i].nonPath = true
		}
		z.sink.meta[c.idx].secretOut = true
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
			c.argv[o.valIdx].nonPath = true
			z.writeFile(c, optValue(c, o), p.has("a", "append"), "time -o")
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
			c.argv[o.valIdx].nonPath = true
			z.writeFile(c, optValue(c, o), false, c.base+" -o")
		}
	}
	z.inner(c, p.operands[0], len(c.argv), nil)
}

// hParallel: parallel CMD ::: ARGS… runs CMD with each argument ({} stands
// for it, or it is appended); the commands it builds are analysed.
func hParallel(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	sep := -1
	for i, w := range c.argv {
		if w.val == ":::" || w.val == "::::" || w.val == ":::+" {
			sep = i
			break
		}
	}
	first := 1
	for first < len(c.argv) && first != sep && strings.HasPrefix(c.argv[first].val, "-") {
		if v := c.argv[first].val; v == "-j" || v == "--jobs" || v == "-S" || v == "--sshlogin" || v == "--delay" || v == "--timeout" {
			first++
		}
		first++
	}
	end := len(c.argv)
	if sep >= 0 {
		end = sep
	}
	if first >= end {
		return
	}
	var cmdWords []string
	for _, w := range c.argv[first:end] {
		if !w.full {
			z.unsafe("parallel runs a command only known at run time: %s", c.text)
			return
		}
		cmdWords = append(cmdWords, w.val)
	}
	cmdline := strings.Join(cmdWords, " ")
	if sep < 0 || c.argv[sep].val == "::::" {
		z.script(cmdline, c.st, "parallel") // arguments from its input or a file
		return
	}
	for _, w := range c.argv[sep+1:] {
		if !w.full || w.val == ":::" {
			continue
		}
		arg := shellQuote(w.val)
		if strings.Contains(cmdline, "{}") {
			z.script(strings.ReplaceAll(cmdline, "{}", arg), c.st, "parallel")
		} else {
			z.script(cmdline+" "+arg, c.st, "parallel")
		}
	}
}

func hScript(z *analyzer, c *cmd) {
	z.unsafe("script runs a shell or command and records the session to a file: %s", c.text)
	p := getopt(c.argv, 1, optSpec{flags: "aefqkhV", withArg: "cEIOBTm", long: map[string]byte{"command": 'r', "append": 'n',
		"return": 'n', "flush": 'n', "force": 'n', "quiet": 'n', "echo": 'r', "log-in": 'r', "log-out": 'r', "log-io": 'r',
		"log-timing": 'r', "logging-format": 'r', "output-limit": 'r', "timing": 'o'}})
	// The session is recorded in the file operand (typescript by default).
	record := wordInfo{text: "typescript", lit: "typescript", val: "typescript", full: true}
	if len(p.operands) > 0 {
		record = c.argv[p.operands[0]]
		c.argv[p.operands[0]].nonPath = true
	}
	z.writeFile(c, record, p.has("a", "append"), "script")
	for _, o := range p.get("O", "log-out", "I", "log-in", "B", "log-io", "T", "log-timing") {
		if o.valIdx < 0 {
			continue
		}
		c.argv[o.valIdx].nonPath = true
		z.writeFile(c, optValue(c, o), false, "script")
	}
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
		// flock -c runs its (first) string with sh -c.
		wrapperUnsafe(z, c)
		if o := cs[0]; o.valIdx >= 0 {
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

func hOpen(z *analyzer, c *cmd) {
	if c.base == "gio" && (len(c.argv) < 2 || c.argv[1].val != "open") {
		return
	}
	z.unsafe("%s opens its argument with whatever program is registered for it: %s", c.base, c.text)
}

// hSystemdRun runs its command as a transient service (with a timer,
// later and again: persistence).
func hSystemdRun(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	values := set("-p", "--property", "-u", "--unit", "-M", "--machine", "-E", "--setenv", "--uid", "--gid", "--nice",
		"--working-directory", "--description", "--slice", "-H", "--host", "--timer-property", "--path-property",
		"--socket-property", "--expand-environment")
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		name, _, _ := strings.Cut(w.val, "=")
		switch {
		case strings.HasPrefix(name, "--on-") || name == "--timer-property":
			z.dangerous(escalates, "systemd-run %s schedules a command that runs later, outside the session: %s", name, c.text)
			if !strings.Contains(w.val, "=") {
				i++
			}
		case values[w.val]:
			i++
		case w.val == "--":
			z.inner(c, i+1, len(c.argv), nil)
			return
		case strings.HasPrefix(w.val, "-"):
		default:
			z.inner(c, i, len(c.argv), nil)
			return
		}
	}
}
