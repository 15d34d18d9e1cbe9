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
	register(wrapper(hAsRoot), "pkexec", "run0", "runuser", "sudoedit")
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
