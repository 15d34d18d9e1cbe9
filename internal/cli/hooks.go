package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/novacode/nova"
)

// hooksText is what /hooks shows: the session's hooks in the order of
// their events, each with its matcher, its command and where it comes
// from; then the workspace's own hooks that wait for trust.
func hooksText(hs []nova.HookInfo, dir string) string {
	var run, withheld []string
	for _, h := range hs {
		line := "  " + h.Event
		if h.Matcher != "" {
			line += " [" + h.Matcher + "]"
		}
		switch {
		case h.Command != "":
			line += "  " + oneLine(h.Command, 80)
		default:
			line += "  (a Go function)"
		}
		if h.Timeout > 0 {
			line += fmt.Sprintf(" · %v", h.Timeout)
		}
		line += " · " + shortPath(h.Source, dir)
		if h.Withheld {
			withheld = append(withheld, line)
		} else {
			run = append(run, line)
		}
	}
	var b strings.Builder
	if len(run) == 0 {
		b.WriteString("No hooks run in this session. Hooks are commands in the \"hooks\" of a settings file (Claude Code's format); they are read when a session starts.")
	} else {
		b.WriteString("Hooks of this session (read when it started: a change to the settings files takes effect in a new session):\n")
		b.WriteString(strings.Join(run, "\n"))
	}
	if len(withheld) > 0 {
		b.WriteString("\nThis workspace's own hooks, left out until you trust it (nova trust):\n")
		b.WriteString(strings.Join(withheld, "\n"))
	}
	return b.String()
}

// shortPath is p relative to dir when inside it.
func shortPath(p, dir string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && filepath.IsAbs(p) && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}
