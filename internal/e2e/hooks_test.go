//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// Hooks of the settings files, through the binary in print mode: scripts
// written for Claude Code's contract run unchanged.

// hookHome is a data directory whose settings file holds hooks: by event,
// one group of matcher and command each.
func hookHome(t *testing.T, hooks map[string][][2]string) string {
	t.Helper()
	home := t.TempDir()
	writeHookSettings(t, filepath.Join(home, "settings.json"), hooks)
	return home
}

func writeHookSettings(t *testing.T, path string, hooks map[string][][2]string) {
	t.Helper()
	groups := map[string][]any{}
	for event, hs := range hooks {
		for _, h := range hs {
			groups[event] = append(groups[event], map[string]any{"matcher": h[0],
				"hooks": []any{map[string]any{"type": "command", "command": h[1]}}})
		}
	}
	b, _ := json.Marshal(map[string]any{"hooks": groups})
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookScript writes a shell script into dir and returns the command that
// runs it.
func hookScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// A PreToolUse hook that refuses rm (exit 2, the reason on standard
// error): the file stays and the model reads the reason. Without the hook
// the same run removes it.
func TestPreToolUseHookBlocksRm(t *testing.T) {
	scripts := t.TempDir()
	guard := hookScript(t, scripts, "no-rm.sh", `in=$(cat)
case "$in" in *'"command":"rm '*) echo "rm is not allowed: move files to trash/ instead" >&2; exit 2;; esac
exit 0`)
	for _, hooked := range []bool{true, false} {
		srv := llmtest.NewServer(
			llmtest.Turn{Blocks: []llmtest.Block{bash("b1", "rm notes.txt")}},
			llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}},
		)
		ws := t.TempDir()
		if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("keep me"), 0o644); err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		if hooked {
			home = hookHome(t, map[string][][2]string{"PreToolUse": {{"Bash", guard}}})
		}
		r := runNovaEnv(t, srv, "anthropic", ws, []string{"NOVA_HOME=" + home}, "--permission-mode", "bypassPermissions", "remove the notes")
		_, err := os.Stat(filepath.Join(ws, "notes.txt"))
		if hooked {
			if err != nil {
				t.Errorf("the hook did not keep the file: %v", err)
			}
			results := toolResultsSent(t, modelCalls(srv)[1])
			if len(results) != 1 || !strings.Contains(jsonOf(results[0]["content"]), "rm is not allowed: move files to trash/ instead") {
				t.Errorf("the model was told %v", results)
			}
			if len(r.Result.PermissionDenials) != 1 {
				t.Errorf("denials %+v", r.Result.PermissionDenials)
			}
		} else if err == nil {
			t.Fatalf("without the hook rm did not run, so the test proves nothing\nstderr: %s", r.Stderr)
		}
		srv.Close()
	}
}

// A PostToolUse hook reads the call's input and response; its context
// reaches the model.
func TestPostToolUseHookSeesTheResponse(t *testing.T) {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("r1", "Read", `{"file_path":"notes.txt"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}},
	)
	defer srv.Close()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("the notes of the day"), 0o644); err != nil {
		t.Fatal(err)
	}
	scripts := t.TempDir()
	seen := filepath.Join(scripts, "seen.json")
	post := hookScript(t, scripts, "post.sh", `cat > '`+seen+`'
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"POST-HOOK-CONTEXT"}}'`)
	home := hookHome(t, map[string][][2]string{"PostToolUse": {{"Read", post}}})
	runNovaEnv(t, srv, "anthropic", ws, []string{"NOVA_HOME=" + home}, "read the notes")
	b, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Event        string          `json:"hook_event_name"`
		Tool         string          `json:"tool_name"`
		ID           string          `json:"tool_use_id"`
		Input        json.RawMessage `json:"tool_input"`
		ToolResponse struct {
			Content string `json:"content"`
		} `json:"tool_response"`
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if in.Event != "PostToolUse" || in.Tool != "Read" || in.ID != "r1" || string(in.Input) != `{"file_path":"notes.txt"}` ||
		!strings.Contains(in.ToolResponse.Content, "the notes of the day") || in.Cwd != ws {
		t.Errorf("the hook read %s", b)
	}
	if !strings.Contains(string(modelCalls(srv)[1].Body), "POST-HOOK-CONTEXT") {
		t.Error("the hook's context did not reach the model")
	}
}

