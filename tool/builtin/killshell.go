package builtin

import (
	"context"
	"errors"
	"fmt"

	"github.com/novacode/nova/tool"
)

// KillShellInput is the input of the KillShell tool.
type KillShellInput struct {
	ShellID string `json:"shell_id" jsonschema:"The ID of the background shell to kill"`
}

// NewKillShell returns the KillShell tool, which stops a background
// command (Bash with run_in_background) and everything it started.
func NewKillShell() *tool.Typed[KillShellInput] {
	return tool.New("KillShell", killShellDesc, false, nil, runKillShell)
}

const killShellDesc = `Kills a running background bash shell (a Bash call with run_in_background) by its ID.

Usage:
- Takes the shell_id that Bash returned.
- Stops the command and every process it started: SIGTERM first, SIGKILL for whatever is still running two seconds later. Returns once they are gone.
- Says what was stopped, or that the shell had already ended.
- Output the shell wrote before it was stopped can still be read with BashOutput.`

func runKillShell(_ context.Context, env *tool.Env, in KillShellInput) (tool.Result, error) {
	if env.Jobs == nil {
		return tool.Errorf("Background commands are not available here, so there is no shell %s.", in.ShellID), nil
	}
	before, ok := env.Jobs.Get(in.ShellID)
	if !ok {
		return tool.Errorf("%s", unknownJob(env.Jobs, in.ShellID)), nil
	}
	if !before.Running {
		return tool.Result{Content: fmt.Sprintf("Nothing to stop: %s had already ended (it %s). Command: %s",
			in.ShellID, jobStatus(before), cutLine(before.Command, noticeCommand))}, nil
	}
	if err := env.Jobs.Kill(in.ShellID); err != nil {
		if errors.Is(err, tool.ErrNoJob) {
			return tool.Errorf("%s", unknownJob(env.Jobs, in.ShellID)), nil
		}
		return tool.Result{}, err
	}
	after, _ := env.Jobs.Get(in.ShellID)
	if !after.Killed {
		// It ended on its own while being stopped; its end is reported
		// as any other.
		return tool.Result{Content: fmt.Sprintf("%s ended on its own before it could be stopped: it %s. Command: %s",
			in.ShellID, jobStatus(after), cutLine(after.Command, noticeCommand))}, nil
	}
	return tool.Result{Content: fmt.Sprintf("Killed %s and every process it started, after %s. Command: %s",
		in.ShellID, formatDuration(after.Ended.Sub(after.Started)), cutLine(after.Command, noticeCommand))}, nil
}
