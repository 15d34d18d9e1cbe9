package shell

// System administration: power, processes, schedules, history.

import "strings"

func init() {
	register(&program{handler: hShutdown, unbounded: "changes the system or its processes"}, "shutdown", "reboot", "halt", "poweroff", "kexec", "killall5")
	register(&program{handler: hInit, unbounded: "changes the system or its processes"}, "init", "telinit")
	register(&program{handler: hSystemctl, unbounded: "changes the system or its processes"}, "systemctl", "loginctl")
	register(&program{handler: hKill, text: true, unbounded: "signals processes"}, "kill")
	register(&program{handler: hPkill, text: true, unbounded: "signals processes"}, "pkill", "killall")
	register(&program{handler: hCrontab, unbounded: "schedules commands"}, "crontab")
	register(&program{handler: hHistory, text: true, unbounded: "reads or changes the shell history"}, "history")
	register(&program{handler: hAt, unbounded: "schedules commands"}, "at", "batch")
	register(&program{handler: hServices, unbounded: "manages services"}, "launchctl", "update-rc.d", "chkconfig", "rc-update")
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
	z.dangerous(escalates, "%s schedules commands that run later, outside the session: %s", c.base, c.text)
	z.sink.meta[c.idx].interp = true
}

func hShutdown(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if w.val == "--help" || w.val == "-c" || w.val == "--version" {
			return
		}
	}
	z.dangerous(destroys, "%s stops or restarts the machine or its processes: %s", c.base, c.text)
}

func hInit(z *analyzer, c *cmd) {
	if len(c.argv) > 1 {
		switch c.argv[1].val {
		case "0", "6", "1", "s", "S", "single", "emergency", "rescue", "reboot", "halt", "poweroff":
			z.dangerous(destroys, "%s %s changes the run level (halt, reboot or single-user): %s", c.base, c.argv[1].val, c.text)
		}
	}
}

func hSystemctl(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		switch w.val {
		case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate",
			"rescue", "emergency", "soft-reboot", "terminate-session", "kill-session", "terminate-user", "kill-user",
			"terminate-seat":
			z.dangerous(destroys, "%s %s stops the machine or the user's session: %s", c.base, w.val, c.text)
			return
		case "enable", "reenable", "link", "add-wants", "add-requires", "edit", "set-default", "preset", "preset-all", "revert", "mask":
			if c.base == "systemctl" {
				z.dangerous(escalates, "systemctl %s installs or changes a service, which starts later on its own: %s", w.val, c.text)
				return
			}
		case "enable-linger":
			z.dangerous(escalates, "loginctl enable-linger keeps the user's services running after the session: %s", c.text)
			return
		case "isolate":
			z.dangerous(destroys, "%s isolate changes what runs on the machine: %s", c.base, c.text)
			return
		}
	}
}

// hKill: a pid of -1 means every process the user may signal.
func hKill(z *analyzer, c *cmd) {
	sig := false
	for i := 1; i < len(c.argv); i++ {
		a := c.argv[i].val
		if !c.argv[i].full {
			continue
		}
		switch {
		case !sig && (a == "-l" || a == "-L"):
			return
		case !sig && a == "--":
			sig = true
		case !sig && (a == "-s" || a == "-n"):
			i++
			sig = true
		case !sig && strings.HasPrefix(a, "-") && len(a) > 1:
			sig = true // the signal: -9, -KILL, -SIGTERM
		case a == "-1":
			z.dangerous(destroys, "kill -1 signals every process the user owns: %s", c.text)
			return
		default:
			sig = true
		}
	}
}

// hPkill: pkill -u/killall -u with no pattern kills every process of a user.
func hPkill(z *analyzer, c *cmd) {
	user, pattern, all := false, false, false
	regex := c.base == "pkill"
	for i := 1; i < len(c.argv); i++ {
		a := c.argv[i].val
		switch {
		case a == "-r" || a == "--regexp":
			regex = true
		case a == "-u" || a == "-U" || a == "--user" || a == "--euid" || a == "--uid":
			user = true
			i++
		case strings.HasPrefix(a, "-u") || strings.HasPrefix(a, "--user=") || strings.HasPrefix(a, "--euid=") || strings.HasPrefix(a, "--uid="):
			user = true
		case strings.HasPrefix(a, "-"):
			if a == "-s" || a == "--signal" || a == "-g" || a == "-G" || a == "-P" || a == "-t" || a == "-F" || a == "-o" || a == "-y" {
				i++
			}
		default:
			if matchesAll[a] {
				all = true
			} else {
				pattern = true
			}
		}
	}
	switch {
	case user && !pattern:
		z.dangerous(destroys, "%s without a pattern kills every process of a user: %s", c.base, c.text)
	case all && regex:
		z.dangerous(destroys, "%s with a pattern that matches every name kills every process it may: %s", c.base, c.text)
	}
}

// hCrontab: installing or removing a crontab runs commands later, outside
// the session (persistence). Listing is fine.
func hCrontab(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "lreiT", withArg: "us", posix: false})
	if p.has("l", "T") && !p.has("r", "e") && len(p.operands) == 0 && !p.dynOpt {
		return
	}
	if p.has("r") {
		z.dangerous(destroys, "crontab -r removes the user's scheduled commands: %s", c.text)
		return
	}
	z.dangerous(escalates, "crontab installs commands that run later, outside the session: %s", c.text)
}

func hHistory(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "-") && strings.ContainsAny(w.val, "cd") {
			z.dangerous(destroys, "history %s erases the shell history: %s", w.val, c.text)
			return
		}
	}
}

// hServices: launchctl load, update-rc.d … defaults, chkconfig … on and
// rc-update add install services or agents that start later on their own.
func hServices(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		switch w.val {
		case "load", "bootstrap", "enable", "submit", "defaults", "on", "add", "--add":
			z.dangerous(escalates, "%s %s installs a service or agent that starts later on its own: %s", c.base, w.val, c.text)
			return
		}
	}
}

// matchesAll are process-name patterns that match every name.
var matchesAll = set("", ".", ".*", "^", "$", "^.*$", ".+", "^.", "[a-z]*", "*")
