package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/novacode/nova/internal/gitexclude"
)

// RememberTrust records in the user's settings file at userPath the
// person's answer for workspace key: trusted or not, for the widening
// settings named by hash (Workspace.Hash). Its "allow always" rules stay.
func RememberTrust(userPath, key, hash string, trusted bool) error {
	return updateWorkspace(userPath, key, func(rec map[string]json.RawMessage) error {
		rec["settingsHash"], _ = json.Marshal(hash)
		rec["trusted"], _ = json.Marshal(trusted)
		return nil
	})
}

// RememberAllow adds rules to the "allow always" answers of workspace key
// in the user's settings file at userPath. They are kept there, not in the
// workspace, because a repository could ship a file that says the person
// allowed anything.
func RememberAllow(userPath, key string, rules []string) error {
	return updateWorkspace(userPath, key, func(rec map[string]json.RawMessage) error {
		var allow []string
		if raw, ok := rec["allow"]; ok {
			if err := json.Unmarshal(raw, &allow); err != nil {
				return fmt.Errorf("\"allow\" of workspace %s is not a list of strings", key)
			}
		}
		for _, r := range rules {
			if !slices.Contains(allow, r) {
				allow = append(allow, r)
			}
		}
		rec["allow"], _ = json.Marshal(allow)
		return nil
	})
}

// RememberMCP records in the user's settings file at userPath the
// person's answers about servers of workspace key's .mcp.json, by name;
// answers given before for other servers stay.
func RememberMCP(userPath, key string, answers map[string]MCPAnswer) error {
	return updateWorkspace(userPath, key, func(rec map[string]json.RawMessage) error {
		all := map[string]MCPAnswer{}
		if raw, ok := rec["mcpjsonServers"]; ok {
			if err := json.Unmarshal(raw, &all); err != nil {
				return fmt.Errorf("\"mcpjsonServers\" of workspace %s is not an object of answers", key)
			}
		}
		for n, a := range answers {
			all[n] = a
		}
		rec["mcpjsonServers"], _ = json.Marshal(all)
		return nil
	})
}

// updateWorkspace edits the record of workspace key in the user's settings
// file, keeping everything else: the other members in their order and as
// written, the other records, fields of the record this version does not
// know. The file is locked against other nova processes while it is read
// and rewritten; a symlinked file (a dotfiles checkout) is written through
// the link.
func updateWorkspace(userPath, key string, edit func(rec map[string]json.RawMessage) error) error {
	return updateFile(userPath, fileOptions{private: true, exclude: true}, func(top []topMember) ([]topMember, error) {
		// encoding/json folds case and merges repeated objects when it
		// reads "workspaces"; so does this, into the first such member.
		all := map[string]json.RawMessage{}
		at := -1
		kept := top[:0]
		for _, m := range top {
			if !strings.EqualFold(m.key, "workspaces") {
				kept = append(kept, m)
				continue
			}
			if err := json.Unmarshal(m.value, &all); err != nil {
				return nil, errors.New("\"workspaces\" is not an object; fix it and try again")
			}
			if at < 0 {
				at = len(kept)
				kept = append(kept, m)
			}
		}
		top = kept
		rec := map[string]json.RawMessage{}
		if raw, ok := all[key]; ok {
			if err := json.Unmarshal(raw, &rec); err != nil {
				return nil, fmt.Errorf("the record of workspace %s is not an object; fix it and try again", key)
			}
		}
		if err := edit(rec); err != nil {
			return nil, err
		}
		all[key], _ = json.Marshal(rec)
		value, err := json.MarshalIndent(all, "  ", "  ")
		if err != nil {
			return nil, err
		}
		if at < 0 {
			top = append(top, topMember{key: "workspaces"})
			at = len(top) - 1
		}
		top[at] = topMember{key: "workspaces", value: value}
		return top, nil
	})
}

// fileOptions say how updateFile treats a file it creates.
type fileOptions struct {
	// private: the file is readable by its owner only, whatever it was
	// before (the user's settings may hold API keys); else a file it
	// creates is readable by everyone, like a file a repository holds, and
	// a file that exists keeps its mode.
	private bool
	// exclude: a file it creates inside a git work tree is added to the
	// repository's info/exclude (gitexclude): it is the person's own.
	exclude bool
}

// updateFile rewrites the JSON object in the file at path with edit, which
// gets its top-level members in order, each value as written, and returns
// them as they are to be: the members it keeps are written back as they
// were, one per line. A missing file is an empty object (and is created).
// The file is locked against other nova processes while it is read and
// rewritten; a symlink is written through.
func updateFile(path string, o fileOptions, edit func(top []topMember) ([]topMember, error)) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	dirMode := os.FileMode(0o755)
	if o.private {
		dirMode = 0o700
	}
	if err := os.MkdirAll(filepath.Dir(path), dirMode); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	unlock, err := lockDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	defer unlock()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("update %s: %w", path, err)
	}
	created := err != nil
	mode := os.FileMode(0o600)
	if !o.private {
		mode = 0o644
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	top, err := topLevel(data)
	if err != nil {
		return fmt.Errorf("update %s: it is not a JSON object (%v); fix it and try again", path, err)
	}
	if top, err = edit(top); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	var out bytes.Buffer
	out.WriteString("{")
	for i, m := range top {
		if i > 0 {
			out.WriteString(",")
		}
		k, _ := json.Marshal(m.key)
		fmt.Fprintf(&out, "\n  %s: %s", k, m.value)
	}
	out.WriteString("\n}\n")
	if err := writeAtomic(path, out.Bytes(), mode); err != nil {
		return err
	}
	if created && o.exclude {
		// A file nova made, in a git work tree (a home directory kept in
		// git, NOVA_HOME inside a project), must not be committed by
		// accident: it names every workspace and what it may do. The
		// answer is saved either way; keeping it out of git is a courtesy
		// that may fail (a read-only .git) without undoing that.
		_, _ = gitexclude.Add(path, false)
	}
	return nil
}

// topMember is one member of a file's top-level object, its value as
// written.
type topMember struct {
	key   string
	value json.RawMessage
}

func topLevel(data []byte) ([]topMember, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, errors.New("the top level is not an object")
	}
	var out []topMember
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		m := topMember{key: tok.(string)}
		if err := dec.Decode(&m.value); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// writeAtomic replaces path with data, with mode: a crash leaves the old
// file or the new one, never half of one.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
