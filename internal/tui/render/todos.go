package render

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Todo is one task of the model's list (TodoWrite).
type Todo struct {
	Content    string
	Status     string // "pending", "in_progress" or "completed"
	ActiveForm string
}

// Task markers: they carry the status without colour.
const (
	todoDone    = "☒"
	todoWorking = "◼"
	todoOpen    = "☐"
)

// todoRow is a task as one plain row: marker, space, content.
func todoRow(it Todo) string {
	switch it.Status {
	case "completed":
		return todoDone + " " + oneLine(it.Content)
	case "in_progress":
		return todoWorking + " " + oneLine(it.Content)
	}
	return todoOpen + " " + oneLine(it.Content)
}

// paintTodo styles a laid-out row by its marker: done tasks dim, the one in
// progress accented. (Lip Gloss strikes through rune by rune, an escape
// sequence per character: not worth it for a row that is done.)
func (t Theme) paintTodo(row string) string {
	switch {
	case strings.HasPrefix(row, todoDone):
		return t.paint(t.Dim, row)
	case strings.HasPrefix(row, todoWorking):
		return t.paint(t.Accent, row)
	case strings.HasPrefix(row, "…"):
		return t.paint(t.Dim, row)
	}
	return t.paint(t.Text, row)
}

// TodoPanel renders the model's task list for the space above the input in
// at most rows rows (at least 3): a heading with the count done, then one
// row per task. A longer list shows a window that keeps the first
// unfinished task in view (one finished task above it for context) and
// says how many are hidden.
func TodoPanel(t Theme, width, rows int, items []Todo) string {
	rows = max(rows, 3)
	width = max(width, 1)
	done := 0
	for _, it := range items {
		if it.Status == "completed" {
			done++
		}
	}
	lines := []string{t.paint(t.Dim, truncate(fmt.Sprintf("Todos · %d of %d done", done, len(items)), width))}
	shown := items
	hidden := 0
	if len(items) > rows-1 {
		focus := 0
		for focus < len(items) && items[focus].Status == "completed" {
			focus++
		}
		start := min(max(focus-1, 0), len(items)-(rows-2))
		shown = items[start : start+rows-2]
		hidden = len(items) - len(shown)
	}
	for _, it := range shown {
		lines = append(lines, "  "+t.paintTodo(truncate(todoRow(it), width-2)))
	}
	if hidden > 0 {
		lines = append(lines, "  "+t.paintTodo(truncate(fmt.Sprintf("… %d more", hidden), width-2)))
	}
	return strings.Join(lines, "\n")
}

// todoInput is TodoWrite's input, as far as the card needs it.
type todoInput struct {
	Todos []struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	} `json:"todos"`
}

func parseTodos(input json.RawMessage) ([]Todo, bool) {
	var in todoInput
	if json.Unmarshal(input, &in) != nil || in.Todos == nil {
		return nil, false
	}
	out := make([]Todo, len(in.Todos))
	for i, x := range in.Todos {
		out[i] = Todo(x)
	}
	return out, true
}

// todoSummary is a TodoWrite card's key argument: "3 tasks, 1 done".
func todoSummary(input json.RawMessage) (string, bool) {
	items, ok := parseTodos(input)
	if !ok {
		return "", false
	}
	done := 0
	for _, it := range items {
		if it.Status == "completed" {
			done++
		}
	}
	return fmt.Sprintf("%s, %d done", plural(len(items), "task"), done), true
}

// cardTodos renders a TodoWrite card's body: the list it saved, from its
// input, folded like a diff.
func cardTodos(t Theme, width int, c Card) (string, bool) {
	items, ok := parseTodos(c.Input)
	if !ok {
		return "", false
	}
	if len(items) == 0 {
		return bodyLines(t, width, t.Dim, "(list cleared)", false, foldLines), true
	}
	rows := make([]string, len(items))
	for i, it := range items {
		rows[i] = todoRow(it)
	}
	return layout(t, width, rows, c.Expanded, foldDiffLines, t.paintTodo), true
}
