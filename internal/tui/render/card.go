package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"
)

// Card is one tool call as the timeline shows it.
type Card struct {
	ID, Name string
	Input    json.RawMessage
	Running  bool
	Duration time.Duration
	Result   string
	IsError  bool
	Denied   bool
	// Cancelled marks a call stopped by the user (Esc) before it finished.
	Cancelled bool
	// Expanded shows the whole result instead of the folded preview.
	Expanded bool
	// Pending marks a call that finished but whose result has not arrived
	// (results come with the whole batch): no body but a diff yet.
	Pending bool
	// Waiting marks a call held for a person's answer (a permission
	// request or a question): no clock, no body but a diff.
	Waiting bool
}

const (
	// foldLines is how many result lines a collapsed card shows.
	foldLines = 4
	// foldDiffLines is how many diff lines a collapsed Edit/Write shows;
	// more than a plain result, since the diff is the point of the call.
	foldDiffLines = 10
	// bodyFirst and bodyRest indent the result under the header.
	bodyFirst = "  ⎿  "
	bodyRest  = "     "
)

// Spinner is the frame of the spinner after d: one frame per 100 ms. The
// frame derives from the elapsed time, not kept as state, so rendering stays
// a pure function and the spinner advances whenever the view is redrawn with
// a new time (running cards, the working indicator).
func Spinner(d time.Duration) string {
	return spinnerFrames[int(d/(100*time.Millisecond))%len(spinnerFrames)]
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// ToolCard renders a tool call: a header with the tool, its key argument and
// duration, then the folded result, an error, a denial marker, or for
// Edit/Write a coloured diff.
func ToolCard(t Theme, width int, c Card) string {
	width = max(width, 1)
	var b strings.Builder
	b.WriteString(cardHeader(t, width, c))
	if body := cardBody(t, width, c); body != "" {
		b.WriteString("\n")
		b.WriteString(body)
	}
	return b.String()
}

func cardHeader(t Theme, width int, c Card) string {
	bullet := t.paint(t.Success, "●")
	switch {
	case c.Running || c.Waiting:
		bullet = t.paint(t.Warn, "●")
	case c.IsError:
		bullet = t.paint(t.Error, "●")
	case c.Denied || c.Cancelled:
		bullet = t.paint(t.Dim, "●")
	}

	var suffix string
	if c.Waiting {
		suffix = " · waiting for you"
	} else if c.Running {
		frame := Spinner(c.Duration)
		suffix = " " + frame + " " + FormatDuration(c.Duration)
	} else if c.Duration > 0 {
		suffix = " " + FormatDuration(c.Duration)
	}

	name := c.Name
	if name == "" {
		name = "?"
	}
	// Fixed parts: "● " + name + "(" + ")" + suffix; the argument gets
	// what is left, and the name itself is cut if even that does not fit.
	fixed := 2 + ansi.StringWidth(name) + 2 + ansi.StringWidth(suffix)
	avail := width - fixed
	if avail < 1 {
		line := truncate("● "+name+suffix, width)
		return t.paint(t.Accent, line)
	}
	arg := keyArg(name, c.Input, t.workDir, avail)
	return bullet + " " + t.paint(t.Accent, name) + t.paint(t.Text, "("+arg+")") + t.paint(t.Dim, suffix)
}

// keyArg extracts the argument that identifies a call at a glance, cut to
// avail cells. Paths are cut from the left, since their end (the file name)
// is the informative part.
func keyArg(name string, input json.RawMessage, workDir string, avail int) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in) // a malformed input falls through to the raw JSON below
	str := func(k string) string { s, _ := in[k].(string); return s }

	switch name {
	case "Bash":
		if cmd := str("command"); cmd != "" {
			return truncate(oneLine(cmd), avail)
		}
	case "Read", "Write", "Edit":
		if p := str("file_path"); p != "" {
			return truncatePath(relPath(p, workDir), avail)
		}
	case "LS":
		if p := str("path"); p != "" {
			return truncatePath(relPath(p, workDir), avail)
		}
	case "WebFetch":
		if u := str("url"); u != "" {
			return truncate(oneLine(u), avail)
		}
	case "TodoWrite":
		if s, ok := todoSummary(input); ok {
			return truncate(s, avail)
		}
	case "ExitPlanMode":
		// The plan is shown whole beside the dialog; its title names it.
		first, _, _ := strings.Cut(strings.TrimSpace(str("plan")), "\n")
		return truncate(strings.TrimSpace(strings.TrimLeft(first, "#")), avail)
	case "Task":
		// A subagent's own Task calls, in its card's list of calls.
		if d := str("description"); d != "" {
			return truncate(oneLine(d), avail)
		}
	case "WebSearch":
		if q := str("query"); q != "" {
			return truncate(fmt.Sprintf("%q", oneLine(q)), avail)
		}
	case "Glob", "Grep":
		if pat := str("pattern"); pat != "" {
			s := fmt.Sprintf("pattern: %q", oneLine(pat))
			if p := str("path"); p != "" {
				s += fmt.Sprintf(", path: %q", relPath(p, workDir))
			}
			return truncate(s, avail)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, input); err != nil {
		return truncate(oneLine(string(input)), avail)
	}
	s := buf.String()
	if s == "{}" || s == "null" {
		s = ""
	}
	return truncate(s, avail)
}

