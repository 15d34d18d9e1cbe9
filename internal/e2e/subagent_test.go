package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

func jsonBlock(id, name string, in map[string]any) llmtest.Block {
	b, _ := json.Marshal(in)
	return llmtest.ToolUse(id, name, string(b))
}

func pricedTurn(blocks ...llmtest.Block) llmtest.Turn {
	return llmtest.Turn{Blocks: blocks, Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}}
}

// Through the binary: three Task calls in one answer, each subagent runs
// a 1-s read-only command in its own conversation and reports back; the
// reports are the calls' results, every child event in stream-json carries
// parent_tool_use_id, and the children's cost is in the result line.
func TestSubagentsThroughTheBinary(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	scripts := map[string][]llmtest.Turn{"": {
		pricedTurn(
			jsonBlock("task_a", "Task", map[string]any{"description": "look at a", "prompt": "child-A: run the check", "subagent_type": "Explore"}),
			jsonBlock("task_b", "Task", map[string]any{"description": "look at b", "prompt": "child-B: run the check", "subagent_type": "Explore"}),
			jsonBlock("task_c", "Task", map[string]any{"description": "look at c", "prompt": "child-C: run the check", "subagent_type": "Explore"})),
		pricedTurn(llmtest.Text("The three reports are in.")),
	}}
	for _, c := range []string{"A", "B", "C"} {
		scripts["child-"+c] = []llmtest.Turn{
			pricedTurn(bash("", "sleep 1; echo checked-"+c)),
			pricedTurn(llmtest.Text("report " + c)),
		}
	}
	srv.SetFallback(llmtest.Conversations(scripts))
	ws, home := t.TempDir(), t.TempDir()
	r := runNovaEnv(t, srv, "anthropic", ws, []string{"NOVA_HOME=" + home}, "split the check")
	if r.Code != 0 || r.Result.Result != "The three reports are in." {
		t.Fatalf("exit %d, result %+v\nstderr: %s", r.Code, r.Result, r.Stderr)
	}
	tasks := map[string]bool{"task_a": true, "task_b": true, "task_c": true}
	reports := map[string]string{}
	childEvents := 0
	for _, l := range r.Lines {
		parent, _ := l["parent_tool_use_id"].(string)
		if parent != "" {
			if !tasks[parent] {
				t.Errorf("a child event names parent %q, not a Task call", parent)
			}
			if l["agent_id"] == nil {
				t.Errorf("a child event has no agent_id: %v", l)
			}
			childEvents++
			continue
		}
		if l["type"] == "tool_result" && tasks[l["id"].(string)] {
			reports[l["id"].(string)] = l["content"].(string)
			if sub, _ := l["subagent"].(map[string]any); sub == nil || sub["turns"] != float64(2) {
				t.Errorf("%s: subagent = %v, want its 2 turns", l["id"], l["subagent"])
			}
		}
	}
	if childEvents == 0 {
		t.Fatal("no event carries parent_tool_use_id")
	}
	for id, want := range map[string]string{"task_a": "report A", "task_b": "report B", "task_c": "report C"} {
		if reports[id] != want {
			t.Errorf("%s result = %q, want %q", id, reports[id], want)
		}
	}
	info, _ := llm.LookupModel(llmtest.DefaultModel)
	want := 8 * info.Cost(llm.Usage{InputTokens: 1000, OutputTokens: 100})
	if got := r.Result.TotalCostUSD; got < want*0.999 || got > want*1.001 {
		t.Errorf("result cost = %v, want %v (parent and children)", got, want)
	}

	// Each subagent's conversation is kept, listed under the session.
	cmd := exec.Command(novaBin, "sessions", "--cwd", ws, "--json")
	cmd.Env = append(os.Environ(), "NOVA_HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nova sessions: %v\n%s", err, out)
	}
	var listed struct {
		ID        string `json:"id"`
		Subagents []struct {
			ID        string `json:"id"`
			AgentType string `json:"agent_type"`
		} `json:"subagents"`
	}
	if err := json.Unmarshal(firstLine(out), &listed); err != nil {
		t.Fatalf("nova sessions --json: %v\n%s", err, out)
	}
	if len(listed.Subagents) != 3 || listed.Subagents[0].AgentType != "Explore" || !strings.HasPrefix(listed.Subagents[0].ID, listed.ID+".agent_") {
		t.Errorf("sessions = %s, want the session with its three subagents", out)
	}
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}

