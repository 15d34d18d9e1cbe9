//go:build linux

package e2e

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// These tests drive the real binary with a scripted model whose commands,
// allowed by a rule, attack what runs outside the sandbox later: git
// metadata, and files hard-linked from outside the workspace. The user's
// git runs afterwards, outside nova, as it would in the user's terminal.

// sandboxBackend sets up the environment for one backend, or skips (fails
// under CI=true, where both must be there).
func sandboxBackend(t *testing.T, backend string) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		missing(t, "git is not installed")
	}
	switch backend {
	case "bubblewrap":
		if _, err := exec.LookPath("bwrap"); err != nil {
			missing(t, "bubblewrap is not installed (.ci/run installs it)")
		}
		return nil
	default:
		return []string{"PATH=" + pathWithout(t, "bwrap")}
	}
}

// missing skips a test that cannot run here, but fails it under CI=true:
// CI installs what the tests need (.ci/run), and a skip there would hide
// that they never ran.
func missing(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why + " (CI=true: these tests must run)")
	}
	t.Skip(why)
}

// needTool returns the path of the program name, or skips the test
// (fails it under CI=true) saying how to install it.
func needTool(t *testing.T, name, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		missing(t, fmt.Sprintf("%s is not installed (%s)", name, install))
	}
	return path
}

// requireBackend checks, after a run, that nova used the backend.
func requireBackend(t *testing.T, r *run, backend string) {
	t.Helper()
	if strings.Contains(r.Stderr, "unsandboxed") {
		missing(t, "no "+backend+" sandbox here: "+r.Stderr)
	}
	if backend == "landlock" && !strings.Contains(r.Stderr, "Landlock sandbox") {
		t.Fatalf("not under Landlock:\n%s", r.Stderr)
	}
	if backend == "bubblewrap" && strings.Contains(r.Stderr, "Landlock") {
		t.Fatalf("not under bubblewrap:\n%s", r.Stderr)
	}
}

