package builtin

import (
	"context"
	"fmt"
	"strings"

	"github.com/novacode/nova/tool"
)

// TodoWriteInput is the input of TodoWrite: the whole list, every time.
type TodoWriteInput struct {
	Todos []TodoItem `json:"todos" jsonschema:"The updated todo list, complete: it replaces the previous one"`
}

// TodoItem is one task of TodoWriteInput.
type TodoItem struct {
	Content    string `json:"content" jsonschema:"The task, in the imperative: Run the tests"`
	Status     string `json:"status" jsonschema:"pending, in_progress (one task at a time) or completed"`
	ActiveForm string `json:"activeForm" jsonschema:"The task as an action in progress, shown while it runs: Running the tests"`
}

// NewTodoWrite returns the TodoWrite tool. It touches nothing but the
// session's task list (tool.Env.Todos), so it needs no permission and runs
// beside every other call; the loop reports each new list as an event.
func NewTodoWrite() *tool.Typed[TodoWriteInput] {
	return tool.New("TodoWrite", todoWriteDesc, true,
		map[string][]any{"todos.status": {tool.TodoPending, tool.TodoInProgress, tool.TodoCompleted}},
		runTodoWrite).WithEffects(func(*tool.Env, TodoWriteInput) tool.Effects { return tool.Effects{} })
}

const todoWriteDesc = `Creates and updates your task list for this session; the user sees it live. Send the whole list every time: it replaces the previous one.

When to use it:
- The task needs three or more distinct steps, or the user gave you several tasks: write them down first.
- Mark a task in_progress before you start it, exactly one at a time, and completed as soon as it is done; do not save completions up.
- Add tasks you discover on the way; remove ones that no longer apply.
- Skip it for a single trivial step or a purely conversational answer.

Each todo has content (the task in the imperative: "Run the tests"), activeForm (the same task in progress: "Running the tests") and status: pending, in_progress or completed. Mark a task completed only when it is fully done: if tests fail, the work is partial or an error is unresolved, keep it in_progress and add a task for what blocks it.`

func runTodoWrite(ctx context.Context, env *tool.Env, in TodoWriteInput) (tool.Result, error) {
	items := make([]tool.Todo, 0, len(in.Todos))
	var working []string
	count := map[string]int{}
	for i, t := range in.Todos {
		t.Content, t.ActiveForm = strings.TrimSpace(t.Content), strings.TrimSpace(t.ActiveForm)
		switch {
		case t.Content == "":
			return tool.Errorf("Todo %d has no content. Give every todo a task to do; the list was not saved.", i+1), nil
		case t.ActiveForm == "":
			return tool.Errorf("Todo %d (%q) has no activeForm. Give it as an action in progress, e.g. %q; the list was not saved.", i+1, t.Content, "Running the tests"), nil
		}
		if t.Status == tool.TodoInProgress {
			working = append(working, fmt.Sprintf("%d (%q)", i+1, t.Content))
		}
		count[t.Status]++
		items = append(items, tool.Todo{Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm})
	}
	if len(working) > 1 {
		return tool.Errorf("Todos %s are all in_progress: work on one task at a time. Mark only the one you are doing now in_progress; the list was not saved.", strings.Join(working, " and ")), nil
	}
	if env.Todos != nil {
		env.Todos.Set(tool.CallID(ctx), items)
	}
	if len(items) == 0 {
		return tool.Result{Content: "The todo list was cleared."}, nil
	}
	return tool.Result{Content: fmt.Sprintf("The todo list was saved (%s: %d completed, %d in progress, %d pending). Keep it current: mark each task completed as soon as it is done, and go on with the one in progress.",
		plural(len(items), "task"), count[tool.TodoCompleted], count[tool.TodoInProgress], count[tool.TodoPending])}, nil
}
