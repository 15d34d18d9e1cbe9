package tool

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTodoList(t *testing.T) {
	var l TodoList
	if got := l.Get(); len(got.Items) != 0 || got.Version != 0 || got.By != "" {
		t.Fatalf("zero list = %+v", got)
	}
	in := []Todo{{Content: "a", Status: TodoPending, ActiveForm: "Doing a"}}
	l.Set("call_1", in)
	in[0].Content = "changed by the caller"
	got := l.Get()
	want := Todos{Items: []Todo{{Content: "a", Status: TodoPending, ActiveForm: "Doing a"}}, Version: 1, By: "call_1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after Set (-want +got):\n%s", diff)
	}
	got.Items[0].Status = TodoCompleted
	if again := l.Get(); again.Items[0].Status != TodoPending {
		t.Error("Get returned the list itself, not a copy")
	}

	// Calls run side by side: every Set counts.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { l.Set("x", nil) })
	}
	wg.Wait()
	if v := l.Version(); v != 9 {
		t.Errorf("version after 9 Sets = %d", v)
	}
}

func TestCallID(t *testing.T) {
	ctx := context.Background()
	if id := CallID(ctx); id != "" {
		t.Errorf("CallID of a bare context = %q", id)
	}
	if id := CallID(WithCallID(ctx, "toolu_1")); id != "toolu_1" {
		t.Errorf("CallID = %q", id)
	}
}

// TestNestedEnum: an enum path reaches a property of an array's objects.
func TestNestedEnum(t *testing.T) {
	type item struct {
		State string `json:"state" jsonschema:"the state"`
	}
	type in struct {
		Items []item `json:"items" jsonschema:"the items"`
	}
	tl := New("T", "test", true, map[string][]any{"items.state": {"on", "off"}}, func(context.Context, *Env, in) (Result, error) {
		return Result{Content: "ok"}, nil
	})
	for input, wantErr := range map[string]bool{
		`{"items":[{"state":"on"},{"state":"off"}]}`: false,
		`{"items":[{"state":"on"},{"state":"dim"}]}`: true,
	} {
		res, err := tl.Run(context.Background(), &Env{}, json.RawMessage(input))
		if err != nil || res.IsError != wantErr {
			t.Errorf("%s: %+v, %v; want IsError %v", input, res, err, wantErr)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("an enum for a missing nested property did not panic")
		}
	}()
	New("T", "test", true, map[string][]any{"items.colour": {"red"}}, func(context.Context, *Env, in) (Result, error) { return Result{}, nil })
}
