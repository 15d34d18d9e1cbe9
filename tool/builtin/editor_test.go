//go:build unix

package builtin

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

// fakeEditor is an editor's buffers: a path's buffer when it has one, else
// the file on disk (as ACP clients answer fs/read_text_file). It logs every
// call.
type fakeEditor struct {
	mu      sync.Mutex
	buffers map[string]string
	calls   []string
}

func newFakeEditor(buffers map[string]string) *fakeEditor {
	return &fakeEditor{buffers: buffers}
}

func (e *fakeEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, "read "+path)
	if b, ok := e.buffers[path]; ok {
		return b, nil
	}
	data, err := os.ReadFile(path)
	return string(data), err
}

func (e *fakeEditor) WriteTextFile(_ context.Context, path, content string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls = append(e.calls, "write "+path)
	e.buffers[path] = content
	return nil
}

func (e *fakeEditor) log() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.calls
	e.calls = nil
	return out
}

func (e *fakeEditor) buffer(path string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.buffers[path]
}

// TestEditorBuffers: with an editor, Read sees its buffer (not the disk),
// Edit and Write change the buffer (the disk stays as it was), and a buffer
// that changed since the model read it is refused like a file changed on
// disk.
func TestEditorBuffers(t *testing.T) {
	w := newGuardWorld(t)
	writeFiles(t, w.ws, map[string]string{"main.go": "package main // on disk\n"})
	main := filepath.Join(w.ws, "main.go")
	ed := newFakeEditor(map[string]string{main: "package main // unsaved\n\nfunc main() {}\n"})
	w.env.Editor = ed

	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: "main.go", OldString: "unsaved", NewString: "edited"}), w.ws, true, "has not been read yet")
	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: "main.go"}), w.ws, false, "package main // unsaved", "func main() {}")
	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: "main.go", OldString: "unsaved", NewString: "edited"}), w.ws, false, "has been updated", "// edited")
	if diff := cmp.Diff("package main // edited\n\nfunc main() {}\n", ed.buffer(main)); diff != "" {
		t.Errorf("buffer after Edit (-want +got):\n%s", diff)
	}
	unchanged(t, main, "package main // on disk\n", false)

	// The person types into the buffer: the model's view is stale.
	ed.buffers[main] = "package main // typed by the person\n"
	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: "main.go", OldString: "package", NewString: "pkg"}), w.ws, true, "has changed in the editor since you read it")
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: "main.go", Content: "overwritten\n"}), w.ws, true, "has changed in the editor since you read it")
	if got := ed.buffer(main); got != "package main // typed by the person\n" {
		t.Errorf("a refused change reached the buffer: %q", got)
	}

	// A new file: created in the editor, not on disk.
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: "new.go", Content: "package new\n"}), w.ws, false, "Created $DIR/new.go (1 line)")
	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: "made.go", OldString: "", NewString: "package made\n"}), w.ws, false, "Created $DIR/made.go (1 line)")
	for _, name := range []string{"new.go", "made.go"} {
		unchanged(t, filepath.Join(w.ws, name), "", true)
		if ed.buffer(filepath.Join(w.ws, name)) == "" {
			t.Errorf("%s was not written to the editor", name)
		}
	}
	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: "absent.go", OldString: "x", NewString: "y"}), w.ws, true, "File does not exist: $DIR/absent.go")
	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: "absent.go"}), w.ws, true, "File does not exist: $DIR/absent.go")
	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: "."}), w.ws, true, "is a directory")
}

