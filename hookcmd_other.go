//go:build !unix

package nova

import (
	"context"
	"os/exec"
)

// hookShell is the command for a hook's command line: sh where there is
// one (Git for Windows has it), else cmd. Without process groups, only the
// shell is killed when ctx ends.
func hookShell(ctx context.Context, command string) *exec.Cmd {
	if sh, err := exec.LookPath("sh"); err == nil {
		return exec.CommandContext(ctx, sh, "-c", command)
	}
	return exec.CommandContext(ctx, "cmd", "/C", command)
}
