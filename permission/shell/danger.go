package shell

// The Dangerous categories: what a command can destroy, leak or escalate.
// Every Dangerous reason starts with its category, so that a person asked
// in bypassPermissions mode sees at once what is at stake.

import "fmt"

// category is what a dangerous command puts at stake.
type category string

const (
	// destroys: removes or overwrites what cannot be rebuilt — files
	// outside the build output, the workspace, the home directory, the
	// repository and its history, disks, the running system.
	destroys category = "destroys"
	// leaks: sends secrets (keys, credentials, .env files, the
	// environment) off the machine.
	leaks category = "leaks"
	// escalates: gains reach the session should not have — root, a
	// shell for another host, code that runs later or elsewhere
	// (start-up files, cron, services, git hooks and configuration,
	// setuid), code hidden from review (downloaded, decoded, or only
	// known at run time).
	escalates category = "escalates"
)

// dangerous records a Dangerous reason of the category.
func (z *analyzer) dangerous(cat category, format string, args ...any) {
	z.sink.add(&z.sink.a.Dangerous, "d", string(cat)+": "+fmt.Sprintf(format, args...))
}

// risk is why changing a path is Dangerous, and in which category.
type risk struct {
	cat    category
	reason string
}
