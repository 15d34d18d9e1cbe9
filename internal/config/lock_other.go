//go:build !unix

package config

// lockDir does nothing where flock is missing: concurrent updates of the
// user's settings file may then lose one of them.
func lockDir(string) (func(), error) { return func() {}, nil }
