package fleet

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// scripted serves each task's conversation from its own script, chosen by
// the marker in its prompt.
func scripted(t *testing.T, scripts map[string][]llmtest.Turn) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetFallback(llmtest.Conversations(scripts))
	return srv
}

// testConfig points the sessions at srv, with a data directory of their
// own and nothing of the machine's environment.
func testConfig(t *testing.T, srv *llmtest.Server) Config {
	t.Helper()
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	return Config{
		Options:    nova.Options{DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] }, Sandbox: "off"},
		ScratchDir: t.TempDir(),
	}
}

func turn(blocks ...llmtest.Block) llmtest.Turn {
	return llmtest.Turn{Blocks: blocks, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}}
}

func toolCall(name string, in map[string]any) llmtest.Block {
	b, _ := json.Marshal(in)
	return llmtest.ToolUse("", name, string(b))
}

// runGit runs git in dir for a test's repository.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// bareRepo makes a bare repository with main (README.md) and a branch
// feature (README.md and feature.txt), and returns its file:// URL.
func bareRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	bare := filepath.Join(root, "origin.git")
	runGit(t, root, "init", "--quiet", "--bare", bare)
	work := filepath.Join(root, "work")
	runGit(t, root, "clone", "--quiet", bare, work)
	os.WriteFile(filepath.Join(work, "README.md"), []byte("# demo\n"), 0o644)
	runGit(t, work, "add", ".")
	runGit(t, work, "commit", "--quiet", "-m", "first")
	runGit(t, work, "push", "--quiet", "origin", "HEAD:main")
	runGit(t, work, "checkout", "--quiet", "-b", "feature")
	os.WriteFile(filepath.Join(work, "feature.txt"), []byte("feature\n"), 0o644)
	runGit(t, work, "add", ".")
	runGit(t, work, "commit", "--quiet", "-m", "feature")
	runGit(t, work, "push", "--quiet", "origin", "feature")
	runGit(t, work, "tag", "v1")
	runGit(t, work, "push", "--quiet", "origin", "v1")
	return "file://" + bare
}

// A cwd task: the prompt goes to a session in the task's directory, one
// tool turn and an answer, collected as print mode collects them, with a
// transcript of its own.
func TestRunTaskCwd(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\n"), 0o644)
	srv := scripted(t, map[string][]llmtest.Turn{
		"[task-a]": {turn(toolCall("Read", map[string]any{"file_path": "notes.txt"})), turn(llmtest.Text("It says milk."))},
	})
	cfg := testConfig(t, srv)
	cfg.Defaults = Task{Model: "claude-haiku-4-5", MaxTurns: 5}
	r := RunTask(t.Context(), Task{ID: "a", Prompt: "[task-a] what do the notes say?", Cwd: ws}, cfg)
	if !r.Succeeded() || r.ID != "a" || r.Result.Result != "It says milk." || r.NumTurns != 2 || r.SessionID == "" {
		t.Fatalf("result = %+v", r)
	}
	if len(r.ToolCalls) != 1 || r.ToolCalls[0].Name != "Read" || r.ToolCalls[0].IsError {
		t.Errorf("tool calls = %+v", r.ToolCalls)
	}
	if r.Usage.InputTokens != 2000 || r.TotalCostUSD <= 0 {
		t.Errorf("usage %+v, cost %v", r.Usage, r.TotalCostUSD)
	}
	if r.Diff != "" || r.Patch != "" {
		t.Errorf("a cwd task has a diff: %q %q", r.Diff, r.Patch)
	}
	// The defaults reached the session: the model of every request.
	for _, req := range srv.Requests() {
		if req.Method != "POST" {
			continue
		}
		var body struct {
			Model string `json:"model"`
		}
		json.Unmarshal(req.Body, &body)
		if body.Model != "claude-haiku-4-5" {
			t.Errorf("request for model %q, want the default claude-haiku-4-5", body.Model)
		}
	}
	sessions, err := nova.ListSessions(ws, cfg.Options.DataDir)
	if err != nil || len(sessions) != 1 || sessions[0].ID != r.SessionID {
		t.Errorf("sessions of the workspace: %+v, %v; want the task's", sessions, err)
	}
}

