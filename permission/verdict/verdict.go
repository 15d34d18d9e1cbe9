// Package verdict holds the plain values a permission check speaks in: the
// Call it looks at, the Decision it gives (Allow, Ask or Deny, and why), and
// the session's Mode. It is a leaf (standard library only), so that the loop
// (package agent) and other callers of a checker can name these values
// without linking the checker itself — the permission chain, the shell
// analyser, the rule parser and the path guard. Package permission re-exports
// every name here; code that builds or configures a chain keeps using those.
package verdict

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
	// NeedsPerson marks an "ask" that no allow rule turns into an allow: a
	// hard check (a dangerous or unparseable command, a protected path, a
	// tree holding a secret, …) or an ask rule. Suggest still lists rules,
	// but a run that cannot ask (print mode) must not offer them as the way
	// to allow the call: only a person's answer can.
	NeedsPerson bool `json:"-"`
	// Hard marks an "ask" of a hard check that a rule naming the very
	// path may still lift (a file tool's secret read or write outside the
	// workspace), where NeedsPerson is false. Like NeedsPerson, no mode
	// and no hook's "allow" lifts it.
	Hard bool `json:"-"`
	// SuggestMode is a permission mode narrower than bypassPermissions the
	// call needs besides the rules of Suggest (a command that writes files
	// in the workspace: acceptEdits), or instead of them when ModeSuffices
	// (Write or Edit in the workspace); "" if no such mode helps.
	SuggestMode  Mode `json:"-"`
	ModeSuffices bool `json:"-"`
	// Input, when set, is the input the call runs with instead of the
	// model's own: a PreToolUse hook's updatedInput, which this decision
	// is about (the chain checked it, not the model's). The loop
	// validates it against the tool's schema before anything runs; the
	// model's tool_use block in history stays as the model sent it.
	Input json.RawMessage `json:"-"`
}

// Lift says what would allow a call this decision asks about in a run that
// cannot ask (print mode): the rules to add and the mode to run in, either
// possibly empty. ok is false when only a person can allow it.
func (d Decision) Lift() (rules []string, mode Mode, ok bool) {
	if d.Behavior != Ask || d.NeedsPerson {
		return nil, "", false
	}
	if d.ModeSuffices && d.SuggestMode != "" {
		return nil, d.SuggestMode, true
	}
	return d.Suggest, d.SuggestMode, len(d.Suggest) > 0 || d.SuggestMode != ""
}

// Call is what a checker looks at.
type Call struct {
	// ID is the tool call's id, when the caller has one (hooks are told
	// it); the chain does not look at it.
	ID    string
	Tool  string
	Input json.RawMessage
	// ReadOnly is the tool's own claim that it changes nothing.
	ReadOnly bool
	// OnlyReads says the caller may only read (an Explore subagent):
	// whatever plan mode would refuse is denied, in every mode.
	OnlyReads bool
	// Agent is the subagent making the call ("" for the session's own
	// agent), for hooks and logs.
	Agent string
}
