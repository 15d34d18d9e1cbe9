package contextinfo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var testNow = time.Date(2026, 3, 4, 23, 59, 0, 0, time.UTC)

// needGit skips the test when git is not installed, but fails it under
// CI=true, where git is always there and a skip would hide the tests.
func needGit(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the git tests use shell scripts and /dev/null")
	}
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true: the git tests must run)")
		}
		t.Skip("git not installed")
	}
}

// runGit runs git for test setup, isolated from the user's and the
// system's configuration.
func runGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	argv := append([]string{
		"-c", "user.name=Test", "-c", "user.email=test@example.com",
		"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false",
	}, args...)
	cmd := exec.Command("git", argv...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=")
	cmd.Env = filterEnv(cmd.Env)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// filterEnv drops empty GIT_* assignments (an empty GIT_DIR is an error).
func filterEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") && v == "" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// tempDir is t.TempDir with symlinks resolved, so paths compare equal to
// what git reports.
func tempDir(t testing.TB) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newRepo makes a repository with one commit of a.txt and b.txt.
func newRepo(t testing.TB) string {
	t.Helper()
	dir := tempDir(t)
	runGit(t, dir, "init", "-q")
	write(t, filepath.Join(dir, "a.txt"), "a\n")
	write(t, filepath.Join(dir, "b.txt"), "b\n")
	runGit(t, dir, "add", ".")
	runGit(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func header(dir string) string {
	return fmt.Sprintf("<env>\nWorking directory: %s\nPlatform: %s\nDate: 2026-03-04\n", dir, platform())
}

func TestEnvironmentOutsideRepo(t *testing.T) {
	dir := tempDir(t)
	if root, ok := repoRoot(dir); ok {
		t.Skipf("temporary directory is inside a repository at %s", root)
	}
	got := Environment(context.Background(), dir, testNow)
	want := header(dir) + "Git repository: no\n</env>"
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Environment (-want +got):\n%s", d)
	}
}

func TestEnvironmentRepo(t *testing.T) {
	needGit(t)
	tests := []struct {
		name  string
		setup func(t *testing.T) (dir string, want string)
	}{
		{"clean", func(t *testing.T) (string, string) {
			r := newRepo(t)
			return r, "Branch: main\nStatus: clean\n"
		}},
		{"branch with staged, modified and untracked files, from a subdirectory", func(t *testing.T) (string, string) {
			r := newRepo(t)
			runGit(t, r, "checkout", "-q", "-b", "feature/x")
			write(t, filepath.Join(r, "a.txt"), "changed\n")         // modified
			write(t, filepath.Join(r, "b.txt"), "staged\n")          // staged, then
			runGit(t, r, "add", "b.txt")                             //
			write(t, filepath.Join(r, "b.txt"), "staged and more\n") // modified again
			write(t, filepath.Join(r, "sub", "new.go"), "package x\n")
			write(t, filepath.Join(r, "ünï.txt"), "x\n")
			return filepath.Join(r, "sub"), "Branch: feature/x\n" +
				"Status: 1 staged, 2 modified, 2 untracked\n" +
				"Changes:\n" +
				"   M a.txt\n" +
				"  MM b.txt\n" +
				"  ?? sub/\n" +
				"  ?? ünï.txt\n"
		}},
		{"more than ten changes", func(t *testing.T) (string, string) {
			r := newRepo(t)
			var list strings.Builder
			for i := range 12 {
				write(t, filepath.Join(r, fmt.Sprintf("f%02d", i)), "x")
				if i < 10 {
					fmt.Fprintf(&list, "  ?? f%02d\n", i)
				}
			}
			return r, "Branch: main\nStatus: 0 staged, 0 modified, 12 untracked\nChanges:\n" + list.String() + "  … and 2 more\n"
		}},
		{"no commits yet", func(t *testing.T) (string, string) {
			r := tempDir(t)
			runGit(t, r, "init", "-q")
			write(t, filepath.Join(r, "x"), "x")
			return r, "Branch: main (no commits yet)\nStatus: 0 staged, 0 modified, 1 untracked\nChanges:\n  ?? x\n"
		}},
		{"detached", func(t *testing.T) (string, string) {
			r := newRepo(t)
			runGit(t, r, "checkout", "-q", "--detach")
			sha := runGit(t, r, "rev-parse", "--short", "HEAD")
			return r, "Branch: detached at " + sha + "\nStatus: clean\n"
		}},
		{"ahead and behind the upstream", func(t *testing.T) (string, string) {
			origin := newRepo(t)
			clone := filepath.Join(tempDir(t), "clone")
			runGit(t, origin, "clone", "-q", origin, clone)
			write(t, filepath.Join(origin, "c.txt"), "c")
			runGit(t, origin, "add", ".")
			runGit(t, origin, "commit", "-q", "-m", "upstream")
			write(t, filepath.Join(clone, "d.txt"), "d")
			runGit(t, clone, "add", ".")
			runGit(t, clone, "commit", "-q", "-m", "local")
			runGit(t, clone, "fetch", "-q")
			return clone, "Branch: main\nUpstream: origin/main (ahead 1, behind 1)\nStatus: clean\n"
		}},
		{"conflict", func(t *testing.T) (string, string) {
			r := newRepo(t)
			runGit(t, r, "checkout", "-q", "-b", "other")
			write(t, filepath.Join(r, "a.txt"), "other\n")
			runGit(t, r, "commit", "-q", "-am", "other")
			runGit(t, r, "checkout", "-q", "main")
			write(t, filepath.Join(r, "a.txt"), "main\n")
			runGit(t, r, "commit", "-q", "-am", "main")
			cmd := exec.Command("git", "-c", "user.name=T", "-c", "user.email=t@e", "merge", "-q", "other")
			cmd.Dir = r
			_ = cmd.Run() // fails with the conflict, as intended
			return r, "Branch: main\nStatus: 0 staged, 0 modified, 0 untracked, 1 conflicted\nChanges:\n  UU a.txt\n"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, rest := tt.setup(t)
			root, _ := repoRoot(dir)
			want := header(dir) + "Git repository: yes\nRepository root: " + root + "\n" + rest + "</env>"
			got := Environment(context.Background(), dir, testNow)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Environment (-want +got):\n%s", d)
			}
		})
	}
}

func TestEnvironmentGitNotAvailable(t *testing.T) {
	needGit(t)
	tests := []struct {
		name string
		prep func(t *testing.T) (context.Context, string)
	}{
		{"git not on PATH", func(t *testing.T) (context.Context, string) {
			r := newRepo(t)
			t.Setenv("PATH", tempDir(t))
			return context.Background(), r
		}},
		{"context already done", func(t *testing.T) (context.Context, string) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, newRepo(t)
		}},
		{"git hangs past the deadline", func(t *testing.T) (context.Context, string) {
			r := newRepo(t)
			bin := tempDir(t)
			// Not exec: the sleeping child keeps git's stdout open after
			// git is killed, which WaitDelay must cut short.
			write(t, filepath.Join(bin, "git"), "#!/bin/sh\nsleep 5\n")
			if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			t.Cleanup(cancel)
			return ctx, r
		}},
		{"broken repository", func(t *testing.T) (context.Context, string) {
			bad := tempDir(t)
			write(t, filepath.Join(bad, ".git"), "gitdir: /nonexistent\n")
			return context.Background(), bad
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, r := tt.prep(t)
			start := time.Now()
			defer func() {
				if d := time.Since(start); d > time.Second {
					t.Errorf("Environment took %v", d)
				}
			}()
			want := header(r) + "Git repository: yes\nRepository root: " + r + "\nGit: not available\n</env>"
			if d := cmp.Diff(want, Environment(ctx, r, testNow)); d != "" {
				t.Errorf("Environment (-want +got):\n%s", d)
			}
		})
	}
}

