package shell

// Remote shells and copies: ssh, scp, rsync.

import "strings"

func init() {
	register(&program{handler: hSSH, unbounded: "reaches another host"}, "ssh")
	register(&program{handler: hScp, unbounded: "reaches another host"}, "scp")
	register(&program{handler: hRsync, unbounded: "reaches another host"}, "rsync")
}

// sshOptUnsafe: ssh -o options that run local commands or read more
// configuration.
func sshOptUnsafe(v string) bool {
	l := strings.ToLower(strings.TrimSpace(v))
	for _, k := range []string{"proxycommand", "localcommand", "permitlocalcommand", "knownhostscommand", "include", "match", "proxyjump", "remotecommand", "securitykeyprovider", "pkcs11provider"} {
		if strings.HasPrefix(l, k) {
			return true
		}
	}
	return false
}

func hSSH(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "46AaCfGgKkMNnqsTtVvXxY", withArg: "BbcDEeFIiJLlmOoPpQRSWw", posix: true})
	for _, o := range p.opts {
		switch {
		case o.name == "o" && sshOptUnsafe(o.val), o.name == "F", o.name == "J":
			z.unsafe("ssh -%s %s can run local commands or load other configuration: %s", o.name, o.val, c.text)
		}
		if o.valIdx >= 0 && o.name != "F" && o.name != "i" && o.name != "E" && o.name != "S" {
			c.argv[o.valIdx].nonPath = true
		}
		if o.name == "R" {
			z.dangerous(escalates, "ssh -R opens a port on another host that leads back to this machine: %s", c.text)
		}
		if o.name == "E" && o.valIdx >= 0 {
			c.argv[o.valIdx].nonPath = true
			z.writeFile(c, optValue(c, o), true, "ssh -E")
		}
	}
	for _, i := range p.operands {
		c.argv[i].nonPath = true // host and remote command
	}
	// Whatever is piped or redirected into ssh goes to the other host.
	z.sink.meta[c.idx].sendsStdin = true
}

func isRemote(v string) bool {
	i := strings.IndexByte(v, ':')
	return i > 0 && !strings.Contains(v[:i], "/")
}

func hScp(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "346ABCpqrRTOsv", withArg: "cDFiJlooPSX", long: nil})
	for _, o := range p.opts {
		switch {
		case o.name == "S", o.name == "o" && sshOptUnsafe(o.val), o.name == "F", o.name == "J":
			z.unsafe("%s -%s %s can run local commands: %s", c.base, o.name, o.val, c.text)
		}
	}
	for _, i := range p.operands {
		if isRemote(c.argv[i].val) {
			c.argv[i].nonPath = true
		}
	}
	if n := len(p.operands); n >= 2 {
		dst := c.argv[p.operands[n-1]]
		if !isRemote(dst.val) {
			c.argv[p.operands[n-1]].nonPath = true
			z.writeFile(c, dst, false, c.base)
		} else {
			for _, i := range p.operands[:n-1] {
				if w := c.argv[i]; !isRemote(w.val) {
					z.sink.meta[c.idx].sent = append(z.sink.meta[c.idx].sent, w)
				}
			}
		}
	}
}

func hRsync(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "vqcaRbuldLkKHpEAXogDtOJSnWxyzPhir0CFm8", withArg: "eBfMT", long: map[string]byte{
		"rsh": 'r', "rsync-path": 'r', "filter": 'r', "exclude": 'r', "include": 'r', "exclude-from": 'r', "include-from": 'r',
		"files-from": 'r', "backup-dir": 'r', "suffix": 'r', "temp-dir": 'r', "partial-dir": 'r', "compare-dest": 'r',
		"copy-dest": 'r', "link-dest": 'r', "log-file": 'r', "password-file": 'r', "chmod": 'r', "chown": 'r',
		"remote-option": 'r', "out-format": 'r', "info": 'r', "debug": 'r', "port": 'r', "timeout": 'r', "bwlimit": 'r',
		"max-size": 'r', "min-size": 'r', "usermap": 'r', "groupmap": 'r', "write-batch": 'r', "only-write-batch": 'r',
		"read-batch": 'r', "delete": 'n', "delete-before": 'n', "delete-during": 'n', "delete-delay": 'n', "delete-after": 'n',
		"delete-excluded": 'n', "del": 'n', "remove-source-files": 'n', "dry-run": 'n'}})
	for _, o := range p.opts {
		switch o.name {
		case "e", "rsh", "rsync-path", "remote-option", "M":
			z.unsafe("rsync %s runs a program or remote command the command names: %s", optName(o), c.text)
		case "filter", "exclude", "include", "out-format", "chmod", "info", "debug", "f", "chown", "usermap", "groupmap":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		case "log-file", "write-batch", "only-write-batch":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
				z.writeFile(c, optValue(c, o), false, "rsync --"+o.name)
			}
		}
	}
	for _, i := range p.operands {
		if isRemote(c.argv[i].val) {
			c.argv[i].nonPath = true
		}
	}
	n := len(p.operands)
	if n < 2 {
		return
	}
	dst := c.argv[p.operands[n-1]]
	if isRemote(dst.val) {
		for _, i := range p.operands[:n-1] {
			if w := c.argv[i]; !isRemote(w.val) {
				z.sink.meta[c.idx].sent = append(z.sink.meta[c.idx].sent, w)
			}
		}
		return
	}
	if !p.has("n", "dry-run") {
		c.argv[p.operands[n-1]].nonPath = true
		z.writeFile(c, dst, false, "rsync")
		for _, o := range p.opts {
			if strings.HasPrefix(o.name, "del") {
				z.destroys(dst, c.st, "rsync --delete empties")
				break
			}
		}
	}
	if p.has("remove-source-files") {
		for _, i := range p.operands[:n-1] {
			z.destroys(c.argv[i], c.st, "rsync --remove-source-files deletes")
			if !isRemote(c.argv[i].val) {
				z.changeFile(c, c.argv[i], "rsync --remove-source-files", "deletes")
			}
		}
	}
}
