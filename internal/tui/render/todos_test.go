package render

import (
	"fmt"
	"testing"
	"time"
)

func todoList(n, done int) []Todo {
	var out []Todo
	for i := 1; i <= n; i++ {
		st := "pending"
		switch {
		case i <= done:
			st = "completed"
		case i == done+1:
			st = "in_progress"
		}
		out = append(out, Todo{Content: fmt.Sprintf("Task number %d of the plan", i), Status: st, ActiveForm: fmt.Sprintf("Doing task %d", i)})
	}
	return out
}

func todoInputJSON(items []Todo) []byte {
	type item struct {
		Content    string `json:"content"`
		Status     string `json:"status"`
		ActiveForm string `json:"activeForm"`
	}
	var in struct {
		Todos []item `json:"todos"`
	}
	in.Todos = []item{}
	for _, it := range items {
		in.Todos = append(in.Todos, item(it))
	}
	return mustJSON(in)
}

func TestTodoGolden(t *testing.T) {
	cards := map[string]Card{
		"todowrite": {Name: "TodoWrite", Input: todoInputJSON(todoList(3, 1)), Duration: 2 * time.Millisecond,
			Result: "The todo list was saved (3 tasks: 1 completed, 1 in progress, 1 pending)."},
		"todowrite_cleared": {Name: "TodoWrite", Input: todoInputJSON(nil), Duration: time.Millisecond, Result: "The todo list was cleared."},
		"webfetch": {Name: "WebFetch", Input: mustJSON(map[string]any{"url": "https://go.dev/doc/effective_go", "prompt": "How are errors named?"}),
			Duration: 1500 * time.Millisecond, Result: "https://go.dev/doc/effective_go (HTML converted to Markdown)\n\n# Effective Go\n\n## Introduction\n\nGo is a new language."},
	}
	for name, c := range cards {
		for _, tc := range themes {
			golden(t, "card_"+name+"_"+tc.name, tc.theme, width, ToolCard(tc.theme, width, c))
		}
	}
	for _, tc := range themes {
		golden(t, "todo_panel_"+tc.name, tc.theme, width, TodoPanel(tc.theme, width, 6, todoList(4, 1)))
		// A long list keeps the task in progress in view.
		golden(t, "todo_panel_window_"+tc.name, tc.theme, width, TodoPanel(tc.theme, width, 6, todoList(12, 7)))
		// Narrow: every row is cut to the width.
		golden(t, "todo_panel_narrow_"+tc.name, tc.theme, 20, TodoPanel(tc.theme, 20, 6, todoList(3, 0)))
	}
}
