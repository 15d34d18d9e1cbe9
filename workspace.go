package nova

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"
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

func systemPrompt(dir, model string) string {
	return fmt.Sprintf(`You are NovaCode, a coding agent working in the user's terminal. You solve software tasks by reading and editing files and running commands with the tools you have. Be concise. Prefer Edit over Write for existing files; read a file before editing it. Run the project's tests when you change code.

<env>
Working directory: %s
Platform: %s/%s
Date: %s
Model: %s
</env>`, dir, runtime.GOOS, runtime.GOARCH, time.Now().Format("2006-01-02"), model)
}
