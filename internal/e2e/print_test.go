//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

func bash(id, command string) llmtest.Block {
	b, _ := json.Marshal(map[string]string{"command": command})
	return llmtest.ToolUse(id, "Bash", string(b))
}

func readNanos(t *testing.T, path string) time.Time {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("tool did not record its start: %v", err)
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(0, n)
}

// A turn with three tool calls paced 1 s apart: each tool starts as soon as
// its block completes, long before the stream ends; results keep call order.
func TestPacedToolCallsStartDuringStream(t *testing.T) {
	ws := t.TempDir()
	first := llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Text("Running three commands."),
			bash("call_1", "date +%s%N > s1; echo one"),
			withDelay(bash("call_2", "date +%s%N > s2; echo two"), time.Second),
			withDelay(bash("call_3", "date +%s%N > s3; echo three"), time.Second),
		},
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 30},
	}
	srv := llmtest.NewServer(first, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("All three ran.")}, Usage: llm.Usage{InputTokens: 50, OutputTokens: 5}})
	defer srv.Close()

	r := runNova(t, srv, ws, "--allowedTools", "Bash", "run three commands")
	if r.Code != 0 || r.Result.Subtype != "success" || r.Result.Result != "All three ran." {
		t.Fatalf("exit %d result %+v\nstderr %s", r.Code, r.Result, r.Stderr)
	}
	reqs := modelCalls(srv)
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	stops := reqs[0].BlockStops // text, call_1, call_2, call_3
	starts := []time.Time{readNanos(t, filepath.Join(ws, "s1")), readNanos(t, filepath.Join(ws, "s2")), readNanos(t, filepath.Join(ws, "s3"))}
	if !starts[0].Before(reqs[0].Done) {
		t.Fatalf("first tool started at %v, after the stream ended at %v", starts[0], reqs[0].Done)
	}
	for i := range 2 {
		// Tool i started before block i+1 was even complete (1 s later).
		if !starts[i].Before(stops[i+2]) {
			t.Errorf("tool %d started %v after block %d completed", i+1, starts[i].Sub(stops[i+2]), i+2)
		}
	}
	for i := range 3 {
		t.Logf("tool %d started %v after its block completed", i+1, starts[i].Sub(stops[i+1]))
	}

	var order []string
	for _, e := range r.byType("tool_result") {
		order = append(order, e["id"].(string)+"="+strings.TrimSpace(e["content"].(string)))
	}
	if diff := cmp.Diff([]string{"call_1=one", "call_2=two", "call_3=three"}, order); diff != "" {
		t.Fatalf("tool_result events (-want +got):\n%s", diff)
	}
	var sent []string
	for _, b := range toolResultsSent(t, reqs[1]) {
		sent = append(sent, b["tool_use_id"].(string))
	}
	if diff := cmp.Diff([]string{"call_1", "call_2", "call_3"}, sent); diff != "" {
		t.Fatalf("tool results sent to the model (-want +got):\n%s", diff)
	}
	if len(r.Result.ToolCalls) != 3 || r.Result.Usage.InputTokens != 150 || r.Result.NumTurns != 2 {
		t.Fatalf("result = %+v", r.Result)
	}
}

func withDelay(b llmtest.Block, d time.Duration) llmtest.Block { b.Delay = d; return b }

// Model mistakes and tool failures become error results; the loop goes on.
func TestBadInputLosesNothing(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			bash("fail", "echo oops; exit 3"),
			llmtest.ToolUse("badjson", "Bash", `{"command": "echo hi"`),
			llmtest.ToolUse("unknown", "Frobnicate", `{}`),
			llmtest.ToolUse("missing", "Read", `{}`),
			llmtest.ToolUse("nofile", "Read", `{"file_path":"does-not-exist.txt"}`),
			bash("huge", "head -c 3000000 /dev/zero | tr '\\0' a"),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Handled every error.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "--allowedTools", "Bash", "try things")
	if r.Code != 0 || r.Result.Subtype != "success" {
		t.Fatalf("exit %d result %+v\nstderr %s", r.Code, r.Result, r.Stderr)
	}
	res := r.byType("tool_result")
	if len(res) != 6 {
		t.Fatalf("%d results, want 6", len(res))
	}
	want := []struct {
		isErr bool
		sub   string
	}{
		{true, "oops"},
		{true, "not valid JSON"},
		{true, `Unknown tool "Frobnicate"`},
		{true, "file_path"},
		{true, "does not exist"},
		{false, "truncated"},
	}
	for i, w := range want {
		c := res[i]["content"].(string)
		if res[i]["is_error"].(bool) != w.isErr || !strings.Contains(c, w.sub) {
			t.Errorf("result %d (%s): is_error=%v content=%.200q, want is_error=%v containing %q", i, res[i]["id"], res[i]["is_error"], c, w.isErr, w.sub)
		}
	}
	if n := len(res[5]["content"].(string)); n > 50_000 {
		t.Errorf("huge output entered history at %d characters", n)
	}
	if n := len(modelCalls(srv)[1].Body); n > 120_000 {
		t.Errorf("second request is %d bytes: size control failed", n)
	}
}

