// Package permission decides whether a tool call may run, must be asked to a
// person, or is denied. A call goes through a chain and the first definite
// answer wins: deny rules → hard checks (dangerous commands, protected,
// hard-linked and secret paths, commands the shell analyser cannot prove
// safe) → ask rules → allow rules → the mode. Shell commands are parsed
// (permission/shell), not prefix-matched: every simple command must be
// allowed on its own. Paths are resolved (permission/pathguard) before any
// rule sees them.
package permission

import (
	"encoding/json"
	"fmt"
)

// Mode is the session-wide permission mode.
type Mode string

const (
	ModeDefault     Mode = "default"           // ask for anything not allowed
	ModeAcceptEdits Mode = "acceptEdits"       // file edits in the workspace allowed, commands asked
	ModePlan        Mode = "plan"              // read-only tools only
	ModeBypass      Mode = "bypassPermissions" // everything but deny rules and dangerous commands
)

// ParseMode validates a mode name from a flag or setting.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeDefault, ModeAcceptEdits, ModePlan, ModeBypass:
		return m, nil
	case "":
		return ModeDefault, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want default, acceptEdits, plan or bypassPermissions)", s)
}

// Behavior is the outcome of a check.
type Behavior string

const (
	Allow Behavior = "allow"
	Ask   Behavior = "ask"
	Deny  Behavior = "deny"
)

// Decision is a check's outcome and why.
type Decision struct {
	Behavior Behavior `json:"decision"`
	Reason   string   `json:"reason"`
	Rule     string   `json:"rule,omitempty"`
	// Paths are the resolved paths the call touches; when the call is
	// approved they are approved with it (file tools re-check the file they
	// actually open against them).
	Paths []string `json:"-"`
	// Suggest lists the narrowest rules that would allow this call, for an
	// "allow always" answer.
	Suggest []string `json:"-"`
}

// Call is what the chain looks at.
type Call struct {
	Tool  string
	Input json.RawMessage
	// ReadOnly is the tool's own claim that it changes nothing.
	ReadOnly bool
}
