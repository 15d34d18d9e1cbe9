package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm/llmtest"
)

func TestMain(m *testing.M) {
	commandsDelay = 0 // no editor's rendering to wait for
	goleak.VerifyTestMain(m)
}

// editor is an ACP client in Go (the SDK's ClientSideConnection): it
// records the updates, answers permission requests with answer and, with
// files set, serves fs requests from them.
type editor struct {
	answer func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse

	mu       sync.Mutex
	updates  []acpsdk.SessionUpdate
	asked    []acpsdk.RequestPermissionRequest
	files    map[string]string
	requests []string
}

func (e *editor) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.updates = append(e.updates, n.Update)
	return nil
}

func (e *editor) RequestPermission(_ context.Context, r acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	e.mu.Lock()
	e.asked = append(e.asked, r)
	e.mu.Unlock()
	return e.answer(r), nil
}

func (e *editor) ReadTextFile(_ context.Context, r acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = append(e.requests, "read "+r.Path)
	if c, ok := e.files[r.Path]; ok {
		return acpsdk.ReadTextFileResponse{Content: c}, nil
	}
	data, err := os.ReadFile(r.Path)
	return acpsdk.ReadTextFileResponse{Content: string(data)}, err
}

func (e *editor) WriteTextFile(_ context.Context, r acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.requests = append(e.requests, "write "+r.Path)
	e.files[r.Path] = r.Content
	return acpsdk.WriteTextFileResponse{}, nil
}

var errNoTerminal = errors.New("no terminal")

func (*editor) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, errNoTerminal
}
func (*editor) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, errNoTerminal
}
func (*editor) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, errNoTerminal
}
func (*editor) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, errNoTerminal
}
func (*editor) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, errNoTerminal
}

func (e *editor) seen() []acpsdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.updates)
}

// allowOnce answers every permission request with its allow_once option.
func allowOnce(r acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
	return selected("allow_once")
}

// world is a workspace, a data directory and the scripted model.
type world struct {
	ws   string
	srv  *llmtest.Server
	base nova.Options
}

func newWorld(t *testing.T, turns ...llmtest.Turn) *world {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(turns...)
	t.Cleanup(srv.Close)
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	return &world{ws: ws, srv: srv, base: nova.Options{
		DataDir: t.TempDir(), Getenv: func(k string) string { return env[k] },
		Sandbox: "off", NoContext: true,
	}}
}

// connect serves an agent to e over pipes; the connection ends, and every
// goroutine of both sides with it, at the test's end.
func (w *world) connect(t *testing.T, e *editor, fs bool) *acpsdk.ClientSideConnection {
	t.Helper()
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = Serve(context.Background(), agentIn, agentOut, Options{Session: w.base, LoadCommands: loadCommands, Version: "test"})
	}()
	conn := acpsdk.NewClientSideConnection(e, clientOut, clientIn)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		clientOut.Close() // the agent's input ends: it shuts down
		<-served
		agentOut.Close()
		<-conn.Done()
	})
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, acpsdk.InitializeRequest{
		ProtocolVersion:    acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: fs, WriteTextFile: fs}},
	}); err != nil {
		t.Fatal(err)
	}
	return conn
}

// loadCommands is tui.LoadCommands in miniature: NAME.md is /NAME.
func loadCommands(dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	out := map[string]string{}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".md"); ok {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			out[name] = string(data)
		}
	}
	return out, err
}

func prompt(t *testing.T, conn *acpsdk.ClientSideConnection, id acpsdk.SessionId, blocks ...acpsdk.ContentBlock) acpsdk.StopReason {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: id, Prompt: blocks})
	if err != nil {
		t.Fatalf("prompt: %v", err)
	}
	return r.StopReason
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// lastUserText is the text of the last user message of a model request.
func lastUserText(t *testing.T, r llmtest.Request) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range body.Messages[len(body.Messages)-1].Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func modelCalls(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}