func TestMaxTurns(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Cycle(llmtest.Turn{Blocks: []llmtest.Block{bash("", "echo again")}}))
	r := runNova(t, srv, "", "--allowedTools", "Bash", "--max-turns", "2", "loop forever")
	if r.Code != 1 || r.Result.Subtype != "error_max_turns" || !r.Result.IsError || r.Result.NumTurns != 2 {
		t.Fatalf("exit %d result %+v", r.Code, r.Result)
	}
	if n := len(modelCalls(srv)); n != 2 {
		t.Fatalf("%d model calls, want 2", n)
	}
}

func TestMaxTokensRecovered(t *testing.T) {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("The first half of a long answer")}, StopReason: "max_tokens"},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(" and the second half.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, "", "write a long answer")
	if r.Code != 0 || r.Result.Subtype != "success" {
		t.Fatalf("exit %d result %+v", r.Code, r.Result)
	}
	reqs := modelCalls(srv)
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	m1, m2 := reqs[0].JSON()["max_tokens"].(float64), reqs[1].JSON()["max_tokens"].(float64)
	if m2 <= m1 {
		t.Errorf("output limit not raised: %v then %v", m1, m2)
	}
	if !strings.Contains(string(reqs[1].Body), "Continue exactly where you stopped") {
		t.Error("second request does not ask the model to continue")
	}
	if !strings.Contains(string(reqs[1].Body), "The first half of a long answer") {
		t.Error("the cut answer was not kept in history")
	}
}

func TestPrintModeDeniesWhatNeedsAPerson(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{bash("b", "touch created")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Could not run it.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "make a file")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	res := r.byType("tool_result")[0]
	if !res["is_error"].(bool) || !strings.Contains(res["content"].(string), "--permission-mode acceptEdits --allowedTools 'Bash(touch created)'") {
		t.Fatalf("result = %v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "created")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the denied command ran")
	}
	if len(r.byType("permission_request")) != 0 {
		t.Fatal("print mode emitted a permission request nobody can answer")
	}
}

