//go:build unix

package pathguard

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecheck(t *testing.T) {
	fx := newFixture(t)
	ws, home, out := fx.ws, fx.home, fx.out
	j := filepath.Join
	tests := []struct {
		name     string
		real     string
		write    bool
		approved []string
		want     string // "" passes; otherwise a substring of the refusal
	}{
		{"inside read", j(ws, "src/main.go"), false, nil, ""},
		{"inside write", j(ws, "src/main.go"), true, nil, ""},
		{"inside new file", j(ws, "src/new.go"), true, nil, ""},
		{"additional dir", j(fx.extra, "notes.txt"), true, nil, ""},
		{"outside read", j(out, "passwd"), false, nil, "is outside the workspace"},
		{"outside write", j(out, "passwd"), true, nil, "is outside the workspace"},
		{"prefix sibling", j(fx.evil, "x"), false, nil, "is outside the workspace"},
		{"approved exactly, read", j(out, "passwd"), false, []string{j(out, "passwd")}, ""},
		{"approved exactly, write", j(out, "passwd"), true, []string{j(out, "passwd")}, ""},
		{"approved uncleaned", j(out, "passwd"), true, []string{out + "//x/../passwd"}, ""},
		{"read below approved dir", j(out, "passwd"), false, []string{out}, ""},
		{"write below approved dir", j(out, "passwd"), true, []string{out}, "is outside the workspace"},
		{"approved other file", j(out, "passwd"), false, []string{j(out, "secret.txt")}, "is outside the workspace"},
		{"approved relative is ignored", j(out, "passwd"), false, []string{"passwd", ""}, "is outside the workspace"},
		{"secret below approved dir", j(home, ".ssh/id_ed25519"), false, []string{home}, "may hold secrets"},
		{"secret below approved secret dir", j(home, ".ssh/id_ed25519"), false, []string{j(home, ".ssh")}, ""},
		{"secret inside read", j(ws, ".env"), false, nil, "may hold secrets"},
		{"secret inside read approved", j(ws, ".env"), false, []string{j(ws, ".env")}, ""},
		{"secret inside write", j(ws, ".env"), true, nil, ""},
		{"protected read", j(ws, ".git/config"), false, nil, ""},
		{"protected write", j(ws, ".git/config"), true, nil, "is protected (inside a .git directory"},
		{"protected write approved", j(ws, ".git/config"), true, []string{j(ws, ".git/config")}, ""},
		{"bare layout write", j(ws, "bare/config"), true, nil, "laid out as a git directory"},
		{"hard link read", j(ws, "hard"), false, nil, ""},
		{"hard link write", j(ws, "hard"), true, nil, "has 2 hard links"},
		{"hard link write approved", j(ws, "hard"), true, []string{j(ws, "hard")}, ""},
		{"FIFO write", j(ws, "fifo"), true, nil, "named pipe"},
		// A real path is canonical; a symlinked one is judged resolved too.
		{"symlink to outside", j(ws, "link-passwd"), false, nil, "(resolved: " + j(out, "passwd") + ")"},
		{"outside link into workspace", j(out, "link-in"), false, nil, "is outside the workspace"},
		{"dotdot", ws + "/../.bashrc", true, nil, "is outside the workspace"},
		{"loop", j(ws, "loop1"), false, nil, "could not be resolved safely"},
		{"relative", "src/main.go", false, nil, "no usable path"},
		{"empty", "", false, nil, "no usable path"},
		{"NUL", j(ws, "a\x00b"), false, nil, "no usable path"},
		{"pipe", "pipe:[1234]", false, nil, "no usable path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fx.g.Recheck(tt.real, tt.write, tt.approved)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Recheck(%q, %v, %q) = %v, want nil", tt.real, tt.write, tt.approved, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Recheck(%q, %v, %q) = nil, want a refusal containing %q", tt.real, tt.write, tt.approved, tt.want)
			}
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "refused for safety") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Recheck(%q, %v, %q) = %v, want ErrRefused containing %q", tt.real, tt.write, tt.approved, err, tt.want)
			}
		})
	}
}

// TestRecheckSwappedSymlink is the TOCTOU case of the corpus: the chain
// inspected a regular file in the workspace, then, before the tool opened
// it, it became a symlink to ~/.bashrc. The re-check of what was really
// opened refuses.
func TestRecheckSwappedSymlink(t *testing.T) {
	fx := newFixture(t)
	p := filepath.Join(fx.ws, "src", "main.go")
	if info := fx.g.Inspect(p, ""); !info.Inside || info.Protected != "" {
		t.Fatalf("before the swap: %+v, want inside and unprotected", info)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	bashrc := filepath.Join(fx.home, ".bashrc")
	if err := os.Symlink(bashrc, p); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0) // what a naive tool does
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	real, err := RealPath(f)
	if err != nil {
		t.Fatal(err)
	}
	if real != bashrc {
		t.Errorf("RealPath = %q, want %q", real, bashrc)
	}
	err = fx.g.Recheck(real, true, nil)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Recheck = %v, want a refusal", err)
	}
	var re *RefusedError
	if !errors.As(err, &re) || re.Path != bashrc || !re.Write || !strings.Contains(re.Reason, "outside the workspace") {
		t.Errorf("refusal = %#v", re)
	}
	// Approved for this call (a person said yes to ~/.bashrc): it passes.
	if err := fx.g.Recheck(real, true, []string{bashrc}); err != nil {
		t.Errorf("approved: %v", err)
	}
}