// TestSession: a session's modes and commands, a user's command expanded,
// a question put through a permission request, the mode switched, the
// session listed, then closed.
func TestSession(t *testing.T) {
	w := newWorld(t,
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("q", "AskUserQuestion", `{"question":"Which database?","options":["Postgres","SQLite"]}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("SQLite it is.")}},
	)
	writeFile(t, filepath.Join(w.ws, ".claude", "commands", "fix.md"), "Fix this: $ARGUMENTS")
	writeFile(t, filepath.Join(w.ws, ".novacode", "commands", "review.md"), "# Review the diff\n")
	e := &editor{answer: func(r acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse { return selected("answer-1") }}
	conn := w.connect(t, e, false)
	ctx := context.Background()

	s, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: w.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Modes == nil || s.Modes.CurrentModeId != "default" || len(s.Modes.AvailableModes) != 4 {
		t.Fatalf("modes = %+v", s.Modes)
	}
	if got := prompt(t, conn, s.SessionId, acpsdk.TextBlock("/fix the flaky test")); got != acpsdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", got)
	}
	calls := modelCalls(w.srv)
	if len(calls) != 2 {
		t.Fatalf("%d model calls", len(calls))
	}
	if got := lastUserText(t, calls[0]); got != "Fix this: the flaky test" {
		t.Errorf("the command was sent as %q", got)
	}
	if got := string(calls[1].Body); !strings.Contains(got, "SQLite") {
		t.Errorf("the answer did not reach the model: %s", got)
	}
	if len(e.asked) != 1 || *e.asked[0].ToolCall.Title != "Which database?" {
		t.Errorf("asked: %+v", e.asked)
	}
	var commands []string
	for _, u := range e.seen() {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				commands = append(commands, c.Name+": "+c.Description)
			}
		}
	}
	if diff := cmp.Diff([]string{"fix: Fix this: $ARGUMENTS", "review: Review the diff"}, commands); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}

	if _, err := conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "acceptEdits"}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: s.SessionId, ModeId: "yolo"}); err == nil {
		t.Error("an unknown mode was accepted")
	}
	list, err := conn.ListSessions(ctx, acpsdk.ListSessionsRequest{Cwd: &w.ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != s.SessionId || *list.Sessions[0].Title != "Fix this: the flaky test" {
		t.Errorf("sessions = %+v", list.Sessions)
	}
	if _, err := conn.CloseSession(ctx, acpsdk.CloseSessionRequest{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: s.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("hi")}})
	var re *acpsdk.RequestError
	if !errors.As(err, &re) || re.Code != -32002 {
		t.Errorf("a prompt to a closed session: %v", err)
	}
}

// TestPromptWithImage: an image of the prompt reaches the model.
func TestPromptWithImage(t *testing.T) {
	w := newWorld(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("A cat.")}})
	conn := w.connect(t, &editor{answer: allowOnce}, false)
	s, err := conn.NewSession(context.Background(), acpsdk.NewSessionRequest{Cwd: w.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, conn, s.SessionId, acpsdk.TextBlock("what is this?"), acpsdk.ImageBlock("iVBORw==", "image/png"))
	if body := string(modelCalls(w.srv)[0].Body); !strings.Contains(body, `"media_type":"image/png"`) || !strings.Contains(body, `"data":"iVBORw=="`) {
		t.Errorf("the image did not reach the model: %s", body)
	}
}

// TestEditorFiles: with the client's file system, Read and Edit go
// through it; the permission request for the edit carries the diff.
func TestEditorFiles(t *testing.T) {
	w := newWorld(t,
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("r", "Read", `{"file_path":"a.txt"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("e", "Edit", `{"file_path":"a.txt","old_string":"buffer","new_string":"edited"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Done.")}},
	)
	a := filepath.Join(w.ws, "a.txt")
	writeFile(t, a, "disk\n")
	e := &editor{answer: allowOnce, files: map[string]string{a: "buffer\n"}}
	conn := w.connect(t, e, true)
	s, err := conn.NewSession(context.Background(), acpsdk.NewSessionRequest{Cwd: w.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, conn, s.SessionId, acpsdk.TextBlock("edit a"))
	if diff := cmp.Diff([]string{"read " + a, "read " + a, "write " + a}, e.requests); diff != "" {
		t.Errorf("file requests (-want +got):\n%s", diff)
	}
	if e.files[a] != "edited\n" {
		t.Errorf("buffer = %q", e.files[a])
	}
	if data, _ := os.ReadFile(a); string(data) != "disk\n" {
		t.Errorf("disk = %q", data)
	}
	if len(e.asked) != 1 || len(e.asked[0].ToolCall.Content) != 1 || e.asked[0].ToolCall.Content[0].Diff == nil {
		t.Errorf("the edit's request: %+v", e.asked)
	}
}

// TestCancel: session/cancel while a command runs answers the prompt
// cancelled, at once.
func TestCancel(t *testing.T) {
	w := newWorld(t, llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.ToolUse("b", "Bash", `{"command":"sleep 30"}`),
		{Kind: llmtest.KindText, Text: "never", Delay: time.Minute},
	}})
	w.base.Allow = []string{"Bash"}
	e := &editor{answer: allowOnce}
	conn := w.connect(t, e, false)
	ctx := context.Background()
	s, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: w.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go func() {
		defer close(started)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			for _, u := range e.seen() {
				if u.ToolCall != nil && u.ToolCall.ToolCallId == "b" {
					return
				}
			}
		}
	}()
	go func() {
		<-started
		_ = conn.Cancel(ctx, acpsdk.CancelNotification{SessionId: s.SessionId})
	}()
	start := time.Now()
	if got := prompt(t, conn, s.SessionId, acpsdk.TextBlock("wait")); got != acpsdk.StopReasonCancelled {
		t.Fatalf("stop reason %q", got)
	}
	<-started
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the prompt answered after %v", d)
	}
	var last acpsdk.SessionUpdate
	for _, u := range e.seen() {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == "b" {
			last = u
		}
	}
	if last.ToolCallUpdate == nil || *last.ToolCallUpdate.Status != acpsdk.ToolCallStatusFailed {
		t.Errorf("the command's last update: %+v", last.ToolCallUpdate)
	}
}

// TestLoad: a stored session comes back as updates before session/load
// answers.
func TestLoad(t *testing.T) {
	w := newWorld(t,
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Thinking("hm", "sig"), llmtest.Text("Hello."), llmtest.ToolUse("l", "LS", `{"path":"."}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Done.")}},
	)
	first := &editor{answer: allowOnce}
	conn := w.connect(t, first, false)
	ctx := context.Background()
	s, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: w.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, conn, s.SessionId, acpsdk.TextBlock("say hello"))

	second := &editor{answer: allowOnce}
	conn2 := w.connect(t, second, false)
	if _, err := conn2.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: w.ws, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range second.seen() {
		switch {
		case u.UserMessageChunk != nil:
			got = append(got, "user: "+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil:
			got = append(got, "text: "+u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil:
			got = append(got, "thought: "+u.AgentThoughtChunk.Content.Text.Text)
		case u.ToolCall != nil:
			got = append(got, "tool_call "+u.ToolCall.Title)
		case u.ToolCallUpdate != nil:
			got = append(got, "update "+string(*u.ToolCallUpdate.Status))
		}
	}
	want := []string{"user: say hello", "thought: hm", "text: Hello.", "tool_call List .", "update completed", "text: Done."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	if _, err := conn2.LoadSession(ctx, acpsdk.LoadSessionRequest{SessionId: "no-such-session", Cwd: w.ws, McpServers: []acpsdk.McpServer{}}); err == nil {
		t.Error("an unknown session loaded")
	}
	if _, err := conn2.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: "relative/dir", McpServers: []acpsdk.McpServer{}}); err == nil {
		t.Error("a relative cwd was accepted")
	}
}

// TestShutdownMidPrompt: the editor going away while a prompt waits on a
// permission request ends everything (goleak checks).
func TestShutdownMidPrompt(t *testing.T) {
	w := newWorld(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("b", "Bash", `{"command":"touch x"}`)}})
	asked := make(chan struct{})
	var once sync.Once
	e := &editor{answer: func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionResponse {
		once.Do(func() { close(asked) })
		time.Sleep(200 * time.Millisecond)
		return selected("deny")
	}}
	conn := w.connect(t, e, false)
	s, err := conn.NewSession(context.Background(), acpsdk.NewSessionRequest{Cwd: w.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: s.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("touch x")}})
		done <- err
	}()
	<-asked
	cancel() // the client gives up on the prompt; the cleanup disconnects
	<-done
}

