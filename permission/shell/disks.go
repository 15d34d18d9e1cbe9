package shell

// Disk and volume tools: file systems, partitions, encrypted volumes.

import "strings"

func init() {
	register(&program{handler: hMkfs}, "mkfs")
	register(&program{handler: hErase, unbounded: "changes disks or volumes"}, "blkdiscard", "lvremove", "vgremove", "pvremove")
	register(&program{handler: hWipefs, unbounded: "changes disks or volumes"}, "wipefs")
	register(&program{handler: hFdisk, unbounded: "changes disks or volumes"}, "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted")
	register(&program{handler: hCryptsetup, unbounded: "changes disks or volumes"}, "cryptsetup")
	register(&program{handler: hZfs, unbounded: "changes disks or volumes"}, "zpool", "zfs")
}

// hMkfs: a new file system on a disk or volume erases it; one in an image
// file (mkfs.ext4 -F ./disk.img) only writes that file. Its device is the
// last operand that is not a block count.
func hMkfs(z *analyzer, c *cmd) {
	var target *wordInfo
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		switch {
		case w.val == "--help" || w.val == "-V" || w.val == "--version":
			return
		case strings.HasPrefix(w.val, "-") && w.full:
		case w.full && isNumber(w.val):
		default:
			t := w
			target = &t
			c.argv[i].nonPath = true
		}
	}
	switch {
	case target == nil:
		z.cannotBound(c, "%s names no device the analyser can see", c.prog)
	case !target.full || strings.HasPrefix(target.val, "/dev/") || blockDevice(target.val) != "":
		z.dangerous(destroys, "%s erases the data on a disk or volume: %s", c.prog, c.text)
		z.cannotBound(c, "%s writes a disk or volume", c.prog)
	default:
		z.writeFile(c, *target, false, c.prog)
	}
}

// hErase: blkdiscard and the volume removers erase what they name.
func hErase(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		if w.val == "--help" || w.val == "-V" || w.val == "--version" {
			return
		}
	}
	z.dangerous(destroys, "%s erases the data on a disk or volume: %s", c.prog, c.text)
}

func hWipefs(z *analyzer, c *cmd) {
	p := getopt(c.argv, 1, optSpec{flags: "afnqbiJhV", withArg: "otO", long: map[string]byte{"all": 'n', "force": 'n',
		"no-act": 'n', "offset": 'r', "types": 'r', "backup": 'o', "quiet": 'n', "json": 'n', "noheadings": 'n', "output": 'r', "lock": 'o', "parsable": 'n'}})
	if p.has("n", "no-act") || !p.has("a", "all", "o", "offset") && !p.dynOpt {
		return // lists signatures
	}
	z.dangerous(destroys, "wipefs erases file-system signatures: %s", c.text)
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
	z.dangerous(destroys, "%s changes disk partitions: %s", c.base, c.text)
}

func hCryptsetup(z *analyzer, c *cmd) {
	for _, w := range c.argv[1:] {
		switch w.val {
		case "luksFormat", "erase", "luksErase", "format", "reencrypt", "luksKillSlot", "luksRemoveKey":
			z.dangerous(destroys, "cryptsetup %s erases encrypted data or keys: %s", w.val, c.text)
			return
		}
	}
}

func hZfs(z *analyzer, c *cmd) {
	if len(c.argv) > 1 && (c.argv[1].val == "destroy" || c.argv[1].val == "labelclear") {
		z.dangerous(destroys, "%s %s erases a pool or data set: %s", c.base, c.argv[1].val, c.text)
	}
}
