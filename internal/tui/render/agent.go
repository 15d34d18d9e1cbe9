package render

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// Agent is a subagent's run as the timeline shows it: the Task call that
// started it, what the subagent is doing, and what it came back with.
type Agent struct {
	// Type is the agent's type (Explore, general-purpose; "" shows as
	// Task), Description the Task call's few words about the job.
	Type, Description string
	// Running: the Task call runs; Duration is its clock.
	Running bool
	// Waiting: the Task call, or a call of the subagent, waits for the
	// person's answer.
	Waiting bool
	// Detached: the subagent runs in the background (run_in_background):
	// the Task call returned at once, so its duration says nothing of the
	// run. Background: it has not reported its end yet.
	Detached, Background bool
	Duration             time.Duration
	// Turns is how many turns the subagent has taken, CostUSD what it has
	// cost so far (or in all, once the result says).
	Turns   int
	CostUSD float64
	// Calls are the subagent's own tool calls, in the order they started.
	Calls []AgentCall
	// Note is news of the run the rest does not show (a retry's wait).
	Note string
	// Result is the Task call's result: the subagent's final text, or
	// why it failed; for a background subagent that ended, its report.
	Result                     string
	IsError, Denied, Cancelled bool
	// Pending: the call has finished but its result has not come.
	Pending bool
	// Expanded lists the calls and shows the whole result.
	Expanded bool
}

// AgentCall is one tool call of a subagent.
type AgentCall struct {
	Name                                         string
	Input                                        json.RawMessage
	Running, Waiting, IsError, Denied, Cancelled bool
}

// agentFoldLines is how many lines of a subagent's final text a collapsed
// card shows: enough to see what it found; the rest is one ctrl+o away.
const agentFoldLines = 3

// AgentCard renders a subagent's run (a Task call): a header with the
// agent's type and the job; while it runs, its last tool call, turns and
// cost; once done, its status, turns and cost and its final text, folded.
// Expanded, the card lists the subagent's calls, each with its state.
func AgentCard(t Theme, width int, a Agent) string {
	width = max(width, 1)
	head := agentHeader(t, width, a)
	inner := width - ansi.StringWidth(bodyFirst)
	if inner < 1 {
		return head
	}
	var rows []string
	switch {
	case a.Running || a.Background:
		if a.Expanded && len(a.Calls) > 0 {
			rows = append(rows, agentCallRows(t, inner, a)...)
			if p := agentProgress(t, inner, a, false); p != "" {
				rows = append(rows, p)
			}
			break
		}
		rows = append(rows, agentProgress(t, inner, a, true))
	case a.Waiting: // the Task call itself is asked about: nothing ran yet
	case a.Denied:
		rows = foldRows(t, inner, strings.Split(withDetail("Denied", a.Result), "\n"), a.Expanded, foldLines,
			func(s string) string { return t.paint(t.Warn, s) })
	default:
		rows = append(rows, agentSummary(t, inner, a))
		if a.Expanded {
			rows = append(rows, agentCallRows(t, inner, a)...)
		}
		if !a.Pending {
			rows = append(rows, agentResult(t, inner, a)...)
		}
	}
	if len(rows) == 0 {
		return head
	}
	return head + "\n" + indentBody(t, rows)
}

func agentHeader(t Theme, width int, a Agent) string {
	bullet := t.paint(t.Success, "●")
	switch {
	case a.Running || a.Waiting || a.Background:
		bullet = t.paint(t.Warn, "●")
	case a.IsError:
		bullet = t.paint(t.Error, "●")
	case a.Denied || a.Cancelled:
		bullet = t.paint(t.Dim, "●")
	}
	var suffix string
	switch {
	case a.Running:
		suffix = " " + Spinner(a.Duration) + " " + FormatDuration(a.Duration)
	case a.Background:
		suffix = " · running in background"
	case a.Duration > 0 && !a.Detached:
		suffix = " " + FormatDuration(a.Duration)
	}
	if a.Waiting {
		suffix += " · waiting for you"
	}
	name := oneLine(a.Type)
	if name == "" {
		name = "Task"
	}
	fixed := 2 + ansi.StringWidth(name) + 2 + ansi.StringWidth(suffix)
	avail := width - fixed
	if avail < 1 {
		return t.paint(t.Accent, truncate("● "+name+suffix, width))
	}
	desc := truncate(oneLine(a.Description), avail)
	return bullet + " " + t.paint(t.Accent, name) + t.paint(t.Text, "("+desc+")") + t.paint(t.Dim, suffix)
}

