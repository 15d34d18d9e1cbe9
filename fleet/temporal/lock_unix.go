//go:build unix

package temporal

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes f's exclusive lock without waiting; false when another
// process holds it. flock(2): on NFS, Linux takes it as a lock of the
// whole file on the server, which other machines see.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
