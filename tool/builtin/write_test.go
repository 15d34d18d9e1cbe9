package builtin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	env := newEnv(t)
	path := filepath.Join(env.Dir, "new", "dir", "a.txt")
	w := NewWrite()

	// Create, with parent directories.
	check(t, run(t, w, env, WriteInput{FilePath: path, Content: "one\ntwo\n"}), env.Dir, false, "Created $DIR/new/dir/a.txt (2 lines).")
	if got, _ := os.ReadFile(path); string(got) != "one\ntwo\n" {
		t.Errorf("content = %q", got)
	}

	// Write recorded what it wrote, so overwriting needs no Read.
	check(t, run(t, w, env, WriteInput{FilePath: path, Content: "three"}), env.Dir, false, "Updated $DIR/new/dir/a.txt (1 line).")

	// Changed on disk since: refused.
	writeFiles(t, env.Dir, map[string]string{"new/dir/a.txt": "edited by the user"})
	check(t, run(t, w, env, WriteInput{FilePath: path, Content: "four"}), env.Dir, true, "changed on disk since you read it")
	if got, _ := os.ReadFile(path); string(got) != "edited by the user" {
		t.Errorf("refused write changed the file: %q", got)
	}
	run(t, NewRead(), env, ReadInput{FilePath: path})
	check(t, run(t, w, env, WriteInput{FilePath: path, Content: ""}), env.Dir, false, "Updated $DIR/new/dir/a.txt (0 lines).")
}

func TestWriteRequiresRead(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"exists.txt": "original"})
	path := filepath.Join(env.Dir, "exists.txt")
	check(t, run(t, NewWrite(), env, WriteInput{FilePath: path, Content: "x"}), env.Dir, true, "$DIR/exists.txt exists but has not been read yet. Read it first")
	if got, _ := os.ReadFile(path); string(got) != "original" {
		t.Errorf("refused write changed the file: %q", got)
	}
	run(t, NewRead(), env, ReadInput{FilePath: path})
	check(t, run(t, NewWrite(), env, WriteInput{FilePath: "exists.txt", Content: "x"}), env.Dir, false, "Updated $DIR/exists.txt")
}

func TestWriteErrors(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"d/f": ""})
	check(t, run(t, NewWrite(), env, WriteInput{FilePath: "d", Content: "x"}), env.Dir, true, "$DIR/d is a directory")
	check(t, run(t, NewWrite(), env, WriteInput{FilePath: "", Content: "x"}), env.Dir, true, "file_path is empty")
	// A file where a parent directory should be.
	check(t, run(t, NewWrite(), env, WriteInput{FilePath: "d/f/g", Content: "x"}), env.Dir, true, "Cannot")
}
