package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// TestTodoPanel: the latest list stands above the input while a task is
// open, takes its rows from the timeline, names the task in progress in
// the working hint, and goes when every task is done or on /clear.
func TestTodoPanel(t *testing.T) {
	now := time.Unix(1000, 0)
	timeNow = func() time.Time { return now }
	defer func() { timeNow = time.Now }()
	m := plainModel(Options{})
	defer m.Close()
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	m.busy, m.runStart = true, now.Add(-3*time.Second)
	base := m.timelineHeight()

	list := []event.TodoItem{
		{Content: "Read the code", Status: "completed", ActiveForm: "Reading the code"},
		{Content: "Fix the bug", Status: "in_progress", ActiveForm: "Fixing the bug"},
		{Content: "Run the tests", Status: "pending", ActiveForm: "Running the tests"},
	}
	in, _ := json.Marshal(map[string]any{"todos": []map[string]string{{"content": "Read the code", "status": "completed", "activeForm": "Reading the code"}}})
	m.handleEvent(event.ToolUse{Turn: 1, ID: "w", Name: "TodoWrite", Input: in})
	m.handleEvent(event.ToolDone{Turn: 1, ID: "w", Name: "TodoWrite"})
	m.handleEvent(event.Todo{Turn: 1, Todos: list})

	screen := m.Screen()
	lines := strings.Split(screen, "\n")
	input := -1
	for i, l := range lines {
		if strings.HasPrefix(ansi.Strip(l), "> ") {
			input = i
			break
		}
	}
	if input < 4 {
		t.Fatalf("no input box below a panel:\n%s", screen)
	}
	want := []string{"Todos 1/3", "  [x] Read the code", "  [>] Fix the bug", "  [ ] Run the tests"}
	if diff := cmp.Diff(want, lines[input-4:input]); diff != "" {
		t.Errorf("panel above the input (-want +got):\n%s\n%s", diff, screen)
	}
	if got := m.timelineHeight(); got != base-4 {
		t.Errorf("timeline height %d with the panel, want %d", got, base-4)
	}
	if !strings.Contains(screen, "Fixing the bug… 3s · esc to interrupt") {
		t.Errorf("the working hint does not name the task in progress:\n%s", screen)
	}

	list[1].Status, list[2].Status = "completed", "completed"
	m.handleEvent(event.Todo{Turn: 2, Todos: list})
	if screen := m.Screen(); strings.Contains(screen, "Todos") || m.timelineHeight() != base {
		t.Errorf("a finished list is still shown:\n%s", screen)
	}
	if !strings.Contains(m.Screen(), "working 3s") {
		t.Errorf("the hint still names a task:\n%s", m.Screen())
	}

	list[2].Status = "pending"
	m.handleEvent(event.Todo{Turn: 3, Todos: list})
	if !strings.Contains(m.Screen(), "[ ] Run the tests") {
		t.Fatal("a reopened list is not shown")
	}
	m.busy = false
	typeText(m, "/clear")
	press(m, key(tea.KeyEnter))
	if screen := m.Screen(); strings.Contains(screen, "Todos") {
		t.Errorf("/clear left the list:\n%s", screen)
	}
}

// TestTodoPanelLong: a long list takes at most todoRows rows.
func TestTodoPanelLong(t *testing.T) {
	m := plainModel(Options{})
	defer m.Close()
	var list []event.TodoItem
	for range 20 {
		list = append(list, event.TodoItem{Content: "task", Status: "pending", ActiveForm: "Doing"})
	}
	m.handleEvent(event.Todo{Turn: 1, Todos: list})
	if n := m.todos.lines(m.r, m.width); n != todoRows {
		t.Errorf("panel of %d rows, want %d:\n%s", n, todoRows, m.todos.render(m.r, m.width))
	}
}