// A run whose edits and commands were all refused still ends with the
// model's "Done" and exit 0 (the run finished, as Claude Code's does), but
// standard error says what was denied and which flags would allow it, and
// the JSON result lists the denials. The flags it names do allow the calls.
func TestPrintModeSummarisesDenials(t *testing.T) {
	turns := func() []llmtest.Turn {
		return []llmtest.Turn{
			{Blocks: []llmtest.Block{
				llmtest.ToolUse("w", "Write", `{"file_path":"hello.txt","content":"hello\n"}`),
				bash("t", "touch created"),
				bash("d", "git reset --hard HEAD~3"),
			}},
			{Blocks: []llmtest.Block{llmtest.Text("Done.")}},
		}
	}
	ws := t.TempDir()
	srv := llmtest.NewServer(turns()...)
	defer srv.Close()

	// Text, as a person at a terminal runs it.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := novaCmd(t, ctx, srv, ws, "--output-format", "text", "say hello")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if stdout.String() != "Done.\n" {
		t.Errorf("stdout = %q", stdout.String())
	}
	summary := stderr.String()
	if i := strings.Index(summary, "nova: 3 tool calls were denied"); i >= 0 {
		summary = summary[i:]
	}
	golden(t, "denied.stderr.golden", summary)

	// stream-json: the same calls, marked in the result.
	srv2 := llmtest.NewServer(turns()...)
	defer srv2.Close()
	r := runNova(t, srv2, ws, "say hello")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var denied []string
	for _, c := range r.Result.ToolCalls {
		if c.Denied && c.Reason != "" {
			denied = append(denied, c.ID)
		}
	}
	var ids []string
	for _, d := range r.Result.PermissionDenials {
		ids = append(ids, d.ToolUseID+" "+d.ToolName+" "+string(d.ToolInput))
	}
	want := []string{`w Write {"file_path":"hello.txt","content":"hello\n"}`, `t Bash {"command":"touch created"}`, `d Bash {"command":"git reset --hard HEAD~3"}`}
	if diff := cmp.Diff(want, ids); diff != "" || len(denied) != 3 {
		t.Fatalf("permission_denials (-want +got):\n%s\ndenied tool_calls: %v", diff, denied)
	}
	for _, tr := range r.byType("tool_result") {
		if tr["denied"] != true || tr["reason"] == "" || tr["needs_approval"] != true {
			t.Errorf("tool_result = %v", tr)
		}
	}

	// The flags the summary names allow what a flag can allow.
	srv3 := llmtest.NewServer(turns()...)
	defer srv3.Close()
	r = runNova(t, srv3, ws, "--permission-mode", "acceptEdits", "--allowedTools", "Bash(touch created)", "say hello")
	if len(r.Result.PermissionDenials) != 1 || r.Result.PermissionDenials[0].ToolUseID != "d" {
		t.Fatalf("with the flags: %+v", r.Result.PermissionDenials)
	}
	for _, f := range []string{"hello.txt", "created"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("with the flags, %s was not made: %v", f, err)
		}
	}
}

// Commands that only read inside the workspace need no flag, even in print
// mode; a write beside them is still refused, and a read of a secret too.
func TestPrintModeReadsWithoutFlags(t *testing.T) {
	ws := t.TempDir()
	for name, content := range map[string]string{"README.md": "# Hello reader\n", ".env": "TOKEN=hunter2\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			bash("ls", "ls -a"),
			bash("cat", "cat README.md | head -5 && wc -l README.md"),
			bash("touch", "touch created"),
			bash("env", "cat .env"),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Looked around.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "look around")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	res := r.byType("tool_result")
	if len(res) != 4 {
		t.Fatalf("%d results", len(res))
	}
	if res[0]["is_error"].(bool) || !strings.Contains(res[0]["content"].(string), "README.md") {
		t.Errorf("ls: %v", res[0])
	}
	if res[1]["is_error"].(bool) || !strings.Contains(res[1]["content"].(string), "# Hello reader") {
		t.Errorf("cat: %v", res[1])
	}
	for _, i := range []int{2, 3} {
		if !res[i]["is_error"].(bool) || !strings.Contains(res[i]["content"].(string), "not granted") {
			t.Errorf("%s was not refused: %v", res[i]["id"], res[i])
		}
	}
	if strings.Contains(res[3]["content"].(string), "hunter2") {
		t.Error("the secret reached the model")
	}
	if _, err := os.Stat(filepath.Join(ws, "created")); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the refused write ran")
	}
}

