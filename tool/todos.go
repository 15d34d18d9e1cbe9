package tool

import (
	"slices"
	"sync"
)

// Todo statuses, as TodoWrite takes them.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

// Todo is one entry of the model's task list.
type Todo struct {
	Content string
	Status  string // TodoPending, TodoInProgress or TodoCompleted
	// ActiveForm is the entry as something being done ("Running the
	// tests"), shown while it is in progress.
	ActiveForm string
}

// TodoList is the session's task list, which the model replaces whole with
// each TodoWrite call. The loop reports a change as an event after the call
// that made it (Version tells it one happened). The zero value is an empty
// list; safe for concurrent use, since calls run side by side.
type TodoList struct {
	mu      sync.Mutex
	items   []Todo
	version uint64
}

// Set replaces the list.
func (l *TodoList) Set(items []Todo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = slices.Clone(items)
	l.version++
}

// Get returns a copy of the list and its version, which every Set raises.
func (l *TodoList) Get() ([]Todo, uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items), l.version
}

// Version is the number of Sets so far.
func (l *TodoList) Version() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.version
}
