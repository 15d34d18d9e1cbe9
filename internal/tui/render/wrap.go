package render

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tabWidth is how many spaces a tab becomes. Terminals jump to the next
// multiple of 8, which the width helpers cannot know; fixed spaces keep the
// measured width and the drawn width equal.
const tabWidth = 4

// Wrap word-wraps text to width cells, keeping ANSI sequences intact and
// breaking words longer than a line. Existing newlines are kept. A width
// below 1 is treated as 1.
func Wrap(text string, width int) string {
	width = max(width, 1)
	text = strings.ReplaceAll(text, "\t", strings.Repeat(" ", tabWidth))
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return clamp(ansi.Wrap(text, width, ""), width)
}

// clamp cuts every line of s to at most width cells. It is the last line of
// defence for the width guarantee: wrappers leave trailing spaces or
// zero-width quirks now and then, and a line one cell too wide makes the
// terminal wrap and the whole frame jump.
func clamp(s string, width int) string {
	if !needsClamp(s, width) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > width {
			lines[i] = ansi.Truncate(l, width, "")
		}
	}
	return strings.Join(lines, "\n")
}

func needsClamp(s string, width int) bool {
	for l := range strings.SplitSeq(s, "\n") {
		if ansi.StringWidth(l) > width {
			return true
		}
	}
	return false
}

// truncate cuts a single line to width cells with a trailing ellipsis.
func truncate(s string, width int) string {
	if width < 1 {
		return ""
	}
	return ansi.Truncate(s, width, "…")
}

// oneLine flattens s for headers: newlines and tabs become spaces.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\t", " ").Replace(s)
}

// indent wraps text to width-len(first) cells and prefixes the first line
// with first and every other line with rest (which must be as wide).
func indent(text string, width int, first, rest string) string {
	pw := ansi.StringWidth(first)
	if width-pw < 1 {
		return Wrap(text, width)
	}
	body := Wrap(text, width-pw)
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = first + l
		} else {
			lines[i] = rest + l
		}
	}
	return clamp(strings.Join(lines, "\n"), width)
}
