package nova_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp/mcptest"
	"github.com/novacode/nova/tool"
)

func TestMain(m *testing.M) {
	mcptest.MainIfServer() // the test binary re-run as an MCP server
	goleak.VerifyTestMain(m)
}

// testOptions points a session at srv over the Anthropic protocol, in a
// fresh workspace and data directory, reading nothing of the machine's
// environment.
func testOptions(t *testing.T, srv *llmtest.Server) nova.Options {
	t.Helper()
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	return nova.Options{
		Dir:     t.TempDir(),
		DataDir: t.TempDir(),
		Getenv:  func(k string) string { return env[k] },
		Sandbox: "off",
	}
}

func text(s string) llmtest.Turn { return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(s)}} }

func call(id, name, input string) llmtest.Turn {
	return llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse(id, name, input)}}
}

// collect runs s.Send and returns the event types and the run's error.
func collect(t *testing.T, s *nova.Session, prompt string) ([]event.Event, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []event.Event
	var runErr error
	for e, err := range s.Send(ctx, prompt) {
		if err != nil {
			runErr = err
			continue
		}
		evs = append(evs, e)
	}
	return evs, runErr
}

// modelCalls are the requests for a model answer (not the models list the
// context-window lookup asks for).
func modelCalls(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}

func requestText(t *testing.T, r llmtest.Request) string {
	t.Helper()
	return string(r.Body)
}

