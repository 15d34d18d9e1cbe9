//go:build unix

package builtin

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission/pathguard"
	"github.com/novacode/nova/tool"
)

// rgTree writes a small tree with what ripgrep's choice of files depends on:
// a git repository with nested .gitignore files (negations, anchored and
// directory-only rules), .ignore and .rgignore files, .git/info/exclude, a
// nested directory that is a repository of its own, hidden files and
// directories, binary files (a NUL at the start, and one after matches in
// a file larger than ripgrep's buffer), a line longer than the scanner's
// buffer, CRLF and UTF-8 text, and symbolic links into and out of the tree.
// It returns the files the path guard must hide: secrets by name and a hard
// link to a file outside.
func rgTree(t *testing.T, dir, outside string) (guarded []string) {
	t.Helper()
	files := map[string]string{
		".git/HEAD":                 "ref: refs/heads/main\n",
		".git/info/exclude":         "*.excluded\n",
		".gitignore":                "*.log\n!keep.log\nbuild/\n/rooted.txt\ndocs/*.tmp\n!.github/\n",
		".ignore":                   "ignored-by-dot-ignore.txt\n",
		".rgignore":                 "!rg-wins.log\n",
		".github/workflows/ci.yml":  "run: go test # needle\n",
		".hidden.txt":               "needle hidden\n",
		".hdir/x.txt":               "needle in a hidden directory\n",
		"keep.log":                  "needle kept log\n",
		"drop.log":                  "needle dropped log\n",
		"rg-wins.log":               "needle rgignore whitelists\n",
		"a.excluded":                "needle excluded\n",
		"rooted.txt":                "needle rooted\n",
		"sub/rooted.txt":            "needle not rooted here\n",
		"ignored-by-dot-ignore.txt": "needle\n",
		"build/out.txt":             "needle build\n",
		"docs/a.tmp":                "needle tmp\n",
		"docs/deep/a.tmp":           "needle deep tmp\n",
		"docs/readme.md":            "# Needle\n\nThe NEEDLE is here.\nneedle again\n",
		"src/.gitignore":            "gen_*.go\n!gen_keep.go\n*.out/\n",
		"src/gen_api.go":            "package src // needle\n",
		"src/gen_keep.go":           "package src // needle kept\n",
		"src/x.out/y.go":            "package y // needle\n",
		"src/x.out.go":              "package x // needle, a file, not the directory rule\n",
		"src/main.go":               "package main\n\nfunc NewServer() {}\n\nfunc main() {\n\t// needle\n\tNewServer()\n}\n",
		"src/server.go":             "package main\n\n// NewServerWith builds one.\nfunc NewServerWith(x int) *Server { return nil } // needle\n",
		"src/crlf.txt":              "first\r\nneedle\r\nlast\r\n",
		"src/utf8.txt":              "Grüße needle\nΚαλημέρα NEEDLE\n",
		"nested/.git/HEAD":          "ref: refs/heads/main\n",
		"nested/.gitignore":         "*.txt\n",
		"nested/a.txt":              "needle nested ignored\n",
		"nested/b.md":               "needle nested\n",
		"bin/early.bin":             "\x00needle\n",
		"bin/mid.dat":               "needle before\n\x00needle after\n",
		"secrets/deploy.pem":        "needle PEM\n",
		"secrets/id_rsa":            "needle KEY\n",
		"secrets/.env":              "TOKEN=needle\n",
	}
	for i := range 60 {
		files[fmt.Sprintf("pkg%d/file%d.go", i%7, i)] = fmt.Sprintf("package pkg%d\n\n// line %d\nfunc F%d() int { return %d }\n%s", i%7, i, i, i, strings.Repeat("// filler\n", i%5))
		if i%4 == 0 {
			files[fmt.Sprintf("pkg%d/file%d.go", i%7, i)] += "// needle\n"
		}
	}
	writeFiles(t, dir, files)
	// A binary file whose NUL comes after matches, beyond ripgrep's 64 KiB
	// buffer; a line longer than the scanner's buffer with a match at its
	// end; a file full of matches.
	var late bytes.Buffer
	late.WriteString("needle early\n")
	for late.Len() < 200<<10 {
		late.WriteString("padding line without the word\n")
	}
	late.WriteString("\x00needle late\n")
	long := strings.Repeat("x", scanBufMax+100) + " needle\nneedle short\n"
	// Matches spread over several of the scanner's buffers, so that
	// context lines fall on both sides of a refill.
	var spread strings.Builder
	for i := 0; spread.Len() < 400<<10; i++ {
		if i%397 == 0 || i%397 == 3 {
			fmt.Fprintf(&spread, "needle %d\n", i)
		} else {
			fmt.Fprintf(&spread, "line %d %s\n", i, strings.Repeat("-", i%180))
		}
	}
	many := strings.Repeat("needle many\nother\n", 3000)
	writeFiles(t, dir, map[string]string{"bin/late.dat": late.String(), "long/line.txt": long, "many.txt": many, "spread/s.txt": spread.String()})
	for _, l := range [][2]string{
		{"src/main.go", "link-in.go"},
		{outside, "link-out"},
		{filepath.Join(outside, "o.txt"), "link-out.txt"},
	} {
		if err := os.Symlink(l[0], filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	writeFiles(t, outside, map[string]string{"o.txt": "needle outside\n", "shared.txt": "needle shared\n"})
	if err := os.Link(filepath.Join(outside, "shared.txt"), filepath.Join(dir, "hardlink.txt")); err != nil {
		t.Fatal(err)
	}
	return []string{"hardlink.txt", "secrets/deploy.pem", "secrets/id_rsa", "secrets/.env"}
}

// rgOut runs ripgrep in dir with args (and the flags that keep the user's
// own configuration out) and returns its output lines.
func rgOut(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("rg", append([]string{"--no-config", "--no-ignore-global", "--no-messages"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// 1: nothing found; 2 with no output at all: nothing left to
		// search once filtered (its message is one --no-messages drops).
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 && (ee.ExitCode() != 2 || len(out) > 0 || stderr.Len() > 0) {
			t.Fatalf("rg %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
	}
	return strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
}

// TestSearchMatchesRipgrep runs the same queries through Grep and Glob and
// through ripgrep on rgTree: the results must be the same, but for the
// files the guard hides (and says it hid).
func TestSearchMatchesRipgrep(t *testing.T) {
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("ripgrep (rg) is not installed")
	}
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(tmp, "ws"), filepath.Join(tmp, "out")
	guarded := rgTree(t, ws, outside)
	g, err := pathguard.New(ws, nil, filepath.Join(tmp, "home"))
	if err != nil {
		t.Fatal(err)
	}
	env := &tool.Env{Dir: ws, Files: tool.NewFileState(), Guard: g}
	hidden := map[string]bool{}
	for _, p := range guarded {
		hidden[p] = true
	}

	tests := []struct {
		name  string
		in    GrepInput
		rg    []string // ripgrep's flags for the same query
		files []string // ripgrep's --files flags for the files the query considers
	}{
		{"literal", GrepInput{Pattern: "needle"}, []string{"needle"}, nil},
		{"literal count", GrepInput{Pattern: "needle", OutputMode: "count"}, []string{"needle"}, nil},
		// many.txt has more matching lines than the output shows.
		{"literal content", GrepInput{Pattern: "needle", OutputMode: "content", Glob: "!many.txt !spread"}, []string{"needle", "-g", "!many.txt", "-g", "!spread"}, []string{"-g", "!many.txt", "-g", "!spread"}},
		{"ignore case", GrepInput{Pattern: "NeEdLe", IgnoreCase: true, OutputMode: "count"}, []string{"-i", "NeEdLe"}, nil},
		{"ignore case with a k", GrepInput{Pattern: "kept", IgnoreCase: true}, []string{"-i", "kept"}, nil},
		{"regexp", GrepInput{Pattern: `func \w+Server\w*\(`, OutputMode: "content"}, []string{`func \w+Server\w*\(`}, nil},
		{"regexp without a literal", GrepInput{Pattern: `^\S+$`, OutputMode: "count"}, []string{`^\S+$`}, nil},
		{"regexp without a literal, content", GrepInput{Pattern: `\b[A-Z][a-z]{2,}\b`, OutputMode: "content"}, []string{`\b[A-Z][a-z]{2,}\b`}, nil},
		// (Not long/line.txt: past 2 MiB, a line is tried against a
		// pattern that is not a literal on its first piece only, and the
		// output says so.)
		{"end of line", GrepInput{Pattern: `\s*$`, OutputMode: "count", Glob: "!long"}, []string{`\s*$`, "-g", "!long"}, []string{"-g", "!long"}},
		{"alternation", GrepInput{Pattern: "NewServer|needle kept", OutputMode: "count"}, []string{"NewServer|needle kept"}, nil},
		{"glob", GrepInput{Pattern: "needle", Glob: "*.go"}, []string{"needle", "-g", "*.go"}, []string{"-g", "*.go"}},
		{"glob lets in", GrepInput{Pattern: "needle", Glob: "*.log"}, []string{"needle", "-g", "*.log"}, []string{"-g", "*.log"}},
		{"glob on hidden", GrepInput{Pattern: "needle", Glob: "**/.hdir/*"}, []string{"needle", "-g", "**/.hdir/*"}, []string{"-g", "**/.hdir/*"}},
		{"glob excludes", GrepInput{Pattern: "needle", Glob: "!pkg*"}, []string{"needle", "-g", "!pkg*"}, []string{"-g", "!pkg*"}},
		{"type", GrepInput{Pattern: "needle", Type: "go", OutputMode: "count"}, []string{"needle", "-t", "go"}, []string{"-t", "go"}},
		{"context", GrepInput{Pattern: "NewServer", OutputMode: "content", Context: 2}, []string{"-C2", "NewServer"}, nil},
		{"context across buffers", GrepInput{Pattern: "needle", OutputMode: "content", Context: 4, Path: "spread"}, []string{"-C4", "needle", "spread"}, []string{"spread"}},
		{"after context across buffers", GrepInput{Pattern: "needle", OutputMode: "content", After: 2, Path: "spread"}, []string{"-A2", "needle", "spread"}, []string{"spread"}},
		{"before context across buffers", GrepInput{Pattern: "needle", OutputMode: "content", Before: 5, Path: "spread"}, []string{"-B5", "needle", "spread"}, []string{"spread"}},
		{"subdirectory", GrepInput{Pattern: "needle", Path: "src"}, []string{"needle", "src"}, []string{"src"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, NewGrep(), env, tt.in)
			if res.IsError {
				t.Fatalf("error: %s", res.Content)
			}
			mode := tt.in.OutputMode
			if mode == "" {
				mode = modeFiles
			}
			var rgArgs []string
			switch mode {
			case modeFiles:
				rgArgs = append([]string{"-l"}, tt.rg...)
			case modeCount:
				rgArgs = append([]string{"-c"}, tt.rg...)
			default:
				rgArgs = append([]string{"-n", "--no-heading"}, tt.rg...)
			}
			want := rgResults(rgOut(t, ws, rgArgs...), mode, hidden)
			got := novaResults(t, res.Content, ws, mode)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Grep and rg %s differ (-rg +Grep):\n%s", strings.Join(rgArgs, " "), d)
			}
			// The files the guard hid are said: as many as ripgrep would
			// have searched.
			n := 0
			for _, f := range rgOut(t, ws, append([]string{"--files"}, tt.files...)...) {
				if hidden[f] {
					n++
				}
			}
			if note := fmt.Sprintf("(%s not searched", plural(n, "file")); n > 0 && !strings.Contains(res.Content, strings.Replace(note, "file not", "file was not", 1)) && !strings.Contains(res.Content, strings.Replace(note, "files not", "files were not", 1)) {
				t.Errorf("the output does not say %d files were hidden:\n%s", n, res.Content)
			}
		})
	}

	globs := []struct{ pattern, rgGlob string }{
		{"**/*.go", "**/*.go"},
		{"**/server.go", "**/server.go"},
		{"**/*.log", "**/*.log"},
		{"**/.hdir/*", "**/.hdir/*"},
		{"**/*", "**/*"},
	}
	for _, tt := range globs {
		t.Run("glob "+tt.pattern, func(t *testing.T) {
			res := run(t, NewGlob(), env, GlobInput{Pattern: tt.pattern})
			var got []string
			if res.Content != "No files found" {
				for _, l := range strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n") {
					rel, err := filepath.Rel(ws, l)
					if err != nil || strings.HasPrefix(l, "(") {
						continue
					}
					got = append(got, filepath.ToSlash(rel))
				}
			}
			slices.Sort(got)
			var want []string
			for _, f := range rgOut(t, ws, "--files", "-g", tt.rgGlob) {
				// ripgrep enters .git when a glob matches it; Glob never
				// lists a version control system's own files.
				if f != "" && !strings.HasPrefix(f, ".git/") && !strings.Contains(f, "/.git/") {
					want = append(want, f)
				}
			}
			slices.Sort(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Glob and rg --files -g %s differ (-rg +Glob):\n%s", tt.rgGlob, d)
			}
		})
	}
}

// rgResults normalises ripgrep's output for comparison: files mode a sorted
// list of paths, count mode path:count, content mode the lines without
// "--", texts longer than grepLineMax shortened to their prefix.
func rgResults(lines []string, mode string, hidden map[string]bool) []string {
	var out []string
	for _, l := range lines {
		if l == "" || l == "--" || strings.Contains(l, ": WARNING: stopped searching binary file") {
			continue // not a result: ripgrep's note on a binary file
		}
		path := l
		if mode != modeFiles {
			path = l[:strings.IndexAny(l, ":-")]
			if i := strings.IndexAny(l, ":"); mode == modeContent && i > 0 {
				// path:n:text or path-n-text: the path is up to the
				// separator before the line number.
				path = contentPath(l)
			}
		}
		if hidden[path] {
			continue
		}
		// Grep drops the "\r" of a CRLF line end.
		out = append(out, normLine(strings.TrimSuffix(l, "\r"), mode))
	}
	slices.Sort(out)
	return out
}

// contentPath returns the path of a content line "path:n:text" or
// "path-n-text" (paths here hold no such separators followed by digits).
func contentPath(l string) string {
	for i := 0; i < len(l); i++ {
		if l[i] == ':' || l[i] == '-' {
			j := i + 1
			for j < len(l) && l[j] >= '0' && l[j] <= '9' {
				j++
			}
			if j > i+1 && j < len(l) && l[j] == l[i] {
				return l[:i]
			}
		}
	}
	return l
}

// normLine shortens a long content line to "path:n:" plus a marker: Grep
// cuts such lines, ripgrep does not.
func normLine(l, mode string) string {
	if mode != modeContent {
		return l
	}
	p := contentPath(l)
	if len(p) == len(l) {
		return l
	}
	rest := l[len(p)+1:]
	sep := l[len(p)]
	i := strings.IndexByte(rest, sep)
	if text := rest[i+1:]; len(text) > grepLineMax || strings.Contains(text, "characters omitted]") {
		return l[:len(p)+1+i+1] + "<long>"
	}
	return l
}

// novaResults parses Grep's output the same way, paths made relative.
func novaResults(t *testing.T, content, ws, mode string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(content, "\n") {
		if !strings.HasPrefix(l, ws+"/") {
			continue
		}
		l = strings.TrimPrefix(l, ws+"/")
		if mode == modeCount {
			i := strings.LastIndexByte(l, ':')
			if _, err := strconv.Atoi(l[i+1:]); err != nil {
				t.Fatalf("count line %q", l)
			}
		}
		out = append(out, normLine(l, mode))
	}
	slices.Sort(out)
	return out
}
