package permission

import (
	"fmt"
	"path/filepath"

	"github.com/novacode/nova/permission/pathguard"
)

// ExitPlanModeTool is the tool with which the model ends plan mode: the
// chain asks the person about its plan in plan mode, and denies it in
// every other mode (there is no plan to approve).
const ExitPlanModeTool = "ExitPlanMode"

// exitPlanMode decides a call of ExitPlanMode: in plan mode only a person
// can approve the plan (no rule, no hook's allow); elsewhere it is denied.
func (c *Checker) exitPlanMode() Decision {
	if c.cfg.Mode != ModePlan {
		return Decision{Behavior: Deny, Reason: fmt.Sprintf("not in plan mode (the mode is %s), so there is no plan to approve: go on with the task", c.cfg.Mode)}
	}
	return Decision{Behavior: Ask, Reason: "the plan needs your approval before anything changes", NeedsPerson: true}
}

// planReadOnly reports whether a call may run in plan mode as far as
// changing things goes: a command the shell analyser proves read-only, a
// tool that only reads, a fetch or the provider's web search (asked like
// in every mode). Where it reads is decided by the rest of the chain.
func planReadOnly(call Call, s subject) bool {
	switch {
	case s.command != nil:
		return s.command.ReadOnly()
	case s.host != "", call.Tool == "WebSearch":
		return true
	}
	return call.ReadOnly && !s.write
}

// planRefusal is why plan mode denies a call, and how to go on.
func (c *Checker) planRefusal(call Call) string {
	what := "it would change files or run commands"
	if call.Tool == "Bash" {
		what = "the command is not one the shell analyser can prove read-only (it writes, redirects, or runs a program it does not know)"
	}
	where := "the plan file"
	if c.cfg.PlanFile != "" {
		where = "the plan file " + c.cfg.PlanFile
	}
	return fmt.Sprintf("plan mode allows read-only tools only: %s. Explore with read-only tools and commands, write your plan to %s (the one file you may write in plan mode), "+
		"then call ExitPlanMode to ask the user to approve it; once they do, the mode changes and you can make the changes", what, where)
}

// readOnlyRefusal is why a read-only subagent (Explore) may not make a
// call.
func (c *Checker) readOnlyRefusal(call Call) string {
	what := "it would change files or run commands"
	if call.Tool == "Bash" {
		what = "the command is not one the shell analyser can prove read-only (it writes, redirects, or runs a program it does not know)"
	}
	return fmt.Sprintf("this subagent is read-only: %s. Use read-only tools and commands, and report what should change to the agent that started you", what)
}

// isPlanFile reports whether call reads the session's plan file (in every
// mode) or writes it with Write or Edit (in plan mode): that very path, not
// a symlink leading elsewhere, not hard-linked, not special.
func (c *Checker) isPlanFile(call Call, s subject) bool {
	plan := c.cfg.PlanFile
	if plan == "" || s.command != nil || len(s.paths) != 1 {
		return false
	}
	switch {
	case s.write && c.cfg.Mode == ModePlan && (call.Tool == "Write" || call.Tool == "Edit"):
	case !s.write && call.Tool == "Read":
	default:
		return false
	}
	p := s.paths[0]
	if p.Err != "" || p.Special != "" || p.HardLinks > 1 || filepath.Base(p.Resolved) != filepath.Base(plan) {
		return false
	}
	// The directory as it resolves, the name as it is: a symlink at the
	// plan file's place resolves elsewhere and does not match.
	dir, err := pathguard.ResolvePath(filepath.Dir(plan))
	if err != nil {
		return false
	}
	return p.Resolved == filepath.Join(dir, filepath.Base(plan))
}