// agentProgress is the row of a running subagent: its last call (withLast),
// turns, cost and any note, each only when there is something to say;
// with withLast and nothing to say, that it is starting ("" without).
func agentProgress(t Theme, inner int, a Agent, withLast bool) string {
	var tail []string
	if a.Turns > 0 {
		tail = append(tail, plural(a.Turns, "turn"))
	}
	if a.CostUSD > 0 {
		tail = append(tail, formatCost(a.CostUSD))
	}
	if a.Note != "" {
		tail = append(tail, oneLine(a.Note))
	}
	rest := strings.Join(tail, " · ")
	if withLast && len(a.Calls) > 0 {
		sep := 0
		if rest != "" {
			sep = 3 // " · "
		}
		// The call gets what the turns and cost leave, but never less than
		// its name and a few cells of argument.
		room := max(inner-ansi.StringWidth(rest)-sep, min(inner, 12))
		last := a.Calls[len(a.Calls)-1]
		call := callText(t, last, room)
		if rest == "" {
			return t.paint(t.Text, call)
		}
		return t.paint(t.Text, call) + t.paint(t.Dim, truncate(" · "+rest, inner-ansi.StringWidth(call)))
	}
	if rest == "" && withLast {
		rest = "starting…"
	}
	return t.paint(t.Dim, truncate(rest, inner))
}

// callText is a call as Name(key argument) in at most room cells.
func callText(t Theme, c AgentCall, room int) string {
	name := oneLine(c.Name)
	avail := room - ansi.StringWidth(name) - 2
	if avail < 1 {
		return truncate(name, room)
	}
	return name + "(" + keyArg(name, c.Input, t.workDir, avail) + ")"
}

// Call state markers: they carry the state without colour.
const (
	callDone    = "✓"
	callFailed  = "✗"
	callStopped = "⊘" // denied or cancelled
	callRunning = "○"
	callWaiting = "?"
)

// agentCallRows lists the subagent's calls, one row each with its state.
func agentCallRows(t Theme, inner int, a Agent) []string {
	if inner < 3 { // no room for a marker and a name
		return nil
	}
	rows := make([]string, 0, len(a.Calls))
	for _, c := range a.Calls {
		mark, st := callDone, t.Success
		switch {
		case c.Waiting:
			mark, st = callWaiting, t.Warn
		case c.Running && (a.Running || a.Background):
			mark, st = callRunning, t.Warn
		case c.Denied || c.Cancelled || c.Running: // still running when the subagent stopped
			mark, st = callStopped, t.Dim
		case c.IsError:
			mark, st = callFailed, t.Error
		}
		rows = append(rows, t.paint(st, mark)+" "+t.paint(t.Text, callText(t, c, inner-2)))
	}
	return rows
}

// agentSummary is the first row of a finished subagent's body: how it
// ended, its turns, calls and cost.
func agentSummary(t Theme, inner int, a Agent) string {
	status, st := "Done", t.Dim
	switch {
	case a.Cancelled:
		status, st = "Cancelled", t.Warn
	case a.IsError:
		status, st = "Error", t.Error
	}
	if a.Detached {
		status += " in background"
	}
	parts := []string{status}
	if a.Turns > 0 {
		parts = append(parts, plural(a.Turns, "turn"))
	}
	if n := len(a.Calls); n > 0 {
		parts = append(parts, plural(n, "tool call"))
	}
	if a.CostUSD > 0 {
		parts = append(parts, formatCost(a.CostUSD))
	}
	return t.paint(st, truncate(strings.Join(parts, " · "), inner))
}

// agentResult lays out the final text under the summary, folded unless
// expanded; an error in the error colour.
func agentResult(t Theme, inner int, a Agent) []string {
	res := strings.TrimSpace(strings.ReplaceAll(a.Result, "\r\n", "\n"))
	if res == "" {
		if a.Cancelled || a.IsError {
			return nil // the summary says it
		}
		return []string{t.paint(t.Dim, "(no output)")}
	}
	st := t.Text
	if a.IsError {
		st = t.Error
	}
	lines := strings.Split(res, "\n")
	if !a.Expanded {
		// A preview of three lines has none to spare for the blank
		// lines between paragraphs.
		lines = slices.DeleteFunc(lines, func(l string) bool { return strings.TrimSpace(l) == "" })
	}
	return foldRows(t, inner, lines, a.Expanded, agentFoldLines,
		func(s string) string { return t.paint(st, s) })
}

// MailLines renders what the loop delivered to the model at a turn's
// start (the ends of background commands and subagents, messages from
// other agents): one dim row each, "↳ " and the line cut to the width. It
// is news, not content: the model reads the whole; /bashes and the cards
// show more.
func MailLines(t Theme, width int, lines []string) string {
	width = max(width, 1)
	rows := make([]string, len(lines))
	for i, l := range lines {
		rows[i] = t.paint(t.Dim, truncate("↳ "+oneLine(l), width))
	}
	return strings.Join(rows, "\n")
}
