package agent

import (
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/tool"
)

// todoVersion is the version of env's task list, 0 without one.
func todoVersion(env *tool.Env) uint64 {
	if env == nil || env.Todos == nil {
		return 0
	}
	return env.Todos.Version()
}

// reportTodos yields the session's task list (TodoWrite) after the
// tool_done of the call that last changed it, so a frontend shows the list
// as the model keeps it without knowing any tool. ended is the call just
// reported. A list a later call already replaced is skipped: the later
// call's report carries the newer one.
func (r *run) reportTodos(ended string) {
	if todoVersion(r.a.Env) == r.todos {
		return
	}
	s := r.a.Env.Todos.Get()
	if s.By != ended {
		return
	}
	r.todos = s.Version
	items := make([]event.TodoItem, len(s.Items)) // [] rather than null: the list is empty
	for i, t := range s.Items {
		items[i] = event.TodoItem{Content: t.Content, Status: t.Status, ActiveForm: t.ActiveForm}
	}
	r.emit(event.Todo{Turn: r.turn, Todos: items})
}