// TestWebSearchPermission: the session's web search, asked once before
// the first request, is a call of its own in the editor, ended by the
// answer.
func TestWebSearchPermission(t *testing.T) {
	w := newWorld(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Searched nothing.")}})
	on := true
	w.base.WebSearch = &on
	e := &editor{answer: allowOnce}
	conn := w.connect(t, e, false)
	s, err := conn.NewSession(context.Background(), acpsdk.NewSessionRequest{Cwd: w.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	prompt(t, conn, s.SessionId, acpsdk.TextBlock("search"))
	var got []string
	for _, u := range e.seen() {
		switch {
		case u.ToolCall != nil:
			got = append(got, fmt.Sprintf("tool_call %s %q %s", u.ToolCall.ToolCallId, u.ToolCall.Title, u.ToolCall.Status))
		case u.ToolCallUpdate != nil:
			got = append(got, fmt.Sprintf("update %s %s", u.ToolCallUpdate.ToolCallId, *u.ToolCallUpdate.Status))
		}
	}
	if diff := cmp.Diff([]string{`tool_call web_search "Search the web" pending`, "update web_search completed"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(e.asked) != 1 || e.asked[0].ToolCall.ToolCallId != "web_search" {
		t.Errorf("asked: %+v", e.asked)
	}
	if body := string(modelCalls(w.srv)[0].Body); !strings.Contains(body, "web_search") {
		t.Errorf("web search was not offered after the approval: %s", body)
	}
}
