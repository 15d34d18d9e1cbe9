//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

var errNotLinux = errors.New("sandboxing needs Linux")

func landlockABI() int { return 0 }

func execLandlock(helperSpec, []string) error { return errNotLinux }

func seccompFile() (*os.File, error) { return nil, nil }

func closeInheritedFDs() {}

// seccompSupported: the socket filter exists on Linux only.
const seccompSupported = false
