package shell

import (
	"path"
	"slices"
	"strings"
)

// joinPath joins a relative path to dir lexically. The analyser never looks
// at the file system: symlinks are pathguard's business.
func joinPath(dir, p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Clean(dir + "/" + p)
}

// within reports whether p is dir or below it (both clean and absolute).
func within(p, dir string) bool {
	if dir == "" {
		return false
	}
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}

// absPath resolves a path word's value against the working directory.
// ok is false when the path is relative and the directory unknown.
func (z *analyzer) absPath(p string, st state) (string, bool) {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p), true
	}
	if st.cwd == "" {
		return "", false
	}
	return joinPath(st.cwd, p), true
}

// absPaths is absPath over every directory the command may be in (see
// state.cwdAlts); nil when unknown.
func (z *analyzer) absPaths(p string, st state) []string {
	if strings.HasPrefix(p, "/") {
		return []string{path.Clean(p)}
	}
	var out []string
	for _, d := range st.cwds() {
		out = append(out, joinPath(d, p))
	}
	return out
}

// harmlessReads are paths outside the workspace that every program may read
// without revealing anything.
var harmlessReads = set("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/stdin", "/dev/stdout",
	"/dev/stderr", "/dev/tty", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2", "/dev/full")

// outside says why a path value leaves the workspace, or "". Only values
// that look like paths are judged: absolute, ~-expanded, or containing a
// `..` component. Other relative words stay in the working directory.
func (z *analyzer) outside(p string, st state) string {
	if p == "" || harmlessReads[p] {
		return ""
	}
	abs := strings.HasPrefix(p, "/")
	if !abs && !hasDotDot(p) {
		for _, d := range st.cwds() {
			if !within(d, z.opt.Workspace) {
				return "it runs in " + d + ", outside the workspace"
			}
		}
		return ""
	}
	a, ok := z.absPath(p, st)
	if !ok {
		return "it goes up from a directory the analyser could not follow"
	}
	if strings.HasPrefix(a, "/proc/") || a == "/proc" {
		// /proc/self/root and /proc/self/cwd are magic links that
		// escape any lexical check.
		return a + " is under /proc, whose links reach the whole file system"
	}
	if z.opt.Workspace == "" || !within(a, z.opt.Workspace) {
		return a + " is outside the workspace"
	}
	return ""
}

func hasDotDot(p string) bool {
	return slices.Contains(strings.Split(p, "/"), "..")
}

// pathCandidates returns the parts of an argument that may name files: the
// word itself, the value of --opt=value and key=value, an attached -o/path,
// and @file (curl -d @file).
func pathCandidates(a string) []string {
	if strings.Contains(a, "://") {
		return nil // a URL
	}
	out := []string{a}
	if _, v, ok := strings.Cut(a, "="); ok && v != "" {
		out = append(out, v)
	}
	if len(a) > 2 && a[0] == '-' && a[1] != '-' {
		if i := strings.IndexAny(a, "/~"); i > 1 {
			out = append(out, a[i:])
		}
	}
	if strings.HasPrefix(a, "@") && len(a) > 1 {
		out = append(out, a[1:])
	}
	return out
}

// normName reduces a path component to what a case-insensitive file system
// (macOS, Windows) opens: `.BASHRC` and `.bashrc.` are `.bashrc`. Used for
// matching protected names only.
func normName(c string) string {
	c = strings.TrimRight(c, ". ")
	if c == "" {
		return "."
	}
	return strings.ToLower(c)
}

func normParts(p string) []string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for i, c := range parts {
		parts[i] = normName(c)
	}
	return parts
}

// startupFiles run in every new shell (or session) of the user: writing
// one is persistence.
var startupFiles = set(".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
	".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".cshrc", ".tcshrc", ".login",
	".logout", ".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".pam_environment", ".inputrc",
	".gitconfig", ".npmrc", ".yarnrc", ".yarnrc.yml", ".netrc", ".curlrc", ".wgetrc", ".pythonrc",
	".perldlrc", ".vimrc", ".exrc", ".nanorc", ".tmux.conf", ".screenrc", ".mcp.json", ".envrc")

// historyFiles: deleting or rewriting them hides what ran.
var historyFiles = set(".bash_history", ".zsh_history", ".zhistory", ".histfile", ".sh_history",
	".history", ".python_history", ".node_repl_history", ".mysql_history", ".psql_history", ".lesshst")

// protectedDirs are directories below home whose contents run code, hold
// keys or configure tools that run programs.
var protectedDirs = [][]string{
	{".ssh"}, {".gnupg"}, {".novacode"}, {".config", "fish"}, {".config", "autostart"},
	{".config", "systemd"}, {".config", "environment.d"}, {".config", "git"}, {".local", "share", "systemd"},
	{".local", "share", "fish"}, {"library", "launchagents"}, {".aws"}, {".kube"}, {".docker"},
	{".config", "gh"}, {".config", "novacode"},
}

