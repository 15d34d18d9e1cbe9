//go:build unix

package config

import (
	"fmt"
	"os"
	"syscall"
)

// lockDir holds an exclusive lock on dir until the returned function is
// called: two nova processes that update the user's settings file at once
// (an "allow always" answer in one workspace, a trust answer in another)
// must not lose either change.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
