// Package permission decides whether a tool call may run without asking a
// person. This is the first link of the chain the design handbook describes
// (deny rules → checks → allow rules → mode → ask); rules here are bare tool
// names, the full rule syntax and shell analysis come later.
package permission

import (
	"fmt"
	"slices"
	"sync"
)

// Mode is the session-wide permission mode.
type Mode string

const (
	ModeDefault     Mode = "default"           // ask for anything not allowed
	ModeAcceptEdits Mode = "acceptEdits"       // file edits allowed, commands asked
	ModePlan        Mode = "plan"              // read-only tools only
	ModeBypass      Mode = "bypassPermissions" // everything but hard denies
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
}

// Call is what the checker looks at.
type Call struct {
	Tool string
	// ReadOnly is the tool's own claim that it changes nothing.
	ReadOnly bool
}

// editTools are the tools acceptEdits lets through.
var editTools = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}

// Checker holds the rules of one session. Safe for concurrent use: the loop
// checks while "always allow" answers add rules.
type Checker struct {
	mu    sync.RWMutex
	mode  Mode
	allow []string
	deny  []string
}

// NewChecker returns a checker for mode with allow and deny tool names.
func NewChecker(mode Mode, allow, deny []string) *Checker {
	return &Checker{mode: mode, allow: slices.Clone(allow), deny: slices.Clone(deny)}
}

// Mode returns the current mode.
func (c *Checker) Mode() Mode {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.mode
}

// AllowAlways remembers an allowance for the rest of the session.
func (c *Checker) AllowAlways(tool string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !slices.Contains(c.allow, tool) {
		c.allow = append(c.allow, tool)
	}
}

// Check decides one call. Deny beats allow; the mode decides what no rule
// covers.
func (c *Checker) Check(call Call) Decision {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if slices.Contains(c.deny, call.Tool) {
		return Decision{Deny, fmt.Sprintf("%s is in the deny list", call.Tool), call.Tool}
	}
	if slices.Contains(c.allow, call.Tool) {
		return Decision{Allow, fmt.Sprintf("%s is in the allow list", call.Tool), call.Tool}
	}
	switch c.mode {
	case ModeBypass:
		return Decision{Behavior: Allow, Reason: "bypassPermissions mode"}
	case ModePlan:
		if call.ReadOnly {
			return Decision{Behavior: Allow, Reason: "read-only tool"}
		}
		return Decision{Behavior: Deny, Reason: "plan mode allows read-only tools only"}
	case ModeAcceptEdits:
		if call.ReadOnly {
			return Decision{Behavior: Allow, Reason: "read-only tool"}
		}
		if slices.Contains(editTools, call.Tool) {
			return Decision{Behavior: Allow, Reason: "acceptEdits mode allows file edits"}
		}
	default:
		if call.ReadOnly {
			return Decision{Behavior: Allow, Reason: "read-only tool"}
		}
	}
	return Decision{Behavior: Ask, Reason: fmt.Sprintf("%s may change files or run commands", call.Tool)}
}
