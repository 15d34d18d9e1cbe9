package shell

import (
	"path"
	"strings"
)

// checkWrite judges a file a command writes (a redirection, tee, cp's
// target, sed -i, curl -o, …). Dangerous: start-up files, keys, history,
// system trees, disks, NovaCode's settings. Unsafe: anywhere else outside
// the workspace, .git and similar inside it, network pseudo-files.
func (z *analyzer) checkWrite(w wordInfo, st state, what string) {
	for _, v := range writeValues(w) {
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
			z.unsafe("%s opens a network connection (%s)", what, v)
			continue
		}
		a, ok := z.absPath(v, st)
		if !ok {
			// A relative path after a cd the analyser could not follow:
			// still Dangerous if any directory it may be in makes it so.
			for _, alt := range z.absPaths(v, st) {
				if r := z.protectedWrite(alt); r != "" {
					z.dangerous("%s writes %s: %s", what, v, r)
					break
				}
			}
			if w.full {
				z.unsafe("%s writes %s in a directory the analyser could not follow", what, v)
			}
			continue
		}
		if harmlessTargets[a] {
			continue
		}
		if r := z.protectedWrite(a); r != "" {
			z.dangerous("%s writes %s: %s", what, v, r)
			continue
		}
		if z.opt.Workspace == "" || !within(a, z.opt.Workspace) {
			z.unsafe("%s writes %s, outside the workspace", what, a)
			continue
		}
		if r := protectedInWorkspace(a); r != "" {
			z.unsafe("%s writes %s", what, r)
		}
	}
}

// writeValues are the values to judge for a written word: the known value,
// the loop candidates, or the value with unknown parts empty ("$X/.bashrc"
// may be /.bashrc; "$HOME"/.bashrc is resolved).
func writeValues(w wordInfo) []string {
	if len(w.alts) > 0 {
		return w.alts
	}
	if w.full || !w.unknownLead {
		return []string{w.val}
	}
	return nil
}

// checkRead judges a file a redirection reads.
func (z *analyzer) checkRead(w wordInfo, st state, what string) {
	for _, v := range writeValues(w) {
		if strings.HasPrefix(v, "/dev/tcp/") || strings.HasPrefix(v, "/dev/udp/") {
			z.unsafe("%s opens a network connection (%s)", what, v)
			continue
		}
		if r := z.outside(v, st); r != "" {
			z.unsafe("%s reads a path outside the workspace: %s", what, r)
		}
	}
}

// destroys judges a path that a command deletes or changes recursively.
func (z *analyzer) destroys(w wordInfo, st state, what string) {
	// Unknown parts count as empty: "$DIR"/* is /* when DIR is unset, the
	// classic way scripts wipe the root. A word that starts with an
	// unknown value and does not then start at / ("$X", "$X"foo) depends
	// on that value only: an empty argument makes rm fail.
	if !w.full && len(w.alts) == 0 && w.unknownLead && !strings.HasPrefix(w.val, "/") {
		return
	}
	for _, v := range w.values() {
		if r := z.destroyTarget(v, st); r != "" {
			z.dangerous("%s %s", what, r)
			return
		}
	}
}

func addDangerHandlers() {
	for name, h := range map[string]handler{
		"rm": hRm, "unlink": hUnlink, "shred": hShred, "truncate": hTruncate, "srm": hRm, "trash": hRm,
		"trash-put": hRm,
		"chmod":     hChmod, "chown": hChmod, "chgrp": hChmod, "chattr": hChmod, "setfacl": hChmod,
		"dd": hDd, "mkfs": hMkfs, "wipefs": hWipefs, "blkdiscard": hMkfs, "fdisk": hFdisk, "sfdisk": hFdisk,
		"cfdisk": hFdisk, "gdisk": hFdisk, "sgdisk": hFdisk, "parted": hFdisk, "cryptsetup": hCryptsetup,
		"lvremove": hMkfs, "vgremove": hMkfs, "pvremove": hMkfs, "zpool": hZfs, "zfs": hZfs,
		"shutdown": hShutdown, "reboot": hShutdown, "halt": hShutdown, "poweroff": hShutdown, "kexec": hShutdown,
		"init": hInit, "telinit": hInit, "systemctl": hSystemctl, "loginctl": hSystemctl,
		"kill": hKill, "pkill": hPkill, "killall": hPkill, "killall5": hShutdown,
		"crontab": hCrontab, "history": hHistory,
	} {
		handlers[name] = h
	}
}

var rmSpec = optSpec{flags: "rRfiIdvP", long: map[string]byte{"recursive": 'n', "force": 'n', "interactive": 'o',
	"one-file-system": 'n', "no-preserve-root": 'n', "preserve-root": 'o', "dir": 'n', "verbose": 'n', "help": 'n', "version": 'n'}}