// A small real task: read a file, edit it, check it — through the binary.
func TestSolvesASmallCodingTask(t *testing.T) {
	ws := t.TempDir()
	src := "package main\n\nfunc greet() string { return \"helo\" }\n"
	if err := os.WriteFile(filepath.Join(ws, "main.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Thinking("The greeting is misspelt.", "sig-1"), llmtest.ToolUse("r", "Read", `{"file_path":"main.go"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("e", "Edit", `{"file_path":"main.go","old_string":"\"helo\"","new_string":"\"hello\""}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{bash("c", "grep -c hello main.go")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Fixed the typo in greet().")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "--permission-mode", "acceptEdits", "--allowedTools", "Bash", "fix the typo in main.go")
	if r.Code != 0 || r.Result.Result != "Fixed the typo in greet()." {
		t.Fatalf("exit %d result %+v\n%s", r.Code, r.Result, r.Stderr)
	}
	got, _ := os.ReadFile(filepath.Join(ws, "main.go"))
	if want := strings.Replace(src, "helo", "hello", 1); string(got) != want {
		t.Fatalf("main.go = %q", got)
	}
	for _, e := range r.byType("tool_result") {
		if e["is_error"].(bool) {
			t.Errorf("tool %s failed: %s", e["name"], e["content"])
		}
	}
	if len(r.byType("thinking_text")) == 0 {
		t.Error("no thinking_text events")
	}
	// The thinking block went back to the model with its signature.
	if !strings.Contains(string(modelCalls(srv)[1].Body), `"signature":"sig-1"`) {
		t.Error("thinking signature not sent back")
	}
}

// Events are written as they happen, not at the end.
func TestStreamJSONIsLive(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Text("first words"),
		withDelay(llmtest.Text(" after a pause"), 1500*time.Millisecond),
	}})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := novaCmd(t, ctx, srv, "", "say something")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var firstText time.Time
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"stream_text"`) && firstText.IsZero() {
			firstText = time.Now()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	done := modelCalls(srv)[0].Done
	if firstText.IsZero() || !firstText.Before(done) {
		t.Fatalf("first stream_text line arrived at %v, stream ended at %v", firstText, done)
	}
}

// Ctrl-C: the run ends with a cancelled result, exit 130, and the running
// command's whole process group is gone.
func TestInterruptCancelsCleanly(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
		bash("long", "echo $$ > pgid; sleep 60 & sleep 60"),
		withDelay(llmtest.Text("never sent"), time.Minute),
	}})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := novaCmd(t, ctx, srv, ws, "--allowedTools", "Bash", "wait a long time")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgidFile := filepath.Join(ws, "pgid")
	var pgid int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pgidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pgid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
	}
	if pgid == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the command never started\n%s", stderr.String())
	}
	sent := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee interface{ ExitCode() int }
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\nstderr: %s", err, stderr.String())
	}
	t.Logf("exited %v after the interrupt", time.Since(sent))
	r := parseRun(t, []byte(stdout.String()), stderr.String(), 130)
	if r.Result.Subtype != "cancelled" {
		t.Fatalf("result = %+v", r.Result)
	}
	res := r.byType("tool_result")
	if len(res) != 1 || res[0]["cancelled"] != true {
		t.Fatalf("tool results = %v", res)
	}
	// Killed processes may linger as zombies until their new parent reaps
	// them; only live members of the group count.
	var alive []int
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if alive = liveMembers(pgid); len(alive) == 0 {
			return
		}
	}
	t.Fatalf("process group %d still has live processes %v after cancel", pgid, alive)
}

// liveMembers lists the non-zombie processes of process group pgid.
func liveMembers(pgid int) []int {
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return nil
	}
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the parenthesised command: state ppid pgrp ...
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// AskUserQuestion in print mode: nobody can answer, and the model is told
// so instead of the run waiting.
func TestQuestionInPrintMode(t *testing.T) {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("q", "AskUserQuestion", `{"question":"Which database?","options":["Postgres","SQLite"]}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Assuming Postgres.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, "", "set up a database")
	res := r.byType("tool_result")
	if r.Code != 0 || len(res) != 1 || !strings.Contains(res[0]["content"].(string), "Nobody can answer questions") {
		t.Fatalf("exit %d results %v", r.Code, res)
	}
}

// A server that is not running is named, with what to do, not reported as
// a broken stream.
func TestConnectionRefusedNamesTheServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	home, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"maxRetries": 0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, novaBin, "-p", "--cwd", ws, "--provider", "openai-chat", "--model", "m", "hello")
	cmd.Env = append(os.Environ(), "NOVA_HOME="+home, "OPENAI_BASE_URL=http://"+addr+"/v1", "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "ANTHROPIC_BASE_URL=")
	out, err := cmd.CombinedOutput()
	want := "nova: model call failed (connection): connection refused: is the server at http://" + addr + " running? Start it, or set the base URL to where it listens\n"
	if code := cmd.ProcessState.ExitCode(); code != 1 || string(out) != want {
		t.Fatalf("exit %d (%v), output:\n%s\nwant:\n%s", code, err, out, want)
	}
}

// --version names the commit the binary was built from, or says plainly
// that none was recorded (go run, -buildvcs=false, a linked worktree).
func TestVersionNamesTheBuild(t *testing.T) {
	out, err := exec.Command(novaBin, "--version").CombinedOutput()
	got := string(out)
	if err != nil || !strings.HasPrefix(got, "nova version ") ||
		!(strings.Contains(got, " (commit ") || strings.Contains(got, " (devel: built without version control information")) {
		t.Fatalf("nova --version: %v\n%s", err, got)
	}
}
