package render

import "strings"

// StableCut returns the length of the longest prefix of a Markdown source
// still being streamed that ends where a new top-level block begins: after a
// blank line, outside any fenced code block, before a line that starts in
// column 0 and does not continue a list. Text arriving later cannot change
// how that prefix renders (a list item's indented continuation and the next
// item of a loose list are not cut points, so they stay with their list; a
// reference-style link defined further down is the exception), so a
// streaming answer can render the prefix once and re-render only the tail
// on every frame. It returns 0 when there is no such point. The cut never
// moves backwards as the source grows.
func StableCut(src string) int {
	var (
		cut       int
		fence     string // the open fence's marker run ("```", "~~~~"), or ""
		prevBlank bool
		inList    bool // the last block begun in column 0 is a list
	)
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n')
		if end < 0 {
			// The last line is still arriving: it may yet turn out to be a
			// fence, so it can start a block but never end one; after a
			// list, only if it can no longer become a list item.
			last := src[off:]
			if fence == "" && prevBlank && startsBlock(last) && !(inList && mayBeListItem(last)) {
				cut = off
			}
			break
		}
		line := src[off : off+end]
		if fence == "" && prevBlank && startsBlock(line) && !(inList && listItem(line)) {
			cut = off
		}
		if fence == "" && startsBlock(line) {
			inList = listItem(line)
		}
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			prevBlank = false
		} else if marker := openFence(line); marker != "" {
			fence = marker
			prevBlank = false
		} else {
			prevBlank = blank(line)
		}
		off += end + 1
	}
	return cut
}

// startsBlock reports whether a line after a blank line begins a new
// top-level block: it has content and starts in column 0 (an indented line
// may continue a list item or be an indented code block).
func startsBlock(line string) bool {
	return line != "" && line[0] != ' ' && line[0] != '\t' && !blank(line)
}

// blank reports whether a line shows nothing. Markdown's blank lines hold
// spaces and tabs only (Unicode spaces are content), and going by bytes
// keeps the answer the same for a line cut in the middle of a character.
func blank(line string) bool {
	return strings.Trim(line, " \t\r") == ""
}

// listItem reports whether a line starts a list item: a bullet (-, *, +)
// or a number with . or ), followed by a space or the end of the line.
func listItem(line string) bool {
	i := 0
	switch {
	case line == "":
		return false
	case line[0] == '-' || line[0] == '*' || line[0] == '+':
		i = 1
	default:
		for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		if i == 0 || i == len(line) || (line[i] != '.' && line[i] != ')') {
			return false
		}
		i++
	}
	return i == len(line) || line[i] == ' ' || line[i] == '\t'
}

// mayBeListItem reports whether a line still arriving could turn out to
// start a list item ("1" may become "1. x").
func mayBeListItem(part string) bool {
	if listItem(part) {
		return true
	}
	digits := strings.TrimLeft(part, "0123456789")
	return digits == "" && len(part) <= 9
}

// openFence returns the marker run of a fenced code block's opening line
// (``` or ~~~, at least three, indented by at most three spaces), or "".
func openFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes a fence opened with marker: the
// same character, at least as many, and nothing else but spaces.
func closesFence(line, marker string) bool {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return false
	}
	n := 0
	for n < len(t) && t[n] == marker[0] {
		n++
	}
	return n >= len(marker) && blank(t[n:])
}