// The default session does what the CLI does: the environment and the
// workspace's AGENTS.md open the conversation, a transcript is written, and
// a second session resumes it with the whole history.
func TestRunOpensWithContextAndResumes(t *testing.T) {
	srv := llmtest.NewServer(text("Hello!"), text("Again."))
	defer srv.Close()
	o := testOptions(t, srv)
	if err := os.WriteFile(filepath.Join(o.Dir, "AGENTS.md"), []byte("Always answer in haiku."), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := nova.Run(context.Background(), "say hello", o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Hello!" || res.Reason != event.ReasonDone || res.Turns != 1 || res.SessionID == "" {
		t.Fatalf("result = %+v", res)
	}
	body := requestText(t, modelCalls(srv)[0])
	for _, want := range []string{"Always answer in haiku.", o.Dir, "say hello"} {
		if !strings.Contains(body, want) {
			t.Errorf("first request lacks %q:\n%s", want, body)
		}
	}
	list, err := nova.ListSessions(o.Dir, o.DataDir)
	if err != nil || len(list) != 1 || list[0].ID != res.SessionID || list[0].FirstPrompt != "say hello" {
		t.Fatalf("sessions = %+v, %v", list, err)
	}

	o.Resume = res.SessionID
	res2, err := nova.Run(context.Background(), "and again", o)
	if err != nil {
		t.Fatal(err)
	}
	if res2.SessionID != res.SessionID || res2.Turns != 1 || res2.Text != "Again." {
		t.Fatalf("resumed result = %+v", res2)
	}
	body = requestText(t, modelCalls(srv)[1])
	for _, want := range []string{"say hello", "Hello!", "and again"} {
		if !strings.Contains(body, want) {
			t.Errorf("resumed request lacks %q", want)
		}
	}
}

// NoContext, a replaced system prompt and InMemory: nothing but the prompt
// is sent, and nothing is written to the data directory.
func TestBareInMemorySession(t *testing.T) {
	srv := llmtest.NewServer(text("ok"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.NoContext, o.InMemory, o.SystemPrompt = true, true, "You are terse."
	o.AppendSystemPrompt = "Never apologise."
	if _, err := nova.Run(context.Background(), "hi", o); err != nil {
		t.Fatal(err)
	}
	var req struct {
		System   []struct{ Text string } `json:"system"`
		Messages []json.RawMessage       `json:"messages"`
	}
	if err := json.Unmarshal(modelCalls(srv)[0].Body, &req); err != nil {
		t.Fatal(err)
	}
	if len(req.System) != 1 || req.System[0].Text != "You are terse.\n\nNever apologise." || len(req.Messages) != 1 || strings.Contains(string(req.Messages[0]), "system-reminder") {
		t.Fatalf("request: %s", modelCalls(srv)[0].Body)
	}
	entries, _ := os.ReadDir(o.DataDir)
	if len(entries) != 0 {
		t.Fatalf("data directory holds %v", entries)
	}
}

// Without CanUseTool and Interactive nobody is asked: a write is denied with
// a result telling the model, and the Result lists it.
func TestNobodyToAskDenies(t *testing.T) {
	srv := llmtest.NewServer(call("w1", "Write", `{"file_path":"a.txt","content":"x"}`), text("I could not write."))
	defer srv.Close()
	o := testOptions(t, srv)
	res, err := nova.Run(context.Background(), "write a.txt", o)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Denied()
	if len(d) != 1 || d[0].Name != "Write" || !strings.Contains(d[0].Result, "not granted") {
		t.Fatalf("denied = %+v", d)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a.txt was written: %v", err)
	}
}

// CanUseTool answers what would be asked: its request names the call, a
// denial's message reaches the model, an allowance lets it run.
func TestCanUseTool(t *testing.T) {
	srv := llmtest.NewServer(
		call("w1", "Write", `{"file_path":"a.txt","content":"one"}`),
		call("w2", "Write", `{"file_path":"b.txt","content":"two"}`),
		text("done"))
	defer srv.Close()
	o := testOptions(t, srv)
	var asked []string
	o.CanUseTool = func(_ context.Context, r nova.PermissionRequest) nova.Decision {
		asked = append(asked, r.ID+" "+r.Tool)
		if strings.Contains(string(r.Input), "a.txt") {
			return nova.Deny("not that one")
		}
		return nova.Allow()
	}
	res, err := nova.Run(context.Background(), "write", o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"w1 Write", "w2 Write"}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "a.txt")); err == nil {
		t.Error("a.txt was written")
	}
	if b, err := os.ReadFile(filepath.Join(o.Dir, "b.txt")); err != nil || string(b) != "two" {
		t.Errorf("b.txt = %q, %v", b, err)
	}
	if !strings.Contains(res.ToolCalls[0].Result, "not that one") || !res.ToolCalls[0].Denied {
		t.Errorf("first call: %+v", res.ToolCalls[0])
	}
}

type weatherIn struct {
	City string `json:"city" jsonschema:"the city"`
}

// A typed Go tool of the program's own sits beside the built-in ones: the
// model sees its schema and its result.
func TestCustomTool(t *testing.T) {
	srv := llmtest.NewServer(call("c1", "weather", `{"city":"Oslo"}`), text("It is cold."))
	defer srv.Close()
	o := testOptions(t, srv)
	weather := tool.New("weather", "Today's weather in a city.", true, nil,
		func(_ context.Context, _ *tool.Env, in weatherIn) (tool.Result, error) {
			return tool.Result{Content: "-3 °C in " + in.City}, nil
		})
	o.Tools = append(nova.BuiltinTools("Read"), weather)
	res, err := nova.Run(context.Background(), "weather?", o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ToolCalls[0].Result != "-3 °C in Oslo" {
		t.Fatalf("call: %+v", res.ToolCalls[0])
	}
	first := string(modelCalls(srv)[0].Body)
	if !strings.Contains(first, `"weather"`) || !strings.Contains(first, `"city"`) || strings.Contains(first, `"Bash"`) {
		t.Errorf("tools offered: %s", first)
	}
	if !strings.Contains(string(modelCalls(srv)[1].Body), "-3 °C in Oslo") {
		t.Error("the result did not reach the model")
	}
}

// Hooks: SessionStart's context opens the conversation, PreToolUse blocks a
// call, PostToolUse's context reaches the next request, Stop makes the model
// go on once, SessionEnd runs at Close, UserPromptSubmit refuses a prompt.
func TestHooks(t *testing.T) {
	srv := llmtest.NewServer(
		call("b1", "Bash", `{"command":"rm -rf build"}`),
		call("r1", "Read", `{"file_path":"AGENTS.md"}`),
		text("All done."),
		text("Checked the tests too."))
	defer srv.Close()
	o := testOptions(t, srv)
	if err := os.WriteFile(filepath.Join(o.Dir, "AGENTS.md"), []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log []string
	note := func(in nova.HookInput) { log = append(log, in.HookEventName+" "+in.ToolName+" "+in.Source) }
	o.Hooks = nova.Hooks{
		SessionStart: []nova.HookFunc{func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			note(in)
			return nova.HookOutput{AdditionalContext: "The CI is red since Monday."}, nil
		}},
		UserPromptSubmit: []nova.HookFunc{func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			note(in)
			return nova.HookOutput{Block: strings.Contains(in.Prompt, "secret"), Reason: "no secrets here"}, nil
		}},
		PreToolUse: []nova.ToolHook{{Matcher: "Bash", Run: func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			note(in)
			return nova.HookOutput{PermissionDecision: "deny", Reason: "rm is not allowed in this repository"}, nil
		}}},
		PostToolUse: []nova.ToolHook{{Matcher: "Read|Write", Run: func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			note(in)
			return nova.HookOutput{AdditionalContext: "Read " + string(in.ToolInput) + " gave " + in.ToolResponse.Content}, nil
		}}},
		Stop: []nova.HookFunc{func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			note(in)
			return nova.HookOutput{Block: true, Reason: "Run the tests before you stop."}, nil
		}},
		SessionEnd: []nova.HookFunc{func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			note(in)
			return nova.HookOutput{}, nil
		}},
	}
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := collect(t, s, "clean the build")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, s, "print the secret"); err == nil || !strings.Contains(err.Error(), "no secrets here") {
		t.Fatalf("blocked prompt: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"SessionStart  startup",
		"UserPromptSubmit  ",
		"PreToolUse Bash ",
		"PostToolUse Read ",
		"Stop  ",
		"Stop  ",
		"UserPromptSubmit  ",
		"SessionEnd  ",
	}
	if diff := cmp.Diff(want, log); diff != "" {
		t.Errorf("hooks run (-want +got):\n%s", diff)
	}
	reqs := modelCalls(srv)
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Body), "The CI is red since Monday.") {
		t.Error("SessionStart's context is not in the first request")
	}
	if !strings.Contains(string(reqs[1].Body), "rm is not allowed in this repository") {
		t.Error("PreToolUse's reason is not in the blocked call's result")
	}
	if !strings.Contains(string(reqs[2].Body), "} gave ") {
		t.Log(string(reqs[2].Body))
		t.Error("PostToolUse's context is not in the next request")
	}
	if !strings.Contains(string(reqs[3].Body), "Run the tests before you stop.") {
		t.Error("the Stop hook's instruction is not in the continuation")
	}
	var completes int
	for _, e := range evs {
		if _, ok := e.(event.LoopComplete); ok {
			completes++
		}
	}
	if completes != 1 {
		t.Errorf("%d loop_complete events, want one at the very end", completes)
	}
}

