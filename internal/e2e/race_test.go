//go:build race

package e2e

// raceEnabled builds the binary under test with -race too, so the build
// reuses the race-instrumented packages of the test build.
const raceEnabled = true
