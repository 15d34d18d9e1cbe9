package shell

// Cloud and forge command-line tools: gh, aws, gsutil, rclone, az. They
// reach the network; the local files they upload are sent (a secret among
// them leaks), the ones they download are written.

import "strings"

func init() {
	register(&program{handler: hCloudCopy, unbounded: "reaches the network"}, "gh", "aws", "gsutil", "rclone", "az")
}

// cloudSent records a local file an upload sends (and reads).
func (z *analyzer) cloudSent(c *cmd, w wordInfo) {
	z.checkReadPath(c, w, c.base)
	z.readWord(c, w, Read{Contents: true})
	z.sink.meta[c.idx].sent = append(z.sink.meta[c.idx].sent, w)
}

// hCloudCopy finds the local files an upload sends and the local target a
// download writes: gh gist create FILE…, gh release upload TAG FILE…, gh …
// --body-file F; aws s3 cp|mv|sync SRC DST; gsutil cp|mv|rsync SRC DST;
// rclone copy|copyto|move|sync SRC DST; az … --file F.
func hCloudCopy(z *analyzer, c *cmd) {
	var words []int
	for i := 1; i < len(c.argv); i++ {
		w := c.argv[i]
		name, val, hasVal := strings.Cut(w.val, "=")
		switch {
		case name == "--body-file" || name == "-F" && c.base == "gh" || name == "--file" || name == "-f" && c.base == "az" || name == "--upload-file":
			c.argv[i].nonPath = true
			v := valuePart(w, val)
			if !hasVal && i+1 < len(c.argv) {
				i++
				v = c.argv[i]
				c.argv[i].nonPath = true
			}
			if v.val != "-" {
				z.cloudSent(c, v)
			}
		case strings.HasPrefix(w.val, "-"):
		default:
			words = append(words, i)
		}
	}
	val := func(k int) string {
		if k < len(words) {
			return c.argv[words[k]].val
		}
		return ""
	}
	remote := func(s string) bool {
		return strings.Contains(s, "://") || c.base == "rclone" && isRemote(s)
	}
	if c.base == "gh" && val(0) == "config" && val(1) == "set" && (val(2) == "editor" || val(2) == "pager" || val(2) == "browser" || val(2) == "http_unix_socket") {
		z.dangerous(escalates, "gh config set %s names a program gh runs later: %s", val(2), c.text)
	}
	var srcs []int
	dst := -1
	switch {
	case c.base == "gh" && val(0) == "gist" && (val(1) == "create" || val(1) == "edit"):
		srcs = words[2:]
	case c.base == "gh" && val(0) == "release" && (val(1) == "upload" || val(1) == "create") && len(words) > 3:
		srcs = words[3:]
	case c.base == "aws" && val(0) == "s3" && (val(1) == "cp" || val(1) == "mv" || val(1) == "sync") && len(words) >= 4:
		srcs, dst = words[2:len(words)-1], words[len(words)-1]
	case c.base == "gsutil" && (val(0) == "cp" || val(0) == "mv" || val(0) == "rsync") && len(words) >= 3:
		srcs, dst = words[1:len(words)-1], words[len(words)-1]
	case c.base == "rclone" && (val(0) == "copy" || val(0) == "copyto" || val(0) == "move" || val(0) == "sync") && len(words) >= 3:
		srcs, dst = words[1:len(words)-1], words[len(words)-1]
	}
	if dst >= 0 && !remote(c.argv[dst].val) {
		c.argv[dst].nonPath = true
		z.writeFile(c, c.argv[dst], false, c.base)
		return
	}
	for _, i := range srcs {
		if w := c.argv[i]; !remote(w.val) && w.val != "-" {
			c.argv[i].nonPath = true
			z.cloudSent(c, w)
		}
	}
}
