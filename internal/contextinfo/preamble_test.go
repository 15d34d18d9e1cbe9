package contextinfo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPreamble(t *testing.T) {
	needGit(t)
	root := newRepo(t)
	home := tempDir(t)
	write(t, filepath.Join(home, "AGENTS.md"), "be brief")
	write(t, filepath.Join(root, "NOVA.md"), "use go test\n")
	write(t, filepath.Join(root, "c.txt"), "untracked")
	ctx := context.Background()

	got, err := Preamble(ctx, home, root, testNow)
	if err != nil {
		t.Fatal(err)
	}
	files, err := MemoryFiles(home, root)
	if err != nil {
		t.Fatal(err)
	}
	want := "<system-reminder>\n" + Environment(ctx, root, testNow) + "\n\n" + Render(files) + "\n</system-reminder>\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Preamble (-want +got):\n%s", d)
	}
	for _, s := range []string{"Status: 0 staged, 0 modified, 2 untracked", "--- " + filepath.Join(home, "AGENTS.md") + " (user memory) ---\nbe brief\n", "(project memory) ---\nuse go test\n"} {
		if !strings.Contains(got, s) {
			t.Errorf("Preamble lacks %q:\n%s", s, got)
		}
	}
}

func TestPreambleWithoutMemory(t *testing.T) {
	dir := tempDir(t)
	got, err := Preamble(context.Background(), "", dir, testNow)
	if err != nil {
		t.Fatal(err)
	}
	want := "<system-reminder>\n" + Environment(context.Background(), dir, testNow) + "\n</system-reminder>\n"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Preamble (-want +got):\n%s", d)
	}
}

func TestPreambleError(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	dir := tempDir(t)
	write(t, filepath.Join(dir, "NOVA.md"), "x")
	if err := os.Chmod(filepath.Join(dir, "NOVA.md"), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := Preamble(context.Background(), "", dir, testNow); err == nil || !strings.HasPrefix(err.Error(), "build preamble: read memory file") {
		t.Errorf("err = %v", err)
	}
}

// TestPreambleIsCheap guards the documented budget loosely (CI machines are
// slow and -race multiplies git's start-up cost only slightly).
// benchRepo is a small repository: a few dozen committed files, some
// changes, a memory file with an import.
func benchRepo(tb testing.TB) string {
	root := newRepo(tb)
	for i := range 40 {
		write(tb, filepath.Join(root, "pkg", string(rune('a'+i%26)), "f"+string(rune('a'+i/26))+".go"), "package x\n")
	}
	runGit(tb, root, "add", ".")
	runGit(tb, root, "commit", "-q", "-m", "files")
	write(tb, filepath.Join(root, "a.txt"), "changed\n")
	write(tb, filepath.Join(root, "new.txt"), "new\n")
	write(tb, filepath.Join(root, "NOVA.md"), "# Project\nuse go test\n@docs/style.md\n")
	write(tb, filepath.Join(root, "docs", "style.md"), "tabs\n")
	return root
}

func BenchmarkPreamble(b *testing.B) {
	needGit(b)
	root := benchRepo(b)
	home := tempDir(b)
	write(b, filepath.Join(home, "AGENTS.md"), "be brief\n")
	ctx := context.Background()
	for b.Loop() {
		if _, err := Preamble(ctx, home, root, testNow); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemoryFiles(b *testing.B) {
	root := benchRepo(b)
	for b.Loop() {
		if _, err := MemoryFiles("", filepath.Join(root, "pkg", "a")); err != nil {
			b.Fatal(err)
		}
	}
}