// TestEnvironmentRunsNoRepositoryCode sets up every way a repository's own
// config could make `git status` start a program and checks none ran.
func TestEnvironmentRunsNoRepositoryCode(t *testing.T) {
	needGit(t)
	r := newRepo(t)
	marker := filepath.Join(tempDir(t), "ran")
	script := filepath.Join(tempDir(t), "evil.sh")
	write(t, script, "#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r, ".gitattributes"), "*.txt filter=evil\n")
	runGit(t, r, "config", "core.fsmonitor", script)
	runGit(t, r, "config", "filter.evil.clean", script)
	runGit(t, r, "config", "filter.evil.smudge", script)
	runGit(t, r, "config", "filter.evil.required", "true")
	runGit(t, r, "config", "filter.other.process", script)
	hooks := filepath.Join(r, ".git", "hooks")
	for _, h := range []string{"post-index-change", "post-checkout", "pre-commit"} {
		write(t, filepath.Join(hooks, h), "#!/bin/sh\necho hook >> "+marker+"\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Same size, new mtime: git must read the content to compare it, which
	// is when a clean filter would run.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(r, "a.txt"), future, future); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(r, ".git", "index")
	before, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}

	got := Environment(context.Background(), r, testNow)

	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("repository code ran:\n%s", data)
	}
	if !strings.Contains(got, "Status: 0 staged, 0 modified, 1 untracked\nChanges:\n  ?? .gitattributes\n") {
		t.Errorf("unexpected status:\n%s", got)
	}
	after, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) {
		t.Error("the index was rewritten: Environment must not write")
	}
	// The setup is live: plain git would have run the filter.
	runGit(t, r, "status", "--porcelain")
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("control: plain git status did not run the filter, so the test proves nothing")
	}
}

