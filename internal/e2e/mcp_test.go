//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp/mcptest"
)

// mcpConfig writes a configuration file with one server, this test binary
// serving mcptest's mode, which appends its pid to pidFile.
func mcpConfig(t *testing.T, path, name, mode, pidFile string) {
	t.Helper()
	cmd, args, env := mcptest.Command(mode)
	env[mcptest.EnvPIDFile] = pidFile
	env[mcptest.EnvDelay] = "1h" // ModeSlow
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{name: map[string]any{"command": cmd, "args": args, "env": env}}})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func pidsIn(t *testing.T, file string) []int {
	t.Helper()
	b, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// groupsGone waits briefly until no process is left in the groups.
func groupsGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, p := range pids {
		for !errors.Is(syscall.Kill(-p, 0), syscall.ESRCH) {
			if time.Now().After(deadline) {
				t.Errorf("process group %d outlived nova", p)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// A cloned repository's .mcp.json starts nothing in print mode, which
// says so on standard error once; the same servers given with
// --mcp-config start, their tools reach the model, and nothing of them
// outlives nova.
func TestMCPThroughTheBinary(t *testing.T) {
	ws := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pids")
	mcpConfig(t, filepath.Join(ws, ".mcp.json"), "repo", mcptest.ModeTools, pidFile)

	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("nothing to do")}})
	defer srv.Close()
	r := runNova(t, srv, ws, "hello")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	notice := "nova: .mcp.json defines servers repo that you have not approved; run nova (interactive) to approve them, or add them with --mcp-config\n"
	if strings.Count(r.Stderr, notice) != 1 {
		t.Errorf("stderr:\n%s", r.Stderr)
	}
	if ps := pidsIn(t, pidFile); len(ps) != 0 {
		t.Fatalf("an unapproved server ran: %v", ps)
	}
	if bytes.Contains(srv.Requests()[len(srv.Requests())-1].Body, []byte("mcp__repo__")) {
		t.Error("the unapproved server's tools reached the model")
	}

	// The person names the file: its servers are theirs. The first request
	// goes out while the server may still be starting (its tools are then
	// deferred); the model calls the tool by its name at once, and the call
	// waits for the server if it has to.
	srv2 := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("c1", "mcp__repo__echo", `{"text":"from the server"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
	)
	defer srv2.Close()
	r = runNova(t, srv2, ws, "--mcp-config", filepath.Join(ws, ".mcp.json"), "--strict-mcp-config", "echo something")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stderr, ".mcp.json defines") {
		t.Errorf("stderr:\n%s", r.Stderr)
	}
	results := r.byType("tool_result")
	if len(results) != 1 {
		t.Fatalf("tool results: %v\nstderr: %s", results, r.Stderr)
	}
	if got := results[0]["content"]; got != "from the server" {
		t.Errorf("echo = %v", results[0])
	}
	ps := pidsIn(t, pidFile)
	if len(ps) != 1 {
		t.Fatalf("pids = %v", ps)
	}
	groupsGone(t, ps)
}

// Ctrl-C in print mode (SIGINT to nova alone: the servers sit in process
// groups of their own, out of the terminal's reach) and a nova killed
// outright (Pdeathsig) both leave no server behind. The server sleeps
// through its start and never reads its input, so only a signal ends it.
func TestMCPServersDieWithNova(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			ws := t.TempDir()
			pidFile := filepath.Join(t.TempDir(), "pids")
			cfg := filepath.Join(t.TempDir(), "servers.json")
			mcpConfig(t, cfg, "s", mcptest.ModeSlow, pidFile)
			srv := llmtest.NewServer(llmtest.Turn{Hang: true})
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := novaCmd(t, ctx, srv, ws, "--mcp-config", cfg, "wait forever")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for (len(pidsIn(t, pidFile)) == 0 || len(srv.Requests()) == 0) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			ps := pidsIn(t, pidFile)
			if len(ps) != 1 {
				t.Fatalf("pids = %v; stderr: %s", ps, stderr.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			groupsGone(t, ps)
		})
	}
}