// relPath shows p relative to workDir when it lies below it; otherwise as is.
func relPath(p, workDir string) string {
	if workDir == "" || !filepath.IsAbs(p) {
		return p
	}
	r, err := filepath.Rel(workDir, p)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return p
	}
	return r
}

func truncatePath(p string, avail int) string {
	p = oneLine(p)
	w := ansi.StringWidth(p)
	if w <= avail {
		return p
	}
	if avail < 2 {
		return truncate(p, avail)
	}
	return ansi.TruncateLeft(p, w-avail+1, "…")
}

// FormatDuration prints milliseconds under a second, tenths of seconds
// under a minute and whole seconds above: as precise as a glance needs.
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	d = d.Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

func cardBody(t Theme, width int, c Card) string {
	if c.Pending || c.Waiting {
		d, _ := cardDiff(t, width, c)
		return d
	}
	switch {
	case c.Denied:
		return bodyLines(t, width, t.Warn, withDetail("Denied", c.Result), c.Expanded, foldLines)
	case c.Cancelled:
		return bodyLines(t, width, t.Warn, withDetail("Cancelled", c.Result), c.Expanded, foldLines)
	case c.IsError:
		msg := strings.TrimSpace(c.Result)
		if !strings.HasPrefix(msg, "Error") {
			msg = "Error: " + msg
		}
		return bodyLines(t, width, t.Error, msg, c.Expanded, foldLines)
	}
	if d, ok := cardDiff(t, width, c); ok {
		return d
	}
	if c.Running {
		return ""
	}
	res := strings.TrimRight(c.Result, "\n")
	if strings.TrimSpace(res) == "" {
		return bodyLines(t, width, t.Dim, "(no output)", false, foldLines)
	}
	return bodyLines(t, width, t.Text, res, c.Expanded, foldLines)
}

func withDetail(mark, detail string) string {
	if detail = strings.TrimSpace(detail); detail != "" {
		return mark + ": " + detail
	}
	return mark
}

// bodyLines lays text out under the header. Collapsed, each logical line is
// cut to one row and only the first fold lines are kept, so a card's height
// is bounded however long the output; expanded, lines are wrapped in full.
func bodyLines(t Theme, width int, st lipgloss.Style, text string, expanded bool, fold int) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	return layout(t, width, lines, expanded, fold, func(s string) string {
		return t.paint(st, s)
	})
}

// layout is the shared folding and indentation of a card body; paint
// styles each laid-out content row.
func layout(t Theme, width int, lines []string, expanded bool, fold int, paint func(string) string) string {
	inner := width - ansi.StringWidth(bodyFirst)
	if inner < 1 {
		return ""
	}
	return indentBody(t, foldRows(t, inner, lines, expanded, fold, paint))
}

