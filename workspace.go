package nova

import (
	"fmt"
	"os"
	"path/filepath"
)

// workspace is dir made absolute, or the current directory; it must be a
// directory.
func workspace(dir string) (string, error) {
	if dir == "" {
		d, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the working directory: %w", err)
		}
		return d, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", dir)
	}
	return abs, nil
}

// DefaultDataDir is NovaCode's per-user directory: $NOVA_HOME, else
// ~/.novacode.
func DefaultDataDir() (string, error) { return dataDirOf("") }

func dataDirOf(d string) (string, error) {
	if d != "" {
		return d, nil
	}
	if d := os.Getenv("NOVA_HOME"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the home directory (set NOVA_HOME to choose a data directory): %w", err)
	}
	return filepath.Join(home, ".novacode"), nil
}

// endpointID names the endpoint in the context-window cache.
func endpointID(ep endpoint) string { return ep.Provider + " " + ep.BaseURL }
