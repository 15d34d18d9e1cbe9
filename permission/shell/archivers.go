package shell

// Archivers: tar and zip.

import "strings"

func init() {
	register(&program{handler: hTar, unbounded: "reads and writes archives"}, "tar")
	register(&program{handler: hZip, unbounded: "reads and writes archives"}, "zip")
}

// hTar: options that run programs are Unsafe, and so is extracting (what
// it writes is only known from the archive).
func hTar(z *analyzer, c *cmd) {
	argv := c.argv
	if len(argv) > 1 && argv[1].full && !strings.HasPrefix(argv[1].val, "-") && strings.Trim(argv[1].val, "abcdfhijklmnoprstuvwxzABCGIJKLMNOPSTUVWXZ") == "" {
		// Old style: tar xzf archive.
		argv = append([]wordInfo(nil), argv...)
		argv[1].val = "-" + argv[1].val
	}
	p := getopt(argv, 1, optSpec{flags: "AcdrtuxzZjJaBGhiklmMOpPRsSUvWw", withArg: "bCfFgHIKLNTVX", long: map[string]byte{
		"to-command": 'r', "use-compress-program": 'r', "checkpoint-action": 'r', "info-script": 'r', "new-volume-script": 'r',
		"rsh-command": 'r', "rmt-command": 'r', "extract": 'n', "get": 'n', "file": 'r', "directory": 'r', "force-local": 'n',
		"files-from": 'r', "exclude-from": 'r', "exclude": 'r', "transform": 'r', "xform": 'r', "create": 'n', "list": 'n',
		"append": 'n', "update": 'n', "diff": 'n', "compare": 'n', "delete": 'n', "owner": 'r', "group": 'r', "mode": 'r',
		"format": 'r', "checkpoint": 'o', "blocking-factor": 'r', "index-file": 'r', "volno-file": 'r', "label": 'r',
		"newer": 'r', "after-date": 'r', "newer-mtime": 'r', "suffix": 'r', "backup": 'o', "warning": 'r', "strip-components": 'r'}})
	for _, o := range p.opts {
		switch o.name {
		case "to-command", "use-compress-program", "I", "checkpoint-action", "info-script", "new-volume-script", "F", "rsh-command", "rmt-command":
			z.unsafe("tar --%s runs a program: %s", o.name, c.text)
		case "x", "extract", "get":
			z.unsafe("tar extracts files, which may land anywhere the archive says: %s", c.text)
		case "f", "file":
			if v := o.val; strings.Contains(v, ":") && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, ".") && !p.has("force-local") {
				z.unsafe("tar archive %s is on a remote host, reached through rsh: %s", v, c.text)
			}
			if o.valIdx >= 0 && p.has("c", "create", "r", "append", "u", "update") {
				w := c.argv[o.valIdx]
				if o.valIdx == o.idx {
					w.val = o.val
				}
				z.checkWrite(w, c.st, "tar")
			}
		case "transform", "xform", "exclude", "owner", "group", "mode", "format", "label", "warning":
			if o.valIdx >= 0 {
				c.argv[o.valIdx].nonPath = true
			}
		}
	}
}

func hZip(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if strings.HasPrefix(w.val, "-TT") || longFlag(w.val, "unzip-command") {
			z.unsafe("zip -TT runs a program to test the archive: %s", c.text)
		}
	}
}
