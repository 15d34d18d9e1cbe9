//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

var errNotLinux = errors.New("sandboxing needs Linux")

// osSandbox: both backends, bubblewrap and Landlock, are Linux's. Here
// commands run unsandboxed, and the sandbox's notice says so (New).
const osSandbox = false

func landlockABI() int { return 0 }

type rulesetFD struct{ signalScope bool }

func (rulesetFD) close() {}

func landlockRuleset([]string, bool) (rulesetFD, error) { return rulesetFD{}, errNotLinux }

type confinedCmd struct{}

func (*confinedCmd) end() string { return "" }

func startOnConfinedThread(*exec.Cmd, rulesetFD, bool, func(int) []int) (*confinedCmd, error) {
	return nil, errNotLinux
}

func endDomain() []int { return nil }

func seccompFile() (*os.File, error) { return nil, nil }

func closeInheritedFDs() {}

// seccompSupported: the socket filter exists on Linux only.
const seccompSupported = false

func killSession(int) []int { return nil }

// gitGuard needs Linux (the scan reads link counts and change times, and
// only bubblewrap uses it); elsewhere there is none.
type gitGuard struct{}

func newGitGuard([]string, []string, func()) *gitGuard { return nil }
func (*gitGuard) close()                               {}
func (*gitGuard) begin() ([]string, uint64)            { return nil, 0 }
func (*gitGuard) end(uint64) string                    { return "" }
func (*gitGuard) guarantees(context.Context) (bool, bool, []string) {
	return false, false, []string{errNotLinux.Error()}
}

func killGroup(int) {}

// nsInit needs pidfds; elsewhere bubblewrap is not used.
type nsInit struct{}

func openInit(int, int) *nsInit { return nil }
func (*nsInit) end() string     { return "" }