// userGit runs git as the user would next, outside nova, in each dir of
// ws: status (core.fsmonitor, submodules) and a commit (hooks). It returns
// what the planted payload recorded.
func userGit(t *testing.T, ws, mark string, dirs ...string) string {
	t.Helper()
	home := t.TempDir()
	for _, d := range dirs {
		for _, args := range [][]string{{"status", "--porcelain"}, {"commit", "-q", "--allow-empty", "-m", "user"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = filepath.Join(ws, d)
			cmd.Env = append(os.Environ(), "HOME="+home, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=u",
				"GIT_AUTHOR_EMAIL=u@example.com", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com")
			_ = cmd.Run()
		}
	}
	data, _ := os.ReadFile(mark)
	return string(data)
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=u",
		"GIT_AUTHOR_EMAIL=u@example.com", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeExec(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// plantScript is what the prompt-injected model runs: a workspace script
// (a project runner) allowed by a rule, planting through every part of git
// metadata the user's next git would obey.
func plantScript(ws, mark string) string {
	payload := "#!/bin/sh\necho \"$0 $*\" >> " + mark + "\nexit 1\n"
	fsmon := `printf '[core]\n\tfsmonitor = ` + ws + `/evil.sh %s\n'`
	hook := `printf '#!/bin/sh\n` + ws + `/evil.sh %s\n'`
	return "#!/bin/sh\necho planting\n" +
		"cat > evil.sh <<'EOF'\n" + payload + "EOF\nchmod +x evil.sh\n" +
		"echo '* diff=evil' > .git/info/attributes\n" +
		strings.Replace(hook, "%s", "nested-hook", 1) + " > nested/.git/hooks/pre-commit; chmod +x nested/.git/hooks/pre-commit\n" +
		strings.Replace(fsmon, "%s", "nested-config", 1) + " >> nested/.git/config\n" +
		"git init -q sub && git -C sub config core.fsmonitor '" + ws + "/evil.sh new-repo' && git -C sub -c user.name=n -c user.email=n@example.com commit -q --allow-empty -m s && git add sub\n" +
		// commondir: the user's git reads config and hooks from evilgit.
		// Last: the sandbox stops a command that makes one.
		"mkdir -p evilgit/hooks; ln -sfn $PWD/.git/objects evilgit/objects; ln -sfn $PWD/.git/refs evilgit/refs\n" +
		strings.Replace(fsmon, "%s", "commondir", 1) + " > evilgit/config\n" +
		"echo $PWD/evilgit > .git/commondir\n" +
		"sleep 1; echo planted\n"
}

// TestGitMetadataThroughTheBinary: a command allowed by a rule writes
// .git/commondir, .git/info, a nested repository's hook and core.fsmonitor
// and makes a new repository with one; afterwards the user's git runs none
// of it. Under bubblewrap the command runs and what it planted is undone
// (and the model told); under Landlock, which cannot protect .git, the
// rule for a project runner does not hold and the command is not run.
// The control, without a sandbox, shows the user's git would run it all.
func TestGitMetadataThroughTheBinary(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock", "control"} {
		t.Run(backend, func(t *testing.T) {
			var env []string
			if backend != "control" {
				env = sandboxBackend(t, backend)
			}
			ws := filepath.Join(t.TempDir(), "ws")
			mark := filepath.Join(t.TempDir(), "ran")
			gitIn(t, filepath.Dir(ws), "init", "-q", "-b", "main", ws)
			gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "one")
			gitIn(t, ws, "init", "-q", "-b", "main", "nested")
			gitIn(t, filepath.Join(ws, "nested"), "commit", "-q", "--allow-empty", "-m", "n")
			writeExec(t, filepath.Join(ws, "plant.sh"), plantScript(ws, mark))
			args := []string{"--allowedTools", "Bash(./plant.sh)", "--debug", "permissions", "go"}
			if backend == "control" {
				// Unsandboxed, a rule for a runner asks: only bypass
				// runs it. The project's "sandbox": "off" applies only
				// in a trusted workspace.
				writeExec(t, filepath.Join(ws, ".novacode", "settings.local.json"), `{"sandbox":"off"}`)
				args = append([]string{"--permission-mode", "bypassPermissions", "--trust-workspace"}, args...)
			}

			srv := llmtest.NewServer(
				llmtest.Turn{Blocks: []llmtest.Block{bash("plant", "./plant.sh")}},
				llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
			)
			defer srv.Close()
			r := runNovaEnv(t, srv, "anthropic", ws, env, args...)
			if backend != "control" {
				requireBackend(t, r, backend)
			}
			res := r.byType("tool_result")
			if len(res) != 1 {
				t.Fatalf("tool results: %v\n%s", res, r.Stderr)
			}
			content, _ := res[0]["content"].(string)
			switch backend {
			case "bubblewrap":
				// It runs, is stopped at the commondir, and the model is
				// told what was undone: the commondir, the new
				// repository's core.fsmonitor.
				for _, want := range []string{"planting", "moved .git/commondir aside", "took core.fsmonitor out of sub/.git/config"} {
					if !strings.Contains(content, want) {
						t.Errorf("the tool result lacks %q:\n%s", want, content)
					}
				}
			case "landlock":
				if strings.Contains(content, "planting") || !strings.Contains(r.Stderr, "Landlock cannot make part of the workspace read-only") {
					t.Errorf("the runner rule held under Landlock:\n%s\n%s", content, r.Stderr)
				}
			}
			ran := userGit(t, ws, mark, ".", "nested", "sub")
			if backend == "control" {
				for _, want := range []string{"commondir", "nested-hook", "nested-config", "new-repo"} {
					if !strings.Contains(ran, want) {
						t.Errorf("control: the user's git did not run %s (ran %q): the check cannot fail", want, ran)
					}
				}
				return
			}
			if ran != "" {
				t.Errorf("the user's git ran what the command planted:\n%s\ntool result:\n%s", ran, content)
			}
		})
	}
}

// TestHardLinksThroughTheBinary: a file in the workspace hard-linked to a
// file outside cannot be written through by cp, dd or a script allowed by
// rules under bubblewrap; under Landlock, which cannot stop that, the
// rule for the script (a project runner) does not hold. The control,
// without a sandbox, writes through.
func TestHardLinksThroughTheBinary(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock", "control"} {
		t.Run(backend, func(t *testing.T) {
			var env []string
			if backend != "control" {
				env = sandboxBackend(t, backend)
			}
			root := t.TempDir()
			ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
			for _, d := range []string{ws, outside} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			victims := []string{"bashrc", "profile", "token"}
			for _, v := range victims {
				if err := os.WriteFile(filepath.Join(outside, v), []byte("original\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Link(filepath.Join(outside, v), filepath.Join(ws, v)); err != nil {
					t.Fatal(err)
				}
			}
			writeExec(t, filepath.Join(ws, "new"), "pwned\n")
			writeExec(t, filepath.Join(ws, "w.sh"), "#!/bin/sh\necho pwned > token\necho wrote\n")
			if backend == "control" {
				writeExec(t, filepath.Join(ws, ".novacode", "settings.local.json"), `{"sandbox":"off"}`)
			}
			srv := llmtest.NewServer(
				llmtest.Turn{Blocks: []llmtest.Block{
					bash("cp", "cp new bashrc"),
					bash("dd", "dd if=new of=profile conv=notrunc status=none"),
					bash("script", "./w.sh"),
				}},
				llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
			)
			defer srv.Close()
			args := []string{"--allowedTools", "Bash(cp:*),Bash(dd:*),Bash(./w.sh)", "--debug", "permissions", "go"}
			if backend == "control" {
				args = append([]string{"--permission-mode", "bypassPermissions", "--trust-workspace"}, args...)
			}
			r := runNovaEnv(t, srv, "anthropic", ws, env, args...)
			if backend != "control" {
				requireBackend(t, r, backend)
			}
			changed := map[string]bool{}
			for _, v := range victims {
				data, _ := os.ReadFile(filepath.Join(outside, v))
				changed[v] = string(data) != "original\n"
			}
			res := r.byType("tool_result")
			// cp and dd name the linked file: the chain asks for them in
			// every mode (nobody answers in print mode), whatever the
			// sandbox. Only what a script does needs the sandbox.
			for _, i := range []int{0, 1} {
				if c, _ := res[i]["content"].(string); !strings.Contains(c, "hard link") || changed[victims[i]] {
					t.Errorf("%s ran through a hard link: %v", res[i]["id"], res[i])
				}
			}
			switch backend {
			case "control":
				if !changed["token"] {
					t.Errorf("control: token was not written through its link by the script: the check cannot fail\n%v", res)
				}
			case "bubblewrap":
				for _, v := range victims {
					if changed[v] {
						t.Errorf("%s outside the workspace was written through its link\n%v", v, res)
					}
				}
			case "landlock":
				// Landlock cannot stop a write through a link: the rule
				// for the script does not hold, and says why. (cp and
				// dd are no project runners; see the report.)
				if changed["token"] || !strings.Contains(r.Stderr, "hard link") {
					t.Errorf("the runner rule held under Landlock: %v\n%s", res, r.Stderr)
				}
			}
		})
	}
}

// TestGitWorkThroughTheBinary: ordinary git work, allowed by rules, still
// works inside the sandbox and the user sees it.
func TestGitWorkThroughTheBinary(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			env := sandboxBackend(t, backend)
			ws := filepath.Join(t.TempDir(), "ws")
			gitIn(t, filepath.Dir(ws), "init", "-q", "-b", "main", ws)
			gitIn(t, ws, "commit", "-q", "--allow-empty", "-m", "one")
			env = append(env, "GIT_AUTHOR_NAME=n", "GIT_AUTHOR_EMAIL=n@example.com", "GIT_COMMITTER_NAME=n", "GIT_COMMITTER_EMAIL=n@example.com")
			srv := llmtest.NewServer(
				llmtest.Turn{Blocks: []llmtest.Block{bash("w", "echo x > f.txt && git add f.txt && git commit -q -m two && git branch topic && git checkout -q topic && git checkout -q main && git stash list && echo ok")}},
				llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
			)
			defer srv.Close()
			r := runNovaEnv(t, srv, "anthropic", ws, env, "--permission-mode", "bypassPermissions", "go")
			requireBackend(t, r, backend)
			res := r.byType("tool_result")
			if len(res) != 1 || !strings.HasSuffix(strings.TrimSpace(res[0]["content"].(string)), "ok") {
				t.Fatalf("git work failed: %v", res)
			}
			out, err := exec.Command("git", "-C", ws, "log", "--format=%s", "topic").Output()
			if err != nil || strings.TrimSpace(string(out)) != "two\none" {
				t.Errorf("the user does not see the work: %q %v", out, err)
			}
		})
	}
}

