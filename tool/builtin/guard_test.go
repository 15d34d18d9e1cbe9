//go:build unix

package builtin

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission/pathguard"
	"github.com/novacode/nova/tool"
)

// guardWorld is a workspace with a path guard, a directory outside it and a
// home directory, all in one temporary directory.
type guardWorld struct {
	env           *tool.Env
	ws, out, home string
	guard         *pathguard.Guard
}

func newGuardWorld(t *testing.T) *guardWorld {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &guardWorld{ws: filepath.Join(tmp, "ws"), out: filepath.Join(tmp, "out"), home: filepath.Join(tmp, "home")}
	for _, d := range []string{w.ws, w.out, w.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if w.guard, err = pathguard.New(w.ws, nil, w.home); err != nil {
		t.Fatal(err)
	}
	w.env = &tool.Env{Dir: w.ws, Files: tool.NewFileState(), Guard: w.guard}
	return w
}

func (w *guardWorld) symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(w.ws, name)); err != nil {
		t.Fatal(err)
	}
}

// unchanged fails if the file at p does not hold want ("" with gone: must
// not exist).
func unchanged(t *testing.T, p, want string, gone bool) {
	t.Helper()
	got, err := os.ReadFile(p)
	switch {
	case gone && err == nil:
		t.Errorf("%s was created (%q)", p, got)
	case gone:
	case err != nil:
		t.Errorf("%s: %v", p, err)
	case string(got) != want:
		t.Errorf("%s = %q, want it unchanged (%q)", p, got, want)
	}
}

// TestGuardSymlinkSwappedAfterCheck simulates the race the re-check exists
// for: the permission chain inspected a regular file inside the workspace
// (the guard says inside), and by the time the tool opens it, it is a
// symlink to a file outside. Every tool must refuse and touch nothing.
func TestGuardSymlinkSwappedAfterCheck(t *testing.T) {
	w := newGuardWorld(t)
	const secret = "TOP SECRET\n"
	outside := filepath.Join(w.out, "secret.txt")
	writeFiles(t, w.out, map[string]string{"secret.txt": secret})
	a := filepath.Join(w.ws, "a.txt")
	writeFiles(t, w.ws, map[string]string{"a.txt": secret})

	// The check: inside, nothing special. The model reads the file, so
	// Edit and Write will consider it fresh.
	if info := w.guard.Inspect("a.txt", ""); !info.Inside || info.Protected != "" || info.Special != "" {
		t.Fatalf("Inspect before the swap = %+v", info)
	}
	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: "a.txt"}), w.ws, false, "TOP SECRET")

	// The swap: same content, so the freshness check cannot tell.
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	w.symlink(t, outside, "a.txt")

	res := run(t, NewRead(), w.env, ReadInput{FilePath: "a.txt"})
	check(t, res, w.ws, true, "Refused to read $DIR/a.txt", "refused for safety", "the file actually opened, "+outside+", is outside the workspace")
	if strings.Contains(res.Content, "TOP SECRET") {
		t.Errorf("the refused Read leaked the content:\n%s", res.Content)
	}
	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: "a.txt", OldString: "TOP", NewString: "PWNED"}), w.ws, true, "Refused to edit $DIR/a.txt", "refused for safety", "outside the workspace")
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: "a.txt", Content: "PWNED"}), w.ws, true, "Refused to write $DIR/a.txt", "refused for safety")
	check(t, run(t, NewGrep(), w.env, GrepInput{Pattern: "SECRET", Path: "a.txt"}), w.ws, true, "Refused to search $DIR/a.txt")
	unchanged(t, outside, secret, false)

	// The same calls without a guard follow the link: the old behaviour,
	// which the guard exists to stop.
	plain := &tool.Env{Dir: w.ws, Files: tool.NewFileState()}
	check(t, run(t, NewRead(), plain, ReadInput{FilePath: "a.txt"}), w.ws, false, "TOP SECRET")
}

