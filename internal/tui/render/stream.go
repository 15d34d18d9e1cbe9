package render

import "strings"

// StableCut returns the length of the longest prefix of a Markdown source
// still being streamed that ends where a new top-level block begins: after a
// blank line, outside any fenced code block, before a line that starts in
// column 0. Text arriving later cannot change how that prefix renders
// (except in rare cross-block forms: a list item's indented continuation is
// not a cut point, so it stays with its item), so a streaming answer can
// render the prefix once and re-render only the tail on every frame. It
// returns 0 when there is no such point.
func StableCut(src string) int {
	var (
		cut       int
		fence     string // the open fence's marker run ("```", "~~~~"), or ""
		prevBlank bool
	)
	for off := 0; off < len(src); {
		end := strings.IndexByte(src[off:], '\n')
		if end < 0 {
			// The last line is still arriving: it may yet turn out to be a
			// fence, so it can start a block but never end one.
			if fence == "" && prevBlank && startsBlock(src[off:]) {
				cut = off
			}
			break
		}
		line := src[off : off+end]
		if fence == "" && prevBlank && startsBlock(line) {
			cut = off
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
			prevBlank = strings.TrimSpace(line) == ""
		}
		off += end + 1
	}
	return cut
}

// startsBlock reports whether a line after a blank line begins a new
// top-level block: it has content and starts in column 0 (an indented line
// may continue a list item or be an indented code block).
func startsBlock(line string) bool {
	return line != "" && line[0] != ' ' && line[0] != '\t' && strings.TrimSpace(line) != ""
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
	return n >= len(marker) && strings.TrimSpace(t[n:]) == ""
}