// hRm: a recursive or forced delete of /, ~, the workspace, an ancestor of
// them or their contents is Dangerous; deleting a start-up file, key or
// history file is Dangerous whatever the flags.
func hRm(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, rmSpec)
	recursive := p.has("r", "R", "recursive") || p.dynOpt || c.base != "rm"
	force := p.has("f", "force") || p.dynOpt
	for _, i := range p.operands {
		w := c.argv[i]
		if recursive || force {
			z.destroys(w, c.st, c.base+" -r deletes")
		}
		z.deletesProtected(w, c.st, c.base)
	}
}

func (z *analyzer) deletesProtected(w wordInfo, st state, prog string) {
	for _, v := range writeValues(w) {
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(v, st) {
			if r := z.protectedWrite(a); r != "" {
				z.dangerous("%s deletes %s: %s", prog, v, r)
				return
			}
		}
	}
}

func hUnlink(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		z.deletesProtected(w, c.st, "unlink")
	}
}

// hShred overwrites files: a disk or a protected file is Dangerous.
func hShred(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "fuvxz", withArg: "ns", long: map[string]byte{"force": 'n', "iterations": 'r',
		"random-source": 'r', "size": 'r', "remove": 'o', "verbose": 'n', "exact": 'n', "zero": 'n'}})
	for _, i := range p.operands {
		z.checkWrite(c.argv[i], c.st, "shred")
		z.destroys(c.argv[i], c.st, "shred overwrites")
	}
}

func hTruncate(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "co", withArg: "rs", long: map[string]byte{"no-create": 'n', "io-blocks": 'n', "reference": 'r', "size": 'r'}})
	for _, i := range p.operands {
		z.checkWrite(c.argv[i], c.st, "truncate")
	}
}

// hChmod: chmod/chown/chgrp -R on /, ~, the workspace or their ancestors
// is Dangerous (chmod -R 777 /, chown -R nobody /).
func hChmod(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "RcfvhHLPV", long: map[string]byte{"recursive": 'n', "reference": 'r',
		"from": 'r', "changes": 'n', "silent": 'n', "quiet": 'n', "verbose": 'n', "dereference": 'n', "no-dereference": 'n',
		"preserve-root": 'n', "no-preserve-root": 'n', "help": 'n', "version": 'n'}})
	recursive := p.has("R", "recursive") || p.dynOpt
	ops := p.operands
	// chmod -x file: GNU chmod takes a mode that looks like an option.
	modeAsOpt := false
	for _, o := range p.opts {
		if c.base == "chmod" && !o.long && strings.Contains("rwxXstugoa", o.name) {
			modeAsOpt = true
		}
	}
	if !p.has("reference") && len(ops) > 0 && c.base != "chattr" && !modeAsOpt {
		c.argv[ops[0]].nonPath = true // the mode or owner
		ops = ops[1:]
	}
	for _, i := range ops {
		w := c.argv[i]
		if recursive {
			z.destroys(w, c.st, c.base+" -R changes")
		} else if w.full && (w.val == "/" || z.opt.Home != "" && w.val == z.opt.Home) {
			z.dangerous("%s changes %s", c.base, w.val)
		}
	}
}

// hDd: of= a disk or protected file is Dangerous.
func hDd(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "of=") {
			t := w
			t.val = strings.TrimPrefix(w.val, "of=")
			t.unknownLead = t.val == "" && !w.full
			z.checkWrite(t, c.st, "dd")
		}
	}
}

func hMkfs(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if w.val == "--help" || w.val == "-V" || w.val == "--version" {
			return
		}
	}
	z.dangerous("%s destroys the data on a disk or volume: %s", c.prog, c.text)
}

func hWipefs(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "afnqbiJhV", withArg: "otO", long: map[string]byte{"all": 'n', "force": 'n',
		"no-act": 'n', "offset": 'r', "types": 'r', "backup": 'o', "quiet": 'n', "json": 'n', "noheadings": 'n', "output": 'r', "lock": 'o', "parsable": 'n'}})
	if p.has("n", "no-act") || !p.has("a", "all", "o", "offset") && !p.dynOpt {
		return // lists signatures
	}
	z.dangerous("wipefs erases file-system signatures: %s", c.text)
}

// hFdisk: partition editors are Dangerous unless they only list.
func hFdisk(z *analyzer, c *cmd) {
	list := set("-l", "--list", "-s", "--show-size", "-d", "--dump", "-J", "--json", "-p", "--print", "print", "--help",
		"-h", "-V", "--version", "-v", "--verify", "-x", "--list-free", "-F", "--list-types", "-T")
	for _, w := range c.argv[1:] {
		if list[w.val] {
			return
		}
	}
	if len(c.argv) == 1 && c.base != "cfdisk" {
		return
	}
	z.dangerous("%s changes disk partitions: %s", c.base, c.text)
}

