package builtin

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

func TestTodoWrite(t *testing.T) {
	saved := []tool.Todo{
		{Content: "Read the code", Status: "completed", ActiveForm: "Reading the code"},
		{Content: "Fix the bug", Status: "in_progress", ActiveForm: "Fixing the bug"},
		{Content: "Run the tests", Status: "pending", ActiveForm: "Running the tests"},
	}
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    string
		list    []tool.Todo // the list afterwards
	}{
		{name: "saved", input: `{"todos":[
			{"content":"Read the code","status":"completed","activeForm":"Reading the code"},
			{"content":" Fix the bug ","status":"in_progress","activeForm":"Fixing the bug"},
			{"content":"Run the tests","status":"pending","activeForm":"Running the tests"}]}`,
			want: "The todo list was saved (3 tasks: 1 completed, 1 in progress, 1 pending).", list: saved},
		{name: "cleared", input: `{"todos":[]}`, want: "The todo list was cleared.", list: []tool.Todo{}},
		{name: "two in progress", input: `{"todos":[
			{"content":"a","status":"in_progress","activeForm":"Doing a"},
			{"content":"b","status":"in_progress","activeForm":"Doing b"}]}`,
			wantErr: true, want: `Todos 1 ("a") and 2 ("b") are all in_progress: work on one task at a time.`, list: nil},
		{name: "empty content", input: `{"todos":[{"content":"  ","status":"pending","activeForm":"Doing"}]}`,
			wantErr: true, want: "Todo 1 has no content.", list: nil},
		{name: "empty activeForm", input: `{"todos":[{"content":"a","status":"pending","activeForm":""}]}`,
			wantErr: true, want: `Todo 1 ("a") has no activeForm.`, list: nil},
		{name: "missing activeForm", input: `{"todos":[{"content":"a","status":"pending"}]}`,
			wantErr: true, want: "Invalid input for TodoWrite", list: nil},
		{name: "unknown status", input: `{"todos":[{"content":"a","status":"done","activeForm":"Doing a"}]}`,
			wantErr: true, want: "Invalid input for TodoWrite", list: nil},
		{name: "no list", input: `{}`, wantErr: true, want: "Invalid input for TodoWrite", list: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.Todos = new(tool.TodoList)
			res := runCtx(tool.WithCallID(context.Background(), "toolu_7"), t, NewTodoWrite(), env, json.RawMessage(tt.input))
			check(t, res, env.Dir, tt.wantErr, tt.want)
			got := env.Todos.Get()
			if tt.list == nil {
				if got.Version != 0 {
					t.Errorf("a refused list was saved: %+v", got)
				}
				return
			}
			if diff := cmp.Diff(tool.Todos{Items: tt.list, Version: 1, By: "toolu_7"}, got); diff != "" {
				t.Errorf("list (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTodoWriteWithoutList: an embedder that keeps no list still gets a
// working tool.
func TestTodoWriteWithoutList(t *testing.T) {
	res := run(t, NewTodoWrite(), newEnv(t), json.RawMessage(`{"todos":[{"content":"a","status":"pending","activeForm":"Doing a"}]}`))
	check(t, res, "", false, "The todo list was saved (1 task:")
}

func TestTodoWriteNeedsNothing(t *testing.T) {
	tl := NewTodoWrite()
	fx := tool.EffectsOf(tl, newEnv(t), json.RawMessage(`{"todos":[]}`))
	if diff := cmp.Diff(tool.Effects{}, fx); diff != "" || !tl.ReadOnly() {
		t.Errorf("effects (-want +got):\n%s\nread-only %v", diff, tl.ReadOnly())
	}
	wf := NewWebFetch()
	fx = tool.EffectsOf(wf, newEnv(t), json.RawMessage(`{"url":"https://example.org","prompt":"p"}`))
	if diff := cmp.Diff(tool.Effects{}, fx); diff != "" || wf.ReadOnly() {
		t.Errorf("WebFetch effects (-want +got):\n%s\nread-only %v", diff, wf.ReadOnly())
	}
}
