//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

const exeSuffix = ".exe"

// execCompanion runs path as a child on this process's streams (no
// exec(2) here) and returns its exit code. Tests replace it.
var execCompanion = func(path string, args []string) (int, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		return ee.ExitCode(), nil
	}
	return 0, err
}