func TestRealPath(t *testing.T) {
	fx := newFixture(t)
	open := func(p string) *os.File {
		t.Helper()
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	tests := []struct {
		name string
		f    *os.File
		want string
	}{
		{"plain", open(filepath.Join(fx.ws, "src/main.go")), filepath.Join(fx.ws, "src/main.go")},
		{"through a symlinked directory", open(filepath.Join(fx.ws, "linkdir/passwd")), filepath.Join(fx.out, "passwd")},
		{"through a chain", open(filepath.Join(fx.ws, "chain1")), filepath.Join(fx.ws, "src/main.go")},
		{"a directory", open(filepath.Join(fx.ws, "up")), fx.home},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := RealPath(tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("RealPath = %q, want %q", got, tt.want)
			}
		})
	}

	if _, err := RealPath(nil); err == nil {
		t.Error("RealPath(nil): no error")
	}
	if runtime.GOOS != "linux" {
		return
	}
	// Deleted after the open: the kernel says "(deleted)".
	gone := filepath.Join(fx.ws, "gone.txt")
	if err := os.WriteFile(gone, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f := open(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	if p, err := RealPath(f); err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("RealPath of a deleted file = %q, %v; want an error", p, err)
	}
	// A pipe has no path.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if p, err := RealPath(r); err == nil || !strings.Contains(err.Error(), "not a path") {
		t.Errorf("RealPath of a pipe = %q, %v; want an error", p, err)
	}
}

// TestProcSelfCwd is the corpus's /proc/self/cwd/../.bashrc: `..` after a
// magic link means the parent of the real working directory to the kernel,
// which a lexical cleaner does not see. Not parallel: it changes directory.
func TestProcSelfCwd(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	fx := newFixture(t)
	t.Chdir(fx.ws)
	info := fx.g.Inspect("/proc/self/cwd/../.bashrc", "")
	want := Info{
		Input:     "/proc/self/cwd/../.bashrc",
		Abs:       "/proc/self/.bashrc",
		Resolved:  info.Resolved, // /proc/<pid>/.bashrc
		Protected: "shell start-up file",
		Special:   "/proc/self",
		Err:       "the kernel reads it as " + filepath.Join(fx.home, ".bashrc"),
	}
	if d := diffInfo(want, info); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
	if !strings.HasPrefix(info.Resolved, "/proc/") {
		t.Errorf("Resolved = %q, want under /proc", info.Resolved)
	}
	// Without `..`, the magic link resolves into the workspace, but a
	// path through /proc is never taken as inside.
	info = fx.g.Inspect("/proc/self/cwd/src/main.go", "")
	want = Info{Input: "/proc/self/cwd/src/main.go", Abs: "/proc/self/cwd/src/main.go", Resolved: filepath.Join(fx.ws, "src/main.go"), HardLinks: 1, Special: "/proc/self"}
	if d := diffInfo(want, info); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

func TestNew(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(tmp, "ws")
	real := filepath.Join(tmp, "real")
	for _, d := range []string{real, filepath.Join(tmp, "home", "shared")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, ws); err != nil {
		t.Fatal(err)
	}
	g, err := New(ws, []string{"lib", "~/shared", filepath.Join(tmp, "later", "x"), "", ws}, filepath.Join(tmp, "home"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{real, filepath.Join(real, "lib"), filepath.Join(tmp, "home", "shared"), filepath.Join(tmp, "later", "x")}
	if d := cmp.Diff(want, g.Roots()); d != "" {
		t.Errorf("Roots() mismatch (-want +got):\n%s", d)
	}
	// The workspace was given through a symlink: paths through it and
	// through its real name are both inside.
	for _, p := range []string{filepath.Join(ws, "a"), filepath.Join(real, "a")} {
		if info := g.Inspect(p, ""); !info.Inside || info.Root != real {
			t.Errorf("Inspect(%q) = %+v, want inside %s", p, info, real)
		}
	}
	if runtime.GOOS == "linux" && g.roots[0].fold {
		t.Errorf("a Linux temporary directory was probed as case-insensitive")
	}

	for _, bad := range []struct{ ws, want string }{
		{"", "workspace is empty"},
		{filepath.Join(tmp, "missing"), "resolve workspace"},
	} {
		if _, err := New(bad.ws, nil, ""); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("New(%q) error = %v, want %q", bad.ws, err, bad.want)
		}
	}
	if _, err := New(ws, []string{"a\x00b"}, ""); err == nil {
		t.Error("New with a NUL in an additional directory: no error")
	}
	// No home: "~" cannot be expanded, and says so.
	g, err = New(ws, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if info := g.Inspect("~/.bashrc", ""); info.Inside || !strings.Contains(info.Err, "no home directory") {
		t.Errorf("Inspect(~/.bashrc) without home = %+v", info)
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		p, dir string
		fold   bool
		want   bool
	}{
		{"/ws", "/ws", false, true},
		{"/ws/a", "/ws", false, true},
		{"/ws-evil/a", "/ws", false, false},
		{"/wsx", "/ws", false, false},
		{"/", "/ws", false, false},
		{"/anything", "/", false, true},
		{"/WS/a", "/ws", false, false},
		{"/WS/a", "/ws", true, true},
		{"/WS-evil/a", "/ws", true, false},
	}
	for _, tt := range tests {
		if got := within(tt.p, tt.dir, tt.fold); got != tt.want {
			t.Errorf("within(%q, %q, %v) = %v, want %v", tt.p, tt.dir, tt.fold, got, tt.want)
		}
	}
}

func TestNormName(t *testing.T) {
	for in, want := range map[string]string{
		".git": ".git", ".GIT": ".git", ".git.": ".git", ".git ": ".git", ".git. .": ".git",
		".git::$INDEX_ALLOCATION": ".git", ".": ".", "..": "..", "...": "", ".gitignore": ".gitignore",
	} {
		if got := normName(in); got != want {
			t.Errorf("normName(%q) = %q, want %q", in, got, want)
		}
	}
}
