package fleet

import (
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// parsed is what ParseTasks yields for a file: the tasks, and the bad
// lines as "line N: why".
type parsed struct {
	Tasks  []Task
	Errors []string
}

func parse(t *testing.T, r io.Reader) parsed {
	t.Helper()
	var p parsed
	for task, err := range ParseTasks(r) {
		if err != nil {
			if _, ok := errors.AsType[*LineError](err); !ok {
				p.Errors = append(p.Errors, "not a LineError: "+err.Error())
				continue
			}
			p.Errors = append(p.Errors, err.Error())
			continue
		}
		p.Tasks = append(p.Tasks, task)
	}
	return p
}

func TestParseTasks(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want parsed
	}{
		{
			name: "good lines, every field",
			in: `{"id": "t1", "prompt": "fix it", "cwd": "/src/a"}
{"id": "t2", "prompt": "bump", "git": {"url": "file:///r.git", "ref": "main"}, "model": "m", "provider": "openai", "max_turns": 3, "permission_mode": "acceptEdits", "allowed_tools": ["Bash(go test:*)", "Edit"], "timeout": "90s"}
{"id": "t3", "prompt": "seconds", "timeout": 30}
`,
			want: parsed{Tasks: []Task{
				{ID: "t1", Prompt: "fix it", Cwd: "/src/a", Line: 1},
				{ID: "t2", Prompt: "bump", Git: &Git{URL: "file:///r.git", Ref: "main"}, Model: "m", Provider: "openai", MaxTurns: 3,
					PermissionMode: "acceptEdits", AllowedTools: []string{"Bash(go test:*)", "Edit"}, Timeout: Duration(90 * time.Second), Line: 2},
				{ID: "t3", Prompt: "seconds", Timeout: Duration(30 * time.Second), Line: 3},
			}},
		},
		{
			name: "blank lines, CRLF, a BOM and no newline at the end",
			in:   "\ufeff{\"id\": \"a\", \"prompt\": \"p\"}\r\n\r\n   \r\n{\"id\": \"b\", \"prompt\": \"q\"}",
			want: parsed{Tasks: []Task{{ID: "a", Prompt: "p", Line: 1}, {ID: "b", Prompt: "q", Line: 4}}},
		},
		{
			name: "bad lines are reported with their number, the rest goes on",
			in: `{"id": "ok1", "prompt": "p"}
{"id": "broken", "prompt": 
not json at all
{"id": "x", "prompt": "p", "max_turn": 3}
{"prompt": "no id"}
{"id": "np"}
{"id": "both", "prompt": "p", "cwd": "/a", "git": {"url": "u"}}
{"id": "nourl", "prompt": "p", "git": {"ref": "main"}}
{"id": "dash", "prompt": "p", "git": {"url": "u", "ref": "--upload-pack=x"}}
{"id": "mode", "prompt": "p", "permission_mode": "yolo"}
{"id": "prov", "prompt": "p", "provider": "acme"}
{"id": "turns", "prompt": "p", "max_turns": -1}
{"id": "to", "prompt": "p", "timeout": "soon"}
{"id": "two", "prompt": "p"} {"id": "three", "prompt": "p"}
{"id": "ctl\u0007", "prompt": "p"}
["an", "array"]
{"id": "ok2", "prompt": "p"}
`,
			want: parsed{
				Tasks: []Task{{ID: "ok1", Prompt: "p", Line: 1}, {ID: "ok2", Prompt: "p", Line: 17}},
				Errors: []string{
					"line 2: not a task object: unexpected EOF",
					"line 3: not a task object: invalid character 'o' in literal null (expecting 'u')",
					`line 4: not a task object: json: unknown field "max_turn"`,
					`line 5: no "id"`,
					`line 6: no "prompt"`,
					`line 7: both "cwd" and "git": a task works in one of them`,
					`line 8: "git" without "url"`,
					`line 9: git ref "--upload-pack=x" starts with a dash`,
					`line 10: unknown permission mode "yolo" (want default, acceptEdits, plan or bypassPermissions)`,
					`line 11: unknown provider "acme" (available: anthropic, openai, openai-chat)`,
					"line 12: max_turns -1: want 0 (no limit) or more",
					`line 13: not a task object: timeout "soon": want a duration such as "90s" or "10m"`,
					"line 14: more than one JSON value on the line",
					`line 15: id "ctl\a" has control characters`,
					"line 16: not a task object: json: cannot unmarshal array into Go value of type fleet.Task",
				},
			},
		},
		{
			name: "a duplicate id: the later line is skipped",
			in: `{"id": "t1", "prompt": "first"}
{"id": "t2", "prompt": "p"}
{"id": "t1", "prompt": "second"}
`,
			want: parsed{
				Tasks:  []Task{{ID: "t1", Prompt: "first", Line: 1}, {ID: "t2", Prompt: "p", Line: 2}},
				Errors: []string{`line 3: duplicate id "t1" (first on line 1)`},
			},
		},
		{name: "empty", in: "", want: parsed{}},
		{name: "only blank lines", in: "\n\r\n  \n", want: parsed{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parse(t, strings.NewReader(tt.in))
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseTasks (-want +got):\n%s", d)
			}
		})
	}
}

