//go:build linux && !amd64 && !arm64

package sandbox

// The socket filter is written for amd64 and arm64 only; elsewhere
// commands may create any socket the backend does not isolate.
const (
	seccompSupported = false
	seccompArch      = 0
	seccompX32       = 0xffffffff
)
