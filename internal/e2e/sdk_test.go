//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
)

// examples/quickstart, a whole program on the SDK, answers from the
// scripted server with the environment and the workspace's AGENTS.md in its
// first request, and leaves a session the nova binary resumes.
func TestQuickstartExample(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "quickstart")
	build := exec.Command("go", "build", "-o", bin, "github.com/novacode/nova/examples/quickstart")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the example: %v\n%s", err, out)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Hello from the scripted model.")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Still here.")}},
	)
	defer srv.Close()
	ws, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "AGENTS.md"), "Answer in one line.")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "say", "hello")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "NOVA_HOME="+home, "ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL,
		"ANTHROPIC_MODEL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("quickstart: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "Hello from the scripted model.") {
		t.Fatalf("output:\n%s", out)
	}
	m := regexp.MustCompile(`done after 1 model calls, 0 tool calls, \$[0-9.]+; session (\S+)`).FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no summary line:\n%s", out)
	}
	first := string(modelCalls(srv)[0].Body)
	for _, want := range []string{"Answer in one line.", "say hello", "Working directory: " + ws} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %q", want)
		}
	}
	// The binary continues the session the program saved.
	r := runNovaEnv(t, srv, "anthropic", ws, []string{"NOVA_HOME=" + home}, "--resume", m[1], "still there?")
	if r.Code != 0 || r.Result.Result != "Still here." || r.Result.SessionID != m[1] {
		t.Fatalf("resume: exit %d, %+v\n%s", r.Code, r.Result, r.Stderr)
	}
	second := string(modelCalls(srv)[1].Body)
	if !strings.Contains(second, "Hello from the scripted model.") || !strings.Contains(second, "still there?") {
		t.Errorf("the resumed request lacks the history:\n%s", second)
	}
}

// The same scripted conversation through the nova binary and through the
// SDK with the options the binary's flags stand for sends byte-identical
// model requests and yields the same events.
func TestSDKParityWithTheBinary(t *testing.T) {
	script := func() []llmtest.Turn {
		return []llmtest.Turn{
			{Blocks: []llmtest.Block{llmtest.Text("Let me look."), llmtest.ToolUse("toolu_a", "Read", `{"file_path":"main.go"}`),
				llmtest.ToolUse("toolu_b", "Write", `{"file_path":"out.txt","content":"x"}`)}},
			{Blocks: []llmtest.Block{llmtest.Text("It is a main package; I could not write out.txt.")}},
		}
	}
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	writeFile(t, filepath.Join(ws, "AGENTS.md"), "Be brief.")

	cliSrv := llmtest.NewServer(script()...)
	defer cliSrv.Close()
	r := runNova(t, cliSrv, ws, "--max-turns", "5", "--allowedTools", "Read", "what is main.go?")
	if r.Code != 0 {
		t.Fatalf("nova: exit %d\n%s", r.Code, r.Stderr)
	}

	sdkSrv := llmtest.NewServer(script()...)
	defer sdkSrv.Close()
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": sdkSrv.URL}
	o := nova.Options{Dir: ws, DataDir: t.TempDir(), Provider: "anthropic", MaxTurns: 5, Allow: []string{"Read"},
		Getenv: func(k string) string { return env[k] }}
	var sdkLines []string
	for e, err := range nova.Query(context.Background(), "what is main.go?", o) {
		if err != nil {
			t.Fatal(err)
		}
		b, err := event.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		sdkLines = append(sdkLines, string(b))
	}

	cliReqs, sdkReqs := modelCalls(cliSrv), modelCalls(sdkSrv)
	if len(cliReqs) != 2 || len(sdkReqs) != 2 {
		t.Fatalf("model calls: binary %d, SDK %d", len(cliReqs), len(sdkReqs))
	}
	for i := range cliReqs {
		if diff := cmp.Diff(string(cliReqs[i].Body), string(sdkReqs[i].Body)); diff != "" {
			t.Errorf("request %d differs (-binary +SDK):\n%s", i+1, diff)
		}
	}
	if diff := cmp.Diff(normalise(t, r.Raw[:len(r.Raw)-1]), normalise(t, sdkLines)); diff != "" {
		t.Errorf("events differ (-binary +SDK):\n%s", diff)
	}
}

// normalise drops what differs between two runs of one script: timings,
// and where a tool_done falls among the stream's events (a call ends when
// it ends, while the model may still be streaming); tool_done events are
// compared as a set, after the rest.
func normalise(t *testing.T, lines []string) []string {
	t.Helper()
	var out, done []string
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		delete(m, "duration_ms")
		b, _ := json.Marshal(m)
		if m["type"] == event.TypeToolDone {
			done = append(done, string(b))
			continue
		}
		out = append(out, string(b))
	}
	slices.Sort(done)
	return append(out, done...)
}
