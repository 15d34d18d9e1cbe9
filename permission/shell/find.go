package shell

// find: the commands it runs and the files it deletes.

import (
	"path"
	"strings"
)

func init() {
	register(&program{handler: func(z *analyzer, c *cmd) {
		hFind(z, c)
		z.findEffects(c)
	}}, "find")
}

// findEffects: find -L, -H and -follow follow links out of the tree; find
// walks its start points (those before the first
// expression word; . when none); a few tests read another file's metadata.
func (z *analyzer) findEffects(c *cmd) {
	if hasAny(c, "-L", "-H", "-follow") {
		z.cannotBound(c, "find follows symbolic links, which may lead out of the tree")
		return
	}
	i := 1
	for i < len(c.argv) && (c.argv[i].val == "-H" || c.argv[i].val == "-L" || c.argv[i].val == "-P" ||
		c.argv[i].val == "-D" || c.argv[i].val == "-O" || strings.HasPrefix(c.argv[i].val, "-O")) {
		if c.argv[i].val == "-D" || c.argv[i].val == "-O" {
			i++
		}
		i++
	}
	starts := 0
	for ; i < len(c.argv); i++ {
		w := c.argv[i]
		if w.full && (strings.HasPrefix(w.val, "-") || w.val == "(" || w.val == "!" || w.val == ")" || w.val == ",") {
			break
		}
		starts++
		z.readWord(c, w, Read{Tree: true})
	}
	if starts == 0 {
		z.readWord(c, wordInfo{text: ".", lit: ".", val: ".", full: true}, Read{Tree: true})
	}
	for ; i+1 < len(c.argv); i++ {
		switch c.argv[i].val {
		case "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from":
			i++
			z.readWord(c, c.argv[i], Read{})
		}
	}
}

// findTakesArg are find primaries with one argument.
var findTakesArg = set("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
	"-lname", "-ilname", "-newer", "-anewer", "-cnewer", "-samefile", "-perm", "-type", "-xtype", "-user", "-group",
	"-uid", "-gid", "-size", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-used", "-links", "-inum",
	"-maxdepth", "-mindepth", "-fstype", "-context", "-printf", "-regextype", "-files0-from", "-D", "-O")

// findNoFilter are find primaries that do not narrow what matches.
var findNoFilter = set("-delete", "-depth", "-d", "-maxdepth", "-mindepth", "-xdev", "-mount", "-print", "-print0",
	"-follow", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race", "-daystart", "-regextype", "-warn",
	"-nowarn", "-true", "-o", "-or", "-a", "-and", "-not", "!", "(", ")", ",", "-ls", "-H", "-L", "-P")

// hFind: -exec and friends run commands, -delete and -fprint change files.
// Deleting from /, ~ or above the workspace is Dangerous; deleting from the
// workspace root without any test (find . -delete) too.
func hFind(z *analyzer, c *cmd) {
	i := 1
	for i < len(c.argv) {
		a := c.argv[i].val
		if a == "-H" || a == "-L" || a == "-P" {
			i++
			continue
		}
		if a == "-D" || a == "-O" || strings.HasPrefix(a, "-O") && len(a) > 2 {
			if a == "-D" || a == "-O" {
				i++
			}
			i++
			continue
		}
		break
	}
	var starts []wordInfo
	for i < len(c.argv) {
		w := c.argv[i]
		a := w.val
		if w.full && (strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == ",") {
			break
		}
		starts = append(starts, w)
		i++
	}
	if len(starts) == 0 {
		starts = []wordInfo{{text: ".", lit: ".", val: ".", full: true}}
	}
	deletes, filtered := false, false
	for ; i < len(c.argv); i++ {
		w := c.argv[i]
		a := w.val
		if !w.full {
			z.unsafe("find with an expression only known at run time: %s", w.text)
			filtered = true
			continue
		}
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(c.argv) && !(c.argv[j].full && (c.argv[j].val == ";" || c.argv[j].val == "+")) {
				j++
			}
			z.unsafe("find %s runs a command for every file it finds: %s", a, c.text)
			if j > i+1 {
				if inner := canonical(path.Base(c.argv[i+1].val)); inner == "rm" || inner == "shred" || inner == "unlink" || inner == "srm" {
					deletes = true
				}
				z.inner(c, i+1, j, nil)
			}
			i = j
			continue
		case "-delete":
			deletes = true
			z.unsafe("find -delete deletes every file it matches: %s", c.text)
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			z.unsafe("find %s writes a file: %s", a, c.text)
			if i+1 < len(c.argv) {
				c.argv[i+1].nonPath = true
				z.writeFile(c, c.argv[i+1], false, "find "+a)
				i++
				if a == "-fprintf" && i+1 < len(c.argv) {
					i++
					c.argv[i].nonPath = true
				}
			}
			continue
		}
		if !findNoFilter[a] {
			filtered = true
		}
		if findTakesArg[a] && i+1 < len(c.argv) {
			i++
			switch a {
			case "-newer", "-anewer", "-cnewer", "-samefile", "-files0-from":
			default:
				c.argv[i].nonPath = true
			}
		}
	}
	if !deletes {
		return
	}
	for _, s := range starts {
		z.destroysRepo(s, c.st, "find deletes files in")
		// What it deletes below its start points is only known when it
		// runs.
		t := s
		t.text, t.dyn, t.full = strings.TrimSuffix(s.text, "/")+"/…", true, false
		z.target(t, c.st, false, "find -delete", "deletes")
	}
	for _, s := range starts {
		for _, v := range s.values() {
			a, ok := z.absPath(v, c.st)
			if ok && a == z.opt.Workspace {
				if !filtered {
					z.dangerous(destroys, "find deletes everything in the workspace: %s", c.text)
				}
				continue
			}
			if r := z.destroyTarget(v, c.st); r != "" {
				z.dangerous(destroys, "find deletes files in %s", r)
			}
		}
	}
}
