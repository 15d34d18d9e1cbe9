//go:build unix

package cli

import (
	"os"
	"syscall"
)

const exeSuffix = ""

// execCompanion replaces this process with path: same pid, streams and
// signals, so that whoever started nova (a shell's Ctrl-C, a supervisor's
// kill) reaches the companion itself. It returns only on failure. Tests
// replace it.
var execCompanion = func(path string, args []string) (int, error) {
	return 0, syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
