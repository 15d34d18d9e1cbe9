package shell

// Disk and volume tools: file systems, partitions, encrypted volumes.

func init() {
	register(&program{handler: hMkfs, unbounded: "changes disks or volumes"}, "mkfs", "blkdiscard", "lvremove", "vgremove", "pvremove")
	register(&program{handler: hWipefs, unbounded: "changes disks or volumes"}, "wipefs")
	register(&program{handler: hFdisk, unbounded: "changes disks or volumes"}, "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted")
	register(&program{handler: hCryptsetup, unbounded: "changes disks or volumes"}, "cryptsetup")
	register(&program{handler: hZfs, unbounded: "changes disks or volumes"}, "zpool", "zfs")
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
