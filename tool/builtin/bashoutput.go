package builtin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/novacode/nova/tool"
)

// BashOutputInput is the input of the BashOutput tool.
type BashOutputInput struct {
	BashID string `json:"bash_id" jsonschema:"The ID of the background shell to retrieve output from"`
	Filter string `json:"filter,omitempty" jsonschema:"Optional regular expression to filter the output lines. Only lines matching this regex will be included in the result. Any lines that do not match will no longer be available to read."`
}

// NewBashOutput returns the BashOutput tool, which reads what a background
// command (Bash with run_in_background) wrote since the last read.
func NewBashOutput() *tool.Typed[BashOutputInput] {
	return tool.New("BashOutput", bashOutputDesc, true, nil, runBashOutput).WithEffects(bashOutputEffects)
}

// bashOutputEffects: it reads a file of the session's, never the
// workspace, so it runs beside anything.
func bashOutputEffects(*tool.Env, BashOutputInput) tool.Effects { return tool.Effects{} }

const bashOutputDesc = `Retrieves output from a running or completed background bash shell (a Bash call with run_in_background).

Usage:
- Takes the bash_id that Bash returned.
- Returns the shell's status (running, or how it ended) and only the output that is new since the last BashOutput call for that shell; stdout and stderr are interleaved as they were written.
- filter is an optional regular expression (Go syntax): only the lines matching it are returned. The other new lines are consumed too and will not be returned again.
- New output beyond about 30000 characters is cut in the middle; the start and the end are kept, and the file holding the whole output is named (read parts of it with Read or Grep).
- You are told when a background shell ends without asking, so do not poll it in a loop: check it when you need its output.`

// bashOutputRoom is what the status and the notes around the output may
// take of maxToolOutput.
const bashOutputRoom = 1000

func runBashOutput(_ context.Context, env *tool.Env, in BashOutputInput) (tool.Result, error) {
	if env.Jobs == nil {
		return tool.Errorf("Background commands are not available here, so there is no shell %s.", in.BashID), nil
	}
	var filter *regexp.Regexp
	if in.Filter != "" {
		re, err := regexp.Compile(in.Filter)
		if err != nil {
			return tool.Errorf("Invalid filter regular expression: %v. Nothing was read; fix the filter and call BashOutput again.", err), nil
		}
		filter = re
	}
	out, err := env.Jobs.Read(in.BashID, filter, maxToolOutput-bashOutputRoom)
	if errors.Is(err, tool.ErrNoJob) {
		return tool.Errorf("%s", unknownJob(env.Jobs, in.BashID)), nil
	}
	if err != nil {
		return tool.Errorf("Cannot read the output of %s: %v", in.BashID, err), nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s.\n", in.BashID, jobStatus(out.Info))
	if out.Info.Note != "" {
		b.WriteString(strings.TrimRight(out.Info.Note, "\n") + "\n")
	}
	switch {
	case out.Text == "" && filter != nil && out.Skipped > 0:
		b.WriteString("No new line matches the filter.")
	case out.Text == "":
		b.WriteString("(no new output)")
	default:
		b.WriteString("New output:\n")
		b.WriteString(out.Text)
	}
	if filter != nil && out.Skipped > 0 {
		if !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "(%s not matching the filter left out; they will not be returned again.)", plural(out.Skipped, "line"))
	}
	return tool.Result{Content: b.String()}, nil
}

// unknownListed is how many background shells unknownJob names: the
// latest.
const unknownListed = 20

// unknownJob says that id names no background shell, and which there are.
func unknownJob(jobs *tool.Jobs, id string) string {
	list := jobs.List()
	if len(list) == 0 {
		return fmt.Sprintf("No background shell has the ID %s: none has been started.", id)
	}
	var b strings.Builder
	if len(list) > unknownListed {
		fmt.Fprintf(&b, "No background shell has the ID %s. The latest %d of %d background shells are:", id, unknownListed, len(list))
		list = list[len(list)-unknownListed:]
	} else {
		fmt.Fprintf(&b, "No background shell has the ID %s. The background shells are:", id)
	}
	for _, in := range list {
		state := "running"
		if !in.Running {
			state = "ended"
		}
		fmt.Fprintf(&b, "\n- %s (%s): %s", in.ID, state, cutLine(in.Command, 200))
	}
	return b.String()
}
