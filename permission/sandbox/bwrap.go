package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// namespaceArgs are the bwrap flags that need kernel support, shared by the
// probe and the real command so that the probe fails where commands would.
//
// --unshare-pid is not in the brief's list but is what makes the rest hold:
// in the host's PID namespace a command could ptrace NovaCode or write its
// memory through /proc/PID/mem (same user) and act outside the sandbox,
// and `kill -9 -1` would take the user's session down. It also means that
// when bwrap exits every process left in the sandbox is killed, so a
// command cannot leave a process behind that outlives it; the kernel does
// that after bwrap has exited, and Finish waits until it has (nsInit).
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
	for _, d := range realDirs(p.ReadOnly) {
		if !under(d, writable) {
			continue // read-only already, as all of / is
		}
		args = append(args, "--ro-bind", d, d)
		if p.TempDir != "" && under(p.TempDir, []string{d}) {
			// The session's temp dir lives in the data directory.
			args = append(args, "--bind", p.TempDir, p.TempDir)
		}
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

// infoWait bounds how long Start waits for bwrap to report the PID of its
// sandbox's first process, which it does right after creating the
// namespaces; a bwrap that has not after this long is killed, and the
// command fails to start without having run.
const infoWait = 30 * time.Second

// bwrapHandshake holds a bubblewrap command back until NovaCode holds the
// first process of its PID namespace (see openInit): bwrap reports that
// process's PID as JSON on --info-fd, and the process waits on --block-fd,
// before it starts the command, until a byte arrives or the pipe closes.
type bwrapHandshake struct {
	infoR, infoW   *os.File // bwrap writes to infoW
	blockR, blockW *os.File // the sandbox reads blockR; closing blockW releases it
}

func newBwrapHandshake() (*bwrapHandshake, error) {
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start command: %w", err)
	}
	blockR, blockW, err := os.Pipe()
	if err != nil {
		infoR.Close()
		infoW.Close()
		return nil, fmt.Errorf("start command: %w", err)
	}
	return &bwrapHandshake{infoR: infoR, infoW: infoW, blockR: blockR, blockW: blockW}, nil
}

// add gives bwrap the handshake's ends: argv is bwrap's, files those it
// inherits as descriptors 3, 4, …
func (h *bwrapHandshake) add(argv []string, files []*os.File) ([]string, []*os.File) {
	fd := 3 + len(files)
	argv = slices.Insert(argv, 1, "--info-fd", strconv.Itoa(fd), "--block-fd", strconv.Itoa(fd+1))
	return argv, append(files, h.infoW, h.blockR)
}

// started closes this process's copies of bwrap's ends, once bwrap has
// its own: the info pipe then ends when bwrap's copies close.
func (h *bwrapHandshake) started() {
	h.infoW.Close()
	h.blockR.Close()
}

// childPID reads the PID bwrap reports for its sandbox's first process.
// It is 0, without an error, when bwrap exits without a report: it failed
// before it created the sandbox, and says why on its stderr.
func (h *bwrapHandshake) childPID() (int, error) {
	_ = h.infoR.SetReadDeadline(time.Now().Add(infoWait))
	var info struct {
		ChildPID int `json:"child-pid"`
	}
	err := json.NewDecoder(h.infoR).Decode(&info)
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return 0, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, fmt.Errorf("bubblewrap did not report its sandbox within %s", infoWait)
	case err != nil:
		return 0, fmt.Errorf("read bubblewrap's report: %w", err)
	case info.ChildPID <= 0:
		return 0, errors.New("bubblewrap's report has no child-pid")
	}
	return info.ChildPID, nil
}

// release lets the sandbox start the command, and closes the rest.
func (h *bwrapHandshake) release() {
	for _, f := range []*os.File{h.infoR, h.infoW, h.blockR, h.blockW} {
		f.Close()
	}
}
