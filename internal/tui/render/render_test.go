package render

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

const width = 80

// themes are the two palettes every golden is recorded in.
var themes = []struct {
	name  string
	theme Theme
}{
	{"dark", NewTheme(true, false)},
	{"nocolor", NewTheme(true, true)},
}

// golden compares got with testdata/<name>.golden and checks the width
// guarantee; NO_COLOR output must not contain a single escape byte.
func golden(t *testing.T, name string, th Theme, w int, got string) {
	t.Helper()
	checkWidth(t, got, w)
	if th.NoColor && strings.ContainsRune(got, '\x1b') {
		t.Errorf("%s: NO_COLOR output contains an ESC byte:\n%q", name, got)
	}
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from golden file (rerun with -update if intended)\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}

func checkWidth(t *testing.T, s string, w int) {
	t.Helper()
	for i, l := range strings.Split(s, "\n") {
		if got := ansi.StringWidth(l); got > w {
			t.Errorf("line %d is %d cells wide, limit %d: %q", i, got, w, l)
		}
	}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

const answer = "# Plan\n\nI will **fix** the bug in `parse.go`. Steps:\n\n" +
	"1. read the file\n2. change the loop\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"hello\") // greet\n}\n```\n\n" +
	"> Note: this is a quote that is long enough to need wrapping at eighty columns, surely.\n"

func TestMarkdownGolden(t *testing.T) {
	for _, tc := range themes {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMarkdown(tc.theme)
			golden(t, "markdown_"+tc.name, tc.theme, width, m.Render(answer, width))
		})
	}
}

func TestPromptGolden(t *testing.T) {
	text := "please refactor the parser so that it handles nested brackets, and add tests for the edge cases we discussed\nsecond line"
	for _, tc := range themes {
		golden(t, "prompt_"+tc.name, tc.theme, width, Prompt(tc.theme, width, text))
	}
}

func TestThinkingGolden(t *testing.T) {
	text := "The user wants a fix.\nFirst I should read parse.go, then look at the loop that handles brackets because the recursion there never terminates on unbalanced input.\nThen write a test."
	for _, tc := range themes {
		golden(t, "thinking_collapsed_"+tc.name, tc.theme, width, Thinking(tc.theme, width, text, false))
		golden(t, "thinking_expanded_"+tc.name, tc.theme, width, Thinking(tc.theme, width, text, true))
	}
}

func TestErrorLineGolden(t *testing.T) {
	for _, tc := range themes {
		golden(t, "error_"+tc.name, tc.theme, width, ErrorLine(tc.theme, width, "API returned 529 overloaded; retried 3 times over 12s and gave up, try again in a minute"))
	}
}

func TestNoticeLineGolden(t *testing.T) {
	for _, tc := range themes {
		golden(t, "notice_retry_"+tc.name, tc.theme, width, NoticeLine(tc.theme, width, "overloaded (HTTP 529) — retrying in 1.1 s (2/4)", false))
		golden(t, "notice_warning_"+tc.name, tc.theme, width, NoticeLine(tc.theme, width,
			"could not save Bash(npm run test:*) for next time (it holds for this session): open /home/me/.novacode/settings.json: permission denied", true))
	}
}

func TestStatusLineGolden(t *testing.T) {
	s := Status{
		Model: "claude-sonnet-4-5", Mode: "default",
		ContextUsed: 24_000, ContextWindow: 200_000,
		InputTokens: 12_345, OutputTokens: 1_234, CacheReadTokens: 82_000,
		CostUSD: 0.0123, Busy: true, Hint: "esc to interrupt",
	}
	for _, tc := range themes {
		golden(t, "status_busy_"+tc.name, tc.theme, width, StatusLine(tc.theme, width, s))
		idle := s
		idle.Busy = false
		golden(t, "status_idle_"+tc.name, tc.theme, width, StatusLine(tc.theme, width, idle))
	}
}

// cards is the set of tool cards recorded as goldens.
var cards = map[string]Card{
	"bash_done": {Name: "Bash", Input: mustJSON(map[string]any{"command": "git status"}),
		Duration: 1200 * time.Millisecond, Result: "On branch main\nnothing to commit, working tree clean\n"},
	"bash_running": {Name: "Bash", Input: mustJSON(map[string]any{"command": "go test ./..."}),
		Running: true, Duration: 1200 * time.Millisecond},
	"bash_folded": {Name: "Bash", Input: mustJSON(map[string]any{"command": "seq 10"}),
		Duration: 300 * time.Millisecond, Result: numbered(10)},
	"bash_expanded": {Name: "Bash", Input: mustJSON(map[string]any{"command": "seq 10"}),
		Duration: 300 * time.Millisecond, Result: numbered(10), Expanded: true},
	"read_error": {Name: "Read", Input: mustJSON(map[string]any{"file_path": "/repo/missing.go"}),
		Duration: 10 * time.Millisecond, Result: "open /repo/missing.go: no such file or directory", IsError: true},
	"write_denied": {Name: "Write", Input: mustJSON(map[string]any{"file_path": "/etc/passwd", "content": "x"}),
		Denied: true, Result: "not in /etc please"},
	"bash_cancelled": {Name: "Bash", Input: mustJSON(map[string]any{"command": "sleep 100"}),
		Duration: 2 * time.Second, Cancelled: true},
	"edit_diff": {Name: "Edit", Input: mustJSON(map[string]any{
		"file_path":  "/repo/parse.go",
		"old_string": "func parse(s string) {\n\tfor i := 0; i < len(s); i++ {\n\t\tstep(s[i])\n\t}\n}",
		"new_string": "func parse(s string) error {\n\tfor i := range len(s) {\n\t\tif err := step(s[i]); err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n\treturn nil\n}",
	}), Duration: 40 * time.Millisecond, Result: "The file /repo/parse.go has been updated."},
	"write_diff": {Name: "Write", Input: mustJSON(map[string]any{
		"file_path": "/repo/notes.txt", "content": numbered(14),
	}), Duration: 5 * time.Millisecond, Result: "File created successfully"},
	"websearch_done": {Name: "WebSearch", Input: mustJSON(map[string]any{"query": "go 1.26 release notes"}),
		Duration: 2100 * time.Millisecond, Result: "Go 1.26 Release Notes — https://go.dev/doc/go1.26\nhttps://go.dev/blog/\nThree — https://3.example/\nFour — https://4.example/\nFive — https://5.example/"},
	"mcp_other": {Name: "mcp__github__search_issues", Input: mustJSON(map[string]any{
		"query": "is:open label:bug " + strings.Repeat("very long query ", 10), "per_page": 20,
	}), Duration: 3 * time.Second, Result: "[]"},
}

func TestToolCardGolden(t *testing.T) {
	for name, c := range cards {
		for _, tc := range themes {
			golden(t, "card_"+name+"_"+tc.name, tc.theme, width, ToolCard(tc.theme, width, c))
		}
	}
}
