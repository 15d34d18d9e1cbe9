package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Workspace is what the settings files say about one workspace, before
// the caller decides whether the workspace is trusted.
type Workspace struct {
	// Key names the workspace in the user's "workspaces" (see Key).
	Key string
	// UserPath is the user's settings file; it may not exist yet.
	UserPath string
	// Widening lists the project-level settings that apply only once the
	// workspace is trusted, in file order.
	Widening []Widening
	// Hash names Widening; "" when it is empty. An answer to the trust
	// question is remembered for it.
	Hash string
	// Record is what the user's file remembers about this workspace.
	Record WorkspaceRecord

	user    *File
	project []classified
}

// LoadWorkspace reads the settings files of the workspace at dir (an
// absolute path): the user's in dataDir, then the project's and the local
// one. A file that is not valid JSON, or has a value of the wrong type, is
// an error naming the file and the line: silently ignoring it could drop a
// setting that matters.
func LoadWorkspace(dataDir, dir string) (*Workspace, error) {
	return LoadWorkspaceLayers(dataDir, dir, []Layer{LayerUser, LayerProject, LayerLocal})
}

// LoadWorkspaceLayers is LoadWorkspace reading only the files of layers
// (an embedding program's choice of settings sources). The user's file is
// still where answers are remembered (UserPath), read or not.
func LoadWorkspaceLayers(dataDir, dir string, layers []Layer) (*Workspace, error) {
	paths := Paths(dataDir, dir)
	w := &Workspace{Key: Key(dir), UserPath: paths[0]}
	var err error
	if slices.Contains(layers, LayerUser) {
		if w.user, err = readFile(paths[0], LayerUser); err != nil {
			return nil, err
		}
	}
	if w.user != nil {
		w.Record = w.user.Settings.Workspaces[w.Key]
	}
	own := ownBaseline(w.user)
	var digests [][]byte
	for i, layer := range []Layer{LayerProject, LayerLocal} {
		if !slices.Contains(layers, layer) {
			continue
		}
		if sameFile(paths[0], paths[i+1]) {
			// The workspace is the home directory: its .novacode is the
			// user's own.
			continue
		}
		f, err := readFile(paths[i+1], layer)
		if err != nil || f == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		c, err := classify(*f, own)
		if err != nil {
			return nil, err
		}
		w.project = append(w.project, c)
		w.Widening = append(w.Widening, c.widening...)
		digests = append(digests, c.digest)
	}
	w.Hash = hashOf(digests...)
	return w, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// readFile reads and parses one settings file; nil when it does not exist.
func readFile(path string, layer Layer) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	f, err := parse(path, data)
	if err != nil {
		return nil, err
	}
	f.Layer = layer
	return &f, nil
}

// Key is how a workspace is named in the user's "workspaces": its absolute
// path with symlinks resolved, so that every way of reaching it finds the
// same record.
func Key(dir string) string {
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return r
	}
	return filepath.Clean(dir)
}

// NeedsTrust reports whether any project-level setting waits for trust.
func (w *Workspace) NeedsTrust() bool { return len(w.Widening) > 0 }

// Remembered returns the person's answer for exactly these widening
// settings; ok is false when they have not answered for them (never, or
// for settings that have changed since).
func (w *Workspace) Remembered() (trusted, ok bool) {
	if w.Hash == "" || w.Record.SettingsHash != w.Hash {
		return false, false
	}
	return w.Record.Trusted, true
}

// Changed reports whether the person answered for other widening settings
// than these: the project's settings changed since.
func (w *Workspace) Changed() bool {
	return w.Record.SettingsHash != "" && w.Record.SettingsHash != w.Hash
}

// Resolve returns the merged settings and the files as applied: with
// trusted, everything but user-only settings; without, the project-level
// files without their widening settings. Environment variables and flags,
// applied by the caller, still beat every file.
func (w *Workspace) Resolve(trusted bool) (Settings, []File) {
	var files []File
	if w.user != nil {
		files = append(files, *w.user)
	}
	for _, c := range w.project {
		if trusted {
			files = append(files, c.trusted)
		} else {
			files = append(files, c.untrusted)
		}
	}
	var merged Settings
	for _, f := range files {
		merged = merge(merged, f.Settings)
	}
	// Only the user's own file says what was decided about workspaces,
	// and which credentials commands may see.
	merged.Workspaces, merged.Env = nil, nil
	if w.user != nil {
		merged.Workspaces, merged.Env = w.user.Settings.Workspaces, w.user.Settings.Env
	}
	return merged, files
}
