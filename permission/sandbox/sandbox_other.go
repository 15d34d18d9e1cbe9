//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
)

var errNotLinux = errors.New("sandboxing needs Linux")

func landlockABI() int { return 0 }

type rulesetFD struct{}

func (rulesetFD) close() {}

func landlockRuleset([]string, bool) (rulesetFD, error) { return rulesetFD{}, errNotLinux }

func startOnConfinedThread(*exec.Cmd, rulesetFD, bool) error { return errNotLinux }

func seccompFile() (*os.File, error) { return nil, nil }

func closeInheritedFDs() {}

// seccompSupported: the socket filter exists on Linux only.
const seccompSupported = false
