//go:build unix

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm/llmtest"
)

// nova acp driven by the official ACP TypeScript client
// (@agentclientprotocol/sdk 2.4.0, internal/acp/testdata/client, which
// .ci/run installs with npm ci): client.mjs plays an editor through a
// scenario against the nova binary and the scripted model, and prints what
// it saw as JSON lines; the tests check them.

// acpClient returns node and the client script; without them the test is
// skipped, or fails under CI=true.
func acpClient(t *testing.T) (node, script string) {
	t.Helper()
	node = needTool(t, "node", "apt-get install nodejs npm")
	dir, err := filepath.Abs(filepath.Join("..", "acp", "testdata", "client"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@agentclientprotocol", "sdk", "package.json")); err != nil {
		missing(t, "the ACP client is not installed (.ci/run installs it: npm ci --prefix internal/acp/testdata/client)")
	}
	return node, filepath.Join(dir, "client.mjs")
}

// acpLine is one line the client printed.
type acpLine struct {
	T        string          `json:"t"`
	Method   string          `json:"method"`
	Response json.RawMessage `json:"response"`
	Update   *acpUpdate      `json:"update"`
	Request  *struct {
		ToolCall struct {
			ToolCallID string `json:"toolCallId"`
			Title      string `json:"title"`
			Kind       string `json:"kind"`
			Status     string `json:"status"`
		} `json:"toolCall"`
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	} `json:"request"`
	Answer *string `json:"answer"`
	Path   string  `json:"path"`
	// Notes of the scenario's own.
	Content string            `json:"content"`
	PGID    int               `json:"pgid"`
	Buffers map[string]string `json:"buffers"`
	Exit    *struct {
		Code *int `json:"code"`
	} `json:"exit"`
}

// acpUpdate is a session/update's update.
type acpUpdate struct {
	SessionUpdate string `json:"sessionUpdate"`
	Content       json.RawMessage
	ToolCallID    string `json:"toolCallId"`
	Title         string `json:"title"`
	Kind          string `json:"kind"`
	Status        string `json:"status"`
	Locations     []struct {
		Path string `json:"path"`
		Line *int   `json:"line"`
	} `json:"locations"`
	Entries []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"entries"`
	CurrentModeID     string            `json:"currentModeId"`
	AvailableCommands []json.RawMessage `json:"availableCommands"`
}

// acpRun is what client.mjs printed in one run.
type acpRun struct {
	lines []acpLine
	home  string // nova's data directory
}

// runACPClient runs client.mjs through scenario in ws against srv, with
// flags for nova acp and env added to the environment. each, if set, sees
// every line as it comes, with the client's standard input: a scenario
// that waits (cancel) reads its go-ahead there, and disconnects once it is
// closed.
func runACPClient(t *testing.T, srv *llmtest.Server, scenario, ws string, env []string, each func(acpLine, io.WriteCloser), novaArgs ...string) *acpRun {
	t.Helper()
	node, script := acpClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	home := t.TempDir()
	args, _ := json.Marshal(append([]string{}, novaArgs...))
	cmd := exec.CommandContext(ctx, node, script, scenario, ws)
	cmd.Dir = filepath.Dir(script)
	cmd.Env = append(os.Environ(),
		"NOVA_BIN="+novaBin, "NOVA_ARGS="+string(args), "NOVA_HOME="+home,
		"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_MODEL=",
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "OPENAI_MODEL=")
	cmd.Env = append(cmd.Env, env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if each == nil {
		stdin.Close()
	}
	r := &acpRun{home: home}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var l acpLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("client line is not JSON: %v\n%s", err, sc.Text())
			continue
		}
		r.lines = append(r.lines, l)
		if each != nil {
			each(l, stdin)
		}
	}
	stdin.Close()
	_, _ = io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil || ctx.Err() != nil {
		t.Fatalf("client: %v (deadline: %v)\nstderr:\n%s\nlines: %d", err, ctx.Err(), stderr.String(), len(r.lines))
	}
	for _, l := range r.lines {
		if l.Exit != nil && (l.Exit.Code == nil || *l.Exit.Code != 0) {
			t.Errorf("nova acp did not exit cleanly: %+v\nstderr:\n%s", *l.Exit, stderr.String())
		}
	}
	if testing.Verbose() {
		t.Logf("client stderr (nova's log):\n%s", stderr.String())
	}
	return r
}

// acpView is a run as the tests compare it: the conversation's stream
// (text, thinking, plans, modes, the prompts' ends) in order, and each
// tool call's own story (announcement, status changes, the permission
// asked and the answer, content), in order per call: calls running side
// by side interleave as they like.
type acpView struct {
	Stream []string
	Calls  map[string][]string
}

func (r *acpRun) view(ws string) acpView {
	v := acpView{Calls: map[string][]string{}}
	short := func(s string) string { return strings.ReplaceAll(s, ws, "$WS") }
	var text *string // the text run being added to
	for _, l := range r.lines {
		// Chunks join up to the next entry of the stream or the next
		// call; a status update of an earlier call, or its permission
		// (both kept apart, in Calls), may come between two chunks of one
		// message: calls run while the model is still talking.
		if l.T == "prompt" || (l.T == "update" && l.Update.SessionUpdate != "agent_message_chunk" && l.Update.SessionUpdate != "agent_thought_chunk" &&
			l.Update.SessionUpdate != "tool_call_update") {
			text = nil
		}
		switch l.T {
		case "prompt":
			var p struct {
				StopReason string `json:"stopReason"`
			}
			_ = json.Unmarshal(l.Response, &p)
			v.Stream = append(v.Stream, "stop: "+p.StopReason)
		case "permission":
			var opts []string
			for _, o := range l.Request.Options {
				opts = append(opts, o.OptionID)
			}
			answer := "cancelled"
			if l.Answer != nil {
				answer = *l.Answer
			}
			id := l.Request.ToolCall.ToolCallID
			v.Calls[id] = append(v.Calls[id], fmt.Sprintf("permission %q [%s] → %s", l.Request.ToolCall.Title, strings.Join(opts, " "), answer))
		case "update":
			u := l.Update
			switch u.SessionUpdate {
			case "agent_message_chunk", "agent_thought_chunk", "user_message_chunk":
				var c struct {
					Text string `json:"text"`
				}
				_ = json.Unmarshal(u.Content, &c)
				label := map[string]string{"agent_message_chunk": "text: ", "agent_thought_chunk": "thought: ", "user_message_chunk": "user: "}[u.SessionUpdate]
				if text != nil && strings.HasPrefix(*text, label) {
					*text += c.Text
					continue
				}
				v.Stream = append(v.Stream, label+c.Text)
				text = &v.Stream[len(v.Stream)-1]
			case "plan":
				var entries []string
				for _, e := range u.Entries {
					entries = append(entries, "["+e.Status+"] "+e.Content)
				}
				v.Stream = append(v.Stream, "plan: "+strings.Join(entries, "; "))
			case "current_mode_update":
				v.Stream = append(v.Stream, "mode: "+u.CurrentModeID)
			case "tool_call":
				s := fmt.Sprintf("tool_call %s %q %s", u.Kind, u.Title, u.Status)
				for _, loc := range u.Locations {
					s += " at " + short(loc.Path)
				}
				if c := contentOf(u.Content); c != "" {
					s += ": " + short(c)
				}
				v.Calls[u.ToolCallID] = append(v.Calls[u.ToolCallID], s)
			case "tool_call_update":
				s := u.Status
				if c := contentOf(u.Content); c != "" {
					s += ": " + short(c)
				}
				v.Calls[u.ToolCallID] = append(v.Calls[u.ToolCallID], s)
			}
		}
	}
	return v
}

// contentOf sums up a tool call's content: each diff as path: old → new,
// each text as it is.
func contentOf(raw json.RawMessage) string {
	var items []struct {
		Type    string  `json:"type"`
		Path    string  `json:"path"`
		OldText *string `json:"oldText"`
		NewText string  `json:"newText"`
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &items) != nil {
		return ""
	}
	var out []string
	for _, it := range items {
		switch it.Type {
		case "diff":
			old := "(new file)"
			if it.OldText != nil {
				old = fmt.Sprintf("%q", *it.OldText)
			}
			out = append(out, fmt.Sprintf("diff %s: %s → %q", it.Path, old, it.NewText))
		case "content":
			out = append(out, it.Content.Text)
		}
	}
	return strings.Join(out, " | ")
}

// The five-turn conversation of the issue in default mode: text and
// thinking stream, tool calls show with their kinds, titles, locations
// and completions, the task list is the plan, and the editor is asked
// about the edit (allowed once), the command (allowed always) and the
// write (rejected); the file is edited on disk.
func TestACPToolConversation(t *testing.T) {
	ws := t.TempDir()
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, []byte("first line\nsecond line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Thinking("Let me look at the notes.", "sig"),
			llmtest.Text("I'll read the notes first."),
			llmtest.ToolUse("toolu_read", "Read", `{"file_path":"notes.txt"}`),
			llmtest.ToolUse("toolu_todo", "TodoWrite", `{"todos":[{"content":"Tidy the notes","status":"in_progress","activeForm":"Tidying the notes"},{"content":"Report","status":"pending","activeForm":"Reporting"}]}`),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("toolu_edit", "Edit", `{"file_path":"notes.txt","old_string":"second line","new_string":"second line, tidied"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{bash("toolu_bash", "touch made-by-bash")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("toolu_write", "Write", `{"file_path":"unwanted.txt","content":"no\n"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Done: the notes are tidy.")}},
	)
	defer srv.Close()
	r := runACPClient(t, srv, "tools", ws, nil, nil)

	var init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool            `json:"loadSession"`
			PromptCapabilities map[string]bool `json:"promptCapabilities"`
			McpCapabilities    map[string]bool `json:"mcpCapabilities"`
		} `json:"agentCapabilities"`
	}
	var modes struct {
		Modes struct {
			CurrentModeID  string `json:"currentModeId"`
			AvailableModes []struct {
				ID string `json:"id"`
			} `json:"availableModes"`
		} `json:"modes"`
	}
	commands := 0
	for _, l := range r.lines {
		switch {
		case l.T == "init":
			_ = json.Unmarshal(l.Response, &init)
		case l.T == "session" && l.Method == "new":
			_ = json.Unmarshal(l.Response, &modes)
		case l.T == "update" && l.Update.SessionUpdate == "available_commands_update":
			commands++
		}
	}
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession ||
		!init.AgentCapabilities.PromptCapabilities["image"] || !init.AgentCapabilities.PromptCapabilities["embeddedContext"] ||
		!init.AgentCapabilities.McpCapabilities["http"] {
		t.Errorf("initialize = %+v", init)
	}
	var ids []string
	for _, m := range modes.Modes.AvailableModes {
		ids = append(ids, m.ID)
	}
	if modes.Modes.CurrentModeID != "default" || !slices.Equal(ids, []string{"default", "acceptEdits", "plan", "bypassPermissions"}) {
		t.Errorf("session/new modes = %+v", modes)
	}
	if commands != 1 {
		t.Errorf("%d available_commands_update, want 1", commands)
	}

	want := acpView{
		Stream: []string{
			"thought: Let me look at the notes.",
			"text: I'll read the notes first.",
			"plan: [in_progress] Tidy the notes; [pending] Report",
			"text: Done: the notes are tidy.",
			"stop: end_turn",
		},
		Calls: map[string][]string{
			"toolu_read": {
				`tool_call read "Read notes.txt" in_progress at $WS/notes.txt`,
				"completed",
				"completed: ```\n     1\tfirst line\n     2\tsecond line\n```",
			},
			"toolu_edit": {
				`tool_call edit "Edit notes.txt" in_progress at $WS/notes.txt: diff $WS/notes.txt: "second line" → "second line, tidied"`,
				"pending",
				`permission "Edit notes.txt" [allow_once allow_always deny] → allow_once`,
				"in_progress",
				"completed",
				`completed: diff $WS/notes.txt: "second line" → "second line, tidied"`,
			},
			"toolu_bash": {
				`tool_call execute "touch made-by-bash" in_progress`,
				"pending",
				`permission "touch made-by-bash" [allow_once allow_always deny] → allow_always`,
				"in_progress",
				"completed",
				"completed: ```\n(no output)\n```",
			},
			"toolu_write": {
				`tool_call edit "Write unwanted.txt" in_progress at $WS/unwanted.txt: diff $WS/unwanted.txt: (new file) → "no\n"`,
				"pending",
				`permission "Write unwanted.txt" [allow_once allow_always deny] → deny`,
				"failed",
				"failed: The user denied this call. Do not retry it; adjust your approach.",
			},
		},
	}
	if diff := cmp.Diff(want, r.view(ws)); diff != "" {
		t.Errorf("what the editor saw (-want +got):\n%s", diff)
	}
	if data, _ := os.ReadFile(notes); string(data) != "first line\nsecond line, tidied\n" {
		t.Errorf("notes.txt = %q", data)
	}
	if _, err := os.Stat(filepath.Join(ws, "made-by-bash")); err != nil {
		t.Errorf("the command allowed did not run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "unwanted.txt")); err == nil {
		t.Error("the rejected Write wrote unwanted.txt")
	}
	if settings, _ := os.ReadFile(filepath.Join(r.home, "settings.json")); !strings.Contains(string(settings), "touch made-by-bash") {
		t.Errorf("allow always was not remembered in the user's settings:\n%s", settings)
	}
}

// session/cancel while a long command runs: the prompt answers cancelled
// and every process the command started is gone, with nova still running.
func TestACPCancelMidTool(t *testing.T) {
	ws := t.TempDir()
	mark := marker(t)
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
		bash("toolu_long", "echo $$ > pgid; export NOVA_E2E_MARK="+mark+"; sleep 60 & sleep 60"),
		withDelay(llmtest.Text("never sent"), time.Minute),
	}})
	defer srv.Close()
	var running, survivors []int
	var cancelledAt time.Time
	r := runACPClient(t, srv, "cancel", ws, nil, func(l acpLine, stdin io.WriteCloser) {
		switch {
		case l.PGID != 0:
			// The command has started: its processes are there. Then
			// the client may cancel.
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline) && len(running) < 2; time.Sleep(20 * time.Millisecond) {
				running = pids(marked(mark))
			}
			cancelledAt = time.Now()
			fmt.Fprintln(stdin, "cancel")
		case l.T == "prompt":
			// The prompt has answered; nova is still connected.
			t.Logf("the prompt answered %v after session/cancel", time.Since(cancelledAt))
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if survivors = pids(marked(mark)); len(survivors) == 0 {
					break
				}
			}
			stdin.Close() // the client disconnects
		}
	}, "--allowedTools", "Bash")
	if len(running) < 2 {
		t.Fatalf("the command's processes were never seen running: %v", running)
	}
	if len(survivors) > 0 {
		t.Errorf("processes %v of the cancelled command outlived the prompt", survivors)
	}
	v := r.view(ws)
	if diff := cmp.Diff([]string{"stop: cancelled"}, v.Stream); diff != "" {
		t.Errorf("stream (-want +got):\n%s", diff)
	}
	calls := v.Calls["toolu_long"]
	if len(calls) < 2 || !strings.HasPrefix(calls[0], `tool_call execute "echo $$ > pgid;`) || !strings.HasPrefix(calls[len(calls)-1], "failed") {
		t.Errorf("the command's call: %q", calls)
	}
}

// said is a turn in which the model only says s.
func said(s string) llmtest.Turn { return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(s)}} }

// pids are the processes of marked's answer, sorted.
func pids(m map[int]int) []int {
	return slices.Sorted(maps.Keys(m))
}

// session/load of a finished session, by a second nova: its conversation
// comes back as updates before the answer, and the next prompt goes on
// from it.
func TestACPLoadSession(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Reading."), llmtest.ToolUse("toolu_r", "Read", `{"file_path":"notes.txt"}`)}},
		said("The notes say hello."),
		said("Again: hello."),
	)
	defer srv.Close()
	r := runACPClient(t, srv, "load", ws, nil, nil)
	want := acpView{
		Stream: []string{"user: read the notes", "text: Reading.", "text: The notes say hello."},
		Calls: map[string][]string{"toolu_r": {
			`tool_call read "Read notes.txt" in_progress at $WS/notes.txt`,
			"completed: ```\n     1\thello\n```",
		}},
	}
	got := secondHalf(t, r, ws)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the replay (-want +got):\n%s", diff)
	}
	calls := modelCalls(srv)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	for _, w := range []string{"read the notes", "The notes say hello.", "and again"} {
		if !strings.Contains(string(calls[2].Body), w) {
			t.Errorf("the prompt after the load lacks %q: the conversation did not go on", w)
		}
	}
}