// TestLeftoverProcessesEndThroughTheBinary: what a command leaves running
// (in the background, in a new session) does not outlive its call, under
// either backend; under Landlock that is Finish killing the command's
// domain, as bubblewrap's PID namespace does.
func TestLeftoverProcessesEndThroughTheBinary(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			env := sandboxBackend(t, backend)
			marker := fmt.Sprintf("987.%06d", rand.IntN(1_000_000))
			t.Cleanup(func() { killMarked(marker) })
			srv := llmtest.NewServer(
				llmtest.Turn{Blocks: []llmtest.Block{bash("bg", "(sleep "+marker+" >/dev/null 2>&1 &); setsid sleep "+marker+" >/dev/null 2>&1 & echo started")}},
				llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
			)
			defer srv.Close()
			r := runNovaEnv(t, srv, "anthropic", t.TempDir(), env, "--permission-mode", "bypassPermissions", "go")
			requireBackend(t, r, backend)
			if res := r.byType("tool_result"); len(res) != 1 || !strings.Contains(res[0]["content"].(string), "started") {
				t.Fatalf("the command did not run: %v", res)
			}
			if left := markedProcs(marker); len(left) > 0 {
				t.Errorf("processes the command left outlive nova: %v", left)
			}
		})
	}
}

// markedProcs returns the live (not zombie) processes whose command line
// holds marker.
func markedProcs(marker string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := strings.LastIndexByte(string(stat), ')'); err == nil && i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

func killMarked(marker string) {
	for _, pid := range markedProcs(marker) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