// A git task works in a scratch clone at its ref; its result carries what
// it changed, as a patch, and the clone is gone afterwards.
func TestRunTaskGit(t *testing.T) {
	url := bareRepo(t)
	write := func(marker string) []llmtest.Turn {
		return []llmtest.Turn{
			turn(toolCall("Write", map[string]any{"file_path": "added.txt", "content": "added by " + marker + "\n"})),
			turn(llmtest.Text("Added it.")),
		}
	}
	srv := scripted(t, map[string][]llmtest.Turn{"[main]": write("main"), "[feature]": write("feature"), "[tag]": write("tag"), "[sha]": write("sha")})
	sha, _, _ := strings.Cut(runGit(t, "", "ls-remote", url, "refs/heads/feature"), "\t")
	cfg := testConfig(t, srv)
	// feature.txt is in the checkout of feature and v1: never in the
	// diff, which is against the commit checked out.
	tests := []struct{ name, ref, marker string }{
		{"default branch", "", "[main]"},
		{"a branch", "feature", "[feature]"},
		{"a tag", "v1", "[tag]"},
		{"a commit", sha, "[sha]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := Task{ID: "g " + tt.name, Prompt: tt.marker + " add a file", Git: &Git{URL: url, Ref: tt.ref}, PermissionMode: "acceptEdits"}
			r := RunTask(t.Context(), task, cfg)
			if !r.Succeeded() {
				t.Fatalf("result = %+v", r)
			}
			want := "diff --git a/added.txt b/added.txt\nnew file mode 100644\n"
			if !strings.HasPrefix(r.Diff, want) || !strings.Contains(r.Diff, "+added by "+strings.Trim(tt.marker, "[]")+"\n") {
				t.Errorf("diff = %q", r.Diff)
			}
			if strings.Contains(r.Diff, "feature.txt") {
				t.Errorf("the diff holds the checkout's own files: %q", r.Diff)
			}
			left, _ := os.ReadDir(cfg.ScratchDir)
			if len(left) != 0 {
				t.Errorf("scratch left behind: %v", left)
			}
		})
	}
}

// A diff larger than MaxDiff goes to a patch file named after the task;
// without a PatchDir it stays in the line.
func TestRunTaskLargeDiff(t *testing.T) {
	url := bareRepo(t)
	big := strings.Repeat("line of text\n", 200)
	srv := scripted(t, map[string][]llmtest.Turn{
		"[big-1]": {turn(toolCall("Write", map[string]any{"file_path": "big.txt", "content": big})), turn(llmtest.Text("ok"))},
		"[big-2]": {turn(toolCall("Write", map[string]any{"file_path": "big.txt", "content": big})), turn(llmtest.Text("ok"))},
	})
	cfg := testConfig(t, srv)
	cfg.MaxDiff = 1000
	cfg.PatchDir = filepath.Join(t.TempDir(), "patches")
	r := RunTask(t.Context(), Task{ID: "big/1", Prompt: "[big-1] write", Git: &Git{URL: url}, PermissionMode: "acceptEdits"}, cfg)
	if !r.Succeeded() || r.Diff != "" || r.Patch == "" {
		t.Fatalf("result = %+v", r)
	}
	if filepath.Dir(r.Patch) != cfg.PatchDir || !strings.HasPrefix(filepath.Base(r.Patch), "big_1-") {
		t.Errorf("patch file %s", r.Patch)
	}
	b, err := os.ReadFile(r.Patch)
	if err != nil || !strings.Contains(string(b), "+line of text") || len(b) <= 1000 {
		t.Errorf("patch: %v, %d bytes", err, len(b))
	}
	cfg.PatchDir = ""
	r = RunTask(t.Context(), Task{ID: "big2", Prompt: "[big-2] write", Git: &Git{URL: url}, PermissionMode: "acceptEdits"}, cfg)
	if !r.Succeeded() || len(r.Diff) <= 1000 || r.Patch != "" {
		t.Fatalf("without a patch dir: diff of %d bytes, patch %q", len(r.Diff), r.Patch)
	}
}

