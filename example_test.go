package nova_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/tool"
)

// exampleServer is a scripted model on 127.0.0.1 answering with turns, and
// the options of a session pointed at it in a scratch workspace and data
// directory. A real program leaves Getenv, Dir and DataDir unset: the
// model then comes from the environment as the nova command chooses it.
func exampleServer(turns ...llmtest.Turn) (*llmtest.Server, nova.Options, func()) {
	srv := llmtest.NewServer(turns...)
	dir, _ := os.MkdirTemp("", "nova-example-")
	data, _ := os.MkdirTemp("", "nova-example-data-")
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": srv.URL}
	o := nova.Options{Dir: dir, DataDir: data, Getenv: func(k string) string { return env[k] }, Sandbox: "off"}
	return srv, o, func() {
		srv.Close()
		os.RemoveAll(dir)
		os.RemoveAll(data)
	}
}

// An in-memory session against a scripted model: what a program's own
// tests do. Nothing is written under the data directory.
func Example_inMemory() {
	_, o, done := exampleServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Hi there.")}})
	defer done()
	o.InMemory = true
	o.NoContext = true

	for ev, err := range nova.Query(context.Background(), "say hi", o) {
		if err != nil {
			fmt.Println("error:", err)
			return
		}
		switch e := ev.(type) {
		case event.StreamText:
			fmt.Println("text:", e.Text)
		case event.LoopComplete:
			fmt.Println("done:", e.Reason, e.Turns, "turn")
		}
	}
	// Output:
	// text: Hi there.
	// done: done 1 turn
}

// A typed tool of the program's own: its input struct gives the model a
// JSON Schema; a mistake of the model's is a result, not a Go error.
func Example_customTool() {
	_, o, done := exampleServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("t1", "ticket", `{"id":42}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Ticket 42 is about the login page.")}},
	)
	defer done()
	type ticketIn struct {
		ID int `json:"id" jsonschema:"the ticket number"`
	}
	ticket := tool.New("ticket", "Read a ticket of the issue tracker.", true, nil,
		func(_ context.Context, _ *tool.Env, in ticketIn) (tool.Result, error) {
			if in.ID <= 0 {
				return tool.Errorf("ticket numbers start at 1"), nil
			}
			return tool.Result{Content: fmt.Sprintf("#%d: the login page is slow", in.ID)}, nil
		})
	o.Tools = append(nova.BuiltinTools("Read", "Grep"), ticket)

	res, err := nova.Run(context.Background(), "what is ticket 42 about?", o)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.ToolCalls[0].Name, "→", res.ToolCalls[0].Result)
	fmt.Println(res.Text)
	// Output:
	// ticket → #42: the login page is slow
	// Ticket 42 is about the login page.
}

// A permission callback decides what the chain would ask a person: here
// edits under docs/ only.
func Example_permissionCallback() {
	_, o, done := exampleServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("w1", "Write", `{"file_path":"docs/notes.md","content":"# Notes\n"}`),
			llmtest.ToolUse("w2", "Write", `{"file_path":"main.go","content":"package main\n"}`),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Wrote the notes; main.go was refused.")}},
	)
	defer done()
	o.CanUseTool = func(_ context.Context, req nova.PermissionRequest) nova.Decision {
		if req.Tool == "Write" && strings.Contains(string(req.Input), `"docs/`) {
			return nova.Allow()
		}
		return nova.Deny("only docs/ may change")
	}
	res, err := nova.Run(context.Background(), "write the notes", o)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, c := range res.ToolCalls {
		fmt.Println(c.ID, "denied:", c.Denied)
	}
	_, err = os.Stat(filepath.Join(o.Dir, "docs", "notes.md"))
	fmt.Println("notes written:", err == nil)
	// Output:
	// w1 denied: false
	// w2 denied: true
	// notes written: true
}

// A PreToolUse hook in Go, as a Claude Code hook script would be: it blocks
// commands that touch the network, and the model is told why.
func Example_hook() {
	srv, o, done := exampleServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("b1", "Bash", `{"command":"curl https://example.com"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("The network is off limits; I will work offline.")}},
	)
	defer done()
	o.Hooks.PreToolUse = []nova.ToolHook{{
		Matcher: "Bash",
		Run: func(_ context.Context, in nova.HookInput) (nova.HookOutput, error) {
			if strings.Contains(string(in.ToolInput), "curl") {
				return nova.HookOutput{PermissionDecision: "deny", Reason: "no network access in CI"}, nil
			}
			return nova.HookOutput{}, nil
		},
	}}
	res, err := nova.Run(context.Background(), "fetch the page", o)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	fmt.Println(res.ToolCalls[0].Reason)
	fmt.Println(res.Text)
	fmt.Println("model told:", strings.Contains(string(srv.Requests()[len(srv.Requests())-1].Body), "no network access in CI"))
	// Output:
	// blocked by a PreToolUse hook: no network access in CI
	// The network is off limits; I will work offline.
	// model told: true
}

// Sessions are saved under the data directory; Resume continues one with
// its whole history, as nova --resume does.
func Example_resume() {
	_, o, done := exampleServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("The answer is 42.")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("I said 42.")}},
	)
	defer done()
	first, err := nova.Run(context.Background(), "what is the answer?", o)
	if err != nil {
		fmt.Println("error:", err)
		return
	}

	o.Resume = first.SessionID // or o.Continue = true: the workspace's latest
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	defer s.Close()
	fmt.Println("history:", len(s.History().Entries), "entries")
	for range s.Send(context.Background(), "what did you say?") {
	}
	fmt.Println(s.Result().Text, s.ID() == first.SessionID)
	// Output:
	// history: 3 entries
	// I said 42. true
}
