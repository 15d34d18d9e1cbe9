package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	tea "github.com/novacode/nova/third_party/bubbletea"
)

// pathTree makes a small working directory for @path completion.
func pathTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{
		"main.go", "go.mod", "README.md",
		"internal/tui/model.go", "internal/tui/complete.go", "internal/cli/main_test.go",
		"cmd/nova/main.go",
		".git/HEAD", "node_modules/x/main.js",
	} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestMatchPaths(t *testing.T) {
	paths, complete := listPaths(pathTree(t), maxPathEntries)
	if !complete {
		t.Fatal("a small tree listed incompletely")
	}
	want := []string{"README.md", "cmd/", "go.mod", "internal/", "main.go", "cmd/nova/", "internal/cli/", "internal/tui/",
		"cmd/nova/main.go", "internal/cli/main_test.go", "internal/tui/complete.go", "internal/tui/model.go"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("listPaths (-want +got):\n%s", diff)
	}
	// Prefix matches first, then substring matches; case-insensitive.
	if diff := cmp.Diff([]string{"main.go", "cmd/nova/main.go", "internal/cli/main_test.go"}, matchPaths(paths, "MAIN")); diff != "" {
		t.Error(diff)
	}
	if got := matchPaths(paths, ""); len(got) != maxCompletions {
		t.Errorf("empty query: %d matches, want %d", len(got), maxCompletions)
	}
}

func TestAtPathCompletion(t *testing.T) {
	m := plainModel(Options{Model: "m1", Mode: "default", Dir: pathTree(t)})
	defer m.Close()
	typeText(m, "look at @int")
	screen := m.Screen()
	lines := strings.Split(screen, "\n")
	// The list sits just above the input line.
	want := []string{"❯ @internal/", "  @internal/cli/", "  @internal/tui/", "  @internal/cli/main_test.go",
		"  @internal/tui/complete.go", "  @internal/tui/model.go"}
	if got := lines[len(lines)-8 : len(lines)-2]; !cmp.Equal(got, want) {
		t.Fatalf("list not shown above the input:\n%s", screen)
	}
	// Tab on a directory completes it and lists its children.
	press(m, key(tea.KeyTab))
	if got := m.input.Value(); got != "look at @internal/" {
		t.Fatalf("after tab: %q", got)
	}
	if diff := cmp.Diff([]string{"internal/cli/", "internal/tui/", "internal/cli/main_test.go"}, m.comp.matches[:3]); diff != "" {
		t.Error(diff)
	}
	// Down moves the highlight, Up wraps back; history is not touched.
	typeText(m, "tui/m")
	press(m, key(tea.KeyDown), key(tea.KeyDown), key(tea.KeyUp))
	if m.comp.matches[m.comp.sel] != "internal/tui/model.go" {
		t.Fatalf("selected %q of %q", m.comp.matches[m.comp.sel], m.comp.matches)
	}
	press(m, key(tea.KeyTab))
	if got := m.input.Value(); got != "look at @internal/tui/model.go" {
		t.Fatalf("after tab: %q", got)
	}
	if len(m.comp.matches) != 0 || strings.Contains(m.Screen(), "❯") {
		t.Error("list still open after completing a file")
	}
	// Esc closes the list without cancelling anything; typing on reopens it.
	typeText(m, " and @go.m")
	if len(m.comp.matches) != 1 {
		t.Fatalf("matches %q", m.comp.matches)
	}
	press(m, key(tea.KeyEscape))
	if len(m.comp.matches) != 0 {
		t.Error("esc did not close the list")
	}
	typeText(m, "o")
	if len(m.comp.matches) != 1 {
		t.Error("typing did not reopen the list")
	}
	// .git and node_modules are never offered.
	m.input.Reset()
	typeText(m, "@HEAD")
	if len(m.comp.matches) != 0 {
		t.Errorf(".git listed: %q", m.comp.matches)
	}
	m.input.Reset()
	typeText(m, "@main.js")
	if len(m.comp.matches) != 0 {
		t.Errorf("node_modules listed: %q", m.comp.matches)
	}
	// The completed @path stays in the submitted prompt as typed.
	m.input.Reset()
	typeText(m, "read @go.m")
	press(m, key(tea.KeyTab), key(tea.KeyEnter))
	if got := m.blocks[0].text.String(); got != "read @go.mod" {
		t.Errorf("submitted %q", got)
	}
}

