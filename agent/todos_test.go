package agent_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// TestTodoEvents: each TodoWrite that changes the list yields the whole
// list after its tool_done; a refused list yields nothing, and a new run
// does not repeat a list already reported.
func TestTodoEvents(t *testing.T) {
	todo := func(status ...string) string {
		s := `{"todos":[`
		for i, st := range status {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(`{"content":"task %d","status":%q,"activeForm":"Doing task %d"}`, i+1, st, i+1)
		}
		return s + "]}"
	}
	fc := &fakeClient{scripts: [][]step{
		{call(0, "w1", "TodoWrite", todo("in_progress", "pending")), end(llm.StopToolUse, 10, 5)},
		{
			call(0, "bad", "TodoWrite", todo("in_progress", "in_progress")),
			call(1, "w2", "TodoWrite", todo("completed", "in_progress")),
			end(llm.StopToolUse, 10, 5),
		},
		answer("done"),
		answer("nothing to do"),
	}}
	a := &agent.Agent{
		Client: fc, Model: "claude-sonnet-4-5", Tools: tool.NewRegistry(builtin.NewTodoWrite()),
		Env: &tool.Env{Dir: t.TempDir(), Files: tool.NewFileState(), Todos: new(tool.TodoList)},
	}
	conv := agent.NewConversation("s", "", "plan it")
	evs := collect(t, a, context.Background(), conv)

	var got []string
	for _, e := range evs {
		switch e := e.(type) {
		case event.ToolDone:
			got = append(got, "done "+e.ID)
		case event.Todo:
			s := fmt.Sprintf("todo turn %d:", e.Turn)
			for _, it := range e.Todos {
				s += fmt.Sprintf(" %s=%s (%s)", it.Content, it.Status, it.ActiveForm)
			}
			got = append(got, s)
		}
	}
	// The two calls of turn 2 run side by side: their tool_done may come
	// in either order; the list comes right after the call that saved it.
	want := []string{
		"done w1", "todo turn 1: task 1=in_progress (Doing task 1) task 2=pending (Doing task 2)",
		"done bad", "done w2", "todo turn 2: task 1=completed (Doing task 1) task 2=in_progress (Doing task 2)",
	}
	if len(got) == 5 && got[2] == "done w2" {
		want[2], want[3], want[4] = want[3], want[4], want[2]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	conv.AddUser("anything else?")
	for _, e := range collect(t, a, context.Background(), conv) {
		if _, ok := e.(event.Todo); ok {
			t.Errorf("a later run reported the list again: %+v", e)
		}
	}
}
