package builtin

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

// grepFixture builds a small project. Modification times run in the order
// of the mtimes list, so files_with_matches output is deterministic.
func grepFixture(t *testing.T) *tool.Env {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		".gitignore":       "ignored/\n*.log\n",
		"main.go":          "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello, world\")\n}\n\nfunc helper() int {\n\treturn 42\n}\n",
		"lib/lib.go":       "package lib\n\n// Hello greets.\nfunc Hello() string {\n\treturn \"hello\"\n}\n",
		"lib/lib_test.go":  "package lib\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != \"hello\" {\n\t\tt.Fatal()\n\t}\n}\n",
		"lib/.gitignore":   "generated.go\n",
		"lib/generated.go": "package lib // Hello generated\n",
		"docs/guide.md":    "# Guide\n\nSay hello.\nThen say HELLO louder.\n",
		"notes.txt":        "first line\r\nhello from windows\r\nlast line\r\n",
		".hidden/h.txt":    "hello hidden\n",
		"ignored/x.go":     "package x // Hello\n",
		"debug.log":        "Hello log\n",
		"data.bin":         "Hello\x00binary\n",
		".git/config":      "Hello git\n",
		"long.txt":         strings.Repeat("a", 600) + "hello" + strings.Repeat("z", 600) + "\n" + strings.Repeat("é", 300) + "\n",
	})
	setMtimes(t, env.Dir, "long.txt", ".hidden/h.txt", "notes.txt", "docs/guide.md", "lib/lib_test.go", "lib/lib.go", "main.go")
	return env
}

func TestGrep(t *testing.T) {
	no := false
	tests := []struct {
		name  string
		input GrepInput
	}{
		{"files default", GrepInput{Pattern: "Hello"}},
		{"files ignore case", GrepInput{Pattern: "hello", IgnoreCase: true}},
		{"files glob", GrepInput{Pattern: "hello", IgnoreCase: true, Glob: "*.go"}},
		{"files glob list", GrepInput{Pattern: "hello", IgnoreCase: true, Glob: "*.md, *.txt"}},
		{"files glob braces", GrepInput{Pattern: "hello", IgnoreCase: true, Glob: "*.{md,txt}"}},
		{"files glob path", GrepInput{Pattern: "hello", IgnoreCase: true, Glob: "lib/*.go"}},
		{"files glob exclude", GrepInput{Pattern: "hello", IgnoreCase: true, Glob: "!*_test.go !*.txt"}},
		{"files glob beats gitignore", GrepInput{Pattern: "Hello", Glob: "*.log"}},
		{"files type", GrepInput{Pattern: "hello", IgnoreCase: true, Type: "go"}},
		{"files type and glob exclude", GrepInput{Pattern: "hello", IgnoreCase: true, Type: "go", Glob: "!lib_test.go"}},
		{"files subdirectory", GrepInput{Pattern: "Hello", Path: "lib"}},
		{"files one file", GrepInput{Pattern: "hello", Path: "docs/guide.md"}},
		{"files head limit", GrepInput{Pattern: "hello", IgnoreCase: true, HeadLimit: 2}},
		{"files no match", GrepInput{Pattern: "nowhere to be found"}},
		{"content", GrepInput{Pattern: "[Hh]ello", OutputMode: "content"}},
		{"content no line numbers", GrepInput{Pattern: "[Hh]ello", OutputMode: "content", LineNumbers: &no}},
		{"content context", GrepInput{Pattern: "func", OutputMode: "content", Context: 1, Type: "go"}},
		{"content before after", GrepInput{Pattern: "return", OutputMode: "content", Before: 2, After: 1}},
		{"content adjacent groups merge", GrepInput{Pattern: "^func|^\\}", OutputMode: "content", After: 1, Path: "main.go"}},
		{"content anchors", GrepInput{Pattern: "^\\tfmt\\.Println\\(.*\\)$", OutputMode: "content"}},
		{"content CRLF", GrepInput{Pattern: "windows", OutputMode: "content"}},
		{"content long line", GrepInput{Pattern: "hello", OutputMode: "content", Path: "long.txt"}},
		{"content long line no match", GrepInput{Pattern: "é$", OutputMode: "content", Path: "long.txt"}},
		{"content head limit", GrepInput{Pattern: "hello", IgnoreCase: true, OutputMode: "content", HeadLimit: 3}},
		{"content multiline", GrepInput{Pattern: "func main\\(\\) \\{\\n\\s+fmt", OutputMode: "content", Multiline: true}},
		{"content multiline dotall", GrepInput{Pattern: "Hello\\(\\).*?return", OutputMode: "content", Multiline: true}},
		{"content multiline context", GrepInput{Pattern: "Guide\\n\\nSay", OutputMode: "content", Multiline: true, After: 1}},
		{"content no match", GrepInput{Pattern: "nowhere", OutputMode: "content"}},
		{"count", GrepInput{Pattern: "hello", IgnoreCase: true, OutputMode: "count"}},
		{"count multiline", GrepInput{Pattern: "\\{\\n", OutputMode: "count", Multiline: true}},
		{"count head limit", GrepInput{Pattern: "hello", IgnoreCase: true, OutputMode: "count", HeadLimit: 1}},
		{"files multiline", GrepInput{Pattern: "Hello\\(\\) string \\{\\n", Multiline: true}},
	}
	env := grepFixture(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			goldenName := "grep/" + strings.ReplaceAll(tt.name, " ", "_")
			res := run(t, NewGrep(), env, tt.input)
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			golden(t, goldenName, env.Dir, res.Content)
		})
	}
}

