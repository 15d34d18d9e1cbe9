//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/event/eventtest"
	"github.com/novacode/nova/internal/printmode"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp/mcptest"
)

var novaBin string

func TestMain(m *testing.M) {
	mcptest.MainIfServer() // this test binary re-run as an MCP server
	dir, err := os.MkdirTemp("", "nova-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	novaBin = filepath.Join(dir, "nova")
	args := []string{"build", "-o", novaBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "github.com/novacode/nova/cmd/nova")
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build nova:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// run is one finished nova process.
type run struct {
	Lines  []map[string]any // stream-json lines, decoded
	Raw    []string
	Result printmode.Result
	Stderr string
	Code   int
	Events []string // event types in order (without the result line)
}

func (r *run) byType(typ string) []map[string]any {
	var out []map[string]any
	for _, l := range r.Lines {
		if l["type"] == typ {
			out = append(out, l)
		}
	}
	return out
}

// novaCmd prepares nova in print mode with stream-json against srv over the
// Anthropic protocol, in workspace (a fresh one if empty) with a fresh data
// directory.
func novaCmd(t *testing.T, ctx context.Context, srv *llmtest.Server, workspace string, args ...string) *exec.Cmd {
	return novaCmdFor(t, ctx, srv, "anthropic", workspace, args...)
}

// novaCmdFor is novaCmd for any provider: only that protocol's credentials
// are in the environment, so the choice is also what auto-detection makes.
func novaCmdFor(t *testing.T, ctx context.Context, srv *llmtest.Server, provider, workspace string, args ...string) *exec.Cmd {
	t.Helper()
	if workspace == "" {
		workspace = t.TempDir()
	}
	full := append([]string{"-p", "--output-format", "stream-json", "--cwd", workspace, "--provider", provider}, args...)
	cmd := exec.CommandContext(ctx, novaBin, full...)
	env := []string{"NOVA_HOME=" + t.TempDir(), "ANTHROPIC_MODEL=", "OPENAI_MODEL="}
	switch provider {
	case "anthropic":
		env = append(env, "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL, "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	default:
		env = append(env, "OPENAI_API_KEY=test-key", "OPENAI_BASE_URL="+srv.URL+"/v1", "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=")
	}
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	return cmd
}

func runNova(t *testing.T, srv *llmtest.Server, workspace string, args ...string) *run {
	t.Helper()
	return runNovaFor(t, srv, "anthropic", workspace, args...)
}

func runNovaFor(t *testing.T, srv *llmtest.Server, provider, workspace string, args ...string) *run {
	t.Helper()
	return runNovaEnv(t, srv, provider, workspace, nil, args...)
}

// runNovaEnv is runNovaFor with env added to nova's environment (a later
// value of a variable wins).
func runNovaEnv(t *testing.T, srv *llmtest.Server, provider, workspace string, env []string, args ...string) *run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := novaCmdFor(t, ctx, srv, provider, workspace, args...)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("nova did not finish within the deadline\nstderr: %s", stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return parseRun(t, stdout.Bytes(), stderr.String(), code)
}

func parseRun(t *testing.T, stdout []byte, stderr string, code int) *run {
	t.Helper()
	r := &run{Stderr: stderr, Code: code}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stdout line is not JSON: %v\n%s", err, line)
		}
		r.Raw = append(r.Raw, line)
		r.Lines = append(r.Lines, m)
		if m["type"] == "result" {
			continue
		}
		r.Events = append(r.Events, m["type"].(string))
		if err := eventtest.ValidateJSON([]byte(line)); err != nil {
			t.Errorf("event does not match event.schema.json: %v\n%s", err, line)
		}
	}
	if len(r.Raw) == 0 {
		t.Fatalf("nova printed nothing (exit %d)\nstderr: %s", code, stderr)
	}
	lastLine := r.Raw[len(r.Raw)-1]
	if err := json.Unmarshal([]byte(lastLine), &r.Result); err != nil || r.Result.Type != "result" {
		t.Fatalf("last line is not a result: %s", lastLine)
	}
	if n := len(r.Events); n == 0 || r.Events[n-1] != event.TypeLoopComplete {
		t.Fatalf("events do not end with loop_complete: %v", r.Events)
	}
	return r
}

// toolResults returns, per request, the tool_result blocks it carried.
func toolResultsSent(t *testing.T, req llmtest.Request) []map[string]any {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	last := body.Messages[len(body.Messages)-1]
	var out []map[string]any
	for _, b := range last.Content {
		if b["type"] == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// modelCalls are the recorded model requests, leaving out the lookups nova
// makes beside them (the models endpoint, for the context window).
func modelCalls(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}
