package tui

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A paste longer than this many lines or bytes goes into the input as a
// placeholder ("[Pasted text #2 +1840 lines]") and is put back in full when
// the prompt is sent: the input stays editable and fast however much was
// pasted, and nothing is cut (the input widget keeps at most 10,000 lines).
const (
	pasteMaxLines = 20
	pasteMaxBytes = 4000
)

var pasteTokenRe = regexp.MustCompile(`\[Pasted text #(\d+) \+\d+ lines\]`)

// addPaste keeps text and returns the placeholder that stands for it.
func (m *Model) addPaste(text string) string {
	m.pastes = append(m.pastes, text)
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	return fmt.Sprintf("[Pasted text #%d +%d lines]", len(m.pastes), lines)
}

// largePaste reports whether a paste should become a placeholder.
func largePaste(text string) bool {
	return len(text) > pasteMaxBytes || strings.Count(text, "\n") >= pasteMaxLines
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