func hCryptsetup(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		switch w.val {
		case "luksFormat", "erase", "luksErase", "format", "reencrypt", "luksKillSlot", "luksRemoveKey":
			z.dangerous("cryptsetup %s destroys encrypted data or keys: %s", w.val, c.text)
			return
		}
	}
}

func hZfs(z *analyzer, c *cmd) {
	if len(c.argv) > 1 && (c.argv[1].val == "destroy" || c.argv[1].val == "labelclear") {
		z.dangerous("%s %s destroys a pool or data set: %s", c.base, c.argv[1].val, c.text)
	}
}

func hShutdown(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if w.val == "--help" || w.val == "-c" || w.val == "--version" {
			return
		}
	}
	z.dangerous("%s stops or restarts the machine or its processes: %s", c.base, c.text)
}

func hInit(z *analyzer, c *cmd) {
	if len(c.argv) > 1 {
		switch c.argv[1].val {
		case "0", "6", "1", "s", "S", "single", "emergency", "rescue", "reboot", "halt", "poweroff":
			z.dangerous("%s %s changes the run level (halt, reboot or single-user): %s", c.base, c.argv[1].val, c.text)
		}
	}
}

func hSystemctl(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		switch w.val {
		case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep", "suspend-then-hibernate",
			"rescue", "emergency", "soft-reboot", "terminate-session", "kill-session", "terminate-user", "kill-user",
			"terminate-seat":
			z.dangerous("%s %s stops the machine or the user's session: %s", c.base, w.val, c.text)
			return
		case "isolate":
			z.dangerous("%s isolate changes what runs on the machine: %s", c.base, c.text)
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
			z.dangerous("kill -1 signals every process the user owns: %s", c.text)
			return
		default:
			sig = true
		}
	}
}

// hPkill: pkill -u/killall -u with no pattern kills every process of a user.
func hPkill(z *analyzer, c *cmd) {
	user := false
	pattern := false
	for i := 1; i < len(c.argv); i++ {
		a := c.argv[i].val
		switch {
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
			if a != "." && a != ".*" && a != "" {
				pattern = true
			}
		}
	}
	if user && !pattern {
		z.dangerous("%s without a pattern kills every process of a user: %s", c.base, c.text)
	}
}

// hCrontab: installing or removing a crontab runs commands later, outside
// the session (persistence). Listing is fine.
func hCrontab(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "lreiT", withArg: "us", posix: false})
	if p.has("l", "T") && !p.has("r", "e") && len(p.operands) == 0 && !p.dynOpt {
		return
	}
	z.dangerous("crontab installs or removes scheduled commands: %s", c.text)
}

func hHistory(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "-") && strings.ContainsAny(w.val, "cd") {
			z.dangerous("history %s erases the shell history: %s", w.val, c.text)
			return
		}
	}
}

// copyTargets returns the words cp, mv, install and ln write to: the -t
// directory or the last operand, and, as the target may be a directory,
// the target joined with each source's name (cp x ~ writes ~/x).
func (z *analyzer) copyTargets(c *cmd, p parsed) (targets, joined []wordInfo, sources []int) {
	if ts := p.get("t", "target-directory"); len(ts) > 0 {
		for _, t := range ts {
			if t.valIdx >= 0 {
				w := c.argv[t.valIdx]
				if t.valIdx == t.idx {
					w.val = t.val
				}
				targets = append(targets, w)
			}
		}
		sources = p.operands
	} else if len(p.operands) >= 2 {
		last := p.operands[len(p.operands)-1]
		targets = append(targets, c.argv[last])
		sources = p.operands[:len(p.operands)-1]
	} else if c.base == "ln" && len(p.operands) == 1 {
		// ln -s target: the link is made in the working directory under
		// the target's name.
		t := c.argv[p.operands[0]]
		t.val = path.Base(t.val)
		return []wordInfo{t}, nil, nil
	}
	if p.has("T", "no-target-directory") {
		return targets, nil, sources
	}
	for _, t := range targets {
		for _, s := range sources {
			src := c.argv[s]
			if !src.full || !t.full {
				continue
			}
			j := t
			j.val = strings.TrimRight(t.val, "/") + "/" + path.Base(strings.TrimRight(src.val, "/"))
			joined = append(joined, j)
		}
	}
	return targets, joined, sources
}

// dangerWrite is checkWrite's Dangerous half only, for paths a command may
// write (cp's target joined with a source name).
func (z *analyzer) dangerWrite(w wordInfo, st state, what string) {
	for _, v := range writeValues(w) {
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(v, st) {
			if r := z.protectedWrite(a); r != "" {
				z.dangerous("%s writes %s: %s", what, v, r)
				return
			}
		}
	}
}
