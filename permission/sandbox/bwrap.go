package sandbox

import (
	"fmt"
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
// command. It runs per command, not once in New: writable directories may
// be created during the session. protect are the binds that keep git
// metadata and linked files read-only (gitGuard.bindArgs); they come after
// the writable directories, on top of which they are mounted.
func bwrapArgs(p Policy, dir string, protect []string) ([]string, error) {
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
	args = append(args, protect...)

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

// under reports whether p is one of dirs or inside one.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if rel, err := filepath.Rel(d, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
