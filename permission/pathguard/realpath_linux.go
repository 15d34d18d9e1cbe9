package pathguard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RealPath returns the path of an open file as the kernel sees it: the
// readlink of /proc/self/fd/N, which names the very inode the descriptor
// holds, whatever symlinks led there. Without /proc it falls back to
// f.Name() with symlinks resolved, which is only as good as a fresh lookup.
func RealPath(f *os.File) (string, error) {
	if f == nil {
		return "", errors.New("pathguard: real path: nil file")
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return "", fmt.Errorf("pathguard: real path of %s: %w", f.Name(), err)
	}
	var p string
	var rlErr error
	// Control rather than Fd: Fd would switch the file to blocking mode.
	if err := sc.Control(func(fd uintptr) {
		p, rlErr = os.Readlink("/proc/self/fd/" + strconv.FormatUint(uint64(fd), 10))
	}); err != nil {
		return "", fmt.Errorf("pathguard: real path of %s: %w", f.Name(), err)
	}
	if rlErr != nil {
		if errors.Is(rlErr, os.ErrNotExist) {
			if _, err := os.Stat("/proc/self/fd"); err != nil {
				return fallbackRealPath(f) // /proc is not mounted
			}
		}
		return "", fmt.Errorf("pathguard: real path of %s: %w", f.Name(), rlErr)
	}
	switch {
	case strings.HasSuffix(p, " (deleted)"):
		return "", fmt.Errorf("pathguard: real path of %s: the file was deleted or replaced after it was opened", f.Name())
	case !filepath.IsAbs(p):
		// "pipe:[…]", "anon_inode:…", or a path outside this process's
		// root (chroot, other mount namespace).
		return "", fmt.Errorf("pathguard: real path of %s: the kernel names it %q, which is not a path", f.Name(), p)
	}
	return p, nil
}
