package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A paste of this many lines or more, or of more bytes, goes into the input
// as a placeholder ("[Pasted text #2 +1840 lines]") and is put back in full when
// the prompt is sent: the input stays editable and fast however much was
// pasted, and nothing is cut (the input widget keeps at most 10,000 lines).
const (
	pasteMaxLines = 20
	pasteMaxBytes = 4000
)

var pasteTokenRe = regexp.MustCompile(`\[Pasted text #(\d+) \+\d+ lines\]`)

// addPaste keeps text (normalised) and returns the placeholder that stands
// for it.
func (m *Model) addPaste(text string) string {
	m.pastes = append(m.pastes, text)
	return fmt.Sprintf("[Pasted text #%d +%d lines]", len(m.pastes), pasteLines(text))
}

// pasteLines counts the lines of normalised text; a last line without its
// newline counts too.
func pasteLines(text string) int {
	lines := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		lines++
	}
	return lines
}

// normalisePaste turns the line endings of a paste into "\n". Terminals
// send a paste's newlines as CR (what the Enter key sends; tmux and most
// terminals translate LF to CR inside a bracketed paste), and text copied
// from Windows files keeps CRLF. Left alone, a CR-only paste counts as one
// line, escapes the placeholder however many lines it has, and the input
// widget then turns each CR and LF into a line of its own (a CRLF paste
// doubles its lines).
func normalisePaste(text string) string {
	if !strings.Contains(text, "\r") {
		return text
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
}

// largePaste reports whether a paste (normalised) should become a
// placeholder.
func largePaste(text string) bool {
	return len(text) > pasteMaxBytes || pasteLines(text) >= pasteMaxLines
}

// expandPastes puts the pasted texts back in place of their placeholders.
// A placeholder the user edited is no longer one and stays as typed.
func (m *Model) expandPastes(text string) string {
	if !strings.Contains(text, "[Pasted text #") {
		return text
	}
	return pasteTokenRe.ReplaceAllStringFunc(text, func(tok string) string {
		n, err := strconv.Atoi(pasteTokenRe.FindStringSubmatch(tok)[1])
		if err != nil || n < 1 || n > len(m.pastes) {
			return tok
		}
		return m.pastes[n-1]
	})
}