func TestGrepErrors(t *testing.T) {
	tests := []struct {
		name  string
		input GrepInput
		want  string
	}{
		{"invalid regex", GrepInput{Pattern: "func (", OutputMode: "content"}, "Invalid regex pattern \"func (\": missing closing )"},
		{"lookahead", GrepInput{Pattern: "foo(?=bar)"}, "Invalid regex pattern"},
		{"newline without multiline", GrepInput{Pattern: "a\\nb"}, "Set multiline: true"},
		{"missing path", GrepInput{Pattern: "x", Path: "lib/nope.go"}, "Path does not exist: $DIR/lib/nope.go"},
		{"invalid glob", GrepInput{Pattern: "x", Glob: "[a"}, "Invalid glob \"[a\""},
		{"negative context", GrepInput{Pattern: "x", Context: -1}, "must not be negative"},
		{"empty pattern", GrepInput{Pattern: ""}, "pattern is empty"},
		{"unknown type", GrepInput{Pattern: "x", Type: "nosuchtype"}, "Unknown file type \"nosuchtype\""},
	}
	env := grepFixture(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, run(t, NewGrep(), env, tt.input), env.Dir, true, tt.want)
		})
	}
}

func TestGrepInvalidOutputMode(t *testing.T) {
	env := grepFixture(t)
	check(t, run(t, NewGrep(), env, map[string]any{"pattern": "x", "output_mode": "lines"}), env.Dir, true, "output_mode")
}

// TestGrepNullArguments: models often send null for arguments they leave
// out.
func TestGrepNullArguments(t *testing.T) {
	env := grepFixture(t)
	res := run(t, NewGrep(), env, map[string]any{"pattern": "Hello", "path": nil, "glob": nil, "-A": nil, "head_limit": nil})
	check(t, res, env.Dir, false, "Found 3 files")
}

func TestGrepCancel(t *testing.T) {
	env := grepFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	check(t, runCtx(ctx, t, NewGrep(), env, GrepInput{Pattern: "x"}), env.Dir, true, "cancelled")
}

// TestGrepRepository checks .gitignore handling inside a git work tree:
// searching a subdirectory applies the .gitignore files above it and
// .git/info/exclude.
func TestGrepRepository(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		".git/info/exclude": "*.local\n",
		".gitignore":        "*.gen\n",
		"sub/a.txt":         "needle\n",
		"sub/b.gen":         "needle\n",
		"sub/c.local":       "needle\n",
	})
	res := run(t, NewGrep(), env, GrepInput{Pattern: "needle", Path: "sub", OutputMode: "count"})
	want := fmt.Sprintf("%s:1\n\nFound 1 matching line across 1 file.\n", filepath.Join(env.Dir, "sub", "a.txt"))
	if diff := cmp.Diff(want, res.Content); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// BenchmarkGrep measures a Grep call over a generated tree of 2,000 files
// of 100 lines each, in each mode, and with a common word. The search
// against ripgrep is bench/search.sh's (BENCHMARKS.md).
func BenchmarkGrep(b *testing.B) {
	env := newEnv(b)
	for i := range 2000 {
		var sb strings.Builder
		for l := range 100 {
			fmt.Fprintf(&sb, "line %d of file %d: the quick brown fox jumps over the lazy dog\n", l, i)
		}
		if i%50 == 0 {
			sb.WriteString("func needleFunction() {}\n")
		}
		writeFiles(b, env.Dir, map[string]string{fmt.Sprintf("pkg%02d/sub%d/file%04d.go", i%40, i%3, i): sb.String()})
	}
	for _, in := range []GrepInput{
		{Pattern: `needle\w+`, OutputMode: modeFiles},
		{Pattern: `needle\w+`, OutputMode: modeContent},
		{Pattern: `needle\w+`, OutputMode: modeCount},
		{Pattern: "lazy", OutputMode: modeCount},
	} {
		b.Run(in.OutputMode+"/"+in.Pattern, func(b *testing.B) {
			for b.Loop() {
				if res := run(b, NewGrep(), env, in); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
	}
}
