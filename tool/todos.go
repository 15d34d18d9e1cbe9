package tool

import (
	"context"
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
// that made it. The zero value is an empty list; safe for concurrent use,
// since calls run side by side.
type TodoList struct {
	mu    sync.Mutex
	state Todos
}

// Todos is the list at one moment.
type Todos struct {
	Items []Todo
	// Version counts the changes so far.
	Version uint64
	// By is the id of the call that made the last change (CallID).
	By string
}

// Set replaces the list; by is the id of the call that replaces it.
func (l *TodoList) Set(by string, items []Todo) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.state = Todos{Items: slices.Clone(items), Version: l.state.Version + 1, By: by}
}

// Get returns the list; its Items are a copy.
func (l *TodoList) Get() Todos {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.state
	s.Items = slices.Clone(s.Items)
	return s
}

// Version counts the changes so far.
func (l *TodoList) Version() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.state.Version
}

type callIDKey struct{}

// WithCallID records on ctx the id of the call a tool runs for; the
// executor sets it.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallID returns what WithCallID recorded, or "".
func CallID(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}
