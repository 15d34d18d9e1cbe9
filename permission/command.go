package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novacode/nova/permission/pathguard"
	"github.com/novacode/nova/permission/rules"
	"github.com/novacode/nova/permission/shell"
)

// commandPaths are the files a command line touches, each inspected once
// (resolved like the file tools' paths: symlinks, `..`, /proc).
type commandPaths struct {
	writes   []pathguard.Info // written for certain: redirections, cp targets, rm operands…
	removes  map[string]bool  // of writes, by Abs: only ever deleted (rm), never written
	mayWrite []pathguard.Info // named by commands the analyser cannot bound
	reads    []readPath
}

// readPath is one path a command reads.
type readPath struct {
	pathguard.Info
	read  shell.Read
	maybe bool // named by a command the analyser cannot bound
}

// Limits of what the chain looks at for one command: a pattern's matches and
// a walked tree's entries beyond these are not looked at, so the command is
// asked about instead.
const (
	maxGlobMatches = 1000
	maxTreeEntries = 100_000
)

// inspectCommand resolves what an analysed command line reads and writes.
func (c *Checker) inspectCommand(a *shell.Analysis) commandPaths {
	ws := c.cfg.Workspace
	f := commandPaths{removes: map[string]bool{}}
	seen := map[string]bool{}
	addWrite := func(list *[]pathguard.Info, p string) string {
		info := c.guard.Inspect(p, ws)
		if !seen[info.Abs] {
			seen[info.Abs] = true
			*list = append(*list, info)
		}
		return info.Abs
	}
	written := map[string]bool{}
	for _, w := range a.Writes {
		if w.Dynamic {
			continue
		}
		abs := addWrite(&f.writes, w.Path)
		if w.Remove && !written[abs] {
			f.removes[abs] = true
		} else {
			written[abs], f.removes[abs] = true, false
		}
	}
	for _, p := range a.Effects.Writes {
		addWrite(&f.writes, p)
	}
	for _, p := range a.Effects.MayWrite {
		addWrite(&f.mayWrite, p)
	}
	for _, r := range a.Effects.Reads {
		if !r.Glob {
			f.reads = append(f.reads, readPath{Info: c.guard.Inspect(r.Path, ws), read: r})
			continue
		}
		// A pattern reads what it matches now; bash's * and ? skip
		// dotfiles, filepath.Glob's do not.
		m, err := filepath.Glob(r.Path)
		if err != nil || strings.ContainsAny(r.Path, "{}") || len(m) > maxGlobMatches {
			f.reads = append(f.reads, readPath{Info: pathguard.Info{Input: r.Path, Abs: r.Path, Resolved: r.Path,
				Err: fmt.Sprintf("the pattern %s cannot be checked (too many matches, braces, or not a valid pattern)", r.Path)}, read: r})
			continue
		}
		for _, p := range append(shellMatches(r.Path, m), r.GlobDir()) {
			f.reads = append(f.reads, readPath{Info: c.guard.Inspect(p, ws), read: r})
		}
	}
	for _, p := range a.Effects.MayRead {
		f.reads = append(f.reads, readPath{Info: c.guard.Inspect(p, ws), read: shell.Read{Path: p, Contents: true}, maybe: true})
	}
	return f
}

// treeSecrets says why a command that reads every file of a tree (grep -r,
// rg, a glob's directory does not count) needs a person: the tree holds a
// secret, or is too big to tell. An allow rule naming the tree itself
// (Read(./config/**)) lifts it.
func (c *Checker) treeSecrets(s subject) string {
	allowed := append(slices.Clone(c.always), c.cfg.Allow...)
	base := rules.Base{ProjectRoot: c.cfg.Workspace, Home: c.cfg.Home}
	for _, r := range s.files.reads {
		if !r.read.Tree || !r.read.Contents || r.Err != "" {
			continue
		}
		if why := c.guard.SecretBelow(r.Resolved, r.read.SkipsHidden, maxTreeEntries); why != "" {
			if _, ok := c.pathRule(allowed, "Read", r.Info, base); ok {
				continue
			}
			return "reads every file under " + r.Input + ", which includes " + why
		}
	}
	return ""
}

// unresolvedByDeny says why a command cannot be checked against the deny
// rules, or "": a program only known at run time (or anything else the
// analyser is unsure of) while commands are denied, a path only known at
// run time while paths are. Such a command is asked, never allowed — also
// in bypassPermissions mode.
func (c *Checker) unresolvedByDeny(s subject) string {
	a := s.command
	if a == nil {
		return ""
	}
	var cmdRules, readRules, editRules bool
	for _, r := range c.cfg.Deny {
		switch {
		case r.Kind == rules.KindCommand && r.Tool == "Bash":
			cmdRules = true
		case r.Kind == rules.KindPath && rules.Covers(r.Tool, "Read"):
			readRules = true
		case r.Kind == rules.KindPath && rules.Covers(r.Tool, "Edit"):
			editRules = true
		}
	}
	if cmdRules {
		for _, cmd := range a.Commands {
			if cmd.Program == "" {
				return fmt.Sprintf("the program %q is only known at run time, so the deny rules cannot be checked against it", firstWord(cmd))
			}
		}
		if len(a.Unsafe) > 0 {
			return "the command cannot be checked against the deny rules: " + strings.Join(a.Unsafe, "; ")
		}
	}
	if (readRules || editRules) && len(a.Effects.Unnamed) > 0 {
		return fmt.Sprintf("the command names %s, a path only known at run time, so the deny rules cannot be checked against it", strings.Join(a.Effects.Unnamed, ", "))
	}
	if editRules {
		for _, w := range a.Writes {
			if w.Dynamic {
				return fmt.Sprintf("the command writes %s, a path only known at run time, so the deny rules cannot be checked against it", w.Path)
			}
		}
	}
	return ""
}

func firstWord(cmd shell.Command) string {
	if len(cmd.Args) == 0 {
		return ""
	}
	return cmd.Args[0]
}

// denyMatch finds a deny rule a command line hits: a command rule against
// any command as written or as the analyser identifies it (/bin/rm is rm,
// git -C . push is git push), an Edit rule against anything it writes or
// may write, a Read rule against anything it reads or may read.
func (c *Checker) denyMatch(rs []rules.Rule, s subject, base rules.Base) (rules.Rule, bool) {
	for _, cmd := range s.command.Commands {
		if r, ok := commandRule(rs, cmd, true); ok {
			return r, true
		}
		if cmd.Canon != nil {
			if r, ok := commandRule(rs, shell.Command{Args: cmd.Canon, Dynamic: cmd.CanonDynamic}, true); ok {
				return r, true
			}
		}
	}
	for _, p := range append(slices.Clone(s.files.writes), s.files.mayWrite...) {
		if r, ok := c.pathRule(rs, "Edit", p, base); ok {
			return r, true
		}
	}
	for _, p := range s.files.reads {
		if r, ok := c.pathRule(rs, "Read", p.Info, base); ok {
			return r, true
		}
	}
	return rules.Rule{}, false
}
