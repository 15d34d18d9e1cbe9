package contextinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// layout is a fake world: base/home is the user config directory,
// base/repo the repository root (with a .git directory), base/repo/a/b the
// working directory.
type layout struct{ base, home, root, dir string }

func newLayout(t *testing.T, files map[string]string) layout {
	t.Helper()
	base := tempDir(t)
	l := layout{base: base, home: filepath.Join(base, "home"), root: filepath.Join(base, "repo")}
	l.dir = filepath.Join(l.root, "a", "b")
	for _, d := range []string{l.home, filepath.Join(l.root, ".git"), l.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for rel, content := range files {
		write(t, filepath.Join(base, filepath.FromSlash(rel)), content)
	}
	return l
}

// mf is a MemoryFile with Path relative to base, for compact tables.
type mf struct{ Path, Scope, Content string }

func relFiles(t *testing.T, base string, files []MemoryFile) []mf {
	t.Helper()
	out := []mf{}
	for _, f := range files {
		rel, err := filepath.Rel(base, f.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, mf{filepath.ToSlash(rel), f.Scope, f.Content})
	}
	return out
}

func TestMemoryFilesDiscovery(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []mf
	}{
		{
			name: "order: home, then root down to dir, names in order at each level",
			files: map[string]string{
				"home/CLAUDE.md":       "home claude",
				"home/AGENTS.md":       "home agents",
				"AGENTS.md":            "above the root: not read",
				"repo/CLAUDE.md":       "root claude",
				"repo/NOVA.md":         "root nova",
				"repo/AGENTS.md":       "root agents",
				"repo/a/NOVA.md":       "a nova",
				"repo/a/b/CLAUDE.md":   "b claude",
				"repo/x/AGENTS.md":     "sibling: not read",
				"repo/a/b/c/AGENTS.md": "below dir: not read",
			},
			want: []mf{
				{"home/AGENTS.md", "user", "home agents"},
				{"home/CLAUDE.md", "user", "home claude"},
				{"repo/AGENTS.md", "project", "root agents"},
				{"repo/NOVA.md", "project", "root nova"},
				{"repo/CLAUDE.md", "project", "root claude"},
				{"repo/a/NOVA.md", "project", "a nova"},
				{"repo/a/b/CLAUDE.md", "project", "b claude"},
			},
		},
		{
			name: "blank files and directories are skipped",
			files: map[string]string{
				"repo/NOVA.md":            " \n\t\n",
				"repo/a/AGENTS.md/x":      "a directory named AGENTS.md",
				"repo/a/b/AGENTS.md":      "kept\n",
				"home/NOVA.md":            "",
				"home/CLAUDE.md/file.txt": "",
			},
			want: []mf{{"repo/a/b/AGENTS.md", "project", "kept\n"}},
		},
		{
			name:  "nothing anywhere",
			files: map[string]string{},
			want:  []mf{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLayout(t, tt.files)
			got, err := MemoryFiles(l.home, l.dir)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, relFiles(t, l.base, got)); d != "" {
				t.Errorf("MemoryFiles (-want +got):\n%s", d)
			}
		})
	}
}