// What fails before or around the session fails the task with why, in
// print mode's shape.
func TestRunTaskFailures(t *testing.T) {
	url := bareRepo(t)
	srv := scripted(t, map[string][]llmtest.Turn{
		"[hang]": {{Hang: true}},
		"[turns]": {
			turn(toolCall("Read", map[string]any{"file_path": "x"})),
			turn(toolCall("Read", map[string]any{"file_path": "y"})),
		},
	})
	cfg := testConfig(t, srv)
	noKey := cfg
	noKey.Options.Getenv = func(string) string { return "" }
	tests := []struct {
		name    string
		task    Task
		cfg     Config
		subtype string
		err     string
	}{
		{"no such repository", Task{ID: "a", Prompt: "p", Git: &Git{URL: "file:///nonexistent/repo.git"}}, cfg,
			SubtypeError, "clone file:///nonexistent/repo.git: git clone: exit status 128: fatal: '/nonexistent/repo.git' does not appear to be a git repository"},
		{"no such ref", Task{ID: "b", Prompt: "p", Git: &Git{URL: url, Ref: "nope"}}, cfg,
			SubtypeError, `clone ` + url + `: no branch, tag or commit "nope"`},
		{"no model configured", Task{ID: "c", Prompt: "p", Cwd: t.TempDir()}, noKey,
			SubtypeError, "open a session in "},
		{"the task's timeout", Task{ID: "d", Prompt: "[hang] p", Cwd: t.TempDir(), Timeout: Duration(300 * time.Millisecond)}, cfg,
			SubtypeError, "timed out after 300ms (the task's timeout)"},
		{"the turn limit", Task{ID: "e", Prompt: "[turns] p", Cwd: t.TempDir(), MaxTurns: 1}, cfg,
			SubtypeMaxTurns, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := RunTask(t.Context(), tt.task, tt.cfg)
			if r.Succeeded() || r.ID != tt.task.ID || r.Subtype != tt.subtype || !strings.HasPrefix(r.Error, tt.err) || r.Type != "result" {
				t.Fatalf("result = %+v\nwant subtype %s, error starting %q", r, tt.subtype, tt.err)
			}
			if r.ToolCalls == nil || r.PermissionDenials == nil {
				t.Errorf("tool_calls and permission_denials must be lists: %+v", r)
			}
			left, _ := os.ReadDir(tt.cfg.ScratchDir)
			if len(left) != 0 {
				t.Errorf("scratch left behind: %v", left)
			}
		})
	}
}

// A task stopped from outside (the batch's ctx) is cancelled, not failed;
// a ctx already ended runs nothing.
func TestRunTaskCancelled(t *testing.T) {
	srv := scripted(t, map[string][]llmtest.Turn{"[hang]": {{Hang: true}}})
	cfg := testConfig(t, srv)
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	r := RunTask(ctx, Task{ID: "h", Prompt: "[hang] p", Cwd: t.TempDir()}, cfg)
	if r.Subtype != SubtypeCancelled || !r.IsError {
		t.Fatalf("result = %+v", r)
	}
	before := len(srv.Requests())
	r = RunTask(ctx, Task{ID: "i", Prompt: "[hang] p", Cwd: t.TempDir()}, cfg)
	if r.Subtype != SubtypeCancelled || len(srv.Requests()) != before {
		t.Fatalf("with ctx ended: result %+v, %d requests", r, len(srv.Requests())-before)
	}
}

// A panic in a task is its failure, not the batch's end.
func TestRunTaskPanic(t *testing.T) {
	cfg := Config{Options: nova.Options{Getenv: func(string) string { panic("boom") }, DataDir: t.TempDir(), Sandbox: "off"}}
	r := RunTask(t.Context(), Task{ID: "p", Prompt: "p", Cwd: t.TempDir()}, cfg)
	if r.Subtype != SubtypeError || !strings.HasPrefix(r.Error, "internal error: boom") {
		t.Fatalf("result = %+v", r)
	}
}

func TestFileName(t *testing.T) {
	long := strings.Repeat("a", 120)
	tests := map[string]string{
		"t1":        "t1",
		"a.b-c_d":   "a.b-c_d",
		"big/1":     "big_1-",
		"../escape": "_escape-",
		".hidden":   "hidden-",
		long:        strings.Repeat("a", 64) + "-",
	}
	for id, prefix := range tests {
		got := fileName(id)
		if got == id && prefix == id {
			continue
		}
		if !strings.HasPrefix(got, prefix) || len(got) != len(prefix)+8 || strings.ContainsAny(got, "/") {
			t.Errorf("fileName(%q) = %q, want %q and a hash", id, got, prefix)
		}
	}
	if fileName("a/b") == fileName("a_b") {
		t.Error("two ids share a file name")
	}
}