// A line error names the task when the line had an id.
func TestLineErrorNamesTheTask(t *testing.T) {
	for _, err := range ParseTasks(strings.NewReader(`{"id": "t9", "prompt": "p", "bogus": 1}` + "\n")) {
		le, ok := errors.AsType[*LineError](err)
		if !ok || le.ID != "t9" || le.Line != 1 {
			t.Fatalf("error = %#v, want a LineError for t9 on line 1", err)
		}
	}
}

// A line past the limit is reported, skipped without being kept, and the
// next line is read.
func TestParseTasksLongLine(t *testing.T) {
	long := `{"id": "big", "prompt": "` + strings.Repeat("x", maxLine) + `"}`
	got := parse(t, strings.NewReader(long+"\n"+`{"id": "after", "prompt": "p"}`+"\n"))
	want := parsed{Tasks: []Task{{ID: "after", Prompt: "p", Line: 2}}, Errors: []string{"line 1: longer than 16 MiB"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// A read error ends the sequence with it: it is no line's fault.
func TestParseTasksReadError(t *testing.T) {
	r := io.MultiReader(strings.NewReader(`{"id": "a", "prompt": "p"}`+"\n"), iotest.ErrReader(errors.New("disk on fire")))
	got := parse(t, r)
	want := parsed{Tasks: []Task{{ID: "a", Prompt: "p", Line: 1}}, Errors: []string{"not a LineError: read tasks: disk on fire"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Stopping early stops reading.
func TestParseTasksStop(t *testing.T) {
	n := 0
	for range ParseTasks(strings.NewReader("{\"id\":\"a\",\"prompt\":\"p\"}\n{\"id\":\"b\",\"prompt\":\"p\"}\n")) {
		n++
		break
	}
	if n != 1 {
		t.Fatalf("%d tasks after break", n)
	}
}

// A task round-trips through JSON (an engine that sends tasks elsewhere
// sends them as JSON), its timeout as a duration string.
func TestTaskJSON(t *testing.T) {
	in := Task{ID: "t", Prompt: "p", Git: &Git{URL: "u", Ref: "r"}, MaxTurns: 2, AllowedTools: []string{"Edit"}, Timeout: Duration(90 * time.Second)}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"t","prompt":"p","git":{"url":"u","ref":"r"},"max_turns":2,"allowed_tools":["Edit"],"timeout":"1m30s"}`; string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
	var out Task
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(in, out); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// A task's own fields win over the batch's defaults.
func TestWithDefaults(t *testing.T) {
	d := Task{Cwd: "/default", Model: "dm", Provider: "anthropic", PermissionMode: "acceptEdits", MaxTurns: 9,
		AllowedTools: []string{"Edit"}, Timeout: Duration(time.Minute)}
	tests := []struct {
		name string
		in   Task
		want Task
	}{
		{"empty task takes every default", Task{ID: "a"},
			Task{ID: "a", Cwd: "/default", Model: "dm", Provider: "anthropic", PermissionMode: "acceptEdits", MaxTurns: 9, AllowedTools: []string{"Edit"}, Timeout: Duration(time.Minute)}},
		{"own fields win", Task{ID: "b", Git: &Git{URL: "u"}, Model: "m", Provider: "openai", PermissionMode: "plan", MaxTurns: 1, AllowedTools: []string{}, Timeout: Duration(time.Second)},
			Task{ID: "b", Git: &Git{URL: "u"}, Model: "m", Provider: "openai", PermissionMode: "plan", MaxTurns: 1, AllowedTools: []string{}, Timeout: Duration(time.Second)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, tt.in.WithDefaults(d)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
