package llmtest

import (
	"encoding/json"
	"testing"

	"github.com/novacode/nova/llm"
)

// CheckEvents asserts the llm.StreamEvent contract on a complete stream, as
// the loop relies on it:
//
//   - a change of Index starts a new block, so an index is never reused for
//     a block of another kind;
//   - text deltas are not empty; thinking deltas carry origin;
//   - a tool call starts once, with an id unique in the stream and a name;
//     its deltas carry its id and add up to its input, which is valid JSON
//     ("{}" when none streamed); it completes exactly once, with the start's
//     id and name;
//   - a server tool call (the provider's web search) comes once, with an id
//     unique in the stream, a name, JSON input and origin; its result comes
//     once, after it, with the same id and name, origin and the provider's
//     raw JSON; every call has its result by the end;
//   - a citation follows text of its block and names a URL;
//   - StreamEnd comes once, last, with a model and a stop reason, tool_use
//     only after a tool call, and usage that adds up.
func CheckEvents(t *testing.T, events []llm.StreamEvent, origin string) {
	t.Helper()
	deltas := map[int]string{}
	open := map[int]llm.ToolCallStart{}
	kind := map[int]string{}
	blockOf := func(i, index int, k string) {
		if prev, ok := kind[index]; ok && prev != k {
			t.Errorf("event %d: block index %d used for %s and %s", i, index, prev, k)
		}
		kind[index] = k
	}
	ids := map[string]bool{}
	completed := map[string]int{}
	calls, ends := 0, 0
	served := map[string]string{} // server tool call id → name
	results := map[string]int{}
	for i, ev := range events {
		switch e := ev.(type) {
		case llm.ServerToolUse:
			blockOf(i, e.Index, "server_tool")
			if e.ID == "" || e.Name == "" || e.Origin != origin || !json.Valid(e.Input) {
				t.Errorf("event %d: server tool call without id, name, origin %q or JSON input: %+v", i, origin, e)
			}
			if _, dup := served[e.ID]; dup {
				t.Errorf("event %d: server tool call id %s used twice", i, e.ID)
			}
			served[e.ID] = e.Name
		case llm.ServerToolResult:
			blockOf(i, e.Index, "server_tool")
			name, ok := served[e.ID]
			if !ok || name != e.Name {
				t.Errorf("event %d: result for %s/%s, which is no earlier server tool call", i, e.ID, e.Name)
			}
			if results[e.ID]++; results[e.ID] > 1 {
				t.Errorf("event %d: second result for %s", i, e.ID)
			}
			if e.Origin != origin || !json.Valid(e.Raw) {
				t.Errorf("event %d: server tool result without origin %q or raw JSON: %+v", i, origin, e)
			}
		case llm.Citation:
			if kind[e.Index] != "text" || e.URL == "" {
				t.Errorf("event %d: citation %+v does not follow text of its block, or names no URL", i, e)
			}
		case llm.TextDelta:
			blockOf(i, e.Index, "text")
			if e.Text == "" {
				t.Errorf("event %d: empty text delta", i)
			}
		case llm.ThinkingDelta:
			blockOf(i, e.Index, "thinking")
			if e.Origin != origin {
				t.Errorf("event %d: thinking origin %q, want %q", i, e.Origin, origin)
			}
		case llm.ToolCallStart:
			blockOf(i, e.Index, "tool")
			if e.ID == "" || e.Name == "" {
				t.Errorf("event %d: tool call start without id or name: %+v", i, e)
			}
			if _, dup := open[e.Index]; dup {
				t.Errorf("event %d: second start for block %d", i, e.Index)
			}
			if ids[e.ID] {
				t.Errorf("event %d: tool call id %s used twice", i, e.ID)
			}
			ids[e.ID] = true
			open[e.Index] = e
		case llm.ToolCallDelta:
			if open[e.Index].ID != e.ID {
				t.Errorf("event %d: delta id %q, start id %q", i, e.ID, open[e.Index].ID)
			}
			deltas[e.Index] += e.PartialJSON
		case llm.ToolCallComplete:
			calls++
			completed[e.ID]++
			start, ok := open[e.Index]
			if !ok {
				t.Errorf("event %d: complete without start: %+v", i, e)
			}
			if start.ID != e.ID || start.Name != e.Name {
				t.Errorf("event %d: complete %s/%s, start %s/%s", i, e.ID, e.Name, start.ID, start.Name)
			}
			if !json.Valid(e.Input) {
				t.Errorf("event %d: tool input is not valid JSON: %s", i, e.Input)
			}
			want := deltas[e.Index]
			if want == "" {
				want = "{}"
			}
			if string(e.Input) != want {
				t.Errorf("event %d: input %s, concatenated deltas %s", i, e.Input, want)
			}
			delete(open, e.Index)
			delete(deltas, e.Index)
		case llm.StreamEnd:
			ends++
			if i != len(events)-1 {
				t.Errorf("StreamEnd at %d of %d events", i, len(events))
			}
			if e.Model == "" || e.StopReason == "" {
				t.Errorf("StreamEnd without model or stop reason: %+v", e)
			}
			if e.StopReason == llm.StopToolUse && calls == 0 {
				t.Errorf("stop reason tool_use without any tool call")
			}
			if u := e.Usage; u.InputTokens < 0 || u.OutputTokens < 0 || u.CacheReadTokens < 0 || u.CacheWriteTokens < 0 {
				t.Errorf("negative usage: %+v", u)
			}
		}
	}
	if ends != 1 {
		t.Errorf("%d StreamEnd events, want 1", ends)
	}
	if len(open) != 0 {
		t.Errorf("tool calls never completed: %v", open)
	}
	for id := range served {
		if results[id] == 0 {
			t.Errorf("server tool call %s has no result", id)
		}
	}
	for id, n := range completed {
		if n != 1 {
			t.Errorf("tool call %s completed %d times", id, n)
		}
	}
}
