package shell

// Shells: scripts in strings, script files, standard input.

import "strings"

func init() {
	register(&program{handler: hShell, unbounded: "runs a script"}, "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "oksh", "loksh",
		"pdksh", "ksh93", "bash5", "hush", "fish", "csh", "tcsh", "elvish", "nu", "xonsh", "pwsh", "powershell")
	register(&program{handler: hBusybox, unbounded: "runs the applet its argument names"}, "busybox")
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

func hBusybox(z *analyzer, c *cmd) {
	if len(c.argv) < 2 || strings.HasPrefix(c.argv[1].val, "-") {
		return
	}
	z.unsafe("busybox runs the applet named by its argument: %s", c.text)
	c.out = z.inner(c, 1, len(c.argv), nil)
}
