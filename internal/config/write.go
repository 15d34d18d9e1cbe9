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
)

// AddAllowRules appends rules to permissions.allow in the settings file at
// path (normally .novacode/settings.local.json), creating it if needed and
// keeping everything else in it. The write is atomic: a crash leaves the old
// file or the new one, never half of one.
func AddAllowRules(path string, rules []string) error {
	doc := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("remember rules: %w", err)
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("remember rules: %s is not a JSON object (%v); fix it first", path, err)
		}
	}
	perms := map[string]json.RawMessage{}
	if raw, ok := doc["permissions"]; ok {
		if err := json.Unmarshal(raw, &perms); err != nil {
			return fmt.Errorf("remember rules: \"permissions\" in %s is not an object", path)
		}
	}
	var allow []string
	if raw, ok := perms["allow"]; ok {
		if err := json.Unmarshal(raw, &allow); err != nil {
			return fmt.Errorf("remember rules: \"permissions.allow\" in %s is not a list of strings", path)
		}
	}
	for _, r := range rules {
		if !slices.Contains(allow, r) {
			allow = append(allow, r)
		}
	}
	perms["allow"], _ = json.Marshal(allow)
	doc["permissions"], _ = json.Marshal(perms)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("remember rules: %w", err)
	}
	out = append(out, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("remember rules: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return fmt.Errorf("remember rules: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		tmp.Close()
		return fmt.Errorf("remember rules: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("remember rules: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("remember rules: %w", err)
	}
	return nil
}
