package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui/render"
)

// card and status mirror render.Card and render.Status field for field, so
// the adapter to package render is a plain struct conversion.
type card struct {
	ID, Name                             string
	Input                                json.RawMessage
	Running                              bool
	Duration                             time.Duration
	Result                               string
	IsError, Denied, Cancelled, Expanded bool
	Pending, Waiting                     bool
}

type status struct {
	Model, Mode                                                            string
	ContextUsed, ContextWindow, InputTokens, OutputTokens, CacheReadTokens int64
	CostUSD                                                                float64
	Busy                                                                   bool
	Hint                                                                   string
}

// renderer is the seam between the model logic and the styling. The model
// never styles text itself, so its tests can run against plainRenderer and
// assert on exact strings.
type renderer interface {
	Markdown(src string, width int) string
	Prompt(width int, text string) string
	Thinking(width int, text string, expanded bool) string
	ToolCard(width int, c card) string
	// AgentCard renders a Task call's card: the subagent it started.
	AgentCard(width int, a render.Agent) string
	// Mail renders a Mailbox's items, one line each.
	Mail(width int, lines []string) string
	Error(width int, msg string) string
	// Notice renders a retry's wait, or with warn a warning.
	Notice(width int, msg string, warn bool) string
	Status(width int, s status) string
	// Todos renders the model's task list in at most rows rows.
	Todos(width, rows int, items []event.TodoItem) string
}

// plainRenderer renders without colour or Markdown: used by the unit tests
// (stable output) and as the fallback before package render exists.
type plainRenderer struct{}

func wrap(s string, width int) string {
	if width < 1 {
		width = 1
	}
	return ansi.Wrap(s, width, "")
}

func (plainRenderer) Markdown(src string, width int) string {
	return wrap(strings.TrimRight(src, "\n"), width)
}

func (plainRenderer) Prompt(width int, text string) string { return wrap("> "+text, width) }

func (plainRenderer) Thinking(width int, text string, expanded bool) string {
	if !expanded {
		return "∴ Thinking (ctrl+o to expand)"
	}
	return wrap("∴ Thinking\n"+strings.TrimRight(text, "\n"), width)
}

func (plainRenderer) ToolCard(width int, c card) string {
	var b strings.Builder
	fmt.Fprintf(&b, "● %s(%s)", c.Name, keyArg(c.Input))
	switch {
	case c.Waiting:
		b.WriteString(" waiting for you")
	case c.Running:
		fmt.Fprintf(&b, " running %.1fs", c.Duration.Seconds())
	case c.Cancelled:
		b.WriteString(" cancelled")
	case c.Denied:
		b.WriteString(" denied")
	case c.IsError:
		fmt.Fprintf(&b, " error %.1fs", c.Duration.Seconds())
	default:
		fmt.Fprintf(&b, " %.1fs", c.Duration.Seconds())
	}
	if !c.Running && c.Result != "" {
		lines := strings.Split(strings.TrimRight(c.Result, "\n"), "\n")
		const folded = 3
		more := 0
		if !c.Expanded && len(lines) > folded {
			more = len(lines) - folded
			lines = lines[:folded]
		}
		for _, l := range lines {
			b.WriteString("\n  ⎿ " + l)
		}
		if more > 0 {
			fmt.Fprintf(&b, "\n  … %d more lines (ctrl+o to expand)", more)
		}
	}
	return wrap(b.String(), width)
}

// plainTheme is package render without colour: the subagent card and
// the mailbox lines read the same in the plain renderer, so the model's
// tests check what a person sees.
var plainTheme = render.NewTheme(true, true)

func (plainRenderer) AgentCard(width int, a render.Agent) string {
	return render.AgentCard(plainTheme, width, a)
}

func (plainRenderer) Mail(width int, lines []string) string {
	return render.MailLines(plainTheme, width, lines)
}

func (plainRenderer) Error(width int, msg string) string { return wrap("✗ "+msg, width) }

func (plainRenderer) Todos(width, rows int, items []event.TodoItem) string {
	return plainTodos(width, rows, items)
}

func (plainRenderer) Notice(width int, msg string, warn bool) string {
	if warn {
		return wrap("⚠ "+msg, width)
	}
	return wrap("↻ "+msg, width)
}

func (plainRenderer) Status(width int, s status) string {
	parts := []string{s.Model, s.Mode}
	if s.ContextWindow > 0 {
		parts = append(parts, fmt.Sprintf("ctx %d%%", s.ContextUsed*100/s.ContextWindow))
	}
	if s.InputTokens+s.OutputTokens > 0 {
		parts = append(parts, fmt.Sprintf("%d in / %d out", s.InputTokens, s.OutputTokens))
		if t := s.InputTokens + s.CacheReadTokens; t > 0 {
			parts = append(parts, fmt.Sprintf("cache %d%%", s.CacheReadTokens*100/t))
		}
		parts = append(parts, fmt.Sprintf("$%.4f", s.CostUSD))
	}
	if s.Hint != "" {
		parts = append(parts, s.Hint)
	}
	return ansi.Truncate(strings.Join(nonEmpty(parts), " · "), width, "…")
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// keyArg picks the argument a reader needs to recognise a call: the path,
// command or pattern; otherwise the compact JSON, cut short.
func keyArg(in json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(in, &m) == nil {
		for _, k := range []string{"file_path", "path", "command", "pattern", "url", "query"} {
			if v, ok := m[k].(string); ok {
				return v
			}
		}
		if len(m) == 0 {
			return "" // no arguments: WebSearch() rather than WebSearch({})
		}
	}
	return ansi.Truncate(string(in), 40, "…")
}
