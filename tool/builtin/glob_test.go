package builtin

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGlob(t *testing.T) {
	files := map[string]string{
		".gitignore":             "*.log\nvendor/\n",
		"old.go":                 "",
		"new.go":                 "",
		"README.md":              "",
		"src/mid.go":             "",
		"src/deep/er/deepest.go": "",
		"src/.gitignore":         "gen_*.go\n",
		"src/gen_api.go":         "",
		"other/gen_x.go":         "", // src's .gitignore does not reach here
		"debug.log":              "",
		"vendor/lib/lib.go":      "",
		".git/hooks/x.go":        "",
		".github/ci.yml":         "",
	}
	// Modification order, oldest first.
	mtimes := []string{"old.go", "src/deep/er/deepest.go", "other/gen_x.go", "src/mid.go", "README.md", "new.go"}
	tests := []struct {
		name    string
		input   GlobInput
		want    []string // relative to the work dir, in output order
		wantErr string
	}{
		// The pattern lets in what it matches, as ripgrep's --glob does:
		// src/gen_api.go, though src/.gitignore leaves it out, but nothing
		// in vendor/, which is not entered.
		{name: "all go files by mtime", input: GlobInput{Pattern: "**/*.go"}, want: []string{"src/gen_api.go", "new.go", "src/mid.go", "other/gen_x.go", "src/deep/er/deepest.go", "old.go"}},
		{name: "top level only", input: GlobInput{Pattern: "*.go"}, want: []string{"new.go", "old.go"}},
		{name: "under a directory", input: GlobInput{Pattern: "src/**/*.go"}, want: []string{"src/gen_api.go", "src/mid.go", "src/deep/er/deepest.go"}},
		{name: "relative to path", input: GlobInput{Pattern: "*.go", Path: "src"}, want: []string{"src/gen_api.go", "src/mid.go"}},
		{name: "fixed depth", input: GlobInput{Pattern: "src/*/*/*.go"}, want: []string{"src/deep/er/deepest.go"}},
		// .github is hidden: not entered unless named.
		{name: "alternatives", input: GlobInput{Pattern: "**/*.{md,yml}"}, want: []string{"README.md"}},
		{name: "hidden directory named", input: GlobInput{Pattern: ".github/*.yml"}, want: []string{".github/ci.yml"}},
		{name: "hidden file matched", input: GlobInput{Pattern: "*/.gitignore"}, want: []string{"src/.gitignore"}},
		{name: "no wildcard", input: GlobInput{Pattern: "src/mid.go"}, want: []string{"src/mid.go"}},
		{name: "gitignored name", input: GlobInput{Pattern: "*.log"}, want: []string{"debug.log"}},
		{name: "gitignored directory not entered", input: GlobInput{Pattern: "**/lib.go"}},
		{name: "gitignored directory named", input: GlobInput{Pattern: "vendor/**/*.go"}, want: []string{"vendor/lib/lib.go"}},
		{name: "inside .git", input: GlobInput{Pattern: "**/hooks/*"}},
		{name: "no match", input: GlobInput{Pattern: "**/*.rs"}},
		{name: "invalid pattern", input: GlobInput{Pattern: "[abc"}, wantErr: "Invalid glob pattern"},
		{name: "missing path", input: GlobInput{Pattern: "*", Path: "nope"}, wantErr: "Directory does not exist: $DIR/nope"},
		{name: "path is a file", input: GlobInput{Pattern: "*", Path: "old.go"}, wantErr: "is a file, not a directory"},
	}
	env := newEnv(t)
	writeFiles(t, env.Dir, files)
	setMtimes(t, env.Dir, mtimes...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewGlob(), env, tt.input)
			if tt.wantErr != "" {
				check(t, res, env.Dir, true, tt.wantErr)
				return
			}
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			if len(tt.want) == 0 {
				if res.Content != "No files found" {
					t.Errorf("got %q, want No files found", res.Content)
				}
				return
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, filepath.Join(env.Dir, w))
			}
			got := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestGlobAbsolutePattern: models often put the directory in the pattern.
func TestGlobAbsolutePattern(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{".git/HEAD": "", "a/x.go": "", "a/.gitignore": "skip/\n", "a/skip/z.go": "", "b/y.go": ""})
	res := run(t, NewGlob(), env, GlobInput{Pattern: env.Dir + "/a/**/*.go"})
	if diff := cmp.Diff(filepath.Join(env.Dir, "a", "x.go")+"\n", res.Content); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestGlobParentIgnore: a pattern with a literal directory prefix is walked
// from that directory, but the .gitignore above it still applies.
func TestGlobParentIgnore(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{".git/HEAD": "", ".gitignore": "gen/\n", "pkg/a.go": "", "pkg/gen/a.go": ""})
	res := run(t, NewGlob(), env, GlobInput{Pattern: "pkg/**/*.go"})
	if diff := cmp.Diff(filepath.Join(env.Dir, "pkg", "a.go")+"\n", res.Content); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestGlobCap(t *testing.T) {
	env := newEnv(t)
	files := map[string]string{}
	for i := range globMaxResults + 5 {
		files[fmt.Sprintf("d%d/f%04d.txt", i%10, i)] = ""
	}
	writeFiles(t, env.Dir, files)
	res := run(t, NewGlob(), env, GlobInput{Pattern: "**/*.txt"})
	lines := strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n")
	if len(lines) != globMaxResults+1 {
		t.Fatalf("got %d lines, want %d paths and a note", len(lines), globMaxResults)
	}
	check(t, res, env.Dir, false, "Results are truncated: showing the 1000 most recently modified of 1005 files")
}
