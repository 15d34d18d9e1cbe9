package tui

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/novacode/nova/event"
)

// fakeRunner yields a scripted session: thinking, text, three tool calls, a
// permission request (recording the decision), then text and a wait that
// only a cancel ends.
type fakeRunner struct {
	mu        sync.Mutex
	prompts   []string
	decision  chan event.Decision // the answer to the permission request
	waiting   chan struct{}       // closed when the fake blocks on ctx
	cancelled chan struct{}       // closed when its ctx was cancelled
}

func newFake() *fakeRunner {
	return &fakeRunner{decision: make(chan event.Decision, 1), waiting: make(chan struct{}), cancelled: make(chan struct{})}
}

func (f *fakeRunner) Run(ctx context.Context, prompt string) iter.Seq[event.Event] {
	f.mu.Lock()
	f.prompts = append(f.prompts, prompt)
	f.mu.Unlock()
	return func(yield func(event.Event) bool) {
		in := func(s string) json.RawMessage { return json.RawMessage(s) }
		script := []event.Event{
			event.ThinkingText{Turn: 1, Text: "The user wants "},
			event.ThinkingText{Turn: 1, Text: "a look around."},
			event.StreamText{Turn: 1, Text: "Let me "},
			event.StreamText{Turn: 1, Text: "look."},
			event.ToolUse{Turn: 1, ID: "t1", Name: "Read", Input: in(`{"file_path":"go.mod"}`)},
			event.ToolUse{Turn: 1, ID: "t2", Name: "Glob", Input: in(`{"pattern":"**/*.go"}`)},
			event.ToolUse{Turn: 1, ID: "t3", Name: "Grep", Input: in(`{"pattern":"func main"}`)},
			event.ToolResult{Turn: 1, ID: "t1", Name: "Read", Content: "module x\n\ngo 1.26\nrequire y\n", DurationMS: 12},
			event.ToolResult{Turn: 1, ID: "t2", Name: "Glob", Content: "a.go\nb.go", DurationMS: 3400},
			event.ToolResult{Turn: 1, ID: "t3", Name: "Grep", Content: "no matches", IsError: true, DurationMS: 7},
			event.Usage{Turn: 1, Model: "claude-test", Call: event.TokenCounts{InputTokens: 1000, CacheReadTokens: 3000, OutputTokens: 50},
				Total: event.TokenCounts{InputTokens: 1000, CacheReadTokens: 3000, OutputTokens: 50}, CostUSD: 0.0123, ContextWindow: 200000},
			event.TurnComplete{Turn: 1, StopReason: "tool_use"},
		}
		for _, e := range script {
			if !yield(e) {
				return
			}
		}
		reply := event.NewReply()
		req := event.NewPermissionRequest(event.PermissionRequest{Turn: 2, ID: "t4", Name: "Bash",
			Input: in(`{"command":"go test ./..."}`), Reason: "runs a command"}, reply)
		if !yield(req) {
			return
		}
		select {
		case d := <-reply.C():
			f.decision <- d
		case <-ctx.Done():
			return
		}
		for _, e := range []event.Event{
			event.ToolUse{Turn: 2, ID: "t4", Name: "Bash", Input: in(`{"command":"go test ./..."}`)},
			event.ToolResult{Turn: 2, ID: "t4", Name: "Bash", Content: "ok", DurationMS: 1500},
			event.StreamText{Turn: 3, Text: "Tests pass. Now **waiting**."},
		} {
			if !yield(e) {
				return
			}
		}
		close(f.waiting)
		<-ctx.Done()
		close(f.cancelled)
		yield(event.LoopComplete{Reason: event.ReasonCancelled, Turns: 3})
	}
}

// recordingRunner records the prompts it is given and answers each with
// the events of script, then a LoopComplete.
type recordingRunner struct {
	mu      sync.Mutex
	prompts []string
	script  []event.Event
}

func (r *recordingRunner) Run(ctx context.Context, prompt string) iter.Seq[event.Event] {
	r.mu.Lock()
	r.prompts = append(r.prompts, prompt)
	r.mu.Unlock()
	return func(yield func(event.Event) bool) {
		for _, e := range r.script {
			if !yield(e) {
				return
			}
		}
		yield(event.LoopComplete{Reason: event.ReasonDone, Turns: 1})
	}
}

// wait returns the prompts once n have arrived (a hang guard, not a timed
// assertion).
func (r *recordingRunner) wait(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		r.mu.Lock()
		if len(r.prompts) >= n {
			out := append([]string(nil), r.prompts...)
			r.mu.Unlock()
			return out
		}
		r.mu.Unlock()
		select {
		case <-deadline:
			t.Fatalf("%d prompts, want %d", len(r.prompts), n)
		case <-time.After(time.Millisecond):
		}
	}
}