// secondHalf is the view of what the second connection's session/load
// replayed: the updates between its initialize and its answer.
func secondHalf(t *testing.T, r *acpRun, ws string) acpView {
	t.Helper()
	start := -1
	for i, l := range r.lines {
		if l.T == "note" && l.Exit != nil {
			start = i
			break
		}
	}
	end := slices.IndexFunc(r.lines, func(l acpLine) bool { return l.T == "session" && l.Method == "load" })
	if start < 0 || end < start {
		t.Fatalf("no second connection with a load: %d..%d", start, end)
	}
	var part acpRun
	for _, l := range r.lines[start+1 : end] {
		if l.T == "update" && l.Update.SessionUpdate == "available_commands_update" {
			continue
		}
		part.lines = append(part.lines, l)
	}
	return part.view(ws)
}

// The editor's file system: the client offers fs/read_text_file and
// fs/write_text_file with a buffer whose text differs from the disk. Read
// returns the buffer, Edit writes into it and not to the disk, and a Read
// of .env is asked about (the person rejects it) and never reaches the
// editor.
func TestACPEditorFS(t *testing.T) {
	ws := t.TempDir()
	for name, content := range map[string]string{"notes.txt": "disk text\n", ".env": "TOKEN=secret\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("toolu_read", "Read", `{"file_path":"notes.txt"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("toolu_edit", "Edit", `{"file_path":"notes.txt","old_string":"unsaved","new_string":"edited"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("toolu_env", "Read", `{"file_path":".env"}`)}},
		said("Done."),
	)
	defer srv.Close()
	r := runACPClient(t, srv, "fs", ws, nil, nil)
	notes := filepath.Join(ws, "notes.txt")
	var fs []string
	var buffers map[string]string
	for _, l := range r.lines {
		switch {
		case l.T == "fs":
			fs = append(fs, l.Method+" "+strings.ReplaceAll(l.Path, ws, "$WS"))
		case l.Buffers != nil:
			buffers = l.Buffers
		}
	}
	if diff := cmp.Diff([]string{"read $WS/notes.txt", "read $WS/notes.txt", "write $WS/notes.txt"}, fs); diff != "" {
		t.Errorf("file requests (-want +got):\n%s", diff)
	}
	if got := buffers[notes]; got != "edited buffer text\n" {
		t.Errorf("the buffer = %q", got)
	}
	if data, _ := os.ReadFile(notes); string(data) != "disk text\n" {
		t.Errorf("the disk changed: %q", data)
	}
	want := acpView{
		Stream: []string{"text: Done.", "stop: end_turn"},
		Calls: map[string][]string{
			"toolu_read": {
				`tool_call read "Read notes.txt" in_progress at $WS/notes.txt`,
				"completed",
				"completed: ```\n     1\tunsaved buffer text\n```",
			},
			"toolu_edit": {
				`tool_call edit "Edit notes.txt" in_progress at $WS/notes.txt: diff $WS/notes.txt: "unsaved" → "edited"`,
				"pending",
				`permission "Edit notes.txt" [allow_once allow_always deny] → allow_once`,
				"in_progress",
				"completed",
				`completed: diff $WS/notes.txt: "unsaved" → "edited"`,
			},
			"toolu_env": {
				`tool_call read "Read .env" in_progress at $WS/.env`,
				"pending",
				`permission "Read .env" [allow_once allow_always deny] → deny`,
				"failed",
				"failed: The user denied this call. Do not retry it; adjust your approach.",
			},
		},
	}
	if diff := cmp.Diff(want, r.view(ws)); diff != "" {
		t.Errorf("what the editor saw (-want +got):\n%s", diff)
	}
	for _, req := range modelCalls(srv) {
		if strings.Contains(string(req.Body), "TOKEN=secret") {
			t.Error("the secret reached the model")
		}
	}
}

// session/set_mode to plan, then a plan approved with accept edits: the
// editor hears the mode change.
func TestACPPlanApproval(t *testing.T) {
	ws := t.TempDir()
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("toolu_plan", "ExitPlanMode", `{"plan":"1. Change the notes."}`)}},
		said("Approved; changing them."),
	)
	defer srv.Close()
	r := runACPClient(t, srv, "modes", ws, nil, nil)
	want := acpView{
		Stream: []string{"mode: acceptEdits", "text: Approved; changing them.", "stop: end_turn"},
		Calls: map[string][]string{"toolu_plan": {
			`tool_call switch_mode "Ready to code?" in_progress: 1. Change the notes.`,
			"pending",
			`permission "Ready to code?" [approve_accept_edits approve_default keep_planning] → approve_accept_edits`,
			"in_progress",
			"completed",
		}},
	}
	got := r.view(ws)
	if calls := got.Calls["toolu_plan"]; len(calls) > 5 {
		got.Calls["toolu_plan"] = calls[:5] // the result's text is ExitPlanMode's own
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("what the editor saw (-want +got):\n%s", diff)
	}
}
