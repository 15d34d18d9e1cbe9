// Package render holds the pure rendering functions of the terminal UI's
// timeline: the user's prompts, Markdown answers, thinking blocks, tool-call
// cards with diffs, subagents' cards, mailbox lines, error lines and the
// status line.
//
// Nothing here owns state beyond a renderer cache, reads the terminal or the
// clock: every function maps (theme, width, value) to a string, so the Bubble
// Tea model in internal/tui can cache finished blocks and tests can compare
// output byte for byte with golden files. Every returned line is at most the
// given width in terminal cells, measured with the ANSI-aware width helper.
package render

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
)

// Theme is the palette the timeline is drawn with. The zero value is not
// useful; build one with NewTheme.
//
// The styles are exported so the application can draw its own chrome
// (dialogs, input box) in the same colours.
type Theme struct {
	// Dark reports whether the palette targets a dark background.
	Dark bool
	// NoColor disables every escape sequence: output is plain text, as
	// NO_COLOR (https://no-color.org) asks.
	NoColor bool

	Text    lipgloss.Style // ordinary text
	Accent  lipgloss.Style // prompt marker, tool names
	Dim     lipgloss.Style // thinking, durations, hints, fold markers
	Error   lipgloss.Style // errors, failed tool bullets
	Warn    lipgloss.Style // denied / cancelled markers, running bullets
	Success lipgloss.Style // finished tool bullets
	Added   lipgloss.Style // "+" diff lines
	Removed lipgloss.Style // "-" diff lines

	// workDir, when set, lets file paths in tool headers be shown relative
	// to it. Kept unexported and set through WithWorkDir so that the
	// default stays deterministic (no os.Getwd inside a render function).
	workDir string
}

// NewTheme returns the palette for a dark or light terminal background. With
// noColor every style is empty, so the output contains no escape sequences
// at all: markers such as "Error:", "+", "-" carry the meaning instead.
func NewTheme(dark, noColor bool) Theme {
	t := Theme{Dark: dark, NoColor: noColor}
	plain := lipgloss.NewStyle()
	if noColor {
		t.Text, t.Accent, t.Dim, t.Error, t.Warn = plain, plain, plain, plain, plain
		t.Success, t.Added, t.Removed = plain, plain, plain
		return t
	}
	ld := lipgloss.LightDark(dark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	t.Text = plain
	t.Accent = plain.Foreground(c("#5A3FC0", "#B4A0FF")).Bold(true)
	t.Dim = plain.Foreground(c("#7A7A7A", "#8A8A8A"))
	t.Error = plain.Foreground(c("#C0262D", "#FF6B6B"))
	t.Warn = plain.Foreground(c("#A05A00", "#F2B84B"))
	t.Success = plain.Foreground(c("#1E7B34", "#5FD68A"))
	t.Added = plain.Foreground(c("#1E7B34", "#7EE2A0")).Background(c("#E6F6EA", "#1D3B26"))
	t.Removed = plain.Foreground(c("#A4161A", "#FF9A9A")).Background(c("#FBE9EA", "#3F1D20"))
	return t
}

// WithWorkDir returns a copy of t that shows file paths below dir relative
// to it in tool-card headers.
func (t Theme) WithWorkDir(dir string) Theme {
	t.workDir = dir
	return t
}

// paint applies st to every line of s separately. Lip Gloss pads all lines
// of a multi-line Render to the widest one; styling line by line keeps line
// widths exactly as measured, and with NoColor it is the identity.
func (t Theme) paint(st lipgloss.Style, s string) string {
	if t.NoColor || s == "" {
		return s
	}
	if !strings.Contains(s, "\n") {
		return st.Render(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = st.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}
