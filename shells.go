package nova

import (
	"time"

	"github.com/novacode/nova/tool"
)

// Shell is one background command of the session (Bash with
// run_in_background): the TUI's /bashes lists them.
type Shell struct {
	ID          string
	Command     string
	Description string
	// Agent is the subagent that started it, "" for the session's own.
	Agent    string
	Started  time.Time
	Duration time.Duration // so far, while it runs
	Running  bool
	Killed   bool
	ExitCode int
	// Output is the file that holds its whole output.
	Output string
}

// Shells lists the session's background commands, oldest first.
func (s *Session) Shells() []Shell {
	if s.jobs == nil {
		return nil
	}
	var out []Shell
	for _, j := range s.jobs.List() {
		sh := Shell{ID: j.ID, Command: j.Command, Description: j.Description, Agent: j.Owner,
			Started: j.Started, Running: j.Running, Killed: j.Killed, ExitCode: j.ExitCode, Output: j.OutputPath}
		end := j.Ended
		if j.Running {
			end = time.Now()
		}
		sh.Duration = end.Sub(j.Started)
		out = append(out, sh)
	}
	return out
}

// KillShell stops a background command and every process it started.
func (s *Session) KillShell(id string) error {
	if s.jobs == nil {
		return tool.ErrNoJobs
	}
	return s.jobs.Kill(id)
}
