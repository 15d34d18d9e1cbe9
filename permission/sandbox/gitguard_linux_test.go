//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gitRepos is a workspace with every kind of repository git would run
// something from, all with a commit:
//
//	ws/                 the main repository, with a hook
//	ws/lib              a submodule: lib/.git is a file, its git
//	                    directory is ws/.git/modules/lib
//	ws/wt               a linked worktree: wt/.git is a file, its git
//	                    directory ws/.git/worktrees/wt
//	ws/nested           a repository inside the main one
//	ws/linked           a repository whose hooks are a link to
//	                    linked/githooks, in its work tree
//	ws/bare.git         a bare repository
//	ws/evil.sh          what the attacks make git run: it creates mark
type gitRepos struct {
	t                   *testing.T
	ws, tmp, mark, home string
}

func newGitRepos(t *testing.T) *gitRepos {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		unavailable(t, "git is not installed")
	}
	r := &gitRepos{t: t, ws: workspace(t), tmp: workspace(t), home: workspace(t), mark: filepath.Join(outsideDir(t, ""), "ran")}
	up := workspace(t)
	r.git(up, "init", "-q", "-b", "main")
	r.git(up, "commit", "-q", "--allow-empty", "-m", "up")
	r.git(r.ws, "init", "-q", "-b", "main")
	writeFile(t, filepath.Join(r.ws, "f"), "1\n")
	r.git(r.ws, "add", "f")
	r.git(r.ws, "commit", "-qm", "one")
	r.git(r.ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", up, "lib")
	r.git(r.ws, "commit", "-qm", "lib")
	r.git(r.ws, "worktree", "add", "-q", "wt")
	for _, d := range []string{"nested", "linked"} {
		r.git(r.ws, "init", "-q", "-b", "main", d)
		r.git(filepath.Join(r.ws, d), "commit", "-q", "--allow-empty", "-m", d)
	}
	linked := filepath.Join(r.ws, "linked")
	if err := os.Rename(filepath.Join(linked, ".git", "hooks"), filepath.Join(linked, "githooks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../githooks", filepath.Join(linked, ".git", "hooks")); err != nil {
		t.Fatal(err)
	}
	r.git(r.ws, "init", "-q", "--bare", "bare.git")
	// What the user's own config points at in the work tree: a hooks
	// directory (as husky sets), an included config, an fsmonitor
	// script, one included file that does not exist yet.
	r.git(r.ws, "init", "-q", "-b", "main", "refs")
	refs := filepath.Join(r.ws, "refs")
	r.git(refs, "commit", "-q", "--allow-empty", "-m", "refs")
	writeFile(t, filepath.Join(refs, "githooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	if err := os.Chmod(filepath.Join(refs, "githooks", "pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(refs, "shared.gitconfig"), "[user]\n\tname = shared\n")
	writeFile(t, filepath.Join(refs, "tools", "fsmon.sh"), "#!/bin/sh\nexit 1\n")
	if err := os.Chmod(filepath.Join(refs, "tools", "fsmon.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.git(refs, "config", "core.hooksPath", "githooks")
	r.git(refs, "config", "--add", "include.path", "../shared.gitconfig")
	r.git(refs, "config", "--add", "include.path", "../later.gitconfig")
	r.git(refs, "config", "core.fsmonitor", "tools/fsmon.sh")
	writeFile(t, filepath.Join(r.ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n")
	if err := os.Chmod(filepath.Join(r.ws, ".git", "hooks", "pre-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(r.ws, "evil.sh"), "#!/bin/sh\necho \"$0 $*\" >> "+r.mark+"\nexit 1\n")
	if err := os.Chmod(filepath.Join(r.ws, "evil.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return r
}

// git runs git as the user would, outside any sandbox.
func (r *gitRepos) git(dir string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@example.com",
		"GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// userGit is what the user does next, outside the sandbox, in every
// repository of the workspace and in any the attack named: git status
// (core.fsmonitor, and recursing into submodules), a commit (hooks), and
// the alias attacks define. It returns what the attack made git run.
func (r *gitRepos) userGit(extra ...string) string {
	r.t.Helper()
	dirs := append([]string{".", "lib", "wt", "nested", "linked", "refs"}, extra...)
	for _, d := range dirs {
		dir := filepath.Join(r.ws, d)
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		runs := [][]string{{"status", "--porcelain"}, {"commit", "-q", "--allow-empty", "-m", "user"}}
		if slices.Contains(extra, d) {
			runs = append(runs, []string{"st"}) // the alias attacks define
		}
		for _, args := range runs {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@example.com",
				"GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.home)
			_ = cmd.Run() // what matters is what it ran
		}
	}
	data, _ := os.ReadFile(r.mark)
	os.Remove(r.mark)
	return string(data)
}

// gitAttack is a command that plants something in git metadata for the
// user's next git to run; TAG in it names the case in what it runs.
type gitAttack struct {
	name   string
	script string
	extra  []string // more directories where the user runs git
	// control: without a sandbox, the user's git does run it (a case
	// that runs nothing even then only checks the command fails).
	control bool
}

func gitAttacks(ws string) []gitAttack {
	fsmon := `printf '[core]\n\tfsmonitor = ` + ws + `/evil.sh TAG\n'`
	hook := `printf '#!/bin/sh\n` + ws + `/evil.sh TAG\n'`
	evilDir := `mkdir -p E/hooks && ln -sfn $PWD/.git/objects E/objects && ln -sfn $PWD/.git/refs E/refs && ` + fsmon + ` > E/config && ` + hook + ` > E/hooks/pre-commit && chmod +x E/hooks/pre-commit`
	layout := func(dir string) string {
		return strings.ReplaceAll(evilDir, "E", dir) + ` && rm ` + dir + `/objects ` + dir + `/refs && mkdir ` + dir + `/objects ` + dir + `/refs && echo 'ref: refs/heads/main' > ` + dir + `/HEAD`
	}
	return []gitAttack{
		{"commondir", strings.ReplaceAll(evilDir, "E", "evilgit") + ` && echo $PWD/evilgit > .git/commondir`, nil, true},
		{"commondir in a worktree's git dir", strings.ReplaceAll(evilDir, "E", "evilgit") + ` && echo $PWD/evilgit > .git/worktrees/wt/commondir`, nil, true},
		{"config", fsmon + ` >> .git/config`, nil, true},
		{"git config", `git config core.fsmonitor '` + ws + `/evil.sh TAG'`, nil, true},
		{"config replaced", `cp .git/config c && rm -f .git/config && cat c > .git/config && ` + fsmon + ` >> .git/config`, nil, true},
		{"config.worktree", `git config extensions.worktreeConfig true; ` + fsmon + ` > .git/config.worktree`, nil, true},
		{"hook added", hook + ` > .git/hooks/post-commit && chmod +x .git/hooks/post-commit`, nil, true},
		{"hook changed", hook + ` > .git/hooks/pre-commit`, nil, true},
		{"hooks moved aside", `mv .git/hooks .git/hooks-old && mkdir .git/hooks && ` + hook + ` > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, nil, true},
		{".git moved aside", `mv .git .git-old && cp -r .git-old .git && ` + fsmon + ` >> .git/config`, nil, true},
		{"info", `echo '* diff=evil' > .git/info/attributes`, nil, false},
		{"new worktree git dir", `mkdir -p later-wt && ` + layout(".git/worktrees/evil") + ` && echo "gitdir: $PWD/.git/worktrees/evil" > later-wt/.git`, []string{"later-wt"}, true},
		{"submodule config", fsmon + ` >> .git/modules/lib/config`, nil, true},
		{"submodule hook", hook + ` > .git/modules/lib/hooks/post-commit && chmod +x .git/modules/lib/hooks/post-commit`, nil, true},
		{"submodule .git file retargeted", layout("evilgit2") + ` && echo "gitdir: $PWD/evilgit2" > lib/.git`, nil, true},
		{"new submodule git dir", layout(".git/modules/evil") + ` && mkdir -p evilsub && echo "gitdir: ../.git/modules/evil" > evilsub/.git`, []string{"evilsub"}, true},
		{"nested repository's config", fsmon + ` >> nested/.git/config`, nil, true},
		{"nested repository's hook", hook + ` > nested/.git/hooks/pre-commit && chmod +x nested/.git/hooks/pre-commit`, nil, true},
		{"hooks linked into the work tree", hook + ` > linked/githooks/pre-commit && chmod +x linked/githooks/pre-commit`, nil, true},
		{"hooks link replaced", `rm linked/.git/hooks && mkdir linked/.git/hooks && ` + hook + ` > linked/.git/hooks/post-commit && chmod +x linked/.git/hooks/post-commit`, nil, true},
		{"bare repository's config", `git -C bare.git config alias.st '!` + ws + `/evil.sh TAG'`, []string{"bare.git"}, true},
		{"git init, then config, in one command", `git init -q sub && git -C sub config core.fsmonitor '` + ws + `/evil.sh TAG' && git -C sub commit -q --allow-empty -m s && git add sub`, []string{"sub"}, true},
		{"git init, then a hook", `git init -q sub2 && ` + hook + ` > sub2/.git/hooks/pre-commit && chmod +x sub2/.git/hooks/pre-commit`, []string{"sub2"}, true},
		{"git init, then include.path", `git init -q sub3 && ` + fsmon + ` > inc && git -C sub3 config include.path ../../inc`, []string{"sub3"}, true},
		{"git init --bare, then an alias", `git init -q --bare new.git && git -C new.git config alias.st '!` + ws + `/evil.sh TAG'`, []string{"new.git"}, true},
		{"a repository written by hand", `mkdir -p hand/.git && cd hand/.git && mkdir objects refs hooks && echo 'ref: refs/heads/main' > HEAD && ` + fsmon + ` > config`, []string{"hand"}, true},
		{"a .git file to a layout made alongside", layout("x/evil") + ` && mkdir y && echo 'gitdir: ../x/evil' > y/.git`, []string{"y"}, true},
		{"a .git link to a layout made alongside", layout("x2/evil") + ` && mkdir z && ln -s ../x2/evil z/.git`, []string{"z"}, true},
		{"a .git file to a place filled later", `mkdir -p later && echo "gitdir: $TMPDIR/evil" > later/.git`, []string{"later"}, false},
		{"hooksPath in the work tree", hook + ` > refs/githooks/pre-commit`, nil, true},
		{"hooksPath directory replaced", `mv refs/githooks refs/githooks-old && mkdir refs/githooks && ` + hook + ` > refs/githooks/pre-commit && chmod +x refs/githooks/pre-commit`, nil, true},
		{"included config in the work tree", fsmon + ` >> refs/shared.gitconfig`, nil, true},
		{"included config created", fsmon + ` > refs/later.gitconfig`, nil, true},
		{"fsmonitor script in the work tree", hook + ` > refs/tools/fsmon.sh`, nil, true},
		{"background process plants after the command", `(sleep 0.3; ` + fsmon + ` >> nested/.git/config) >/dev/null 2>&1 &`, nil, false},
	}
}

// TestGitMetadataUnderBubblewrap plants, from a sandboxed command, every
// kind of git metadata that would make the user's next git run code, and
// checks that the user's git runs nothing afterwards; then that ordinary
// git work still goes on inside. The same attacks without a sandbox are the
// control: there, the user's git runs them.
func TestGitMetadataUnderBubblewrap(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		r := newGitRepos(t)
		ws := r.ws
		s, err := New(ModeOff, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		if sandboxed {
			s = realSandbox(t, KindBubblewrap, Policy{Workspace: ws, TempDir: r.tmp})
		}
		for _, a := range gitAttacks(ws) {
			if !sandboxed && !a.control {
				continue
			}
			tag := strings.NewReplacer(" ", "-", "'", "", ",", "").Replace(a.name)
			t.Run(fmt.Sprintf("sandboxed=%v/%s", sandboxed, a.name), func(t *testing.T) {
				if !sandboxed {
					// Each control attack on a fresh copy: one left
					// in place (a commondir) would hide the next.
					backup := filepath.Join(t.TempDir(), "ws")
					copyTree(t, ws, backup)
					defer func() {
						if err := os.RemoveAll(ws); err != nil {
							t.Fatal(err)
						}
						copyTree(t, backup, ws)
					}()
				}
				out, _ := runIn(t, s, ws, strings.ReplaceAll(a.script, "TAG", tag))
				ran := r.userGit(a.extra...)
				if sandboxed && ran != "" {
					t.Errorf("the user's git ran what the command planted:\n%s\ncommand output:\n%s", ran, out)
				}
				if !sandboxed && !strings.Contains(ran, tag) {
					t.Errorf("control: without a sandbox the user's git did not run what the command planted (ran %q); the check cannot fail\ncommand output:\n%s", ran, out)
				}
			})
		}
		if !sandboxed {
			continue
		}
		r.work(t, s)
	}
}

// work is ordinary git work inside the sandbox; the user sees its result.
func (r *gitRepos) work(t *testing.T, s *Sandbox) {
	ws := r.ws
	// Ordinary work inside the sandbox, and its effect seen outside.
	work := []struct{ name, script string }{
		{"commit", `echo 2 >> f && git add f && git commit -qm two`},
		{"branch and checkout", `git branch topic && git checkout -q topic && echo t > t && git add t && git commit -qm t && git checkout -q main`},
		{"stash", `echo 3 >> f && git stash -q && git stash pop -q && git commit -qam three`},
		{"merge", `git merge -q --no-edit topic`},
		{"rebase", `git checkout -q -b side HEAD~1 && echo s > s && git add s && git commit -qm s && git rebase -q main && git checkout -q main`},
		{"cherry-pick and revert", `git cherry-pick side >/dev/null && git revert --no-edit HEAD >/dev/null`},
		{"tag and notes", `git tag -a v1 -m v1 && git notes add -m n HEAD`},
		{"fetch from a local repository", `git fetch -q ./lib && git fetch -q ./nested main`},
		{"commit in the submodule", `cd lib && echo l > l && git add l && git commit -qm l`},
		{"commit in the worktree", `cd wt && echo w > w && git add w && git commit -qm w`},
		{"commit in the new repository", `cd sub && echo x > x && git add x && git commit -qm x`},
		{"gc", `git gc -q`},
	}
	env := []string{"GIT_AUTHOR_NAME=n", "GIT_AUTHOR_EMAIL=n@example.com", "GIT_COMMITTER_NAME=n", "GIT_COMMITTER_EMAIL=n@example.com", "GIT_EDITOR=true"}
	for _, w := range work {
		t.Run("work/"+w.name, func(t *testing.T) {
			out, code := runIn(t, s, ws, "set -e; "+w.script, env...)
			if code != 0 || strings.Contains(out, "[finish]") {
				t.Errorf("code %d, output:\n%s", code, out)
			}
		})
	}
	if got := r.git(ws, "log", "--format=%s", "-3"); !strings.Contains(got, "Revert") {
		t.Errorf("the user does not see the work: %q", got)
	}
	if d := cmp.Diff("", r.git(ws, "fsck", "--no-progress", "--no-dangling")); d != "" {
		t.Errorf("git fsck after the work:\n%s", d)
	}
}

// copyTree copies a directory with everything in it, links as links.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", from, to).CombinedOutput(); err != nil {
		t.Fatalf("cp -a %s %s: %v\n%s", from, to, err, out)
	}
}

// TestGitBindArgs checks the binds one command gets: each git directory
// bound onto itself with its protected entries read-only (a container
// read-only and the git directories in it writable again, in that order),
// the target of a linked hooks directory, what the config points at, .git
// files, files with outside links.
func TestGitBindArgs(t *testing.T) {
	ws, outside := workspace(t), workspace(t)
	// The user's own config names hooks relative to each work tree.
	home := workspace(t)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	writeFile(t, filepath.Join(home, ".gitconfig"), "[core]\n\thooksPath = .githooks\n")
	for _, f := range []string{
		".git/HEAD", ".git/config", ".git/description", ".git/index", ".git/hooks/pre-commit.sample",
		".git/info/exclude", ".git/objects/x", ".git/refs/heads/main", ".git/modules/lib/HEAD",
		".git/modules/lib/config", ".git/modules/lib/objects/x", ".git/modules/lib/refs/x",
		"lib/main.go", "tools/hooks/pre-commit", "githooks/x", ".githooks/pre-push",
	} {
		writeFile(t, filepath.Join(ws, f), "x\n")
	}
	writeFile(t, filepath.Join(ws, ".git", "config"), "[core]\n\thooksPath = tools/hooks\n[include]\n\tpath = ../missing.inc\n")
	writeFile(t, filepath.Join(ws, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
	if err := os.RemoveAll(filepath.Join(ws, ".git", "modules", "lib", "hooks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../../../githooks", filepath.Join(ws, ".git", "modules", "lib", "hooks")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(outside, "rc"), "rc\n")
	link(t, filepath.Join(outside, "rc"), filepath.Join(ws, "rc"))

	g := newGitGuard([]string{ws}, []string{ws}, nil)
	t.Cleanup(g.close)
	args, seq := g.begin()
	g.end(seq)
	j := func(p string) string { return filepath.Join(ws, p) }
	var want []string
	for _, b := range [][2]string{
		{"--bind", ".git"}, {"--ro-bind", ".git/config"}, {"--ro-bind", ".git/hooks"}, {"--ro-bind", ".git/info"},
		{"--ro-bind", ".git/modules"}, {"--ro-bind", ".githooks"}, {"--ro-bind", "tools/hooks"},
		{"--bind", ".git/modules/lib"}, {"--ro-bind", ".git/modules/lib/config"}, {"--ro-bind", "githooks"},
		{"--ro-bind", "lib/.git"},
		{"--ro-bind", "rc"},
	} {
		want = append(want, b[0], j(b[1]), j(b[1]))
	}
	if d := cmp.Diff(want, args); d != "" {
		t.Errorf("binds (-want +got):\n%s", d)
	}
	if got := g.missingRefs; !got[j("missing.inc")] {
		t.Errorf("the missing include is not watched: %v", got)
	}
}

// TestGuarantees: what each backend promises, and what breaks a promise.
func TestGuarantees(t *testing.T) {
	linkedWS := func(n int, sameDir bool) func(t *testing.T) string {
		return func(t *testing.T) string {
			ws, outside := workspace(t), workspace(t)
			writeFile(t, filepath.Join(ws, "plain.go"), "x\n")
			for i := range n {
				src := filepath.Join(outside, fmt.Sprint(i))
				writeFile(t, src, "x\n")
				dst := filepath.Join(ws, fmt.Sprintf("d%d", i), "f")
				if sameDir {
					dst = filepath.Join(ws, "store", fmt.Sprint(i))
				}
				link(t, src, dst)
			}
			return ws
		}
	}
	repos := func(n int) func(t *testing.T) string {
		return func(t *testing.T) string {
			ws := workspace(t)
			for i := range n {
				for _, f := range []string{"HEAD", "config", "hooks/x.sample", "info/exclude", "objects/x", "refs/x"} {
					writeFile(t, filepath.Join(ws, fmt.Sprint(i), ".git", f), "x\n")
				}
			}
			return ws
		}
	}
	tests := []struct {
		name      string
		pr        probes
		mode      Mode
		ws        func(t *testing.T) string
		want      Guarantees
		wantGapsN int
	}{
		{"none", fakeProbes(false, nil, 0), ModeAuto, linkedWS(0, false), Guarantees{}, 1},
		{"landlock", fakeProbes(false, nil, 6), ModeAuto, linkedWS(0, false), Guarantees{Confined: true}, 2},
		{"bubblewrap", fakeProbes(true, nil, 0), ModeAuto, linkedWS(0, false), Guarantees{Confined: true, GitMetadata: true, HardLinks: true}, 0},
		{"bubblewrap, a few linked files", fakeProbes(true, nil, 0), ModeAuto, linkedWS(3, false), Guarantees{Confined: true, GitMetadata: true, HardLinks: true}, 0},
		{"bubblewrap, a store of linked files", fakeProbes(true, nil, 0), ModeAuto, linkedWS(maxLinkBinds+10, true), Guarantees{Confined: true, GitMetadata: true, HardLinks: true}, 0},
		{"bubblewrap, too many linked files", fakeProbes(true, nil, 0), ModeAuto, linkedWS(maxLinkBinds+1, false), Guarantees{Confined: true, GitMetadata: true}, 1},
		{"bubblewrap, a few repositories", fakeProbes(true, nil, 0), ModeAuto, repos(3), Guarantees{Confined: true, GitMetadata: true, HardLinks: true}, 0},
		{"bubblewrap, too many repositories", fakeProbes(true, nil, 0), ModeAuto, repos(maxGitBinds/4 + 1), Guarantees{Confined: true, HardLinks: true}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newSandbox(tt.mode, Policy{Workspace: tt.ws(t)}, tt.pr)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			got := s.Guarantees(context.Background())
			if len(got.Gaps) != tt.wantGapsN {
				t.Errorf("gaps %q, want %d", got.Gaps, tt.wantGapsN)
			}
			got.Gaps = nil
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if got.ConfinesProjectCode() != (tt.want.Confined && tt.want.GitMetadata && tt.want.HardLinks) {
				t.Error("ConfinesProjectCode disagrees")
			}
		})
	}
}

// TestGuaranteesSeeLinksMadeLater: a file linked into the workspace from
// outside after the session started is found when the chain asks, and
// bound from the next command on.
func TestGuaranteesSeeLinksMadeLater(t *testing.T) {
	ws, outside := workspace(t), workspace(t)
	t.Setenv("HOME", outside) // no git config of the machine's user
	s, err := newSandbox(ModeAuto, Policy{Workspace: ws}, fakeProbes(true, nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if g := s.Guarantees(context.Background()); !g.HardLinks {
		t.Fatalf("%v", g.Gaps)
	}
	writeFile(t, filepath.Join(outside, "rc"), "rc\n")
	link(t, filepath.Join(outside, "rc"), filepath.Join(ws, "rc"))
	if g := s.Guarantees(context.Background()); !g.HardLinks {
		t.Fatalf("%v", g.Gaps)
	}
	args, seq := s.git.begin()
	s.git.end(seq)
	if d := cmp.Diff([]string{"--ro-bind", filepath.Join(ws, "rc"), filepath.Join(ws, "rc")}, args); d != "" {
		t.Errorf("binds (-want +got):\n%s", d)
	}
}

// TestUncheckedCommandIsCheckedLater: a command that creates more entries
// than one look reads is reported, and what it created is checked at the
// next command's start, not trusted as the user's.
func TestUncheckedCommandIsCheckedLater(t *testing.T) {
	ws := workspace(t)
	writeFile(t, filepath.Join(ws, "a.go"), "x\n")
	g := newGitGuardLimit([]string{ws}, []string{ws}, 60, nil)
	t.Cleanup(g.close)
	_, seq := g.begin()
	// What the command does: many files, then a repository.
	for i := range 100 {
		writeFile(t, filepath.Join(ws, "many", fmt.Sprint(i)), "")
	}
	for _, f := range []string{"zz/.git/objects/x", "zz/.git/refs/x"} {
		writeFile(t, filepath.Join(ws, f), "")
	}
	writeFile(t, filepath.Join(ws, "zz", ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(ws, "zz", ".git", "config"), "[core]\n\tfsmonitor = ./evil\n")
	note := g.end(seq)
	if !strings.Contains(note, "more than 60 entries") {
		t.Errorf("not reported: %q", note)
	}
	// The many files go; the next command's start checks what is left.
	if err := os.RemoveAll(filepath.Join(ws, "many")); err != nil {
		t.Fatal(err)
	}
	_, seq = g.begin()
	note = g.end(seq)
	if !strings.Contains(note, "took core.fsmonitor out of zz/.git/config") {
		t.Errorf("the repository the command made was not checked: %q", note)
	}
}

// TestUserGitConfigInTheWorkspace: where the workspace is the home
// directory, the user's own git config (which git obeys in every
// repository) is protected like a repository's: the existing one is
// read-only, a new one is moved aside.
func TestUserGitConfigInTheWorkspace(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		for _, tt := range []struct{ name, script string }{
			{"~/.gitconfig", `printf '[core]\n\tfsmonitor = '$PWD'/repo/evil.sh\n' >> .gitconfig`},
			{"~/.config/git/config", `mkdir -p .config/git && printf '[core]\n\tfsmonitor = '$PWD'/repo/evil.sh\n' > .config/git/config`},
		} {
			t.Run(fmt.Sprintf("sandboxed=%v/%s", sandboxed, tt.name), func(t *testing.T) {
				home := workspace(t)
				t.Setenv("HOME", home)
				for _, v := range []string{"XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL"} {
					t.Setenv(v, "") // restored after the test
					os.Unsetenv(v)  // git takes an empty value as set
				}
				writeFile(t, filepath.Join(home, ".gitconfig"), "[user]\n\tname = u\n\temail = u@example.com\n")
				mark := filepath.Join(outsideDir(t, ""), "ran")
				writeFile(t, filepath.Join(home, "repo", "evil.sh"), "#!/bin/sh\necho ran >> "+mark+"\nexit 1\n")
				if err := os.Chmod(filepath.Join(home, "repo", "evil.sh"), 0o755); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command("git", "-C", filepath.Join(home, "repo"), "init", "-q").CombinedOutput(); err != nil {
					t.Fatalf("%v %s", err, out)
				}
				s, err := New(ModeOff, Policy{})
				if err != nil {
					t.Fatal(err)
				}
				if sandboxed {
					s = realSandbox(t, KindBubblewrap, Policy{Workspace: home})
				}
				out, _ := runIn(t, s, home, tt.script)
				cmd := exec.Command("git", "status")
				cmd.Dir = filepath.Join(home, "repo")
				cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
				_ = cmd.Run()
				_, err = os.Stat(mark)
				if sandboxed && err == nil {
					t.Errorf("the user's git ran what the command planted in %s\n%s", tt.name, out)
				}
				if !sandboxed && err != nil {
					t.Errorf("control: nothing ran; the check cannot fail\n%s", out)
				}
			})
		}
	}
}

// TestWatcherStopsACommandThatPlants: a command that creates what git reads
// as configuration in a known git directory is stopped as soon as it does,
// not left to run (a git the user runs meanwhile would obey it), and what
// it made is moved aside; a command that only works is not stopped.
func TestWatcherStopsACommandThatPlants(t *testing.T) {
	r := newGitRepos(t)
	s := realSandbox(t, KindBubblewrap, Policy{Workspace: r.ws})
	if out, code := runIn(t, s, r.ws, "sleep 0.3 && git status --porcelain >/dev/null && echo still-here"); code != 0 || !strings.Contains(out, "still-here") {
		t.Fatalf("a command that plants nothing was stopped: %d %s", code, out)
	}
	for _, script := range []string{
		`echo /elsewhere > .git/commondir; sleep 30; touch finished`,
		`echo ../.. > .git/modules/lib/commondir; sleep 30; touch finished`,
		`mkdir nested/.git/modules; sleep 30; touch finished`,
	} {
		out, code := runIn(t, s, r.ws, script)
		if _, err := os.Stat(filepath.Join(r.ws, "finished")); err == nil {
			t.Errorf("%q ran to its end:\n%s", script, out)
			os.Remove(filepath.Join(r.ws, "finished"))
			continue
		}
		if code == 0 || !strings.Contains(out, "as soon as it appeared, and the running commands were stopped") {
			t.Errorf("%q: code %d, output:\n%s", script, code, out)
		}
	}
	if _, err := os.Stat(filepath.Join(r.ws, ".git", "commondir")); err == nil {
		t.Error(".git/commondir is there")
	}
}