// A background command returns at once; the run goes on until the model
// has been told of its end (with its output), and a command still running
// when nova exits (here: at the turn limit) is killed with its group.
func TestBackgroundCommandsThroughTheBinary(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{jsonBlock("b1", "Bash", map[string]any{"command": "sleep 1; echo bg-finished", "run_in_background": true})}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Started.")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("It finished.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "--allowedTools", "Bash", "run it in the background")
	if r.Code != 0 || r.Result.Result != "It finished." {
		t.Fatalf("exit %d, result %+v\nstderr: %s", r.Code, r.Result, r.Stderr)
	}
	res := r.byType("tool_result")
	if len(res) != 1 || !strings.Contains(res[0]["content"].(string), "bash_1") {
		t.Fatalf("tool results = %v", res)
	}
	if d := res[0]["duration_ms"].(float64); d >= 1000 {
		t.Errorf("the background call took %v ms: it waited for the command", d)
	}
	mail := r.byType("mailbox")
	if len(mail) != 1 || !strings.Contains(mustJSON(mail[0]), "bg-finished") {
		t.Fatalf("mailbox events = %v", mail)
	}
	calls := modelCalls(srv)
	if len(calls) != 3 || !strings.Contains(string(calls[2].Body), "bg-finished") {
		t.Fatalf("the third request does not deliver the end (%d calls)", len(calls))
	}

	// KillShell, and a command left running at the turn limit.
	ws2 := t.TempDir()
	srv2 := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			jsonBlock("k1", "Bash", map[string]any{"command": "echo $$ > killed; sleep 100 & sleep 100", "run_in_background": true}),
			jsonBlock("k2", "Bash", map[string]any{"command": "echo $$ > left; sleep 100 & sleep 100", "run_in_background": true}),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{bash("w", "sleep 0.5"), jsonBlock("k3", "KillShell", map[string]any{"shell_id": "bash_1"})}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Leaving one running.")}},
	)
	defer srv2.Close()
	r = runNova(t, srv2, ws2, "--allowedTools", "Bash", "--max-turns", "3", "start two")
	if r.Code != 0 {
		t.Fatalf("exit %d, result %+v\nstderr: %s", r.Code, r.Result, r.Stderr)
	}
	for _, f := range []string{"killed", "left"} {
		b, err := os.ReadFile(filepath.Join(ws2, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		if alive := waitGone(pgid); len(alive) > 0 {
			t.Errorf("%s: process group %d still has %v after nova exited", f, pgid, alive)
		}
	}
}

// Ctrl-C while a background command runs and the run waits for it:
// nothing survives.
func TestInterruptKillsBackgroundCommands(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{jsonBlock("b1", "Bash", map[string]any{"command": "echo $$ > pgid; sleep 100 & sleep 100", "run_in_background": true})}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Waiting.")}},
	)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := novaCmd(t, ctx, srv, ws, "--allowedTools", "Bash", "start it")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pgid int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && pgid == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(ws, "pgid")); err == nil && strings.HasSuffix(string(b), "\n") {
			pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	// Wait until the model has finished and the run waits for the command.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && len(modelCalls(srv)) < 2; time.Sleep(20 * time.Millisecond) {
	}
	if pgid == 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatalf("the command never started\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\nstderr: %s", err, stderr.String())
	}
	if alive := waitGone(pgid); len(alive) > 0 {
		t.Fatalf("process group %d still has %v after Ctrl-C", pgid, alive)
	}
}

// waitGone waits up to five seconds for process group pgid to have no live
// member and returns those left.
func waitGone(pgid int) []int {
	var alive []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if alive = liveMembers(pgid); len(alive) == 0 {
			return nil
		}
	}
	return alive
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
