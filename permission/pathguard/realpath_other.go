//go:build !linux

package pathguard

import (
	"errors"
	"os"
)

// RealPath returns the path of an open file: f.Name() with symlinks
// resolved. Without Linux's /proc/self/fd this is a fresh lookup, not the
// descriptor's own identity, so Recheck judges it both as given and
// resolved again.
func RealPath(f *os.File) (string, error) {
	if f == nil {
		return "", errors.New("pathguard: real path: nil file")
	}
	return fallbackRealPath(f)
}