// foldRows lays lines out in inner cells: collapsed, each line is cut to
// one row and only the first fold lines are kept, with a marker saying how
// many are hidden; expanded, every line is wrapped in full.
func foldRows(t Theme, inner int, lines []string, expanded bool, fold int, paint func(string) string) []string {
	hidden := 0
	if !expanded && len(lines) > fold {
		hidden = len(lines) - fold
		lines = lines[:fold]
	}
	var rows []string
	for _, l := range lines {
		l = strings.ReplaceAll(l, "\t", strings.Repeat(" ", tabWidth))
		if !expanded {
			rows = append(rows, paint(truncate(l, inner)))
			continue
		}
		for w := range strings.SplitSeq(Wrap(l, inner), "\n") {
			rows = append(rows, paint(w))
		}
	}
	if hidden > 0 {
		rows = append(rows, t.paint(t.Dim, truncate(fmt.Sprintf("… +%s (ctrl+o to expand)", plural(hidden, "line")), inner)))
	}
	return rows
}

// indentBody puts laid-out rows under a card's header: the first behind
// the "⎿" mark, the others aligned with it.
func indentBody(t Theme, rows []string) string {
	for i := range rows {
		if i == 0 {
			rows[i] = t.paint(t.Dim, bodyFirst) + rows[i]
		} else {
			rows[i] = bodyRest + rows[i]
		}
	}
	return strings.Join(rows, "\n")
}

// cardDiff renders Edit and Write calls as a unified diff of their input:
// old_string → new_string, or "" → content. The "+"/"-" markers stay in the
// text so the diff reads without colour.
func cardDiff(t Theme, width int, c Card) (string, bool) {
	if c.Name == "TodoWrite" {
		return cardTodos(t, width, c)
	}
	var in struct {
		OldString *string `json:"old_string"`
		NewString *string `json:"new_string"`
		Content   *string `json:"content"`
	}
	if json.Unmarshal(c.Input, &in) != nil {
		return "", false
	}
	var before, after string
	switch {
	case c.Name == "Edit" && in.OldString != nil && in.NewString != nil:
		before, after = *in.OldString, *in.NewString
	case c.Name == "Write" && in.Content != nil:
		after = *in.Content
	default:
		return "", false
	}
	lines := diffLines(before, after)
	if len(lines) == 0 {
		return "", false
	}
	return layout(t, width, lines, c.Expanded, foldDiffLines, func(s string) string {
		switch {
		case strings.HasPrefix(s, "+"):
			return t.paint(t.Added, s)
		case strings.HasPrefix(s, "-"):
			return t.paint(t.Removed, s)
		case strings.HasPrefix(s, "…"):
			return t.paint(t.Dim, s)
		}
		return s
	}), true
}

// diffLines returns the diff as "+ added", "- removed", "  context" rows,
// hunks separated by a "…" row. Hunk headers are left out: old_string's
// line numbers are relative to the snippet, not the file, so they would
// mislead.
func diffLines(before, after string) []string {
	if !strings.HasSuffix(before, "\n") && before != "" {
		before += "\n"
	}
	if !strings.HasSuffix(after, "\n") && after != "" {
		after += "\n"
	}
	edits := udiff.Lines(before, after)
	u, err := udiff.ToUnifiedDiff("a", "b", before, edits, udiff.DefaultContextLines)
	if err != nil {
		return nil
	}
	var out []string
	for i, h := range u.Hunks {
		if i > 0 {
			out = append(out, "…")
		}
		for _, l := range h.Lines {
			text := strings.TrimRight(l.Content, "\n")
			switch l.Kind {
			case udiff.Insert:
				out = append(out, "+ "+text)
			case udiff.Delete:
				out = append(out, "- "+text)
			default:
				out = append(out, "  "+text)
			}
		}
	}
	return out
}