func TestParseStatusHeader(t *testing.T) {
	tests := []struct {
		header string
		want   gitStatus
	}{
		{"main", gitStatus{branch: "main"}},
		{"main...origin/main", gitStatus{branch: "main", upstream: "origin/main"}},
		{"dev...up/dev [ahead 3]", gitStatus{branch: "dev", upstream: "up/dev", ahead: 3}},
		{"dev...up/dev [behind 2]", gitStatus{branch: "dev", upstream: "up/dev", behind: 2}},
		{"dev...up/dev [ahead 1, behind 20]", gitStatus{branch: "dev", upstream: "up/dev", ahead: 1, behind: 20}},
		{"dev...up/dev [gone]", gitStatus{branch: "dev", upstream: "up/dev", gone: true}},
		{"No commits yet on trunk", gitStatus{branch: "trunk", noCommits: true}},
		{"Initial commit on trunk", gitStatus{branch: "trunk", noCommits: true}},
		{"HEAD (no branch)", gitStatus{detached: true}},
	}
	for _, tt := range tests {
		got := parseStatus("## " + tt.header + "\n")
		if d := cmp.Diff(tt.want, *got, cmp.AllowUnexported(gitStatus{})); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.header, d)
		}
	}
}

func TestStatusLines(t *testing.T) {
	tests := []struct {
		status string
		want   string
	}{
		{"## main...o/main [gone]\n", "Branch: main\nUpstream: o/main (gone)\nStatus: clean\n"},
		{"## main...o/main\n", "Branch: main\nUpstream: o/main (up to date)\nStatus: clean\n"},
		{"## HEAD (no branch)\n", "Branch: detached\nStatus: clean\n"},
		{"## x\nA  new\nR  old -> new2\n D gone\nAA both\n!! ignored\n", "Branch: x\nStatus: 2 staged, 1 modified, 0 untracked, 1 conflicted\nChanges:\n  A  new\n  R  old -> new2\n   D gone\n  AA both\n"},
	}
	for _, tt := range tests {
		var b strings.Builder
		parseStatus(tt.status).write(&b)
		if d := cmp.Diff(tt.want, b.String()); d != "" {
			t.Errorf("%q (-want +got):\n%s", tt.status, d)
		}
	}
}

func TestPrettyName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"NAME=x\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n", "Debian GNU/Linux 12 (bookworm)"},
		{"PRETTY_NAME='Alpine Linux v3.20'", "Alpine Linux v3.20"},
		{"PRETTY_NAME=Plain", "Plain"},
		{`PRETTY_NAME="Say \"hi\" \$x"`, `Say "hi" $x`},
		{"NAME=x\n", ""},
		{"PRETTY_NAME=\"a\x1bb\"", "ab"},
	}
	for _, tt := range tests {
		if got := prettyName([]byte(tt.in)); got != tt.want {
			t.Errorf("prettyName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestFilterOverrides(t *testing.T) {
	needGit(t)
	r := newRepo(t)
	global := filepath.Join(tempDir(t), "gitconfig")
	write(t, global, "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n\tprocess = git-lfs filter-process\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	runGit(t, r, "config", "filter.evil.clean", "x")
	runGit(t, r, "config", "filter.evil.smudge", "x")
	runGit(t, r, "config", "filter.a.b.process", "x")
	runGit(t, r, "config", "include.path", "extra")
	write(t, filepath.Join(r, ".git", "extra"), "[filter \"inc\"]\n\tclean = x\n[filter \"lfs\"]\n\tsmudge = evil\n")

	g, err := newGit(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := g.filterOverrides(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, name := range []string{"evil", "a.b", "inc", "lfs"} { // lfs: redefined locally
		for _, v := range []string{"clean=", "smudge=", "process=", "required=false"} {
			want = append(want, "-c", "filter."+name+"."+v)
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("filterOverrides (-want +got):\n%s", d)
	}

	// Only the user's own drivers: nothing to disable.
	r2 := newRepo(t)
	g2, _ := newGit(r2)
	if got, err := g2.filterOverrides(context.Background()); err != nil || got != nil {
		t.Errorf("global-only drivers: %v, %v; want none", got, err)
	}

	// A name -c cannot express: refuse to run status at all.
	runGit(t, r2, "config", "filter.x=y.clean", "x")
	if !strings.Contains(Environment(context.Background(), r2, testNow), "\nGit: not available\n") {
		t.Error("a driver that cannot be disabled did not stop git status")
	}
}