// updatedInput changes what runs; the stream shows both, and history
// keeps the model's call.
func TestUpdatedInputChangesWhatRuns(t *testing.T) {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{bash("b1", "echo from the model > out.txt")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}},
	)
	defer srv.Close()
	ws := t.TempDir()
	rewrite := hookScript(t, t.TempDir(), "rewrite.sh", `cat > /dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo from the hook > out.txt"}}}'`)
	home := hookHome(t, map[string][][2]string{"PreToolUse": {{"Bash", rewrite}}})
	r := runNovaEnv(t, srv, "anthropic", ws, []string{"NOVA_HOME=" + home}, "--permission-mode", "acceptEdits", "write out.txt")
	b, err := os.ReadFile(filepath.Join(ws, "out.txt"))
	if err != nil || string(b) != "from the hook\n" {
		t.Fatalf("out.txt = %q, %v\nstderr: %s", b, err, r.Stderr)
	}
	uses := r.byType("tool_use")
	if len(uses) != 1 || !strings.Contains(jsonOf(uses[0]["input"]), "from the hook") || !strings.Contains(jsonOf(uses[0]["model_input"]), "from the model") {
		t.Errorf("tool_use %v", uses)
	}
	if sent := string(modelCalls(srv)[1].Body); !strings.Contains(sent, `"command":"echo from the model \u003e out.txt"`) {
		t.Errorf("history lost the model's call: %.600s", sent)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A UserPromptSubmit hook's standard output is context for the model.
func TestUserPromptSubmitContext(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}})
	defer srv.Close()
	ctx := hookScript(t, t.TempDir(), "ctx.sh", `cat > /dev/null; echo "The release freeze starts on Friday."`)
	home := hookHome(t, map[string][][2]string{"UserPromptSubmit": {{"", ctx}}})
	runNovaEnv(t, srv, "anthropic", "", []string{"NOVA_HOME=" + home}, "plan the week")
	if sent := string(modelCalls(srv)[0].Body); !strings.Contains(sent, "The release freeze starts on Friday.") || !strings.Contains(sent, "plan the week") {
		t.Errorf("request: %.600s", sent)
	}
}

// A Stop hook that exits 2 makes the model go on once, with its standard
// error as the instruction; the same answer again ends the run.
func TestStopHookContinuesOnce(t *testing.T) {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Done.")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Tests pass.")}},
	)
	defer srv.Close()
	stop := hookScript(t, t.TempDir(), "stop.sh", `cat > /dev/null; echo "Run the tests before you stop." >&2; exit 2`)
	home := hookHome(t, map[string][][2]string{"Stop": {{"", stop}}})
	r := runNovaEnv(t, srv, "anthropic", "", []string{"NOVA_HOME=" + home}, "fix it")
	reqs := modelCalls(srv)
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "Run the tests before you stop.") {
		t.Fatalf("%d requests", len(reqs))
	}
	if r.Code != 0 || r.Result.Result != "Tests pass." || r.Result.Subtype != "success" {
		t.Errorf("result %+v (exit %d)", r.Result, r.Code)
	}
}

// A project's hook runs only in a trusted workspace: print mode leaves it
// out and says so; --trust-workspace runs it.
func TestProjectHookNeedsTrust(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	hook := hookScript(t, t.TempDir(), "project.sh", `cat > /dev/null; touch '`+marker+`'`)
	writeHookSettings(t, filepath.Join(ws, ".novacode", "settings.json"), map[string][][2]string{"UserPromptSubmit": {{"", hook}}})
	for _, trusted := range []bool{false, true} {
		srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}})
		args := []string{"hi"}
		if trusted {
			args = append([]string{"--trust-workspace"}, args...)
		}
		r := runNova(t, srv, ws, args...)
		srv.Close()
		_, err := os.Stat(marker)
		if ran := err == nil; ran != trusted {
			t.Errorf("trusted %v: the project's hook ran: %v\nstderr: %s", trusted, ran, r.Stderr)
		}
		if !trusted && !strings.Contains(r.Stderr, "hooks.UserPromptSubmit") {
			t.Errorf("the notice does not name the hook left out:\n%s", r.Stderr)
		}
	}
}