func TestMemoryFilesOutsideRepoAndWithoutHome(t *testing.T) {
	base := tempDir(t)
	if _, ok := repoRoot(base); ok {
		t.Skip("temporary directory is inside a repository")
	}
	dir := filepath.Join(base, "work")
	write(t, filepath.Join(base, "AGENTS.md"), "parent: not read without a repository")
	write(t, filepath.Join(dir, "NOVA.md"), "here")
	got, err := MemoryFiles("", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []mf{{"work/NOVA.md", "project", "here"}}
	if d := cmp.Diff(want, relFiles(t, base, got)); d != "" {
		t.Errorf("MemoryFiles (-want +got):\n%s", d)
	}
}

func TestMemoryFilesSymlinkedTwinReadOnce(t *testing.T) {
	l := newLayout(t, map[string]string{"repo/AGENTS.md": "shared"})
	if err := os.Symlink("AGENTS.md", filepath.Join(l.root, "CLAUDE.md")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	got, err := MemoryFiles(l.home, l.root)
	if err != nil {
		t.Fatal(err)
	}
	want := []mf{{"repo/AGENTS.md", "project", "shared"}}
	if d := cmp.Diff(want, relFiles(t, l.base, got)); d != "" {
		t.Errorf("MemoryFiles (-want +got):\n%s", d)
	}
}

func TestMemoryFilesCap(t *testing.T) {
	// 1 byte then two-byte runes: the cap falls inside a rune.
	big := "x" + strings.Repeat("é", 30<<10)
	l := newLayout(t, map[string]string{
		"repo/NOVA.md":       big,
		"repo/a/NOVA.md":     strings.Repeat("y", MaxMemoryBytes),
		"repo/a/b/NOVA.md":   strings.Repeat("@AGENTS.md\n", MaxMemoryBytes/11) + "@CLAUDE.md",
		"repo/a/b/CLAUDE.md": "cut-off import target; discovered on its own",
	})
	got, err := MemoryFiles(l.home, l.dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d files, want 4", len(got))
	}
	wantBig := big[:MaxMemoryBytes-1] + "\n" +
		fmt.Sprintf("[… truncated: this file is %d bytes; only the first %d are shown]\n", len(big), MaxMemoryBytes)
	if d := cmp.Diff(wantBig, got[0].Content); d != "" {
		t.Errorf("capped file (-want +got):\n%s", d)
	}
	if got[1].Content != strings.Repeat("y", MaxMemoryBytes) {
		t.Errorf("a file of exactly the cap was changed (len %d)", len(got[1].Content))
	}
	// The last, cut line "@CLAUDE" is no import; the complete lines are
	// (missing) imports, each with a note.
	c := got[2].Content
	if strings.Contains(c, "@CLAUDE not followed") || !strings.Contains(c, "[… truncated") {
		t.Errorf("truncated import file: tail %q", c[len(c)-200:])
	}
	if n := strings.Count(c, "(import @AGENTS.md not followed: file not found)"); n != MaxMemoryBytes/11 {
		t.Errorf("%d not-found notes, want %d", n, MaxMemoryBytes/11)
	}
	if got[3].Path != filepath.Join(l.dir, "CLAUDE.md") {
		t.Errorf("fourth file %s", got[3].Path)
	}
}

func TestMemoryFilesImports(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		// links are symlinks to create: path -> target (both relative to base).
		links map[string]string
		want  []mf
	}{
		{
			name: "import follows its importer, relative to the importer's directory",
			files: map[string]string{
				"repo/NOVA.md":        "root\n@docs/style.md\nafter\n",
				"repo/docs/style.md":  "style\n@../docs/more.md\n",
				"repo/docs/more.md":   "more",
				"repo/a/b/AGENTS.md":  "dir",
				"home/AGENTS.md":      "home\n@notes/go.md",
				"home/notes/go.md":    "go notes",
				"repo/a/b/CLAUDE.md":  "@/dev/null\n",
				"repo/docs/unused.md": "never imported",
			},
			want: []mf{
				{"home/AGENTS.md", "user", "home\n@notes/go.md"},
				{"home/notes/go.md", "user", "go notes"},
				{"repo/NOVA.md", "project", "root\n@docs/style.md\nafter\n"},
				{"repo/docs/style.md", "project", "style\n@../docs/more.md\n"},
				{"repo/docs/more.md", "project", "more"},
				{"repo/a/b/AGENTS.md", "project", "dir"},
				{"repo/a/b/CLAUDE.md", "project", "@/dev/null\n(import @/dev/null not followed: outside the repository and the user config directory)\n"},
			},
		},
		{
			name: "depth limit",
			files: map[string]string{
				"repo/NOVA.md": "@d1.md",
				"repo/d1.md":   "one\n@d2.md",
				"repo/d2.md":   "two\n@d3.md",
				"repo/d3.md":   "three\n@d4.md\n",
				"repo/d4.md":   "four",
			},
			want: []mf{
				{"repo/NOVA.md", "project", "@d1.md"},
				{"repo/d1.md", "project", "one\n@d2.md"},
				{"repo/d2.md", "project", "two\n@d3.md"},
				{"repo/d3.md", "project", "three\n@d4.md\n(import @d4.md not followed: imports nest at most 3 deep)\n"},
			},
		},
		{
			name: "cycles and repeats",
			files: map[string]string{
				"repo/AGENTS.md": "agents\n@x.md\n",
				"repo/x.md":      "x\n@y.md\n",
				"repo/y.md":      "y\n@x.md\n@AGENTS.md\n",
				"repo/CLAUDE.md": "@AGENTS.md\n@a/NOVA.md\n",
				"repo/a/NOVA.md": "a nova: imported before its level is reached",
			},
			want: []mf{
				{"repo/AGENTS.md", "project", "agents\n@x.md\n"},
				{"repo/x.md", "project", "x\n@y.md\n"},
				{"repo/y.md", "project", "y\n@x.md\n(import @x.md not followed: import cycle)\n@AGENTS.md\n(import @AGENTS.md not followed: import cycle)\n"},
				{"repo/CLAUDE.md", "project", "@AGENTS.md\n(import @AGENTS.md not followed: already included)\n@a/NOVA.md\n"},
				{"repo/a/NOVA.md", "project", "a nova: imported before its level is reached"},
			},
		},
		{
			name: "escapes, missing files, code fences and non-imports",
			files: map[string]string{
				"outside.md":       "secret",
				"repo/NOVA.md":     "@../outside.md\n@link.md\n@missing.md\n@docs\n```\n@fenced.md\n```\nsee @inline.md\n@ spaced.md\n  @indented.md\n",
				"repo/docs/x.md":   "",
				"repo/indented.md": "indented",
			},
			links: map[string]string{"repo/link.md": "outside.md"},
			want: []mf{
				{"repo/NOVA.md", "project", "@../outside.md\n(import @../outside.md not followed: outside the repository and the user config directory)\n" +
					"@link.md\n(import @link.md not followed: outside the repository and the user config directory)\n" +
					"@missing.md\n(import @missing.md not followed: file not found)\n" +
					"@docs\n(import @docs not followed: not a regular file)\n" +
					"```\n@fenced.md\n```\nsee @inline.md\n@ spaced.md\n  @indented.md\n"},
				{"repo/indented.md", "project", "indented"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLayout(t, tt.files)
			for link, target := range tt.links {
				if err := os.Symlink(filepath.Join(l.base, target), filepath.Join(l.base, link)); err != nil {
					t.Skip("symlinks unavailable:", err)
				}
			}
			got, err := MemoryFiles(l.home, l.dir)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, relFiles(t, l.base, got)); d != "" {
				t.Errorf("MemoryFiles (-want +got):\n%s", d)
			}
		})
	}
}

func TestMemoryFilesUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	l := newLayout(t, map[string]string{"repo/NOVA.md": "x"})
	if err := os.Chmod(filepath.Join(l.root, "NOVA.md"), 0); err != nil {
		t.Fatal(err)
	}
	_, err := MemoryFiles(l.home, l.dir)
	if err == nil || !strings.Contains(err.Error(), "read memory file "+filepath.Join(l.root, "NOVA.md")) {
		t.Errorf("err = %v, want a read error naming the file", err)
	}
}

func TestRender(t *testing.T) {
	if got := Render(nil); got != "" {
		t.Errorf("Render(nil) = %q, want empty", got)
	}
	got := Render([]MemoryFile{
		{Path: "/h/AGENTS.md", Scope: ScopeUser, Content: "be brief"},
		{Path: "/r/NOVA.md", Scope: ScopeProject, Content: "# Rules\nuse go test\n"},
	})
	want := "<memory>\n" +
		"Instructions from memory files: the user's own first, then the project's from the repository root down to the working directory; an imported file follows the file that imports it. Where they disagree, the later, more specific file wins.\n" +
		"\n--- /h/AGENTS.md (user memory) ---\nbe brief\n" +
		"\n--- /r/NOVA.md (project memory) ---\n# Rules\nuse go test\n" +
		"</memory>"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Render (-want +got):\n%s", d)
	}
}