// TestGuardApprovedOutside: a path outside the workspace that a person
// approved for this call (tool.WithApprovedPaths, resolved) is allowed.
func TestGuardApprovedOutside(t *testing.T) {
	w := newGuardWorld(t)
	outside := filepath.Join(w.out, "notes.txt")
	writeFiles(t, w.out, map[string]string{"notes.txt": "outside notes\n"})
	w.symlink(t, outside, "notes-link")
	approved := tool.WithApprovedPaths(context.Background(), []string{outside})

	// Not approved: refused.
	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: outside}), w.ws, true, "Refused to read", "not approved for this call")
	// Approved: by its own name and through the link.
	check(t, runCtx(approved, t, NewRead(), w.env, ReadInput{FilePath: outside}), w.ws, false, "outside notes")
	check(t, runCtx(approved, t, NewRead(), w.env, ReadInput{FilePath: "notes-link"}), w.ws, false, "outside notes")
	check(t, runCtx(approved, t, NewEdit(), w.env, EditInput{FilePath: outside, OldString: "outside", NewString: "edited"}), w.ws, false, "has been updated")
	unchanged(t, outside, "edited notes\n", false)

	// A new file outside, approved.
	created := filepath.Join(w.out, "new", "file.txt")
	ctx := tool.WithApprovedPaths(context.Background(), []string{created})
	check(t, runCtx(ctx, t, NewWrite(), w.env, WriteInput{FilePath: created, Content: "hi\n"}), w.ws, false, "Created "+created)
	unchanged(t, created, "hi\n", false)

	// Approval of one path does not cover another.
	other := filepath.Join(w.out, "other.txt")
	check(t, runCtx(ctx, t, NewWrite(), w.env, WriteInput{FilePath: other, Content: "x"}), w.ws, true, "Refused to write")
	unchanged(t, other, "", true)

	// An approved directory covers reads below it (Grep, LS, Glob), not
	// writes.
	dirCtx := tool.WithApprovedPaths(context.Background(), []string{w.out})
	check(t, runCtx(dirCtx, t, NewGrep(), w.env, GrepInput{Pattern: "edited", Path: w.out}), w.ws, false, "Found 1 file", outside)
	check(t, runCtx(dirCtx, t, NewLS(), w.env, LSInput{Path: w.out}), w.ws, false, "notes.txt", "new/")
	check(t, runCtx(dirCtx, t, NewGlob(), w.env, GlobInput{Pattern: "**/*.txt", Path: w.out}), w.ws, false, created)
	check(t, runCtx(dirCtx, t, NewWrite(), w.env, WriteInput{FilePath: other, Content: "x"}), w.ws, true, "Refused to write")
}

// TestGuardDanglingSymlink: a dangling link in the workspace to a file
// outside must not let Write or Edit create that file (O_CREAT follows a
// dangling link).
func TestGuardDanglingSymlink(t *testing.T) {
	w := newGuardWorld(t)
	target := filepath.Join(w.home, ".config", "autostart", "evil.desktop")
	w.symlink(t, target, "out.log")
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: "out.log", Content: "[Desktop Entry]\n"}), w.ws, true, "Refused to write $DIR/out.log", "outside the workspace")
	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: "out.log", NewString: "[Desktop Entry]\n"}), w.ws, true, "Refused to create $DIR/out.log")
	unchanged(t, target, "", true)
	if _, err := os.Stat(filepath.Dir(target)); err == nil {
		t.Errorf("the refused write created %s", filepath.Dir(target))
	}

	// Approved, the write goes where the link points, like an open would.
	ctx := tool.WithApprovedPaths(context.Background(), []string{target})
	check(t, runCtx(ctx, t, NewWrite(), w.env, WriteInput{FilePath: "out.log", Content: "ok\n"}), w.ws, false, "Created $DIR/out.log")
	unchanged(t, target, "ok\n", false)

	// A dangling link to a new file inside the workspace is fine.
	w.symlink(t, "real.log", "alias.log")
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: "alias.log", Content: "x\n"}), w.ws, false, "Created $DIR/alias.log")
	unchanged(t, filepath.Join(w.ws, "real.log"), "x\n", false)
	if fi, err := os.Lstat(filepath.Join(w.ws, "alias.log")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("alias.log is no longer a symlink: %v %v", fi, err)
	}
}

