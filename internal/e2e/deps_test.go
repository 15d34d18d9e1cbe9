//go:build unix

package e2e

// The binary under test is built by `go build` in TestMain, which the test
// cache cannot see. Importing the CLI makes this test binary (and so its
// cached result) change whenever anything the nova binary is made of does.
import _ "github.com/novacode/nova/internal/cli"
