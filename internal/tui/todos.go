package tui

import (
	"fmt"
	"strings"

	"github.com/novacode/nova/event"
)

// todoRows is the most rows the task list takes above the input (a heading
// and five tasks): the timeline keeps the rest of the screen.
const todoRows = 6

// todoPanel keeps the model's task list (the latest todo event) and its
// rendering for the current width.
type todoPanel struct {
	items []event.TodoItem
	view  string // rendering at viewW; "" when nothing is shown
	viewW int
	stale bool
}

func (p *todoPanel) set(items []event.TodoItem) {
	p.items, p.stale = items, true
}

// open reports whether a task is not completed yet: only then is the list
// shown. A finished list stays in the timeline's TodoWrite cards.
func (p *todoPanel) open() bool {
	for _, it := range p.items {
		if it.Status != "completed" {
			return true
		}
	}
	return false
}

// render returns the panel for width, "" when it is hidden; it renders only
// when the list, the width or the theme changed.
func (p *todoPanel) render(r renderer, width int) string {
	if !p.stale && p.viewW == width {
		return p.view
	}
	p.view, p.viewW, p.stale = "", width, false
	if p.open() {
		p.view = r.Todos(width, todoRows, p.items)
	}
	return p.view
}

// lines is the panel's height at width.
func (p *todoPanel) lines(r renderer, width int) int {
	if v := p.render(r, width); v != "" {
		return strings.Count(v, "\n") + 1
	}
	return 0
}

// working is the active form of the task in progress, for the status
// line's working hint, or "".
func (p *todoPanel) working() string {
	for _, it := range p.items {
		if it.Status == "in_progress" {
			return strings.TrimSpace(it.ActiveForm)
		}
	}
	return ""
}

// plainTodos is plainRenderer's task list, in at most rows rows: markers
// in brackets.
func plainTodos(width, rows int, items []event.TodoItem) string {
	done := 0
	for _, it := range items {
		if it.Status == "completed" {
			done++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Todos %d/%d", done, len(items))
	for i, it := range items {
		if i == rows-2 && len(items) > rows-1 {
			fmt.Fprintf(&b, "\n  … %d more", len(items)-i)
			break
		}
		mark := "[ ]"
		switch it.Status {
		case "completed":
			mark = "[x]"
		case "in_progress":
			mark = "[>]"
		}
		b.WriteString("\n  " + mark + " " + it.Content)
	}
	return wrap(b.String(), width)
}
