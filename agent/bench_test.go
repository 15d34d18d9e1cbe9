package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/tool"
)

// turnsClient answers turns-1 times with one tool call, then with text. It
// allocates nothing of its own per event beyond what a real adapter would.
type turnsClient struct {
	turns, n  int
	completed time.Time // when the last ToolCallComplete was yielded
}

func (c *turnsClient) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		c.n++
		if c.n < c.turns {
			c.completed = time.Now()
			if !yield(llm.ToolCallComplete{ID: "t", Name: "Noop", Input: json.RawMessage(`{}`)}, nil) {
				return
			}
			yield(llm.StreamEnd{StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}}, nil)
			return
		}
		if !yield(llm.TextDelta{Text: "done"}, nil) {
			return
		}
		yield(llm.StreamEnd{StopReason: llm.StopEndTurn}, nil)
	}
}

type noIn struct{}

// BenchmarkTurn is the loop's own cost per tool turn: build the request,
// consume the stream, decide permission, run a no-op tool, size control,
// append history, emit events. Compare with BenchmarkBaselineTurn.
func BenchmarkTurn(b *testing.B) {
	const turns = 50
	reg := tool.NewRegistry(tool.New("Noop", "does nothing", false, nil, func(context.Context, *tool.Env, noIn) (tool.Result, error) {
		return tool.Result{Content: "ok"}, nil
	}))
	b.ReportAllocs()
	for b.Loop() {
		c := &turnsClient{turns: turns}
		a := &agent.Agent{Client: c, Model: "claude-sonnet-4-5", Tools: reg, Env: &tool.Env{}, Permissions: agent.AllowAll}
		for range a.Run(context.Background(), agent.NewConversation("b", "", "go")) {
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/turn")
}

// BenchmarkBaselineTurn does the unavoidable part of a turn with no loop:
// drain the same stream and call the tool directly.
func BenchmarkBaselineTurn(b *testing.B) {
	const turns = 50
	t := tool.New("Noop", "does nothing", false, nil, func(context.Context, *tool.Env, noIn) (tool.Result, error) {
		return tool.Result{Content: "ok"}, nil
	})
	env := &tool.Env{}
	b.ReportAllocs()
	for b.Loop() {
		c := &turnsClient{turns: turns}
		for range turns {
			for ev := range c.Stream(context.Background(), nil) {
				if tc, ok := ev.(llm.ToolCallComplete); ok {
					_, _ = t.Run(context.Background(), env, tc.Input)
				}
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/turn")
}

// BenchmarkToolStartLatency measures the time from a tool call's block
// completing in the stream to the tool's first instruction.
func BenchmarkToolStartLatency(b *testing.B) {
	var started time.Time
	c := &turnsClient{}
	reg := tool.NewRegistry(tool.New("Noop", "records its start", true, nil, func(context.Context, *tool.Env, noIn) (tool.Result, error) {
		started = time.Now()
		return tool.Result{Content: "ok"}, nil
	}))
	var total time.Duration
	for b.Loop() {
		c.turns, c.n = 2, 0
		a := &agent.Agent{Client: c, Model: "m", Tools: reg, Env: &tool.Env{}, Permissions: agent.AllowAll}
		for range a.Run(context.Background(), agent.NewConversation("b", "", "go")) {
		}
		total += started.Sub(c.completed)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/start")
}

// longHistory is a 1,000-turn conversation of about 10 MB: each turn an
// assistant text and tool call, and a ~10 KB tool result.
func longHistory() []llm.Message {
	result := strings.Repeat("r", 10_000)
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "start"}}}}
	for i := range 1000 {
		id := "call_" + strconv.Itoa(i)
		msgs = append(msgs,
			llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: "step"}, {Type: llm.BlockToolUse, ToolUseID: id, ToolName: "Noop", Input: json.RawMessage(`{}`)}}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockToolResult, ToolUseID: id, Content: result}}})
	}
	return msgs
}

// BenchmarkTurnLongHistory is BenchmarkTurn's loop work with a 1,000-turn,
// 10 MB history behind it: the loop's own per-turn cost must not grow with
// the history (building the wire request is the adapters' job, measured by
// their BenchmarkNextRequest1000Turns).
func BenchmarkTurnLongHistory(b *testing.B) {
	const turns = 50
	reg := tool.NewRegistry(tool.New("Noop", "does nothing", false, nil, func(context.Context, *tool.Env, noIn) (tool.Result, error) {
		return tool.Result{Content: "ok"}, nil
	}))
	history := longHistory()
	b.ReportAllocs()
	for b.Loop() {
		c := &turnsClient{turns: turns}
		a := &agent.Agent{Client: c, Model: "claude-sonnet-4-5", Tools: reg, Env: &tool.Env{}, Permissions: agent.AllowAll, CompactThreshold: -1}
		conv := &agent.Conversation{ID: "b", Messages: slices.Clip(history), Persisted: len(history), Turns: 1000}
		conv.AddUser("go on")
		for range a.Run(context.Background(), conv) {
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns), "ns/turn")
}
