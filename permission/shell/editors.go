package shell

// Editors and pagers: options that run commands.

import "strings"

func init() {
	register(&program{handler: hMan, text: true, unbounded: "runs a pager"}, "man")
	register(&program{handler: hVim, unbounded: "runs an editor or pager"}, "vim")
	register(&program{handler: hEmacs, unbounded: "runs an editor or pager"}, "emacs")
	register(&program{handler: hLess, unbounded: "runs an editor or pager"}, "less", "more")
}

func hMan(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := w.val
		if strings.HasPrefix(a, "-P") || strings.HasPrefix(a, "-H") || strings.HasPrefix(a, "-B") || longFlag(a, "pager") || longFlag(a, "html") || longFlag(a, "browser") {
			z.unsafe("man %s runs a pager or browser the command names: %s", a, c.text)
		}
	}
	c.noFiles = true
}

func hLess(z *analyzer, c *cmd) {
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		if strings.HasPrefix(w.val, "+") && strings.Contains(w.val, "!") {
			z.unsafe("%s %s runs a shell command: %s", c.base, w.val, c.text)
		}
		// -o FILE and -O FILE copy what less shows into FILE.
		name, val, hasVal := strings.Cut(w.val, "=")
		log := name == "-o" || name == "-O" || longFlag(name, "log-file") || longFlag(name, "LOG-FILE")
		if !log && (strings.HasPrefix(w.val, "-o") || strings.HasPrefix(w.val, "-O")) && len(w.val) > 2 {
			c.argv[i].nonPath = true
			z.writeFile(c, valuePart(w, w.val[2:]), false, c.base+" -o")
			continue
		}
		if !log {
			continue
		}
		c.argv[i].nonPath = true
		v := valuePart(w, val)
		if !hasVal && i+1 < len(c.argv) {
			i++
			c.argv[i].nonPath = true
			v = c.argv[i]
		}
		z.writeFile(c, v, false, c.base+" "+name)
	}
}

// hVim: -c, --cmd, +cmd, -S and -s run editor commands, which include :!.
func hVim(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := w.val
		if a == "-c" || a == "--cmd" || a == "-S" || a == "-s" || a == "-u" || a == "-U" || a == "-W" || a == "-w" ||
			strings.HasPrefix(a, "+") && len(a) > 1 && a[1] != '/' && !isNumber(a[1:]) || strings.HasPrefix(a, "--cmd=") ||
			a == "-e" || a == "-E" || a == "--headless" || a == "-l" {
			z.unsafe("%s %s runs editor commands, which can run programs: %s", c.base, a, c.text)
			return
		}
	}
}

func hEmacs(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		a := w.val
		if a == "-l" || a == "-f" || a == "-x" || a == "--batch" || a == "--script" || longFlag(a, "eval") || longFlag(a, "load") || longFlag(a, "funcall") || longFlag(a, "script") {
			z.unsafe("emacs %s runs Lisp code: %s", a, c.text)
			return
		}
	}
}
