package render

import (
	"fmt"
	"strings"
)

// Prompt renders the user's prompt: a "> " marker, the text wrapped to the
// remaining width and continuation lines indented under it.
func Prompt(t Theme, width int, text string) string {
	text = strings.TrimRight(text, "\n")
	if width < 3 { // no room for the marker: text alone is still readable
		return t.paint(t.Text, Wrap(text, width))
	}
	body := indent(text, width, "> ", "  ")
	// The marker is styled after wrapping so wrapping measures plain text.
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = t.paint(t.Accent, "> ") + t.paint(t.Text, strings.TrimPrefix(l, "> "))
		} else {
			lines[i] = t.paint(t.Text, l)
		}
	}
	return strings.Join(lines, "\n")
}

// thinkingMark heads a thinking block, collapsed or not.
const thinkingMark = "✻ Thinking…"

// Thinking renders the model's reasoning. Collapsed it is one dim line that
// says how much is hidden; expanded it is the dim text wrapped under the
// heading.
func Thinking(t Theme, width int, text string, expanded bool) string {
	text = strings.Trim(text, "\n")
	n := countLines(text)
	if !expanded {
		line := thinkingMark
		if n > 0 {
			line += fmt.Sprintf(" (%s, ctrl+o to expand)", plural(n, "line"))
		}
		return t.paint(t.Dim, truncate(line, width))
	}
	head := t.paint(t.Dim, truncate(thinkingMark, width))
	if text == "" {
		return head
	}
	return head + "\n" + t.paint(t.Dim, indent(text, width, "  ", "  "))
}

// ErrorLine renders an error in place in the timeline, "Error:" prefixed so
// it reads as one without colour.
func ErrorLine(t Theme, width int, msg string) string {
	msg = strings.TrimSpace(msg)
	if !strings.HasPrefix(strings.ToLower(msg), "error") {
		msg = "Error: " + msg
	}
	return t.paint(t.Error, Wrap(msg, width))
}

// NoticeLine renders a notice from nova itself rather than the model: a
// model call being retried ("↻ overloaded — retrying in 1.1 s (2/4)", dim:
// it needs nothing from the person) or, with warn, something that went
// wrong without stopping the run ("⚠ Warning: …", in the warning colour and
// marked so it reads as one without colour).
func NoticeLine(t Theme, width int, msg string, warn bool) string {
	msg = strings.TrimSpace(msg)
	if !warn {
		return t.paint(t.Dim, indent(msg, width, "↻ ", "  "))
	}
	if !strings.HasPrefix(strings.ToLower(msg), "warning") {
		msg = "Warning: " + msg
	}
	return t.paint(t.Warn, indent(msg, width, "⚠ ", "  "))
}

// countLines counts logical lines; the empty string has none.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
