//go:build !linux

package tool

import "os/exec"

// setParentDeath does nothing where there is no Pdeathsig: a NovaCode
// killed outright leaves its background commands running.
func setParentDeath(*exec.Cmd) {}

// spawner starts commands from the calling goroutine: without Pdeathsig
// no child is tied to a thread.
type spawner struct{}

func newSpawner() *spawner { return &spawner{} }

func (*spawner) start(fn func() error) error { return fn() }

func (*spawner) stop() {}
