package shell

import (
	"path"
	"strings"
)

// identify fills in what a command is, whatever it is called: the program's
// name without its directory (/usr/bin/git and ./rm are git and rm), a
// variable's known value standing for the name (r=rm; $r), and, for git, the
// words with git's global options left out (git -C . push is git push). Deny
// rules match these words as well as the words as written, so that a rule
// against a program holds for every way of naming it that the analyser can
// see.
func identify(c *Command, words []wordInfo) {
	if len(words) == 0 {
		return
	}
	name := words[0]
	switch {
	case !name.dyn:
		c.Program = path.Base(name.lit)
	case name.full && !name.glob && name.val != "":
		c.Program = path.Base(name.val)
	default:
		return // only known at run time
	}
	if c.Program == "." || c.Program == "/" {
		c.Program = ""
		return
	}
	canon := []string{c.Program}
	dyn := []bool{false}
	rest := words[1:]
	if c.Program == "git" {
		rest = gitSubcommand(rest)
	}
	for _, w := range rest {
		switch {
		case !w.dyn:
			canon, dyn = append(canon, w.lit), append(dyn, false)
		case w.full && !w.glob:
			canon, dyn = append(canon, w.val), append(dyn, false)
		default:
			canon, dyn = append(canon, w.text), append(dyn, true)
		}
	}
	c.Canon, c.CanonDynamic = canon, dyn
}

// gitTakesValue are git's global options that take the next word as their
// value.
var gitTakesValue = set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env",
	"--exec-path", "--list-cmds", "--attr-source")

// gitSubcommand returns git's words from the subcommand on: the global
// options before it change where or how git runs, not what it does.
func gitSubcommand(words []wordInfo) []wordInfo {
	for i := 0; i < len(words); i++ {
		w := words[i]
		v := w.val
		if !w.full && w.unknownLead {
			return words[i:] // a dynamic option: keep it, it makes the words dynamic
		}
		if !strings.HasPrefix(v, "-") {
			return words[i:]
		}
		if gitTakesValue[v] {
			i++
			continue
		}
		if len(v) > 2 && v[0] == '-' && v[1] == 'c' {
			continue // -ckey=value
		}
	}
	return nil
}
