package tui

import (
	"path/filepath"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui/render"
)

// themed adapts package render to the renderer seam.
type themed struct {
	t  render.Theme
	md *render.Markdown
}

// newRenderer picks the renderer for o: package render with the theme o
// asks for.
func newRenderer(o Options) renderer {
	// Tool cards show paths below the working directory relative to it.
	dir := o.Dir
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	t := render.NewTheme(o.Dark, o.NoColor).WithWorkDir(dir)
	return themed{t: t, md: render.NewMarkdown(t)}
}

func (r themed) Markdown(src string, width int) string { return r.md.Render(src, width) }
func (r themed) Prompt(width int, text string) string  { return render.Prompt(r.t, width, text) }
func (r themed) Thinking(width int, text string, expanded bool) string {
	return render.Thinking(r.t, width, text, expanded)
}
func (r themed) ToolCard(width int, c card) string {
	return render.ToolCard(r.t, width, render.Card(c))
}
func (r themed) AgentCard(width int, a render.Agent) string {
	return render.AgentCard(r.t, width, a)
}
func (r themed) Mail(width int, lines []string) string { return render.MailLines(r.t, width, lines) }
func (r themed) Error(width int, msg string) string    { return render.ErrorLine(r.t, width, msg) }
func (r themed) Todos(width, rows int, items []event.TodoItem) string {
	list := make([]render.Todo, len(items))
	for i, it := range items {
		list[i] = render.Todo(it)
	}
	return render.TodoPanel(r.t, width, rows, list)
}

func (r themed) Notice(width int, msg string, warn bool) string {
	return render.NoticeLine(r.t, width, msg, warn)
}
func (r themed) Status(width int, s status) string {
	rs := render.Status{Model: s.Model, Mode: s.Mode, ContextUsed: s.ContextUsed, ContextWindow: s.ContextWindow,
		InputTokens: s.InputTokens, OutputTokens: s.OutputTokens, CacheReadTokens: s.CacheReadTokens,
		CostUSD: s.CostUSD, Busy: s.Busy, Hint: s.Hint}
	// render shows the hint only while busy; the ctrl+c hint must show
	// when idle too.
	rs.Busy = rs.Busy || rs.Hint != ""
	return render.StatusLine(r.t, width, rs)
}
