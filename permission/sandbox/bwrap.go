package sandbox

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// namespaceArgs are the bwrap flags that need kernel support, shared by the
// probe and the real command so that the probe fails where commands would.
//
// --unshare-pid is not in the brief's list but is what makes the rest hold:
// in the host's PID namespace a command could ptrace NovaCode or write its
// memory through /proc/PID/mem (same user) and act outside the sandbox,
// and `kill -9 -1` would take the user's session down. It also means that
// when bwrap exits every process left in the sandbox is killed, so a
// command cannot leave a process behind that outlives it.
//
// --new-session is left out on purpose: the Bash tool already starts bwrap
// as the leader of a new session and process group, and kills the group
// on timeout; bwrap's children stay in that group.
//
// --cap-drop ALL matters where NovaCode runs as root (containers, CI):
// bwrap started by root keeps every capability inside, and a command could
// remount the read-only binds writable (`mount -o remount,rw`), or worse.
// For other users the command has none anyway.
func namespaceArgs(p Policy) []string {
	args := []string{"--unshare-pid", "--unshare-ipc", "--cap-drop", "ALL"}
	if !p.AllowNetwork {
		args = append(args, "--unshare-net")
	}
	return append(args, "--die-with-parent")
}

func probeArgs(p Policy) []string {
	return append([]string{"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"}, namespaceArgs(p)...)
}

// protectedDirName is the workspace's project settings directory. A command
// that could write there could grant itself permissions (or turn the
// sandbox off) for the next session, so it is read-only inside.
const protectedDirName = ".novacode"

// bwrapArgs builds bwrap's arguments (without the final "--") for one
// command. It runs per command, not once in New: .git may appear, and
// writable directories may be created, during the session.
func bwrapArgs(p Policy, dir string) ([]string, error) {
	if fi, err := os.Stat(p.Workspace); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("wrap command: workspace %s is gone", p.Workspace)
	}
	args := probeArgs(p)
	// Mounts apply in order: /tmp first, so that writable directories
	// under /tmp are bound on top of the private one, not hidden by it.
	args = append(args, "--tmpfs", "/tmp")
	writable := append([]string{p.Workspace}, realDirs(p.Writable)...)
	if p.TempDir != "" {
		writable = append(writable, p.TempDir)
	}
	for _, w := range writable {
		args = append(args, "--bind", w, w)
	}

	roots := append([]string{p.Workspace}, realDirs(p.Writable)...)
	for _, root := range roots {
		args = append(args, gitArgs(root, writable)...)
	}

	// A placeholder keeps a command from creating the settings directory:
	// an empty directory changes nothing for git or NovaCode.
	settings := filepath.Join(p.Workspace, protectedDirName)
	if _, err := os.Lstat(settings); os.IsNotExist(err) {
		_ = os.Mkdir(settings, 0o755)
	}
	if _, err := os.Stat(settings); err == nil {
		args = append(args, "--ro-bind", settings, settings)
	}

	tmp := "/tmp"
	if p.TempDir != "" {
		tmp = p.TempDir
	}
	args = append(args, "--setenv", "TMPDIR", tmp, "--chdir", dir)
	return args, nil
}

// gitArgs protects the git directories of root: their hooks and config are
// bound read-only (a hook or core.fsmonitor/core.pager written there would
// run outside the sandbox the next time the user runs git), and each git
// directory that lies in a writable directory is bound onto itself, which
// makes it a mount point: a mount point cannot be renamed, so a command
// cannot move .git aside and put a fresh one, hooks and all, in its place.
func gitArgs(root string, writable []string) []string {
	var args []string
	for _, gd := range gitDirs(root) {
		if under(gd, writable) {
			args = append(args, "--bind", gd, gd)
		}
		for _, name := range []string{"hooks", "config", "config.worktree"} {
			p := filepath.Join(gd, name)
			if _, err := os.Lstat(p); err == nil {
				args = append(args, "--ro-bind", p, p)
			}
		}
	}
	return args
}

// maxGitDirs bounds the walk of .git/modules in a repository with very many
// submodules.
const maxGitDirs = 64

// gitDirs returns the git directories that belong to the repository at
// root: .git itself, or the directory a .git file points to, the common
// directory of a worktree, and the git directories of submodules under
// modules/. Paths are resolved; missing ones are left out.
func gitDirs(root string) []string {
	dot := filepath.Join(root, ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return nil
	}
	var first string
	switch {
	case fi.Mode().IsRegular():
		first = readGitFile(dot, root)
	default: // a directory, or a symlink to one
		first = dot
	}
	if first == "" {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(p string) bool {
		r, err := filepath.EvalSymlinks(p)
		if err != nil || seen[r] {
			return false
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			return false
		}
		seen[r] = true
		out = append(out, r)
		return true
	}
	if !add(first) {
		return nil
	}
	// A linked worktree's git dir names the main one in "commondir"; the
	// hooks and config that git runs live there.
	if data, err := os.ReadFile(filepath.Join(out[0], "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(out[0], c)
		}
		add(c)
	}
	for i := 0; i < len(out) && len(out) < maxGitDirs; i++ {
		modules := filepath.Join(out[i], "modules")
		_ = filepath.WalkDir(modules, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || len(out) >= maxGitDirs {
				return nil
			}
			if _, err := os.Stat(filepath.Join(p, "HEAD")); err == nil && p != modules {
				add(p)
				return filepath.SkipDir // its own modules/ is walked in turn
			}
			return nil
		})
	}
	return out
}

// readGitFile reads the "gitdir: PATH" line of a .git file.
func readGitFile(path, root string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return ""
	}
	gd, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "gitdir:")
	if !ok {
		return ""
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(root, gd)
	}
	return gd
}

// under reports whether p is one of dirs or inside one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
