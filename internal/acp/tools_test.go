package acp

import (
	"encoding/json"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// TestNewCall: each tool's kind, title and locations, paths shown
// relative to the workspace and located absolutely.
func TestNewCall(t *testing.T) {
	const ws = "/work/project"
	line := func(n int) *int { return &n }
	tests := []struct {
		name, tool, input string
		kind              acpsdk.ToolKind
		title             string
		locations         []acpsdk.ToolCallLocation
	}{
		{"read", "Read", `{"file_path":"src/main.go"}`, acpsdk.ToolKindRead, "Read src/main.go", []acpsdk.ToolCallLocation{{Path: ws + "/src/main.go"}}},
		{"read from a line", "Read", `{"file_path":"/work/project/src/main.go","offset":40,"limit":20}`, acpsdk.ToolKindRead, "Read src/main.go (from line 40)", []acpsdk.ToolCallLocation{{Path: ws + "/src/main.go", Line: line(40)}}},
		{"read outside", "Read", `{"file_path":"/etc/hosts"}`, acpsdk.ToolKindRead, "Read /etc/hosts", []acpsdk.ToolCallLocation{{Path: "/etc/hosts"}}},
		{"write", "Write", `{"file_path":"a.txt","content":"x"}`, acpsdk.ToolKindEdit, "Write a.txt", []acpsdk.ToolCallLocation{{Path: ws + "/a.txt"}}},
		{"edit", "Edit", `{"file_path":"a.txt","old_string":"x","new_string":"y"}`, acpsdk.ToolKindEdit, "Edit a.txt", []acpsdk.ToolCallLocation{{Path: ws + "/a.txt"}}},
		{"bash", "Bash", `{"command":"go test ./...","description":"run the tests"}`, acpsdk.ToolKindExecute, "go test ./...", nil},
		{"bash on lines", "Bash", `{"command":"cd x\nmake"}`, acpsdk.ToolKindExecute, "cd x …", nil},
		{"rm", "Bash", `{"command":"rm -rf build"}`, acpsdk.ToolKindDelete, "rm -rf build", nil},
		{"mv", "Bash", `{"command":"mv a.txt b.txt"}`, acpsdk.ToolKindMove, "mv a.txt b.txt", nil},
		{"rm among others", "Bash", `{"command":"rm a && ls"}`, acpsdk.ToolKindExecute, "rm a && ls", nil},
		{"bash output", "BashOutput", `{"bash_id":"bash_1"}`, acpsdk.ToolKindExecute, "Output of bash_1", nil},
		{"kill", "KillShell", `{"shell_id":"bash_1"}`, acpsdk.ToolKindExecute, "Stop bash_1", nil},
		{"grep", "Grep", `{"pattern":"func main","path":"cmd"}`, acpsdk.ToolKindSearch, `Grep "func main" in cmd`, []acpsdk.ToolCallLocation{{Path: ws + "/cmd"}}},
		{"grep everywhere", "Grep", `{"pattern":"TODO"}`, acpsdk.ToolKindSearch, `Grep "TODO"`, []acpsdk.ToolCallLocation{{Path: ws}}},
		{"glob", "Glob", `{"pattern":"**/*.go"}`, acpsdk.ToolKindSearch, `Find "**/*.go"`, []acpsdk.ToolCallLocation{{Path: ws}}},
		{"ls", "LS", `{"path":"internal"}`, acpsdk.ToolKindSearch, "List internal", []acpsdk.ToolCallLocation{{Path: ws + "/internal"}}},
		{"fetch", "WebFetch", `{"url":"https://go.dev/doc","prompt":"what"}`, acpsdk.ToolKindFetch, "Fetch https://go.dev/doc", nil},
		{"task", "Task", `{"description":"Find the tests","prompt":"…","subagent_type":"Explore"}`, acpsdk.ToolKindThink, "Task: Find the tests (Explore)", nil},
		{"task output", "TaskOutput", `{"task_id":"agent_1"}`, acpsdk.ToolKindThink, "Wait for agent_1", nil},
		{"message", "SendMessage", `{"to":"agent_2","message":"hi"}`, acpsdk.ToolKindOther, "Message to agent_2", nil},
		{"question", "AskUserQuestion", `{"question":"Which one?","options":["a","b"]}`, acpsdk.ToolKindOther, "Which one?", nil},
		{"plan", "ExitPlanMode", `{"plan":"1. do it"}`, acpsdk.ToolKindSwitchMode, "Ready to code?", nil},
		{"tool search", "ToolSearch", `{"query":"github issue"}`, acpsdk.ToolKindSearch, "Search tools: github issue", nil},
		{"an MCP tool", "mcp__github__create_issue", `{"title":"x"}`, acpsdk.ToolKindOther, "create_issue (github)", nil},
		{"a tool of the program's", "Deploy", `{}`, acpsdk.ToolKindOther, "Deploy", nil},
		{"malformed input", "Read", `{"file_path":`, acpsdk.ToolKindRead, "Read .", []acpsdk.ToolCallLocation{{Path: ws}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCall(ws, "id", tc.tool, json.RawMessage(tc.input))
			got := struct {
				Kind      acpsdk.ToolKind
				Title     string
				Locations []acpsdk.ToolCallLocation
			}{c.kind, c.title, c.locations}
			want := struct {
				Kind      acpsdk.ToolKind
				Title     string
				Locations []acpsdk.ToolCallLocation
			}{tc.kind, tc.title, tc.locations}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffContent: Write and Edit show a diff from the start (the
// permission request carries it): Edit's old and new strings, Write's
// content as a new text.
func TestDiffContent(t *testing.T) {
	tests := []struct {
		name, tool, input, want string
	}{
		{"edit", "Edit", `{"file_path":"a.go","old_string":"x := 1","new_string":"x := 2"}`,
			`[{"newText":"x := 2","oldText":"x := 1","path":"/ws/a.go","type":"diff"}]`},
		{"write", "Write", `{"file_path":"/ws/b.go","content":"package b\n"}`,
			`[{"newText":"package b\n","path":"/ws/b.go","type":"diff"}]`},
		{"plan", "ExitPlanMode", `{"plan":"1. Do it."}`,
			`[{"content":{"text":"1. Do it.","type":"text"},"type":"content"}]`},
		{"read", "Read", `{"file_path":"a.go"}`, `null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCall("/ws", "id", tc.tool, json.RawMessage(tc.input))
			got, err := json.Marshal(c.content)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestFence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain\n", "```\nplain\n```"},
		{"has ``` inside", "````\nhas ``` inside\n````"},
		{"a `tick`", "```\na `tick`\n```"},
	}
	for _, tc := range tests {
		if got := fence(tc.in); got != tc.want {
			t.Errorf("fence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
