package render

import (
	"strings"
	"testing"
	"time"
)

// benchAnswer is a ~2 KB answer with prose, a list and a Go code block.
var benchAnswer = func() string {
	var b strings.Builder
	b.WriteString("## What changed\n\nThe parser now **returns errors** instead of panicking, and `step` reports the offset of the bad byte.\n\n")
	for i := 0; i < 6; i++ {
		b.WriteString("- a list item explaining one of the changes made to the code in some detail\n")
	}
	b.WriteString("\n```go\n")
	for i := 0; i < 20; i++ {
		b.WriteString("func step(b byte) error { if b == 0 { return fmt.Errorf(\"nul at %d\", b) }; return nil }\n")
	}
	b.WriteString("```\n\nRun `go test ./...` to check.\n")
	return b.String()
}()

func BenchmarkMarkdown(b *testing.B) {
	m := NewMarkdown(NewTheme(true, false))
	b.SetBytes(int64(len(benchAnswer)))
	for b.Loop() {
		m.Render(benchAnswer, 80)
	}
}

func BenchmarkToolCard(b *testing.B) {
	th := NewTheme(true, false)
	c := Card{Name: "Bash", Input: mustJSON(map[string]string{"command": "go test ./..."}),
		Duration: 1500 * time.Millisecond, Result: numbered(200)}
	edit := cards["edit_diff"]
	for b.Loop() {
		ToolCard(th, 80, c)
		ToolCard(th, 80, edit)
	}
}