// Settings sources: a user settings file's deny rule applies by default and
// not when the program reads no settings.
func TestSettingSources(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sources []nova.SettingSource
		denied  bool
	}{{"default", nil, true}, {"none", []nova.SettingSource{}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
			defer srv.Close()
			o := testOptions(t, srv)
			o.SettingSources = tc.sources
			if err := os.WriteFile(filepath.Join(o.DataDir, "settings.json"), []byte(`{"permissions": {"deny": ["Read(notes.txt)"]}}`), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(o.Dir, "notes.txt"), []byte("hi"), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := nova.Run(context.Background(), "read", o)
			if err != nil {
				t.Fatal(err)
			}
			if res.ToolCalls[0].Denied != tc.denied {
				t.Fatalf("call: %+v", res.ToolCalls[0])
			}
		})
	}
}

// Interrupt ends a Send that waits on the model; the session goes on.
func TestInterrupt(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Hang: true}, text("back"))
	defer srv.Close()
	o := testOptions(t, srv)
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	go func() {
		for srv.Pending() == 2 {
			time.Sleep(5 * time.Millisecond)
		}
		s.Interrupt()
	}()
	evs, _ := collect(t, s, "slow")
	if lc, ok := evs[len(evs)-1].(event.LoopComplete); !ok || lc.Reason != event.ReasonCancelled {
		t.Fatalf("last event %#v", evs[len(evs)-1])
	}
	if _, err := collect(t, s, "again"); err != nil || s.Result().Text != "back" {
		t.Fatalf("after interrupt: %+v, %v", s.Result(), err)
	}
}

// A data directory a program puts inside the workspace is protected as
// ~/.novacode is: in bypassPermissions too, the model cannot write the
// settings that decide what runs (and where hooks come from).
func TestDataDirInTheWorkspaceIsProtected(t *testing.T) {
	srv := llmtest.NewServer(call("w1", "Write", `{"file_path":"nova-data/settings.json","content":"{\"permissions\":{\"allow\":[\"Bash\"]}}"}`), text("done"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.DataDir = filepath.Join(o.Dir, "nova-data")
	o.PermissionMode = nova.ModeBypassPermissions
	res, err := nova.Run(context.Background(), "loosen your settings", o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.ToolCalls[0].Denied {
		t.Fatalf("call: %+v", res.ToolCalls[0])
	}
	if _, err := os.Stat(filepath.Join(o.DataDir, "settings.json")); err == nil {
		t.Fatal("the data directory's settings were written")
	}
}