// TestEditorGuarded: a path the guard refuses on disk is refused in the
// same words with an editor, and the editor is never asked about it: a
// secret, a symlink out of the workspace, NovaCode's settings (the
// workspace's and the user's).
func TestEditorGuarded(t *testing.T) {
	w := newGuardWorld(t)
	writeFiles(t, w.ws, map[string]string{".env": "TOKEN=secret\n", ".novacode/settings.json": "{}\n"})
	writeFiles(t, w.out, map[string]string{"notes.txt": "outside\n"})
	writeFiles(t, w.home, map[string]string{".novacode/settings.json": "{}\n"})
	w.symlink(t, filepath.Join(w.out, "notes.txt"), "notes-link")
	w.symlink(t, filepath.Join(w.home, ".novacode", "settings.json"), "settings-link")
	userSettings := filepath.Join(w.home, ".novacode", "settings.json")

	tests := []struct {
		name  string
		tool  tool.Tool
		input any
		want  string // the refusal's start
	}{
		{"read .env", NewRead(), ReadInput{FilePath: ".env"}, "Refused to read $DIR/.env"},
		{"read a symlink out", NewRead(), ReadInput{FilePath: "notes-link"}, "Refused to read $DIR/notes-link"},
		{"edit a symlink out", NewEdit(), EditInput{FilePath: "notes-link", OldString: "outside", NewString: "x"}, "Refused to edit $DIR/notes-link"},
		{"write a symlink out", NewWrite(), WriteInput{FilePath: "notes-link", Content: "x"}, "Refused to write $DIR/notes-link"},
		{"write the workspace's settings", NewWrite(), WriteInput{FilePath: ".novacode/settings.json", Content: "{}"}, "Refused to write $DIR/.novacode/settings.json"},
		{"edit the workspace's settings", NewEdit(), EditInput{FilePath: ".novacode/settings.json", OldString: "{}", NewString: "[]"}, "Refused to edit $DIR/.novacode/settings.json"},
		{"write the user's settings", NewWrite(), WriteInput{FilePath: userSettings, Content: "{}"}, "Refused to write " + userSettings},
		{"edit the user's settings through a link", NewEdit(), EditInput{FilePath: "settings-link", OldString: "{}", NewString: "[]"}, "Refused to edit $DIR/settings-link"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The model has read everything (through a person's
			// approval, say): only the guard stands in the way.
			files := func() *tool.FileState {
				fs := tool.NewFileState()
				for _, p := range []string{".env", "notes-link", ".novacode/settings.json", "settings-link"} {
					data, _ := os.ReadFile(filepath.Join(w.ws, p))
					fs.Record(filepath.Join(w.ws, p), data)
				}
				fs.Record(userSettings, []byte("{}\n"))
				return fs
			}
			disk := &tool.Env{Dir: w.ws, Files: files(), Guard: w.guard}
			ed := newFakeEditor(map[string]string{})
			viaEditor := &tool.Env{Dir: w.ws, Files: files(), Guard: w.guard, Editor: ed}

			onDisk := run(t, tc.tool, disk, tc.input)
			check(t, onDisk, w.ws, true, tc.want)
			got := run(t, tc.tool, viaEditor, tc.input)
			check(t, got, w.ws, true, tc.want)
			if diff := cmp.Diff(onDisk.Content, got.Content); diff != "" {
				t.Errorf("the editor's refusal differs from the disk's (-disk +editor):\n%s", diff)
			}
			if calls := ed.log(); len(calls) > 0 {
				t.Errorf("the editor was asked: %v", calls)
			}
		})
	}
	unchanged(t, filepath.Join(w.out, "notes.txt"), "outside\n", false)
	unchanged(t, userSettings, "{}\n", false)
}

// TestEditorErrors: what the editor fails to do comes back to the model.
func TestEditorErrors(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "a\n"})
	env := &tool.Env{Dir: ws, Files: tool.NewFileState(), Editor: failingEditor{}}
	check(t, run(t, NewRead(), env, ReadInput{FilePath: "a.txt"}), ws, true, "Cannot read $DIR/a.txt: the editor: buffer unavailable")
	env.Files.Record(filepath.Join(ws, "a.txt"), []byte("a\n"))
	check(t, run(t, NewEdit(), env, EditInput{FilePath: "a.txt", OldString: "a", NewString: "b"}), ws, true, "Cannot edit $DIR/a.txt: the editor: buffer unavailable")
	check(t, run(t, NewWrite(), env, WriteInput{FilePath: "b.txt", Content: "b"}), ws, true, "Cannot write $DIR/b.txt: the editor: read-only buffer")
}

type failingEditor struct{}

func (failingEditor) ReadTextFile(_ context.Context, path string) (string, error) {
	if strings.HasSuffix(path, "b.txt") {
		return "", fs.ErrNotExist
	}
	return "", errors.New("buffer unavailable")
}

func (failingEditor) WriteTextFile(context.Context, string, string) error {
	return errors.New("read-only buffer")
}

// TestEditorLargeFileStreamed: a file on disk too large to hold is read
// from disk by a streaming Read, offset and limit included, and the editor,
// which would send it whole, is not asked for it; a secret is still refused.
func TestEditorLargeFileStreamed(t *testing.T) {
	whole := readWholeMax
	defer func() { readWholeMax = whole }()
	readWholeMax = 100

	w := newGuardWorld(t)
	var b strings.Builder
	for i := 1; i <= 50; i++ {
		b.WriteString("line " + strings.Repeat("x", 10) + " " + string(rune('a'+i%26)) + "\n")
	}
	writeFiles(t, w.ws, map[string]string{"big.log": b.String(), "small.txt": "small\n"})
	ed := newFakeEditor(map[string]string{})
	w.env.Editor = ed

	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: "big.log", Offset: 49, Limit: 1}), w.ws, false, "49\tline xxxxxxxxxx x")
	if got := ed.log(); len(got) != 0 {
		t.Errorf("the editor was asked for a large file: %q", got)
	}
	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: "small.txt"}), w.ws, false, "small")
	if diff := cmp.Diff([]string{"read " + filepath.Join(w.ws, "small.txt")}, ed.log()); diff != "" {
		t.Errorf("editor calls for a small file (-want +got):\n%s", diff)
	}
}
