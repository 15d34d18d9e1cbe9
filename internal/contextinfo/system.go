package contextinfo

import (
	"fmt"
	"runtime"
	"time"
)

// SystemPrompt is NovaCode's system prompt for a session in dir with model:
// the role and working rules, then an <env> block with the directory, the
// platform, the day of now (no time of day) and the model. A caller computes
// it once per run, so every request sends the same bytes (the provider's
// prompt cache starts with them); what changes during a session (git state,
// memory files) goes into the Preamble instead.
func SystemPrompt(dir, model string, now time.Time) string {
	return fmt.Sprintf(`You are NovaCode, a coding agent working in the user's terminal. You solve software tasks by reading and editing files and running commands with the tools you have. Be concise. Prefer Edit over Write for existing files; read a file before editing it. Run the project's tests when you change code.

<env>
Working directory: %s
Platform: %s/%s
Date: %s
Model: %s
</env>`, dir, runtime.GOOS, runtime.GOARCH, now.Format("2006-01-02"), model)
}
