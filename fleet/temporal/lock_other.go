//go:build !unix

package temporal

import "os"

// tryLock takes nothing where flock(2) is missing: a step and a retry of
// it that overlap (a worker cut off from the server still running it) may
// both write the session.
func tryLock(*os.File) (bool, error) { return true, nil }