// systemDirs are system trees a coding agent has no business writing.
var systemDirs = []string{"/etc", "/boot", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/var/spool/cron", "/var/spool/at", "/System", "/Library", "/private/etc", "/root"}

// homeDirs returns the home directories a path may be in: the user's and
// the conventional ones of other users.
func (z *analyzer) homeOf(a string) string {
	if z.opt.Home != "" && within(a, z.opt.Home) {
		return z.opt.Home
	}
	parts := strings.Split(strings.Trim(a, "/"), "/")
	if len(parts) >= 2 && (parts[0] == "home" || parts[0] == "Users") {
		return "/" + parts[0] + "/" + parts[1]
	}
	if len(parts) >= 1 && parts[0] == "root" {
		return "/root"
	}
	return ""
}

// protectedWrite says why writing the absolute path a is Dangerous: shell
// start-up and tool configuration files, keys and their directories, system
// trees and NovaCode's settings escalate (what is written there runs later
// or grants access); history files and disks are destroyed. A zero risk if
// none.
func (z *analyzer) protectedWrite(a string) risk {
	if r := blockDevice(a); r != "" {
		return risk{destroys, r}
	}
	if home := z.homeOf(a); home != "" && a != home {
		rel := normParts(strings.TrimPrefix(a, home))
		if len(rel) == 1 && startupFiles[rel[0]] {
			return risk{escalates, a + " is a start-up or tool configuration file: what is written to it runs later"}
		}
		if len(rel) == 1 && historyFiles[rel[0]] {
			return risk{destroys, a + " is a shell history file"}
		}
		for _, d := range protectedDirs {
			if len(rel) >= len(d) && slices.Equal(rel[:len(d)], d) {
				return risk{escalates, a + " is in ~/" + strings.Join(d, "/") + ", which holds keys or start-up configuration"}
			}
		}
	}
	for _, d := range systemDirs {
		if within(a, d) {
			return risk{escalates, a + " is a system file"}
		}
	}
	if slices.Contains(normParts(a), ".novacode") {
		return risk{escalates, a + " is NovaCode's own settings: they decide what runs without asking"}
	}
	return risk{}
}

// protectedInWorkspace says why writing a path inside the workspace still
// cannot be judged by rules: git runs its hooks and obeys its config, and
// NovaCode's and MCP settings start programs.
// runsLater is set for the paths whose content runs later by itself: git
// hooks and configuration, .mcp.json, .envrc.
func protectedInWorkspace(a string) (reason string, runsLater bool) {
	parts := normParts(a)
	for i, c := range parts {
		if c != ".git" {
			continue
		}
		rest := parts[i+1:]
		for k, r := range rest {
			if r == "hooks" || r == "config" && k == len(rest)-1 {
				return a + " is a git hook or git's configuration: what is written there runs with the next git command", true
			}
		}
		return a + " is inside .git: git runs its hooks and obeys its config", false
	}
	if len(parts) > 0 {
		switch parts[len(parts)-1] {
		case ".mcp.json", ".envrc":
			return a + " starts programs when the workspace is opened or entered", true
		case ".gitmodules", ".gitattributes":
			return a + " configures programs that run later", false
		}
	}
	return "", false
}

// blockDevice says why a /dev path is a disk, or "".
func blockDevice(a string) string {
	if !strings.HasPrefix(a, "/dev/") {
		return ""
	}
	name := strings.TrimPrefix(a, "/dev/")
	for _, p := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "mapper/", "dm-", "md",
		"loop", "sr", "nbd", "zd", "root", "mem", "kmem", "port", "fd0", "cciss/", "ubd", "bcache", "zram"} {
		if strings.HasPrefix(name, p) {
			return a + " is a disk or memory device"
		}
	}
	return ""
}

// destroyTarget says why deleting (or recursively changing) the path
// pattern p wipes something that matters: the root, a top-level directory,
// the home directory, the workspace or one of their ancestors, or their
// contents (`/*`, `~/*`, `./*`). "" if none.
func (z *analyzer) destroyTarget(p string, st state) string {
	if p == "" {
		return ""
	}
	dir := strings.TrimRight(p, "/")
	if dir == "" {
		dir = "/"
	}
	// A glob stands for the contents of the directory before it: `dir/*`
	// and `dir/.*` destroy dir's contents, as bad as dir itself.
	contents, broad := false, false
	if i := strings.IndexAny(dir, "*?["); i >= 0 {
		j := strings.LastIndex(dir[:i], "/")
		comp := dir
		switch {
		case j < 0:
			dir = "."
		case j == 0:
			dir, comp = "/", dir[1:]
		default:
			dir, comp = dir[:j], dir[j+1:]
		}
		first, _, _ := strings.Cut(comp, "/")
		contents = true
		broad = strings.Trim(first, "*?.") == "" || first == ".[!.]*" || first == ".[^.]*" || first == "[!.]*" || first == ".??*"
	}
	what := "the directory"
	if contents {
		what = "everything in the directory"
	}
	dirs := z.absPaths(dir, st)
	if dirs == nil {
		if c := path.Clean(dir); (c == "." || c == ".." || strings.HasPrefix(c, "../")) && (!contents || broad) {
			return what + " the command is in, which the analyser cannot tell after a cd (" + p + ")"
		}
		return ""
	}
	for _, a := range dirs {
		if r := z.destroyDir(a, what, contents, broad); r != "" {
			return r
		}
	}
	return ""
}

// destroyDir judges one absolute directory (or its contents).
func (z *analyzer) destroyDir(a, what string, contents, broad bool) string {
	home, ws := z.opt.Home, z.opt.Workspace
	switch {
	case a == "/":
		return what + " / (the whole file system)"
	case strings.Count(a, "/") == 1:
		return what + " " + a + ", a top-level system directory"
	case home != "" && a == home:
		return what + " " + a + ", the home directory"
	case home != "" && within(home, a):
		return what + " " + a + ", which holds the home directory"
	case z.homeOf(a) == a:
		return what + " " + a + ", a home directory"
	case ws != "" && a == ws && (!contents || broad):
		return what + " " + a + ", the workspace itself"
	case ws != "" && within(ws, a) && a != ws:
		return what + " " + a + ", which holds the workspace"
	}
	return ""
}
