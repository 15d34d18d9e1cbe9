package gitexclude

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// ignored asks git itself whether path is ignored in the work tree dir.
func ignored(t *testing.T, dir, path string) bool {
	t.Helper()
	cmd := exec.Command("git", "check-ignore", "-q", "--no-index", path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	return cmd.Run() == nil
}

func TestAdd(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is not installed (CI=true: the git tests must run)")
		}
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "README")
	git(t, repo, "commit", "-qm", "first")
	wt := filepath.Join(t.TempDir(), "wt")
	git(t, repo, "worktree", "add", "-q", wt)
	outside := t.TempDir()

	tests := []struct {
		name    string
		tree    string // where git is asked
		path    string
		dir     bool
		added   bool
		line    string // the line in the common info/exclude
		ignored bool
	}{
		{name: "a data directory in a repository", tree: repo, path: filepath.Join(repo, ".nova", "projects"), dir: true,
			added: true, line: "/.nova/projects/", ignored: true},
		{name: "added once", tree: repo, path: filepath.Join(repo, ".nova", "projects"), dir: true,
			line: "/.nova/projects/", ignored: true},
		{name: "a file not created yet", tree: repo, path: filepath.Join(repo, "home", ".novacode", "settings.json"),
			added: true, line: "/home/.novacode/settings.json", ignored: true},
		{name: "wildcards in the name", tree: repo, path: filepath.Join(repo, "a[1]*?.json"),
			added: true, line: `/a\[1]\*\?.json`, ignored: true},
		{name: "a linked worktree: the repository's common exclude", tree: wt, path: filepath.Join(wt, "state", "s.jsonl"),
			added: true, line: "/state/s.jsonl", ignored: true},
		{name: "inside the git directory", tree: repo, path: filepath.Join(repo, ".git", "x")},
		{name: "outside any work tree", tree: outside, path: filepath.Join(outside, "projects"), dir: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			added, err := Add(tc.path, tc.dir)
			if err != nil || added != tc.added {
				t.Fatalf("Add = %v, %v; want %v", added, err, tc.added)
			}
			exclude, _ := os.ReadFile(filepath.Join(repo, ".git", "info", "exclude"))
			if tc.line != "" && strings.Count(string(exclude), "\n"+tc.line+"\n") != 1 {
				t.Fatalf("info/exclude has not exactly one %q:\n%s", tc.line, exclude)
			}
			if tc.dir {
				// git matches a pattern for a directory only to one.
				if err := os.MkdirAll(tc.path, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if tc.ignored && !ignored(t, tc.tree, tc.path) {
				t.Fatalf("git does not ignore %s:\n%s", tc.path, exclude)
			}
		})
	}
	// What was there stays, and nothing else is ignored.
	if ignored(t, repo, filepath.Join(repo, "README")) || ignored(t, repo, filepath.Join(repo, ".nova", "other")) {
		t.Error("more than the named paths is ignored")
	}
	if _, err := os.Stat(filepath.Join(outside, ".git")); !os.IsNotExist(err) {
		t.Error("a repository appeared outside")
	}
}

func TestCommonDirAndGitFile(t *testing.T) {
	base := t.TempDir()
	common := filepath.Join(base, "repo.git")
	own := filepath.Join(common, "worktrees", "w")
	if err := os.MkdirAll(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(base, "w")
	if err := os.MkdirAll(filepath.Join(tree, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, ".git"), []byte("gitdir: ../repo.git/worktrees/w\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, gitDir, ok := workTree(filepath.Join(tree, "sub"))
	got := []string{root, gitDir, commonDir(gitDir)}
	if diff := cmp.Diff([]string{tree, own, common}, got); diff != "" || !ok {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}