// TestGuardProtectedAndHardLinks: writes to protected files and to files
// with several hard links are refused unless approved; reads are not.
func TestGuardProtectedAndHardLinks(t *testing.T) {
	w := newGuardWorld(t)
	writeFiles(t, w.ws, map[string]string{".git/config": "[core]\n"})
	writeFiles(t, w.out, map[string]string{"hardsrc": "shared\n"})
	hard := filepath.Join(w.ws, "hard.txt")
	if err := os.Link(filepath.Join(w.out, "hardsrc"), hard); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(w.ws, ".git", "config")

	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: ".git/config"}), w.ws, false, "[core]")
	check(t, run(t, NewEdit(), w.env, EditInput{FilePath: ".git/config", OldString: "[core]", NewString: "[core]\n\thooksPath = /tmp/x"}), w.ws, true, "Refused to edit", "is protected (inside a .git directory")
	unchanged(t, cfg, "[core]\n", false)
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: ".git/hooks/pre-commit", Content: "#!/bin/sh\n"}), w.ws, true, "Refused to write", "is protected")
	unchanged(t, filepath.Join(w.ws, ".git", "hooks", "pre-commit"), "", true)
	ctx := tool.WithApprovedPaths(context.Background(), []string{cfg})
	check(t, runCtx(ctx, t, NewEdit(), w.env, EditInput{FilePath: ".git/config", OldString: "[core]", NewString: "[core]\n\tbare = false"}), w.ws, false, "has been updated")

	check(t, run(t, NewRead(), w.env, ReadInput{FilePath: "hard.txt"}), w.ws, false, "shared")
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: "hard.txt", Content: "pwned\n"}), w.ws, true, "Refused to write", "has 2 hard links")
	unchanged(t, filepath.Join(w.out, "hardsrc"), "shared\n", false)
}

