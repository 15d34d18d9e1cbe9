package pathguard

import (
	"fmt"
	"os"
	"path/filepath"
)

// fallbackRealPath resolves f.Name(), and checks that it still names the
// opened file: a swap since the open shows up as a different file.
func fallbackRealPath(f *os.File) (string, error) {
	abs, err := filepath.Abs(f.Name())
	if err != nil {
		return "", fmt.Errorf("pathguard: real path of %s: %w", f.Name(), err)
	}
	p, err := ResolvePath(abs)
	if err != nil {
		return "", fmt.Errorf("pathguard: real path of %s: %w", f.Name(), err)
	}
	opened, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("pathguard: real path of %s: %w", f.Name(), err)
	}
	named, err := os.Stat(p)
	if err != nil || !os.SameFile(opened, named) {
		return "", fmt.Errorf("pathguard: real path of %s: the path no longer names the opened file (changed after the open)", f.Name())
	}
	return p, nil
}
