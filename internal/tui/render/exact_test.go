package render

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

func TestKeyArg(t *testing.T) {
	long := strings.Repeat("x", 200)
	tests := []struct {
		name, tool string
		input      string
		workDir    string
		avail      int
		want       string
	}{
		{"bash", "Bash", `{"command":"git status","description":"show status"}`, "", 60, "git status"},
		{"bash multiline", "Bash", `{"command":"cd x\nmake\tall"}`, "", 60, "cd x make all"},
		{"bash truncated", "Bash", `{"command":"` + long + `"}`, "", 10, "xxxxxxxxx…"},
		{"read abs", "Read", `{"file_path":"/repo/a/b.go"}`, "", 60, "/repo/a/b.go"},
		{"read relative", "Read", `{"file_path":"/repo/a/b.go"}`, "/repo", 60, "a/b.go"},
		{"read outside workdir", "Read", `{"file_path":"/etc/hosts"}`, "/repo", 60, "/etc/hosts"},
		{"write", "Write", `{"file_path":"/repo/n.txt","content":"hi"}`, "/repo", 60, "n.txt"},
		{"edit", "Edit", `{"file_path":"/repo/x.go","old_string":"a","new_string":"b"}`, "/repo", 60, "x.go"},
		{"path cut from left", "Read", `{"file_path":"/very/long/directory/name/file.go"}`, "", 12, "…ame/file.go"},
		{"glob", "Glob", `{"pattern":"**/*.go"}`, "", 60, `pattern: "**/*.go"`},
		{"glob path", "Glob", `{"pattern":"*.md","path":"/repo/docs"}`, "/repo", 60, `pattern: "*.md", path: "docs"`},
		{"grep", "Grep", `{"pattern":"func main","path":"cmd","output_mode":"content"}`, "", 60, `pattern: "func main", path: "cmd"`},
		{"ls", "LS", `{"path":"/repo/internal"}`, "/repo", 60, "internal"},
		{"webfetch", "WebFetch", `{ "url": "https://x.dev/docs",  "prompt": "sum" }`, "", 60, "https://x.dev/docs"},
		{"todowrite", "TodoWrite", `{"todos":[{"content":"a","status":"completed","activeForm":"A"},{"content":"b","status":"pending","activeForm":"B"}]}`, "", 60, "2 tasks, 1 done"},
		{"other compact json", "mcp__web__fetch", `{ "url": "https://x.dev",  "prompt": "sum" }`, "", 60, `{"url":"https://x.dev","prompt":"sum"}`},
		{"other truncated", "Task", `{"prompt":"` + long + `"}`, "", 20, `{"prompt":"xxxxxxxx…`},
		{"empty input", "TodoRead", `{}`, "", 20, ""},
		{"missing key falls back", "Bash", `{"cmd":"ls"}`, "", 60, `{"cmd":"ls"}`},
		{"malformed json", "Bash", `{"command":`, "", 60, `{"command":`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := keyArg(tc.tool, json.RawMessage(tc.input), tc.workDir, tc.avail)
			if got != tc.want {
				t.Errorf("keyArg = %q, want %q", got, tc.want)
			}
			if w := ansi.StringWidth(got); w > tc.avail {
				t.Errorf("width %d > %d", w, tc.avail)
			}
		})
	}
}

func TestToolCardHeaderUsesWorkDir(t *testing.T) {
	th := NewTheme(true, true).WithWorkDir("/repo")
	got := ToolCard(th, 80, Card{Name: "Read", Input: mustJSON(map[string]string{"file_path": "/repo/go.mod"}), Duration: 2 * time.Second, Result: "module x"})
	if first := strings.Split(got, "\n")[0]; first != "● Read(go.mod) 2.0s" {
		t.Errorf("header = %q", first)
	}
}

func TestToolCardRunningSpinnerFollowsDuration(t *testing.T) {
	th := NewTheme(true, true)
	c := Card{Name: "Bash", Input: mustJSON(map[string]string{"command": "make"}), Running: true}
	c.Duration = 0
	a := ToolCard(th, 80, c)
	c.Duration = 150 * time.Millisecond
	b := ToolCard(th, 80, c)
	if a != "● Bash(make) ⠋ 0ms" || b != "● Bash(make) ⠙ 150ms" {
		t.Errorf("got %q and %q", a, b)
	}
}