// TestGuardSearchTools: LS, Glob and Grep re-check the directories they
// walk and (Grep) judge every file they read.
func TestGuardSearchTools(t *testing.T) {
	w := newGuardWorld(t)
	writeFiles(t, w.out, map[string]string{"passwd": "root needle\n", "id_rsa": "KEY needle\n"})
	writeFiles(t, w.ws, map[string]string{"a.txt": "needle\n", ".env": "TOKEN=needle\n", "deploy.pem": "PEM needle\n", "sub/b.txt": "x\n"})
	w.symlink(t, w.out, "linkdir")
	w.symlink(t, filepath.Join(w.out, "passwd"), "linkfile")
	// A secret under an innocent name: another name of the key.
	if err := os.Link(filepath.Join(w.out, "id_rsa"), filepath.Join(w.ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}

	check(t, run(t, NewLS(), w.env, LSInput{Path: "linkdir"}), w.ws, true, "Refused to list $DIR/linkdir", "outside the workspace")
	check(t, run(t, NewLS(), w.env, LSInput{Path: w.out}), w.ws, true, "Refused to list")
	check(t, run(t, NewLS(), w.env, LSInput{Path: "."}), w.ws, false, "- linkdir\n", "- sub/\n")

	check(t, run(t, NewGlob(), w.env, GlobInput{Pattern: "*", Path: "linkdir"}), w.ws, true, "Refused to search $DIR/linkdir")
	check(t, run(t, NewGlob(), w.env, GlobInput{Pattern: "../out/*"}), w.ws, true, "Refused to search "+w.out)
	check(t, run(t, NewGlob(), w.env, GlobInput{Pattern: w.out + "/*"}), w.ws, true, "Refused to search "+w.out)
	check(t, run(t, NewGlob(), w.env, GlobInput{Pattern: "linkdir/*"}), w.ws, true, "Refused to search $DIR/linkdir")
	res := run(t, NewGlob(), w.env, GlobInput{Pattern: "**/*"})
	check(t, res, w.ws, false, "a.txt", "b.txt")
	if strings.Contains(res.Content, "passwd") || strings.Contains(res.Content, "link") {
		t.Errorf("Glob listed what a symbolic link leads to, or the link:\n%s", res.Content)
	}

	check(t, run(t, NewGrep(), w.env, GrepInput{Pattern: "needle", Path: "linkdir"}), w.ws, true, "Refused to search $DIR/linkdir")
	check(t, run(t, NewGrep(), w.env, GrepInput{Pattern: "needle", Path: "linkdir/passwd"}), w.ws, true, "Refused to search $DIR/linkdir/passwd")
	check(t, run(t, NewGrep(), w.env, GrepInput{Pattern: "needle", Path: "linkfile"}), w.ws, true, "Refused to search $DIR/linkfile")
	// The walk: .env is hidden (ripgrep leaves it out); deploy.pem and the
	// hard link are refused and the model is told so; the symbolic links
	// are not followed; a.txt is searched.
	res = run(t, NewGrep(), w.env, GrepInput{Pattern: "needle", OutputMode: "content"})
	check(t, res, w.ws, false, "$DIR/a.txt:1:needle", "2 files were not searched", "Give one as path")
	for _, leak := range []string{"TOKEN", "PEM", "KEY", "root"} {
		if strings.Contains(res.Content, leak) {
			t.Errorf("Grep showed %s:\n%s", leak, res.Content)
		}
	}
	// Asked for by a glob, .env is refused too.
	check(t, run(t, NewGrep(), w.env, GrepInput{Pattern: "needle", Glob: ".env", OutputMode: "content"}), w.ws, false, "No matches found", "1 file was not searched", ".env")
	ctx := tool.WithApprovedPaths(context.Background(), []string{filepath.Join(w.ws, ".env")})
	check(t, runCtx(ctx, t, NewGrep(), w.env, GrepInput{Pattern: "needle", Path: ".env", OutputMode: "content"}), w.ws, false, "TOKEN=needle")
	// Named, the hard link is read as Read reads it: the permission
	// check judged that name.
	check(t, run(t, NewGrep(), w.env, GrepInput{Pattern: "needle", Path: "notes.txt", OutputMode: "content"}), w.ws, false, "KEY needle")
}

// TestGuardSwappedWhileSearching: a file replaced between the listing and
// the read (by a symbolic link or a hard link to a secret outside, or by
// another file moved there) is skipped, and Grep says so. A file written
// anew in its place may reuse its inode and be read: it is an ordinary file
// of the workspace, as if written before the search.
func TestGuardSwappedWhileSearching(t *testing.T) {
	for _, tc := range []struct {
		name string
		swap func(t *testing.T, w *guardWorld, p string)
	}{
		{"symbolic link", func(t *testing.T, w *guardWorld, p string) {
			if err := os.Symlink(filepath.Join(w.out, "secret.txt"), p); err != nil {
				t.Fatal(err)
			}
		}},
		{"hard link", func(t *testing.T, w *guardWorld, p string) {
			if err := os.Link(filepath.Join(w.out, "secret.txt"), p); err != nil {
				t.Fatal(err)
			}
		}},
		{"other file moved there", func(t *testing.T, w *guardWorld, p string) {
			if err := os.Rename(filepath.Join(w.ws, ".stash", "s.txt"), p); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newGuardWorld(t)
			writeFiles(t, w.out, map[string]string{"secret.txt": "SECRET needle\n"})
			writeFiles(t, w.ws, map[string]string{"a.txt": "needle\n", "b.txt": "plain needle\n", ".stash/s.txt": "SECRET needle\n"})
			beforeOpen = func(rel string) {
				if rel != "b.txt" {
					return
				}
				p := filepath.Join(w.ws, rel)
				if err := os.Remove(p); err != nil {
					t.Error(err)
				}
				tc.swap(t, w, p)
			}
			defer func() { beforeOpen = nil }()
			res := run(t, NewGrep(), w.env, GrepInput{Pattern: "needle", OutputMode: "content"})
			check(t, res, w.ws, false, "$DIR/a.txt:1:needle", "1 file changed between the listing and the read")
			if strings.Contains(res.Content, "SECRET") {
				t.Errorf("Grep read the swapped file:\n%s", res.Content)
			}
		})
	}
}

// TestGuardFIFO: a FIFO where a file was expected must not hang a guarded
// read (the open is non-blocking, then refused as not a regular file).
func TestGuardFIFO(t *testing.T) {
	w := newGuardWorld(t)
	fifo := filepath.Join(w.ws, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := readChecked(context.Background(), w.env, fifo)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("readChecked(FIFO) = %v, want a not-a-regular-file error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("readChecked blocked on a FIFO")
	}
	check(t, run(t, NewWrite(), w.env, WriteInput{FilePath: "pipe", Content: "x"}), w.ws, true, "Refused to write", "named pipe")
}

// recordingGuard records what the tools ask and answers with its verdict.
// It names files and resolves paths as pathguard does, unless told to fail.
type recordingGuard struct {
	mu      sync.Mutex
	calls   []recheckCall
	verdict error
	// realPathErr and resolveErr, when set, are what RealPath and
	// ResolvePath return.
	realPathErr, resolveErr error
}

func (g *recordingGuard) RealPath(f *os.File) (string, error) {
	if g.realPathErr != nil {
		return "", g.realPathErr
	}
	return pathguard.RealPath(f)
}

func (g *recordingGuard) ResolvePath(p string) (string, error) {
	if g.resolveErr != nil {
		return "", g.resolveErr
	}
	return pathguard.ResolvePath(p)
}

type recheckCall struct {
	Path     string
	Write    bool
	Approved []string
}

func (g *recordingGuard) Recheck(p string, write bool, approved []string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, recheckCall{p, write, approved})
	return g.verdict
}

// TestGuardCalls checks what the tools pass to the guard: the path the
// kernel reports (a symlink resolved), the write flag and the approved
// paths from the context; and that a refusal stops every tool.
func TestGuardCalls(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"real.txt": "one\n"})
	if err := os.Symlink("real.txt", filepath.Join(env.Dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(env.Dir, "real.txt")
	g := &recordingGuard{}
	env.Guard = g
	ctx := tool.WithApprovedPaths(context.Background(), []string{"/approved"})

	check(t, runCtx(ctx, t, NewRead(), env, ReadInput{FilePath: "link.txt"}), env.Dir, false, "one")
	check(t, runCtx(ctx, t, NewEdit(), env, EditInput{FilePath: "link.txt", OldString: "one", NewString: "two"}), env.Dir, false, "has been updated")
	want := []recheckCall{
		{real, false, []string{"/approved"}}, // Read
		{real, true, []string{"/approved"}},  // Edit: the resolved path, before the open
		{real, true, []string{"/approved"}},  // Edit: what was opened
	}
	if d := cmp.Diff(want, g.calls); d != "" {
		t.Errorf("Recheck calls mismatch (-want +got):\n%s", d)
	}
	unchanged(t, real, "two\n", false)

	g.verdict = errors.New("refused for safety: test says no")
	for _, tc := range []struct {
		tl    tool.Tool
		input any
		want  string
	}{
		{NewRead(), ReadInput{FilePath: "real.txt"}, "Refused to read"},
		{NewWrite(), WriteInput{FilePath: "real.txt", Content: "three"}, "Refused to write"},
		{NewWrite(), WriteInput{FilePath: "new.txt", Content: "three"}, "Refused to write"},
		{NewEdit(), EditInput{FilePath: "real.txt", OldString: "two", NewString: "three"}, "Refused to edit"},
		{NewEdit(), EditInput{FilePath: "new2.txt", NewString: "three"}, "Refused to create"},
		{NewLS(), LSInput{Path: "."}, "Refused to list"},
		{NewGlob(), GlobInput{Pattern: "*"}, "Refused to search"},
		{NewGrep(), GrepInput{Pattern: "two"}, "Refused to search"},
	} {
		check(t, run(t, tc.tl, env, tc.input), env.Dir, true, tc.want, "test says no")
	}
	unchanged(t, real, "two\n", false)
	unchanged(t, filepath.Join(env.Dir, "new.txt"), "", true)
	unchanged(t, filepath.Join(env.Dir, "new2.txt"), "", true)
}

// TestGuardNamesWhatToolsOpen: the tools take the opened file's real path
// and a write's resolved path from the guard (no path code of their own),
// and refuse the file when the guard cannot tell.
func TestGuardNamesWhatToolsOpen(t *testing.T) {
	tests := []struct {
		name                    string
		realPathErr, resolveErr error
		tl                      tool.Tool
		input                   any
		want                    []string
	}{
		{name: "read, no real path", realPathErr: errors.New("no /proc here"), tl: NewRead(), input: ReadInput{FilePath: "a.txt"},
			want: []string{"Refused to read", "cannot tell which file was really opened", "no /proc here"}},
		{name: "list, no real path", realPathErr: errors.New("no /proc here"), tl: NewLS(), input: LSInput{Path: "."},
			want: []string{"Refused to list", "cannot tell which file was really opened"}},
		{name: "write, no real path", realPathErr: errors.New("no /proc here"), tl: NewWrite(), input: WriteInput{FilePath: "a.txt", Content: "x"},
			want: []string{"Refused to write", "cannot tell which file was really opened"}},
		{name: "write, unresolvable", resolveErr: errors.New("a link loop"), tl: NewWrite(), input: WriteInput{FilePath: "a.txt", Content: "x"},
			want: []string{"Refused to write", "cannot be resolved safely", "a link loop"}},
		{name: "edit, unresolvable", resolveErr: errors.New("a link loop"), tl: NewEdit(), input: EditInput{FilePath: "a.txt", OldString: "one", NewString: "two"},
			want: []string{"Refused to edit", "cannot be resolved safely"}},
		{name: "create, unresolvable", resolveErr: errors.New("a link loop"), tl: NewWrite(), input: WriteInput{FilePath: "new.txt", Content: "x"},
			want: []string{"Refused to write", "cannot be resolved safely"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			writeFiles(t, env.Dir, map[string]string{"a.txt": "one\n"})
			env.Guard = &recordingGuard{realPathErr: tt.realPathErr, resolveErr: tt.resolveErr}
			// Edit and Write want the file read first: unguarded.
			check(t, run(t, NewRead(), &tool.Env{Dir: env.Dir, Files: env.Files}, ReadInput{FilePath: "a.txt"}), env.Dir, false, "one")
			check(t, run(t, tt.tl, env, tt.input), env.Dir, true, tt.want...)
			unchanged(t, filepath.Join(env.Dir, "a.txt"), "one\n", false)
			unchanged(t, filepath.Join(env.Dir, "new.txt"), "", true)
		})
	}
}

// TestGuardKeepsBehaviour runs the same session with and without a guard
// that allows it all: the results must be the same.
func TestGuardKeepsBehaviour(t *testing.T) {
	steps := []struct {
		tl    tool.Tool
		input any
	}{
		{NewWrite(), WriteInput{FilePath: "dir/a.go", Content: "package a\n\nfunc A() {}\n"}},
		{NewWrite(), WriteInput{FilePath: "dir/a.go", Content: "package a\n"}},
		{NewRead(), ReadInput{FilePath: "dir/a.go"}},
		{NewEdit(), EditInput{FilePath: "dir/a.go", OldString: "package a", NewString: "package b"}},
		{NewEdit(), EditInput{FilePath: "dir/b.go", NewString: "package b\n"}},
		{NewEdit(), EditInput{FilePath: "dir/b.go", OldString: "nothere", NewString: "x"}},
		{NewEdit(), EditInput{FilePath: "missing.go", OldString: "x", NewString: "y"}},
		{NewWrite(), WriteInput{FilePath: "dir", Content: "x"}},
		{NewRead(), ReadInput{FilePath: "dir"}},
		{NewRead(), ReadInput{FilePath: "nothere.go"}},
		{NewLS(), LSInput{Path: "."}},
		{NewGlob(), GlobInput{Pattern: "**/a.go"}}, // one hit: mtime order is timing-dependent
		{NewGrep(), GrepInput{Pattern: "package", OutputMode: "content"}},
		{NewGrep(), GrepInput{Pattern: "package", Path: "dir/b.go"}},
	}
	var outs [2][]tool.Result
	for i, guarded := range []bool{false, true} {
		env := newEnv(t)
		if guarded {
			g, err := pathguard.New(env.Dir, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			env.Guard = g
		}
		for _, s := range steps {
			res := run(t, s.tl, env, s.input)
			res.Content = strings.ReplaceAll(res.Content, env.Dir, "$DIR")
			outs[i] = append(outs[i], res)
		}
	}
	if d := cmp.Diff(outs[0], outs[1]); d != "" {
		t.Errorf("guarded session differs (-unguarded +guarded):\n%s", d)
	}
}

// pathguard's Guard judges walks itself (tool.WalkGuard).
var _ tool.WalkGuard = (*pathguard.Guard)(nil)

// TestGuardWalkWithoutWalkGuard: a guard of one's own, which only knows
// Recheck, is asked about every entry a walk keeps.
func TestGuardWalkWithoutWalkGuard(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"a.txt": "needle\n", "sub/b.txt": "needle\n"})
	g := &recordingGuard{}
	env.Guard = g
	check(t, run(t, NewGrep(), env, GrepInput{Pattern: "needle"}), env.Dir, false, "Found 2 files")
	var got []string
	for _, c := range g.calls {
		got = append(got, c.Path)
	}
	slices.Sort(got)
	want := []string{env.Dir, filepath.Join(env.Dir, "a.txt"), filepath.Join(env.Dir, "sub"), filepath.Join(env.Dir, "sub", "b.txt")}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Recheck calls (-want +got):\n%s", d)
	}
}
