package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
)

// A task run in steps — one model call and its tool batch each, every step
// a session opened afresh — comes to the result RunTask gives for the same
// conversation: the engines differ in how they schedule a task, not in
// what it does.
func TestStepsJoinToRunTasksResult(t *testing.T) {
	script := func(marker string) []llmtest.Turn {
		return []llmtest.Turn{
			turn(llmtest.Text("writing"), toolCall("Write", map[string]any{"file_path": "a.txt", "content": "a\n"})),
			turn(toolCall("Bash", map[string]any{"command": "cat a.txt"})),
			turn(llmtest.Text("done: " + marker)),
		}
	}
	srv := scripted(t, map[string][]llmtest.Turn{"[whole]": script("[whole]"), "[steps]": script("[steps]")})
	cfg := testConfig(t, srv)
	cfg.Defaults.PermissionMode = "bypassPermissions"

	whole := RunTask(t.Context(), Task{ID: "whole", Prompt: "[whole] go", Cwd: t.TempDir()}, cfg)
	if !whole.Succeeded() {
		t.Fatalf("RunTask: %+v", whole)
	}

	task := Task{ID: "steps", Prompt: "[steps] go", Cwd: t.TempDir()}.WithDefaults(cfg.Defaults)
	ws, err := Prepare(t.Context(), task, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	id := StepSessionID(task.ID)
	var steps []Result
	var subtypes []string
	for range 5 {
		var types []string
		r, err := Step(t.Context(), task, cfg, ws, id, func(e event.Event) { types = append(types, e.Type()) })
		if err != nil {
			t.Fatal(err)
		}
		if len(types) == 0 || types[len(types)-1] != event.TypeLoopComplete {
			t.Errorf("step %d: events %v, want them all, ending with loop_complete", len(steps)+1, types)
		}
		steps = append(steps, r)
		subtypes = append(subtypes, r.Subtype)
		if r.Subtype != SubtypeMaxTurns {
			break
		}
	}
	if d := cmp.Diff([]string{SubtypeMaxTurns, SubtypeMaxTurns, SubtypeSuccess}, subtypes); d != "" {
		t.Fatalf("step subtypes (-want +got):\n%s", d)
	}
	// Once answered, a step more (an engine retrying the last one) asks
	// the model nothing and says the same.
	before := len(modelCalls(srv))
	again, err := Step(t.Context(), task, cfg, ws, id, nil)
	if err != nil || again.Subtype != SubtypeSuccess || again.Result != "done: [steps]" || len(modelCalls(srv)) != before {
		t.Errorf("a step after the answer: %+v, %v, %d model calls", again, err, len(modelCalls(srv))-before)
	}

	got := Finish(t.Context(), task, cfg, ws, JoinSteps(steps, task.MaxTurns))
	want := whole
	want.ID, want.Result.Result, want.SessionID = "steps", "done: [steps]", id
	ignore := cmp.Options{
		cmpopts.IgnoreFields(Result{}, "DurationMS"),
		cmpopts.IgnoreFields(ToolCall{}, "DurationMS"),
		// The tool calls' ids are the scripted server's, one sequence
		// for both tasks.
		cmpopts.IgnoreFields(ToolCall{}, "ID"),
	}
	if d := cmp.Diff(want, got, ignore); d != "" {
		t.Errorf("steps joined against RunTask (-want +got):\n%s", d)
	}
	if b, err := os.ReadFile(filepath.Join(ws.Dir, "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("the steps' work: %q, %v", b, err)
	}
}

// modelCalls are the model calls srv answered (not its models list).
func modelCalls(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}

func TestJoinSteps(t *testing.T) {
	call := func(id string) ToolCall { return ToolCall{ID: id, Name: "Bash", Input: []byte(`{}`)} }
	step := func(subtype, text string, in int64, calls ...ToolCall) Result {
		r := Result{Type: "result", Subtype: subtype, IsError: subtype != SubtypeSuccess, Result: text, NumTurns: 1, DurationMS: 10,
			SessionID: "fleet-t", Usage: Usage{InputTokens: in}, TotalCostUSD: float64(in) / 1000, ToolCalls: calls,
			PermissionDenials: []PermissionDenial{}}
		if subtype == SubtypeMaxTurns {
			r.Error = "reached the turn limit (1) before the task was done; raise --max-turns to let it go on"
		}
		return r
	}
	denied := call("c2")
	denied.Denied, denied.Reason = true, "no"
	withDenial := step(SubtypeMaxTurns, "", 200, denied)
	withDenial.PermissionDenials = []PermissionDenial{{ToolName: "Bash", ToolUseID: "c2"}}
	withDenial.Sources = []Source{{URL: "https://a"}, {URL: "https://b"}}
	cited := step(SubtypeSuccess, "answer", 300)
	cited.Sources = []Source{{URL: "https://b"}, {URL: "https://c"}}

	tests := []struct {
		name     string
		steps    []Result
		maxTurns int
		want     Result
	}{
		{"no step", nil, 0, Result{Type: "result", Subtype: SubtypeError, IsError: true, Error: "the task ran no step",
			ToolCalls: []ToolCall{}, PermissionDenials: []PermissionDenial{}}},
		{"answered", []Result{step(SubtypeMaxTurns, "", 100, call("c1")), withDenial, cited}, 0,
			Result{Type: "result", Subtype: SubtypeSuccess, Result: "answer", NumTurns: 3, DurationMS: 30, SessionID: "fleet-t",
				Usage: Usage{InputTokens: 300}, TotalCostUSD: 0.3, ToolCalls: []ToolCall{call("c1"), denied},
				PermissionDenials: []PermissionDenial{{ToolName: "Bash", ToolUseID: "c2"}},
				Sources:           []Source{{URL: "https://a"}, {URL: "https://b"}, {URL: "https://c"}}}},
		{"stopped at the task's limit", []Result{step(SubtypeMaxTurns, "", 100), step(SubtypeMaxTurns, "", 200)}, 2,
			Result{Type: "result", Subtype: SubtypeMaxTurns, IsError: true, NumTurns: 2, DurationMS: 20, SessionID: "fleet-t",
				Error: "reached the turn limit (2) before the task was done; raise --max-turns to let it go on",
				Usage: Usage{InputTokens: 200}, TotalCostUSD: 0.2, ToolCalls: []ToolCall{}, PermissionDenials: []PermissionDenial{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, JoinSteps(tt.steps, tt.maxTurns)); d != "" {
				t.Errorf("JoinSteps (-want +got):\n%s", d)
			}
		})
	}
}

func TestStepSessionID(t *testing.T) {
	tests := []struct{ id, want string }{
		{"t1", "fleet-t1"},
		{"a-b_C9", "fleet-a-b_C9"},
		{"a.b", "fleet-a_b-"},
		{"repo/issue 7", "fleet-repo_issue_7-"},
		{strings.Repeat("x", 120), "fleet-" + strings.Repeat("x", 64) + "-"},
	}
	for _, tt := range tests {
		got := StepSessionID(tt.id)
		if got == tt.want {
			continue
		}
		if !strings.HasPrefix(got, tt.want) || len(got) != len(tt.want)+8 || strings.ContainsAny(got, "./ ") {
			t.Errorf("StepSessionID(%q) = %q, want %q and a hash", tt.id, got, tt.want)
		}
	}
	if StepSessionID("a.b") == StepSessionID("a_b") || StepSessionID("a.b") == StepSessionID("a/b") {
		t.Error("two ids share a session")
	}
}

// Prepare into a named directory makes the clone afresh, whatever an
// earlier attempt left there, so that a retried Prepare is the same.
func TestPrepareInNamedDir(t *testing.T) {
	url := bareRepo(t)
	dir := filepath.Join(t.TempDir(), "clone")
	task := Task{ID: "g", Prompt: "p", Git: &Git{URL: url, Ref: "feature"}}
	first, err := Prepare(t.Context(), task, Config{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "half-done"), []byte("x"), 0o644)
	second, err := Prepare(t.Context(), task, Config{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(first, second); d != "" || second.Dir != dir || second.Scratch != dir || second.Base == "" {
		t.Errorf("second Prepare: %+v (-first +second:\n%s)", second, d)
	}
	if _, err := os.Stat(filepath.Join(dir, "half-done")); !os.IsNotExist(err) {
		t.Errorf("what the first attempt left is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "feature.txt")); err != nil {
		t.Errorf("the clone's ref is not checked out: %v", err)
	}
	second.Remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Remove left %s: %v", dir, err)
	}
}
