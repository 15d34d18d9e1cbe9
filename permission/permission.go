// Package permission decides whether a tool call may run, must be asked to a
// person, or is denied. A call goes through a chain and the first definite
// answer wins: deny rules → hard checks (dangerous commands, protected,
// hard-linked and secret paths, commands the shell analyser cannot prove
// safe) → ask rules → allow rules → the mode. Shell commands are parsed
// (permission/shell), not prefix-matched: every simple command must be
// allowed on its own. Paths are resolved (permission/pathguard) before any
// rule sees them.
package permission

import "github.com/novacode/nova/permission/verdict"

// The plain values of a check live in the leaf package permission/verdict, so
// that a caller of a checker (the loop) need not link the chain; they are
// re-exported here under their old names.

// Mode is the session-wide permission mode.
type Mode = verdict.Mode

const (
	ModeDefault     = verdict.ModeDefault     // ask for anything not allowed
	ModeAcceptEdits = verdict.ModeAcceptEdits // file edits in the workspace allowed, commands asked
	ModePlan        = verdict.ModePlan        // read-only tools only
	ModeBypass      = verdict.ModeBypass      // everything but deny rules and dangerous commands
)

// ParseMode validates a mode name from a flag or setting.
func ParseMode(s string) (Mode, error) { return verdict.ParseMode(s) }

// Behavior is the outcome of a check.
type Behavior = verdict.Behavior

const (
	Allow = verdict.Allow
	Ask   = verdict.Ask
	Deny  = verdict.Deny
)

// Decision is a check's outcome and why (see verdict.Decision).
type Decision = verdict.Decision

// Call is what the chain looks at.
type Call = verdict.Call
