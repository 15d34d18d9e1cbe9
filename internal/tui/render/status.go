package render

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Status is what the status line reports about the session.
type Status struct {
	Model, Mode                                string
	ContextUsed, ContextWindow                 int64
	InputTokens, OutputTokens, CacheReadTokens int64
	CostUSD                                    float64
	Busy                                       bool
	// Hint is shown, right-aligned, while Busy (e.g. "esc to interrupt").
	Hint string
}

// StatusLine renders s as one line: model · mode · ctx N% · in/out tokens ·
// cache share · cost. Segments that do not fit are cut from the right. While
// Busy the Hint is kept at the right edge and the segments give way to it,
// since it is the one thing the user may need to act on.
func StatusLine(t Theme, width int, s Status) string {
	width = max(width, 1)
	var segs []string
	add := func(v string) {
		if v != "" {
			segs = append(segs, v)
		}
	}
	add(s.Model)
	add(s.Mode)
	if s.ContextWindow > 0 {
		add(fmt.Sprintf("ctx %d%%", s.ContextUsed*100/s.ContextWindow))
	}
	add(fmt.Sprintf("in %s out %s", formatTokens(s.InputTokens), formatTokens(s.OutputTokens)))
	if total := s.InputTokens + s.CacheReadTokens; total > 0 {
		add(fmt.Sprintf("cache %d%%", s.CacheReadTokens*100/total))
	}
	add(formatCost(s.CostUSD))

	hint := ""
	if s.Busy && s.Hint != "" {
		hint = truncate(s.Hint, width)
	}
	hw := ansi.StringWidth(hint)
	room := width - hw
	if hint != "" {
		room-- // at least one space between the segments and the hint
	}
	if room < 1 {
		return t.paint(t.Dim, hint)
	}
	left := fitSegments(segs, room)
	line := t.paint(t.Dim, left)
	if hint != "" {
		pad := width - ansi.StringWidth(left) - hw
		line += strings.Repeat(" ", pad) + t.paint(t.Warn, hint)
	}
	return line
}

// fitSegments joins as many leading segments as fit in room cells. Whole
// segments are dropped from the right rather than cut mid-word ("ca…"), except
// the first, which is truncated if it alone is too wide.
func fitSegments(segs []string, room int) string {
	const sep = " · "
	out := ""
	for i, s := range segs {
		next := s
		if i > 0 {
			next = out + sep + s
		}
		if ansi.StringWidth(next) > room {
			if i == 0 {
				return truncate(s, room)
			}
			break
		}
		out = next
	}
	return out
}

// formatTokens prints a token count the way people read them: 950, 12.3k,
// 1.2M.
func formatTokens(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// formatCost shows four decimals below a dollar, where cents hide most of a
// short session, and two above.
func formatCost(usd float64) string {
	if usd < 1 {
		return fmt.Sprintf("$%.4f", usd)
	}
	return fmt.Sprintf("$%.2f", usd)
}
