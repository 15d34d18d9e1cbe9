package fleet

import (
	"github.com/novacode/nova/internal/printmode"
)

// Result is print mode's result object: the line `nova -p --output-format
// json` prints (subtype, result, num_turns, duration_ms, session_id,
// usage, total_cost_usd, tool_calls, permission_denials, …). It is print
// mode's own type, so a batch's lines and print mode's never drift apart.
type Result = printmode.Result

// Usage is a Result's token totals.
type Usage = printmode.Usage

// ToolCall, PermissionDenial and Source are a Result's calls, denied calls
// and cited pages.
type (
	ToolCall         = printmode.ToolCall
	PermissionDenial = printmode.PermissionDenial
	Source           = printmode.Source
)

// Result subtypes (Result.Subtype).
const (
	SubtypeSuccess   = printmode.SubtypeSuccess
	SubtypeMaxTurns  = printmode.SubtypeMaxTurns
	SubtypeError     = printmode.SubtypeError
	SubtypeCancelled = printmode.SubtypeCancelled
)

// TaskResult is one line of a batch's results: the task's print-mode
// result with the task's id first and, for a git task, what it changed.
type TaskResult struct {
	ID string `json:"id"`
	Result
	// Diff is what the task changed in its clone, as a patch `git apply`
	// takes: `git diff --binary` of everything (new files, commits the
	// model made) against the commit the task started from. Empty for a
	// task without git or one that changed nothing.
	Diff string `json:"diff,omitempty"`
	// Patch is the file holding that diff instead, when it is larger than
	// Config.MaxDiff.
	Patch string `json:"patch,omitempty"`
}

// Succeeded reports whether the task ran to the model's answer.
func (r TaskResult) Succeeded() bool { return r.Subtype == SubtypeSuccess && !r.IsError }

// failed is the result of a task that failed outside the session (its
// workspace, opening the session): print mode's shape, with why.
func failed(t Task, subtype string, err error) TaskResult {
	return TaskResult{ID: t.ID, Result: Result{
		Type: "result", Subtype: subtype, IsError: true, Error: err.Error(),
		ToolCalls: []printmode.ToolCall{}, PermissionDenials: []printmode.PermissionDenial{},
	}}
}
