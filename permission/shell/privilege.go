package shell

// Running as another user: sudo, doas, su, pkexec, run0, runuser. Whatever
// they run, they escalate: the command runs with another user's rights,
// usually root's, where the workspace's sandbox and the user's files are
// no limit.

import "strings"

func init() {
	register(wrapper(hSudo), "sudo")
	register(wrapper(hDoas), "doas")
	register(wrapper(hSu), "su")
	register(wrapper(hAsRoot), "pkexec", "run0", "sudoedit")
	register(wrapper(hRunuser), "runuser", "sg")
	register(wrapper(hNsenter), "nsenter")
}

// hRunuser: runuser -u USER CMD…, runuser [-l] USER -c CMD and sg GROUP
// [-c] CMD run a command as another user or group.
func hRunuser(z *analyzer, c *cmd) {
	z.unsafe("%s runs a command as another user or group: %s", c.base, c.text)
	z.dangerous(escalates, "%s runs a command as another user or group: %s", c.base, c.text)
	named := false
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		switch {
		case w.val == "-c" || w.val == "--command" || w.val == "--session-command":
			if i+1 < len(c.argv) {
				c.argv[i+1].nonPath = true
				z.scriptArg(c, c.argv[i+1], c.base+" -c")
			}
			return
		case w.val == "--":
			z.inner(c, i+1, len(c.argv), nil)
			return
		case w.val == "-u" || w.val == "-g" || w.val == "-G" || w.val == "--user" || w.val == "--group" || w.val == "-s" || w.val == "--shell":
			i++
			named = true
		case strings.HasPrefix(w.val, "-"):
		case !named:
			named = true // the user or group
		default:
			z.inner(c, i, len(c.argv), nil)
			return
		}
	}
}

// hNsenter enters another process's namespaces (nsenter -t 1 -a: the
// host's) and runs a command there.
func hNsenter(z *analyzer, c *cmd) {
	wrapperUnsafe(z, c)
	z.dangerous(escalates, "nsenter runs a command in another process's namespaces, such as the host's: %s", c.text)
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		switch {
		case w.val == "-t" || w.val == "--target" || w.val == "-S" || w.val == "--setuid" || w.val == "-G" || w.val == "--setgid" ||
			w.val == "-r" || w.val == "-w" || w.val == "--root" || w.val == "--wd":
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

// hAsRoot: pkexec, run0 and runuser run their arguments as another user.
func hAsRoot(z *analyzer, c *cmd) {
	z.dangerous(escalates, "%s runs a command as another user (usually root): %s", c.base, c.text)
	hWrapOpts(z, c)
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
	z.dangerous(escalates, "sudo runs a command as another user (usually root): %s", c.text)
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
	z.dangerous(escalates, "doas runs a command as another user (usually root): %s", c.text)
	if len(p.operands) == 0 {
		z.stdinProgram(c)
		return
	}
	z.inner(c, p.operands[0], len(c.argv), nil)
}

func hSu(z *analyzer, c *cmd) {
	z.unsafe("su runs a shell as another user: %s", c.text)
	z.dangerous(escalates, "su runs a shell as another user (usually root): %s", c.text)
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