func TestToolCardFolding(t *testing.T) {
	th := NewTheme(true, true)
	for _, n := range []int{0, 1, 4, 5, 100} {
		c := Card{Name: "Bash", Input: mustJSON(map[string]string{"command": "seq"}), Result: numbered(n)}
		lines := strings.Split(ToolCard(th, 80, c), "\n")
		wantRows := 1 + max(n, 1) // header + result (or "(no output)")
		if n > foldLines {
			wantRows = 1 + foldLines + 1
			wantMark := fmt.Sprintf("     … +%d lines (ctrl+o to expand)", n-foldLines)
			if n-foldLines == 1 {
				wantMark = "     … +1 line (ctrl+o to expand)"
			}
			if got := lines[len(lines)-1]; got != wantMark {
				t.Errorf("n=%d: fold marker %q, want %q", n, got, wantMark)
			}
		}
		if len(lines) != wantRows {
			t.Errorf("n=%d: %d rows, want %d:\n%s", n, len(lines), wantRows, strings.Join(lines, "\n"))
		}
		c.Expanded = true
		if got := len(strings.Split(ToolCard(th, 80, c), "\n")); got != 1+max(n, 1) {
			t.Errorf("n=%d expanded: %d rows, want %d", n, got, 1+max(n, 1))
		}
	}
}

func TestToolCardCollapsedLongLinesAreCut(t *testing.T) {
	th := NewTheme(true, true)
	c := Card{Name: "Bash", Input: mustJSON(map[string]string{"command": "cat big"}), Result: strings.Repeat("y", 500)}
	got := ToolCard(th, 40, c)
	lines := strings.Split(got, "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[1], "…") {
		t.Errorf("collapsed long line not cut to one row:\n%s", got)
	}
	c.Expanded = true
	if n := len(strings.Split(ToolCard(th, 40, c), "\n")); n < 10 {
		t.Errorf("expanded long line should wrap over many rows, got %d", n)
	}
}

func TestToolCardMarkers(t *testing.T) {
	th := NewTheme(true, true)
	in := mustJSON(map[string]string{"command": "rm -rf /"})
	tests := []struct {
		card Card
		want string
	}{
		{Card{Name: "Bash", Input: in, IsError: true, Result: "exit status 1"}, "  ⎿  Error: exit status 1"},
		{Card{Name: "Bash", Input: in, IsError: true, Result: "Error: boom"}, "  ⎿  Error: boom"},
		{Card{Name: "Bash", Input: in, Denied: true}, "  ⎿  Denied"},
		{Card{Name: "Bash", Input: in, Denied: true, Result: "too dangerous"}, "  ⎿  Denied: too dangerous"},
		{Card{Name: "Bash", Input: in, Cancelled: true}, "  ⎿  Cancelled"},
		{Card{Name: "Bash", Input: in, Result: "\n"}, "  ⎿  (no output)"},
	}
	for _, tc := range tests {
		lines := strings.Split(ToolCard(th, 80, tc.card), "\n")
		if len(lines) < 2 || lines[1] != tc.want {
			t.Errorf("%+v: body %q, want %q", tc.card, lines[1:], tc.want)
		}
	}
}

func TestToolCardDiffMarkers(t *testing.T) {
	th := NewTheme(true, true)
	edit := Card{Name: "Edit", Input: mustJSON(map[string]string{
		"file_path": "/r/a.go", "old_string": "one\ntwo\nthree", "new_string": "one\n2\nthree",
	}), Result: "updated"}
	got := ToolCard(th, 80, edit)
	want := "● Edit(/r/a.go)\n" +
		"  ⎿    one\n" +
		"     - two\n" +
		"     + 2\n" +
		"       three"
	if got != want {
		t.Errorf("edit diff:\n%s\nwant:\n%s", got, want)
	}

	write := Card{Name: "Write", Input: mustJSON(map[string]string{"file_path": "/r/n", "content": numbered(25)})}
	lines := strings.Split(ToolCard(th, 80, write), "\n")
	if len(lines) != 1+foldDiffLines+1 {
		t.Fatalf("write: %d rows, want %d", len(lines), 1+foldDiffLines+1)
	}
	for _, l := range lines[1 : 1+foldDiffLines] {
		if !strings.Contains(l, "+ line ") {
			t.Errorf("write row without + marker: %q", l)
		}
	}
	if got := lines[len(lines)-1]; got != "     … +15 lines (ctrl+o to expand)" {
		t.Errorf("fold marker %q", got)
	}
	write.Expanded = true
	if n := len(strings.Split(ToolCard(th, 80, write), "\n")); n != 26 {
		t.Errorf("expanded write: %d rows, want 26", n)
	}

	// Colour is additive: the dark theme has the same markers plus SGR.
	dark := ansi.Strip(ToolCard(NewTheme(true, false), 80, edit))
	if dark != want {
		t.Errorf("dark diff without escapes:\n%s\nwant:\n%s", dark, want)
	}

	// A failed edit shows the error, not the diff it did not apply.
	edit.IsError, edit.Result = true, "old_string not found"
	if got := ToolCard(th, 80, edit); strings.Contains(got, "- two") || !strings.Contains(got, "Error: old_string not found") {
		t.Errorf("failed edit:\n%s", got)
	}
}

