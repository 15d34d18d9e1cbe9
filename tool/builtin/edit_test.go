package builtin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestEdit(t *testing.T) {
	const src = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\tfmt.Println(\"hello\")\n}\n"
	tests := []struct {
		name     string
		content  string // initial content of f.go; "" with noFile: no file
		noFile   bool
		skipRead bool
		input    EditInput
		wantErr  bool
		wants    []string
		want     string // content of f.go afterwards (defaults to unchanged on error)
		golden   string
	}{
		{
			name:    "unique match",
			content: src,
			input:   EditInput{OldString: "import \"fmt\"", NewString: "import (\n\t\"fmt\"\n\t\"os\"\n)"},
			want:    strings.Replace(src, "import \"fmt\"", "import (\n\t\"fmt\"\n\t\"os\"\n)", 1),
			golden:  "edit_unique",
		},
		{
			name:    "replace all",
			content: src,
			input:   EditInput{OldString: "\"hello\"", NewString: "\"bye\"", ReplaceAll: true},
			want:    strings.ReplaceAll(src, "\"hello\"", "\"bye\""),
			wants:   []string{"replaced 2 occurrences of old_string, on lines 6, 7."},
		},
		{
			name:    "replace all with line shifts",
			content: "a\nx\na\nx\na\n",
			input:   EditInput{OldString: "a\n", NewString: "a\nb\nc\n", ReplaceAll: true},
			want:    "a\nb\nc\nx\na\nb\nc\nx\na\nb\nc\n",
			wants:   []string{"replaced 3 occurrences of old_string, on lines 1, 5, 9."},
		},
		{
			name:    "replace all with a single match",
			content: src,
			input:   EditInput{OldString: "func main", NewString: "func Main", ReplaceAll: true},
			want:    strings.Replace(src, "func main", "func Main", 1),
			wants:   []string{"     5\tfunc Main() {\n"},
		},
		{
			name:    "dollar signs are literal",
			content: "x := 1\n",
			input:   EditInput{OldString: "1", NewString: "$1 ${x} $$"},
			want:    "x := $1 ${x} $$\n",
		},
		{
			name:    "delete text",
			content: "keep\ndrop\nkeep\n",
			input:   EditInput{OldString: "drop\n", NewString: ""},
			want:    "keep\nkeep\n",
		},
		{
			name:    "CRLF file",
			content: "one\r\ntwo\r\nthree\r\n",
			input:   EditInput{OldString: "one\ntwo", NewString: "1\n2"},
			want:    "1\r\n2\r\nthree\r\n",
		},
		{
			name:    "not found",
			content: src,
			input:   EditInput{OldString: "fmt.Printf", NewString: "x"},
			wantErr: true,
			wants:   []string{"old_string was not found in $DIR/f.go.", "Read the file again"},
		},
		{
			name:    "not found: whitespace differs",
			content: src,
			input:   EditInput{OldString: "func main() {\n    fmt.Println(\"hello\")", NewString: "x"},
			wantErr: true,
			wants:   []string{"different whitespace or indentation"},
		},
		{
			name:    "not found: line-number prefix",
			content: src,
			input:   EditInput{OldString: "     5\tfunc main() {", NewString: "x"},
			wantErr: true,
			wants:   []string{"line-number prefixes"},
		},
		{
			name:    "multiple matches",
			content: src,
			input:   EditInput{OldString: "fmt.Println(\"hello\")", NewString: "x"},
			wantErr: true,
			wants:   []string{"Found 2 matches of old_string", "replace_all"},
		},
		{
			name:    "identical strings",
			content: src,
			input:   EditInput{OldString: "main", NewString: "main"},
			wantErr: true,
			wants:   []string{"identical"},
		},
		{
			name:     "not read first",
			content:  src,
			skipRead: true,
			input:    EditInput{OldString: "main", NewString: "Main"},
			wantErr:  true,
			wants:    []string{"$DIR/f.go exists but has not been read yet. Read it first"},
		},
		{
			name:   "create with empty old_string",
			noFile: true,
			input:  EditInput{OldString: "", NewString: "new file\n"},
			want:   "new file\n",
			wants:  []string{"Created $DIR/f.go (1 line)."},
		},
		{
			name:    "empty old_string on existing file",
			content: src,
			input:   EditInput{OldString: "", NewString: "x"},
			wantErr: true,
			wants:   []string{"already exists and is not empty"},
		},
		{
			name:    "empty old_string fills an empty file",
			content: "",
			input:   EditInput{OldString: "", NewString: "filled\n"},
			want:    "filled\n",
		},
		{
			name:    "missing file",
			noFile:  true,
			input:   EditInput{OldString: "a", NewString: "b"},
			wantErr: true,
			wants:   []string{"File does not exist: $DIR/f.go.", "empty old_string"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			path := filepath.Join(env.Dir, "f.go")
			if !tt.noFile {
				writeFiles(t, env.Dir, map[string]string{"f.go": tt.content})
				if !tt.skipRead {
					check(t, run(t, NewRead(), env, ReadInput{FilePath: path}), env.Dir, false)
				}
			}
			in := tt.input
			in.FilePath = path
			res := run(t, NewEdit(), env, in)
			check(t, res, env.Dir, tt.wantErr, tt.wants...)
			if tt.golden != "" {
				golden(t, tt.golden, env.Dir, res.Content)
			}
			want := tt.want
			if tt.wantErr {
				want = tt.content
			}
			got, err := os.ReadFile(path)
			if err != nil && !(tt.noFile && tt.wantErr) {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("file content (-want +got):\n%s", diff)
			}
			if !tt.wantErr && env.Files.Changed(path, got) {
				t.Errorf("Edit did not record the new content")
			}
		})
	}
}

// TestEditStale checks that a file changed on disk after Read is refused,
// and accepted again once re-read.
func TestEditStale(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Dir, "f.txt")
	writeFiles(t, env.Dir, map[string]string{"f.txt": "alpha\nbeta\n"})
	run(t, NewRead(), env, ReadInput{FilePath: path})
	writeFiles(t, env.Dir, map[string]string{"f.txt": "alpha\nbeta\ngamma (added by the user)\n"})

	res := run(t, NewEdit(), env, EditInput{FilePath: path, OldString: "beta", NewString: "BETA"})
	check(t, res, env.Dir, true, "changed on disk since you read it", "Read it again")
	if got, _ := os.ReadFile(path); string(got) != "alpha\nbeta\ngamma (added by the user)\n" {
		t.Errorf("refused edit changed the file: %q", got)
	}

	// Touching a file without changing its bytes is not a change.
	run(t, NewRead(), env, ReadInput{FilePath: path})
	writeFiles(t, env.Dir, map[string]string{"f.txt": "alpha\nbeta\ngamma (added by the user)\n"})
	res = run(t, NewEdit(), env, EditInput{FilePath: path, OldString: "beta", NewString: "BETA"})
	check(t, res, env.Dir, false, "     2\tBETA\n")

	// A second edit needs no new Read: Edit recorded its own write.
	res = run(t, NewEdit(), env, EditInput{FilePath: path, OldString: "alpha", NewString: "ALPHA"})
	check(t, res, env.Dir, false, "     1\tALPHA\n")
}

func TestEditPreservesMode(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Dir, "run.sh")
	writeFiles(t, env.Dir, map[string]string{"run.sh": "#!/bin/sh\necho hi\n"})
	if err := os.Chmod(path, 0o750); err != nil {
		t.Fatal(err)
	}
	run(t, NewRead(), env, ReadInput{FilePath: path})
	check(t, run(t, NewEdit(), env, EditInput{FilePath: path, OldString: "hi", NewString: "bye"}), env.Dir, false)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750", fi.Mode().Perm())
	}
}
