package builtin

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	tenLines := ""
	for i := 1; i <= 10; i++ {
		tenLines += fmt.Sprintf("line %d\n", i)
	}
	tests := []struct {
		name    string
		files   map[string]string
		input   ReadInput
		golden  string // compare the whole output with testdata/GOLDEN.golden
		wantErr bool
		wants   []string // substrings of the output ($DIR is the work dir)
	}{
		{
			name:   "numbering",
			files:  map[string]string{"a.go": "package a\n\n\tfunc A() {}\n"},
			input:  ReadInput{FilePath: "a.go"},
			golden: "read_numbering",
		},
		{
			name:   "offset and limit",
			files:  map[string]string{"ten.txt": tenLines},
			input:  ReadInput{FilePath: "ten.txt", Offset: 3, Limit: 4},
			golden: "read_offset_limit",
		},
		{
			name:  "offset to the end",
			files: map[string]string{"ten.txt": tenLines},
			input: ReadInput{FilePath: "ten.txt", Offset: 9},
			wants: []string{"     9\tline 9\n    10\tline 10\n"},
		},
		{
			name:  "no trailing newline",
			files: map[string]string{"a.txt": "one\ntwo"},
			input: ReadInput{FilePath: "a.txt"},
			wants: []string{"     1\tone\n     2\ttwo\n"},
		},
		{
			name:  "CRLF",
			files: map[string]string{"a.txt": "one\r\ntwo\r\n"},
			input: ReadInput{FilePath: "a.txt"},
			wants: []string{"     1\tone\n     2\ttwo\n"},
		},
		{
			name:  "long line cut",
			files: map[string]string{"long.txt": strings.Repeat("x", 2500) + "\nshort\n"},
			input: ReadInput{FilePath: "long.txt"},
			wants: []string{"\t" + strings.Repeat("x", 2000) + "… [line truncated: 500 more characters]\n", "     2\tshort\n"},
		},
		{
			name:  "absolute path",
			files: map[string]string{"sub/a.txt": "hi\n"},
			input: ReadInput{FilePath: "$DIR/sub/a.txt"},
			wants: []string{"     1\thi\n"},
		},
		{
			name:  "empty file",
			files: map[string]string{"empty.txt": ""},
			input: ReadInput{FilePath: "empty.txt"},
			wants: []string{"exists but is empty"},
		},
		{
			name:    "missing with suggestion",
			files:   map[string]string{"Config.go": ""},
			input:   ReadInput{FilePath: "config.go"},
			wantErr: true,
			wants:   []string{"File does not exist: $DIR/config.go. Did you mean $DIR/Config.go?"},
		},
		{
			name:    "missing without suggestion",
			files:   map[string]string{"a.go": ""},
			input:   ReadInput{FilePath: "zzz.md"},
			wantErr: true,
			wants:   []string{"File does not exist: $DIR/zzz.md"},
		},
		{
			name:    "missing directory",
			input:   ReadInput{FilePath: "no/such/file.go"},
			wantErr: true,
			wants:   []string{"File does not exist: $DIR/no/such/file.go (its directory $DIR/no/such does not exist either)"},
		},
		{
			name:    "directory",
			files:   map[string]string{"sub/a.txt": ""},
			input:   ReadInput{FilePath: "sub"},
			wantErr: true,
			wants:   []string{"$DIR/sub is a directory", "Use LS"},
		},
		{
			name:    "binary content",
			files:   map[string]string{"prog": "ELF\x00\x01\x02"},
			input:   ReadInput{FilePath: "prog"},
			wantErr: true,
			wants:   []string{"binary file", "NUL"},
		},
		{
			name:    "image extension",
			files:   map[string]string{"logo.PNG": "not really a png"},
			input:   ReadInput{FilePath: "logo.PNG"},
			wantErr: true,
			wants:   []string{"it is an image"},
		},
		{
			name:    "archive extension",
			files:   map[string]string{"a.tar.gz": "x"},
			input:   ReadInput{FilePath: "a.tar.gz"},
			wantErr: true,
			wants:   []string{"it is an archive"},
		},
		{
			name:    "offset past end",
			files:   map[string]string{"ten.txt": tenLines},
			input:   ReadInput{FilePath: "ten.txt", Offset: 11},
			wantErr: true,
			wants:   []string{"offset 11 is past the end", "10 lines"},
		},
		{
			name:    "negative offset",
			files:   map[string]string{"ten.txt": tenLines},
			input:   ReadInput{FilePath: "ten.txt", Offset: -1},
			wantErr: true,
			wants:   []string{"must not be negative"},
		},
		{
			name:    "empty path",
			input:   ReadInput{FilePath: " "},
			wantErr: true,
			wants:   []string{"file_path is empty"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			writeFiles(t, env.Dir, tt.files)
			in := tt.input
			in.FilePath = strings.ReplaceAll(in.FilePath, "$DIR", env.Dir)
			res := run(t, NewRead(), env, in)
			check(t, res, env.Dir, tt.wantErr, tt.wants...)
			if tt.golden != "" {
				golden(t, tt.golden, env.Dir, res.Content)
			}
		})
	}
}

func TestReadDefaultLimit(t *testing.T) {
	env := newEnv(t)
	var b strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	writeFiles(t, env.Dir, map[string]string{"big.txt": b.String()})
	res := run(t, NewRead(), env, ReadInput{FilePath: "big.txt"})
	check(t, res, env.Dir, false, "  2000\t2000\n… 500 more lines; use offset=2001 to read further.\n")
	if strings.Contains(res.Content, "\t2001\n") {
		t.Errorf("line 2001 shown past the default limit")
	}
	res = run(t, NewRead(), env, ReadInput{FilePath: "big.txt", Offset: 2001})
	check(t, res, env.Dir, false, "  2001\t2001\n", "  2500\t2500\n")
	if strings.Contains(res.Content, "more line") {
		t.Errorf("a read to the end says there is more:\n%s", res.Content[len(res.Content)-100:])
	}
}

// TestReadOutputCap checks that many long lines stop before flooding the
// context, with a note saying where to continue.
func TestReadOutputCap(t *testing.T) {
	env := newEnv(t)
	line := strings.Repeat("y", 1000) + "\n"
	writeFiles(t, env.Dir, map[string]string{"wide.txt": strings.Repeat(line, 500)})
	res := run(t, NewRead(), env, ReadInput{FilePath: "wide.txt"})
	if len(res.Content) > readMaxOutput+2*lineMax {
		t.Errorf("output is %d bytes", len(res.Content))
	}
	check(t, res, env.Dir, false, "more lines; use offset=")
}

func TestReadRecordsFile(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"a.txt": "content\n"})
	path := filepath.Join(env.Dir, "a.txt")
	if _, ok := env.Files.Lookup(path); ok {
		t.Fatal("recorded before Read")
	}
	// A partial read records the whole file: Edit compares whole contents.
	run(t, NewRead(), env, ReadInput{FilePath: path, Limit: 1})
	if env.Files.Changed(path, []byte("content\n")) {
		t.Error("Read did not record the file's full content")
	}
}