// @path completes where the cursor is, not only at the end of the input:
// the rest of the text, on the same line and below, stays as it was, and
// the cursor ends just after the completed path.
func TestAtPathCompletionMidInput(t *testing.T) {
	m := plainModel(Options{Model: "m1", Mode: "default", Dir: pathTree(t)})
	defer m.Close()
	typeText(m, "read  and fix it")
	for range len(" and fix it") {
		press(m, key(tea.KeyLeft))
	}
	typeText(m, "@go.m")
	if diff := cmp.Diff([]string{"go.mod"}, m.comp.matches); diff != "" {
		t.Fatalf("matches mid-line (-want +got):\n%s", diff)
	}
	press(m, key(tea.KeyTab))
	if got := m.input.Value(); got != "read @go.mod and fix it" {
		t.Fatalf("after tab: %q", got)
	}
	if col := m.input.Column(); col != len("read @go.mod") {
		t.Errorf("cursor at column %d, want %d (after the path)", col, len("read @go.mod"))
	}
	typeText(m, "!")
	if got := m.input.Value(); got != "read @go.mod! and fix it" {
		t.Errorf("typing after the completion gave %q", got)
	}

	// On the first of several lines.
	m.input.SetValue("compare @in\nwith the tests\nand report")
	m.input.MoveToBegin()
	m.input.CursorEnd()
	typeText(m, "t")
	if len(m.comp.matches) == 0 || m.comp.matches[0] != "internal/" {
		t.Fatalf("matches on the first line: %q", m.comp.matches)
	}
	press(m, key(tea.KeyTab))
	if got, want := m.input.Value(), "compare @internal/\nwith the tests\nand report"; got != want {
		t.Fatalf("after tab: %q, want %q", got, want)
	}
	if m.input.Line() != 0 || m.input.Column() != len("compare @internal/") {
		t.Errorf("cursor at %d:%d, want 0:%d", m.input.Line(), m.input.Column(), len("compare @internal/"))
	}

	// In the middle of a word there is nothing to complete.
	m.input.SetValue("@go.modx")
	m.input.SetCursorColumn(3)
	typeText(m, "")
	m.updateCompletion()
	if len(m.comp.matches) != 0 {
		t.Errorf("completion offered inside a word: %q", m.comp.matches)
	}
}

// In a tree too big to list on a key press, the first @ lists the first
// part at once and the whole tree in the background; the matches grow when
// it arrives.
func TestAtPathListsABigTreeInTheBackground(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range syncPathEntries + 500 {
		if err := os.WriteFile(filepath.Join(dir, "a", fmt.Sprintf("f%05d.txt", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b", "target.go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m := plainModel(Options{Model: "m1", Mode: "default", Dir: dir})
	defer m.Close()
	_, cmd := m.Update(key('@'))
	typeText(m, "targ")
	if len(m.comp.matches) != 0 {
		t.Fatalf("b/target.go found before the background listing: %q (the key press walked the whole tree)", m.comp.matches)
	}
	var got bool
	for _, msg := range runCmd(cmd) {
		if p, ok := msg.(pathsMsg); ok {
			m.Update(p)
			got = true
		}
	}
	if !got {
		t.Fatal("no background listing was started")
	}
	if diff := cmp.Diff([]string{"b/target.go"}, m.comp.matches); diff != "" {
		t.Errorf("matches after the background listing (-want +got):\n%s", diff)
	}
	// A listing for an @word that has ended is dropped.
	m.input.Reset()
	m.updateCompletion()
	m.applyPaths(pathsMsg{gen: m.comp.listGen, paths: []string{"stale"}})
	if len(m.comp.paths) == 1 && m.comp.paths[0] == "stale" {
		t.Error("a listing was taken after its @word ended")
	}
}
