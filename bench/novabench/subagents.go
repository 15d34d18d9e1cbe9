//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

// subagentsResult is one run of three subagents, each doing one second of
// work (a `sleep 1` in its own conversation, between two model calls).
type subagentsResult struct {
	// wait is how long the parent waited for its Task results: from the
	// end of its answer with the Task calls to its next request (for the
	// serial variant, summed over its three turns).
	wait time.Duration
	// longest is the longest child's own work, measured at the server:
	// from its first request's arrival to the end of its last answer.
	longest time.Duration
}

func taskBlock(id, child string) llmtest.Block {
	in, _ := json.Marshal(map[string]any{"description": "check " + child, "prompt": child + ": run the check", "subagent_type": "Explore"})
	return llmtest.ToolUse(id, "Task", string(in))
}

// subagentsRun runs the parent's three Task calls in one answer (serial
// false) or one per answer (serial true) through nova.
func subagentsRun(ctx context.Context, nova string, serial bool) (subagentsResult, error) {
	var zero subagentsResult
	ws, err := os.MkdirTemp("", "novabench-ws-")
	if err != nil {
		return zero, err
	}
	defer os.RemoveAll(ws)
	home, err := os.MkdirTemp("", "novabench-home-")
	if err != nil {
		return zero, err
	}
	defer os.RemoveAll(home)
	children := []string{"child-1", "child-2", "child-3"}
	scripts := map[string][]llmtest.Turn{}
	for _, c := range children {
		scripts[c] = []llmtest.Turn{
			{Blocks: []llmtest.Block{bashCall("", "sleep 1")}},
			{Blocks: []llmtest.Block{llmtest.Text("report of " + c)}},
		}
	}
	if serial {
		for i, c := range children {
			scripts[""] = append(scripts[""], llmtest.Turn{Blocks: []llmtest.Block{taskBlock(fmt.Sprintf("t%d", i), c)}})
		}
	} else {
		scripts[""] = []llmtest.Turn{{Blocks: []llmtest.Block{taskBlock("t0", children[0]), taskBlock("t1", children[1]), taskBlock("t2", children[2])}}}
	}
	scripts[""] = append(scripts[""], llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}})
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetFallback(llmtest.Conversations(scripts))
	_, out, err := runProc(ctx, novaEnv(srv, home), nova, "-p", "--cwd", ws, "--output-format", "json", "go")
	if err != nil {
		return zero, fmt.Errorf("%w: %s", err, out)
	}
	var parent []llmtest.Request
	first, last := map[string]time.Time{}, map[string]time.Time{}
	for _, r := range srv.Requests() {
		if r.Method != "POST" {
			continue
		}
		who := conversationOf(r)
		if who == "" {
			parent = append(parent, r)
			continue
		}
		if _, ok := first[who]; !ok {
			first[who] = r.Received
		}
		last[who] = r.Done
	}
	if len(first) != 3 {
		return zero, fmt.Errorf("%d children called the model, want 3: %s", len(first), out)
	}
	var res subagentsResult
	for c := range first {
		res.longest = max(res.longest, last[c].Sub(first[c]))
	}
	for i := 0; i+1 < len(parent); i++ {
		res.wait += parent[i+1].Received.Sub(parent[i].Done)
	}
	return res, nil
}

// conversationOf names the child whose conversation r belongs to ("" for
// the parent's), from the first user message.
func conversationOf(r llmtest.Request) string {
	var body struct {
		Messages []struct {
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &body) != nil || len(body.Messages) == 0 {
		return ""
	}
	first := string(body.Messages[0].Content)
	for _, c := range []string{"child-1", "child-2", "child-3"} {
		if strings.Contains(first, c+": run the check") {
			return c
		}
	}
	return ""
}

// subagentsReport measures both variants runs times and prints a table.
func subagentsReport(ctx context.Context, nova string, runs int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "### Three subagents, each doing 1 s of work (`novabench -only subagents`)\n\n")
	fmt.Fprintf(&b, "Median of %d runs. \"Parent's wait\" runs from the end of the parent's answer with the Task calls to its next request; "+
		"\"longest child\" is the longest child's own work measured at the server (its first request to the end of its last answer: two model calls and `sleep 1`).\n\n", runs)
	fmt.Fprintf(&b, "| variant | parent's wait | longest child | wait / longest child |\n|---|---|---|---|\n")
	for _, v := range []struct {
		name   string
		serial bool
	}{{"three Task calls in one answer (parallel)", false}, {"one Task call per answer (serial)", true}} {
		var waits, longest []time.Duration
		var ratios []float64
		for range runs {
			r, err := subagentsRun(ctx, nova, v.serial)
			if err != nil {
				return "", fmt.Errorf("%s: %w", v.name, err)
			}
			waits, longest = append(waits, r.wait), append(longest, r.longest)
			ratios = append(ratios, float64(r.wait)/float64(r.longest))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.3f |\n", v.name, median(waits).Round(time.Millisecond), median(longest).Round(time.Millisecond), medianF(ratios))
	}
	return b.String(), nil
}
