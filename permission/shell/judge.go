package shell

// Judging paths: writes to protected places, reads outside the workspace, destructive targets.

import "strings"

// checkWrite judges a file a command writes (a redirection, tee, cp's
// target, sed -i, curl -o, …). Dangerous: start-up files, keys, history,
// system trees, disks, NovaCode's settings. Unsafe: anywhere else outside
// the workspace, .git and similar inside it, network pseudo-files.
func (z *analyzer) checkWrite(w wordInfo, st state, what string) {
	z.checkChange(w, st, what, "writes")
}

// checkChange is checkWrite for any change: verb says which ("writes",
// "deletes", "changes"). A change of mode, owner or times of a protected
// file is not Dangerous by itself (chmod 600 ~/.ssh/id_rsa is good
// hygiene); writing or deleting one is.
func (z *analyzer) checkChange(w wordInfo, st state, what, verb string) {
	protected := func(a string) risk {
		switch {
		case verb == "changes":
			return risk{}
		case verb == "deletes":
			// Deleting a start-up file or a key destroys it, whatever
			// writing it would do.
			if r := z.protectedWrite(a); r.reason != "" {
				return risk{destroys, r.reason}
			}
			return risk{}
		}
		return z.protectedWrite(a)
	}
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
				if r := protected(alt); r.reason != "" {
					z.dangerous(r.cat, "%s %s %s: %s", what, verb, v, r.reason)
					break
				}
			}
			if w.full {
				z.unsafe("%s %s %s in a directory the analyser could not follow", what, verb, v)
			}
			continue
		}
		if harmlessTargets[a] {
			continue
		}
		if r := protected(a); r.reason != "" {
			z.dangerous(r.cat, "%s %s %s: %s", what, verb, v, r.reason)
			continue
		}
		if z.opt.Workspace == "" || !within(a, z.opt.Workspace) {
			z.unsafe("%s %s %s, outside the workspace", what, verb, a)
			continue
		}
		if r, runsLater := protectedInWorkspace(a); runsLater && verb != "deletes" {
			z.dangerous(escalates, "%s %s %s: %s", what, verb, v, r)
		} else if r != "" {
			z.unsafe("%s %s %s", what, verb, r)
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
	if w.tildeHome {
		if rest := strings.TrimLeft(w.val, "/"); rest == "" || strings.Trim(rest, "*.") == "" {
			z.dangerous(destroys, "%s a home directory (%s)", what, w.text)
			return
		}
	}
	if w.prevDir {
		// ~- is a directory, never empty: one the analyser cannot tell.
		if rest := strings.TrimLeft(w.val, "/"); rest == "" || strings.Trim(rest, "*.") == "" {
			z.dangerous(destroys, "%s the previous working directory (%s), which may be any directory", what, w.text)
			return
		}
	}
	if w.subst && w.unknownLead && !w.full && len(w.alts) == 0 && !listsFiles(w.subProgs) {
		// rm -rf "$(git rev-parse --show-toplevel)": a directory chosen
		// when it runs, which may be the workspace or anything else.
		z.dangerous(destroys, "%s %s, a path only known at run time", what, w.text)
		return
	}
	if !w.full && len(w.alts) == 0 && w.unknownLead && !strings.HasPrefix(w.val, "/") {
		return
	}
	for _, v := range w.values() {
		if r := z.destroyTarget(v, st); r != "" {
			z.dangerous(destroys, "%s %s", what, r)
			return
		}
	}
}

// dangerWrite is checkWrite's Dangerous half only, for paths a command may
// write (cp's target joined with a source name).
func (z *analyzer) dangerWrite(w wordInfo, st state, what string) {
	for _, v := range writeValues(w) {
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(v, st) {
			if r := z.protectedWrite(a); r.reason != "" {
				z.dangerous(r.cat, "%s writes %s: %s", what, v, r.reason)
				return
			}
		}
	}
}

// destroysRepo judges a path a command deletes or moves away: the
// repository's .git directory, or the objects, refs and logs in it, are
// its whole history. (Removing a stale .git/index.lock is not.)
func (z *analyzer) destroysRepo(w wordInfo, st state, what string) {
	for _, v := range w.values() {
		if v == "" {
			continue
		}
		for _, a := range z.absPaths(strings.TrimRight(v, "/"), st) {
			parts := normParts(a)
			for i, c := range parts {
				if c != ".git" {
					continue
				}
				rest := parts[i+1:]
				if len(rest) == 0 || strings.Trim(rest[0], "*?[]") == "" ||
					rest[0] == "objects" || rest[0] == "refs" || rest[0] == "logs" || rest[0] == "packed-refs" {
					z.dangerous(destroys, "%s %s, the repository's history, which no commit can restore", what, v)
					return
				}
			}
		}
	}
}

// fileListers print the names of files they find, not directories the
// command names: rm -f $(find . -name '*.o') deletes what they found.
var fileListers = set("find", "fd", "fdfind", "ls", "grep", "egrep", "fgrep", "rg", "ag", "mktemp", "git ls-files",
	"git diff", "git status", "git grep", "xargs", "sort", "uniq", "head", "tail", "cat", "jq", "awk", "sed", "tr", "cut")

func listsFiles(progs []string) bool {
	if len(progs) == 0 {
		return false
	}
	for _, p := range progs {
		if !fileListers[p] {
			return false
		}
	}
	return true
}
