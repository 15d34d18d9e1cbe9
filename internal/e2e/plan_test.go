//go:build unix

package e2e

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm/llmtest"
)

// tree is every file under dir but git's own, with its content.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// planFileIn finds the plan file a request's plan-mode reminder names, as
// a model reads it there.
var planFileIn = regexp.MustCompile(`write your plan to the plan file (\S+\.md) with Write`)

// Plan mode through the binary, in print mode: every way the scripted
// model tries to change the workspace (Write, Edit, touch, sed -i, a
// redirect) is refused and changes nothing, the read-only tools and
// commands run, the plan file the reminder names is written and comes back
// in the next request, and ExitPlanMode ends the run: subtype success, the
// plan as the result.
func TestPlanModeInPrintMode(t *testing.T) {
	needTool(t, "git", "every machine of ours has it")
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitEnv := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.org", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.org")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-qm", "the first commit"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = ws, gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	before := tree(t, ws)

	const plan = "# Plan\n\n1. Rename main to run in main.go\n2. Add a test"
	in := func(kv ...string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	main := filepath.Join(ws, "main.go")
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Text("Let me look around first."),
		llmtest.ToolUse("read", "Read", in("file_path", main)),
		llmtest.ToolUse("grep", "Grep", in("pattern", "func main")),
		llmtest.ToolUse("ls", "Bash", in("command", "ls -la")),
		llmtest.ToolUse("log", "Bash", in("command", "git log --oneline")),
		llmtest.ToolUse("write", "Write", in("file_path", filepath.Join(ws, "new.go"), "content", "package main\n")),
		llmtest.ToolUse("edit", "Edit", in("file_path", main, "old_string", "func main", "new_string", "func run")),
		llmtest.ToolUse("touch", "Bash", in("command", "touch touched.txt")),
		llmtest.ToolUse("sed", "Bash", in("command", "sed -i s/main/run/ main.go")),
		llmtest.ToolUse("redirect", "Bash", in("command", "echo hi > redirected.txt")),
	}})
	defer srv.Close()
	var mu sync.Mutex
	var planFile string
	srv.SetFallback(func(r llmtest.Request) llmtest.Turn {
		mu.Lock()
		defer mu.Unlock()
		if planFile == "" {
			m := planFileIn.FindStringSubmatch(string(r.Body))
			if m == nil {
				return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("no plan file named")}}
			}
			planFile = m[1]
			return llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("plan", "Write", in("file_path", planFile, "content", plan+"\n"))}}
		}
		return llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("exit", "ExitPlanMode", in("plan", plan))}}
	})
	r := runNova(t, srv, ws, "--permission-mode", "plan", "rename main to run")
	if r.Code != 0 || r.Result.Subtype != "success" || r.Result.IsError || r.Result.Result != plan {
		t.Fatalf("exit %d, result %+v\nstderr: %s", r.Code, r.Result, r.Stderr)
	}
	if diff := cmp.Diff(before, tree(t, ws)); diff != "" {
		t.Errorf("the workspace changed in plan mode (-before +after):\n%s", diff)
	}
	results := map[string]map[string]any{}
	for _, l := range r.byType("tool_result") {
		results[l["id"].(string)] = l
	}
	for id, want := range map[string]string{"read": "func main", "grep": "main.go", "ls": "main.go", "log": "the first commit"} {
		res := results[id]
		if res == nil || res["is_error"] == true || !strings.Contains(res["content"].(string), want) {
			t.Errorf("%s did not run: %v", id, res)
		}
	}
	var denied []string
	for _, d := range r.Result.PermissionDenials {
		denied = append(denied, d.ToolUseID)
	}
	sort.Strings(denied)
	if diff := cmp.Diff([]string{"edit", "redirect", "sed", "touch", "write"}, denied); diff != "" {
		t.Errorf("permission_denials (-want +got):\n%s", diff)
	}
	for _, id := range denied {
		if c, _ := results[id]["content"].(string); !strings.Contains(c, "plan mode allows read-only tools only") || !strings.Contains(c, "ExitPlanMode") {
			t.Errorf("%s's result does not say why and how to go on: %s", id, c)
		}
	}
	if res := results["plan"]; res == nil || res["is_error"] == true {
		t.Fatalf("the plan file was not written: %v", res)
	}
	if b, err := os.ReadFile(planFile); err != nil || string(b) != plan+"\n" {
		t.Fatalf("plan file %s: %q, %v", planFile, b, err)
	}
	if want := filepath.Join("plans", r.Result.SessionID+".md"); !strings.HasSuffix(planFile, want) {
		t.Errorf("plan file %s, want …/%s", planFile, want)
	}
	calls := modelCalls(srv)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	// The third request carries the plan just written, as a reminder.
	var body struct {
		Messages []struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(calls[2].Body, &body); err != nil {
		t.Fatal(err)
	}
	var lastMsg string
	for _, b := range body.Messages[len(body.Messages)-1].Content {
		lastMsg += b.Text
	}
	if want := "<system-reminder>\nPlan mode is on"; !strings.HasPrefix(lastMsg, want) || !strings.Contains(lastMsg, "Your plan so far ("+planFile+"):\n\n"+plan+"\n</system-reminder>") {
		t.Errorf("the third request's last message lacks the plan reminder:\n%s", lastMsg)
	}
	if res := results["exit"]; res == nil || !strings.Contains(res["content"].(string), "run ends here") {
		t.Errorf("ExitPlanMode's result: %v", res)
	}
}
