package builtin

import (
	"os"
	"path"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIgnoreRules(t *testing.T) {
	tests := []struct {
		line  string
		path  string
		isDir bool
		want  bool
	}{
		{"*.log", "a.log", false, true},
		{"*.log", "deep/er/a.log", false, true},
		{"*.log", "a.log.txt", false, false},
		{"/build", "build", true, true},
		{"/build", "src/build", true, false},
		{"build/", "build", true, true},
		{"build/", "build", false, false}, // directory-only pattern, regular file
		{"build/", "src/build", true, true},
		{"doc/*.txt", "doc/a.txt", false, true},
		{"doc/*.txt", "doc/x/a.txt", false, false},
		{"doc/*.txt", "src/doc/a.txt", false, false}, // a middle slash anchors
		{"**/foo", "foo", false, true},
		{"**/foo", "a/b/foo", false, true},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"?.go", "a.go", false, true},
		{"?.go", "ab.go", false, false},
		{"[abc].txt", "b.txt", false, true},
		{"[!abc].txt", "b.txt", false, false},
		{"c++", "c++", false, true},
		{"{a,b}", "{a,b}", false, true}, // no alternation in gitignore
		{"{a,b}", "a", false, false},
		{`\#hash`, "#hash", false, true},
		{`\!bang`, "!bang", false, true},
		{`trailing\ `, "trailing ", false, true},
		{"trailing   ", "trailing", false, true},
	}
	for _, tt := range tests {
		r, ok := parseIgnoreLine(tt.line)
		if !ok {
			t.Errorf("parseIgnoreLine(%q) rejected the line", tt.line)
			continue
		}
		if got := r.match(tt.path, tt.isDir); got != tt.want {
			t.Errorf("%q matching %q (dir %v) = %v, want %v", tt.line, tt.path, tt.isDir, got, tt.want)
		}
	}
	for _, line := range []string{"", "# comment", "   ", "/", "[unclosed"} {
		if _, ok := parseIgnoreLine(line); ok {
			t.Errorf("parseIgnoreLine(%q) accepted a line that matches nothing", line)
		}
	}
}

// walkAll lists what LS's ignore stack keeps under root, as LS walks,
// directories with a slash.
func walkAll(t *testing.T, root string) []string {
	t.Helper()
	var got []string
	var walk func(dir, rel string, ig *ignoreStack)
	walk = func(dir, rel string, ig *ignoreStack) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			p, r := filepath.Join(dir, e.Name()), path.Join(rel, e.Name())
			if vcsDirs[e.Name()] || ig.ignored(p, e.IsDir()) {
				continue
			}
			if !e.IsDir() {
				got = append(got, r)
				continue
			}
			got = append(got, r+"/")
			walk(p, r, ig.enter(p))
		}
	}
	walk(root, "", newIgnoreStack(root, ""))
	return got
}

func TestWalkTreeGitignore(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore":            "*.log\n!keep.log\nbuild/\n/root-only.txt\n",
		"a.log":                 "",
		"keep.log":              "",
		"root-only.txt":         "",
		"build/out.bin":         "",
		"src/build":             "", // a file: "build/" is for directories only
		"src/root-only.txt":     "",
		"src/.gitignore":        "generated.go\n!a.log\n",
		"src/generated.go":      "",
		"src/main.go":           "",
		"src/a.log":             "", // re-included by the deeper .gitignore
		"src/deep/generated.go": "",
		"other/generated.go":    "", // src's rules do not apply here
		".git/HEAD":             "",
		".hidden":               "",
	})
	want := []string{
		".gitignore", ".hidden", "keep.log",
		"other/", "other/generated.go",
		"src/", "src/.gitignore", "src/a.log", "src/build", "src/deep/", "src/main.go", "src/root-only.txt",
	}
	if diff := cmp.Diff(want, walkAll(t, dir)); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
}

// TestWalkTreeRepoRoot checks that a walk starting below a repository's
// root applies the .gitignore files above it and .git/info/exclude.
func TestWalkTreeRepoRoot(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".git/info/exclude": "*.tmp\n",
		".gitignore":        "*.log\n",
		"sub/.gitignore":    "*.out\n",
		"sub/x/a.log":       "",
		"sub/x/a.tmp":       "",
		"sub/x/a.out":       "",
		"sub/x/a.go":        "",
	})
	if diff := cmp.Diff([]string{"a.go"}, walkAll(t, filepath.Join(dir, "sub", "x"))); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
	// Without a repository, rules above the walk's root do not apply.
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.go", "a.log", "a.out", "a.tmp"}, walkAll(t, filepath.Join(dir, "sub", "x"))); diff != "" {
		t.Errorf("walk without repository (-want +got):\n%s", diff)
	}
}