func TestDiffLinesHunksSeparated(t *testing.T) {
	before := numbered(30)
	after := strings.Replace(strings.Replace(before, "line 2\n", "LINE 2\n", 1), "line 28\n", "LINE 28\n", 1)
	lines := diffLines(before, after)
	if !contains(lines, "…") || !contains(lines, "- line 2") || !contains(lines, "+ LINE 28") {
		t.Errorf("diff lines: %q", lines)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestThinkingCollapsed(t *testing.T) {
	th := NewTheme(true, true)
	if got := Thinking(th, 80, "a\nb\nc\n", false); got != "✻ Thinking… (3 lines, ctrl+o to expand)" {
		t.Errorf("got %q", got)
	}
	if got := Thinking(th, 80, "one", false); got != "✻ Thinking… (1 line, ctrl+o to expand)" {
		t.Errorf("got %q", got)
	}
	if got := Thinking(th, 80, "", false); got != "✻ Thinking…" {
		t.Errorf("got %q", got)
	}
	if got := Thinking(th, 12, "a\nb", false); ansi.StringWidth(got) > 12 || strings.Contains(got, "\n") {
		t.Errorf("narrow collapsed thinking %q", got)
	}
}

func TestStatusLine(t *testing.T) {
	th := NewTheme(true, true)
	s := Status{Model: "m", Mode: "plan", ContextUsed: 50, ContextWindow: 200,
		InputTokens: 100, OutputTokens: 2_500_000, CacheReadTokens: 300, CostUSD: 12.345}
	want := "m · plan · ctx 25% · in 100 out 2.5M · cache 75% · $12.35"
	if got := StatusLine(th, 80, s); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	// Not busy: the hint is hidden.
	s.Hint = "esc to interrupt"
	if got := StatusLine(th, 80, s); got != want {
		t.Errorf("idle status shows hint: %q", got)
	}
	// Busy: segments that do not fit are dropped whole, the hint stays.
	s.Busy = true
	got := StatusLine(th, 40, s)
	if got != "m · plan · ctx 25%      esc to interrupt" {
		t.Errorf("busy narrow: %q", got)
	}
	// No context window or cache data: those segments are left out.
	if got := StatusLine(th, 80, Status{Model: "m"}); got != "m · in 0 out 0 · $0.0000" {
		t.Errorf("empty: %q", got)
	}
	// Truncated from the right to width.
	if got := StatusLine(th, 5, Status{Model: "a-very-long-model-name"}); got != "a-ve…" {
		t.Errorf("tiny: %q", got)
	}
}

func TestWrap(t *testing.T) {
	if got := Wrap("the quick brown fox jumps", 10); got != "the quick\nbrown fox\njumps" {
		t.Errorf("got %q", got)
	}
	if got := Wrap(strings.Repeat("a", 25), 10); got != "aaaaaaaaaa\naaaaaaaaaa\naaaaa" {
		t.Errorf("long word: %q", got)
	}
	if got := Wrap("a\tb", 80); got != "a    b" {
		t.Errorf("tab: %q", got)
	}
	styled := "\x1b[31mred words that wrap\x1b[m"
	got := Wrap(styled, 9)
	checkWidth(t, got, 9)
	if ansi.Strip(got) != "red words\nthat wrap" {
		t.Errorf("ansi wrap: %q", got)
	}
}

func TestErrorLine(t *testing.T) {
	th := NewTheme(true, true)
	if got := ErrorLine(th, 80, "boom"); got != "Error: boom" {
		t.Errorf("got %q", got)
	}
	if got := ErrorLine(th, 80, "error: boom"); got != "error: boom" {
		t.Errorf("got %q", got)
	}
}

func TestMarkdownCache(t *testing.T) {
	m := NewMarkdown(NewTheme(false, false))
	for w := 20; w < 20+maxCachedWidths+3; w++ {
		m.Render("*hi*", w)
	}
	if len(m.cache) != maxCachedWidths || len(m.order) != maxCachedWidths {
		t.Errorf("cache holds %d/%d renderers, want %d", len(m.cache), len(m.order), maxCachedWidths)
	}
	r := m.cache[20+maxCachedWidths+2]
	m.Render("again", 20+maxCachedWidths+2)
	if m.cache[20+maxCachedWidths+2] != r {
		t.Error("renderer rebuilt for a cached width")
	}
}

func TestMarkdownTrimsPadding(t *testing.T) {
	out := NewMarkdown(NewTheme(true, false)).Render("hello", 80)
	if len(out) > 60 {
		t.Errorf("padding not trimmed (%d bytes): %q", len(out), out)
	}
	if ansi.Strip(out) != "hello" {
		t.Errorf("got %q", ansi.Strip(out))
	}
}

func TestTrimPaddingKeepsBackground(t *testing.T) {
	l := "\x1b[1mhi\x1b[m\x1b[48;5;63m \x1b[m\x1b[38;5;252m \x1b[m\x1b[38;5;252m \x1b[m"
	if got := trimPadding(l); got != "\x1b[1mhi\x1b[m\x1b[48;5;63m \x1b[m" {
		t.Errorf("got %q", got)
	}
}

// TestWidthInvariant renders every block at several widths with hostile
// inputs and checks no line is wider than asked.
func TestWidthInvariant(t *testing.T) {
	long := strings.Repeat("word ", 60) + strings.Repeat("x", 300) + "\n\twith\ttabs\n日本語の文字列はとても幅が広いです。" + strings.Repeat("界", 100)
	for _, th := range []Theme{NewTheme(true, false), NewTheme(false, false), NewTheme(true, true)} {
		md := NewMarkdown(th)
		for _, w := range []int{1, 5, 12, 20, 40, 80, 133} {
			name := fmt.Sprintf("dark=%v nocolor=%v w=%d", th.Dark, th.NoColor, w)
			t.Run(name, func(t *testing.T) {
				checkWidth(t, Wrap(long, w), w)
				checkWidth(t, Prompt(th, w, long), w)
				checkWidth(t, Thinking(th, w, long, false), w)
				checkWidth(t, Thinking(th, w, long, true), w)
				checkWidth(t, ErrorLine(th, w, long), w)
				checkWidth(t, md.Render(answer+"\n"+long+"\n\n```\n"+long+"\n```\n| a | b |\n|---|---|\n| "+long+" | x |\n", w), w)
				checkWidth(t, StatusLine(th, w, Status{Model: long, Mode: "m", Busy: true, Hint: "esc to interrupt"}), w)
				for _, c := range cards {
					c.Result += long
					checkWidth(t, ToolCard(th, w, c), w)
					c.Expanded = true
					checkWidth(t, ToolCard(th, w, c), w)
				}
				checkWidth(t, ToolCard(th, w, Card{Name: strings.Repeat("N", 200), Input: mustJSON(map[string]string{"command": long}), Running: true, Duration: time.Hour}), w)
			})
		}
	}
}

func TestLightThemeDiffersFromDark(t *testing.T) {
	c := cards["edit_diff"]
	if ToolCard(NewTheme(true, false), 80, c) == ToolCard(NewTheme(false, false), 80, c) {
		t.Error("light and dark palettes render identically")
	}
}

// A finished call whose result has not come yet shows its header with the
// duration and no body — not "(no output)", not an empty "Error:" — except
// the diff of an Edit, which comes from the call itself.
func TestToolCardPending(t *testing.T) {
	th := NewTheme(true, true)
	read := ToolCard(th, 80, Card{Name: "Read", Input: mustJSON(map[string]string{"file_path": "a.go"}), Duration: 1500 * time.Millisecond, Pending: true})
	if read != "● Read(a.go) 1.5s" {
		t.Errorf("pending Read = %q", read)
	}
	failed := ToolCard(th, 80, Card{Name: "Bash", Input: mustJSON(map[string]string{"command": "false"}), Duration: time.Second, IsError: true, Pending: true})
	if strings.Contains(failed, "Error") || strings.Contains(failed, "\n") {
		t.Errorf("pending failed Bash = %q", failed)
	}
	edit := cards["edit_diff"]
	edit.Pending, edit.Result = true, ""
	if got := ToolCard(th, 80, edit); !strings.Contains(got, "⎿") {
		t.Errorf("pending Edit lost its diff: %q", got)
	}
}
