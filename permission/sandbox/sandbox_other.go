//go:build !linux

package sandbox

import "errors"

var errNotLinux = errors.New("sandboxing needs Linux")

func landlockABI() int { return 0 }

func execLandlock(helperSpec, []string) error { return errNotLinux }

func execBwrap(helperSpec, []string) error { return errNotLinux }
