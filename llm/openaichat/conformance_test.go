package openaichat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// TestConformance runs the shared adapter suite: replay of every recorded
// stream against its golden file, rebuild of every recorded request, the
// iterator contract, damaged streams, the fault suite and the encoding
// cache (llmtest.Conformance).
func TestConformance(t *testing.T) {
	a := adapter
	a.Update = *update
	llmtest.Conformance(t, a)
}

// checkRecording compares the events with the recording's content, decoded
// independently of the adapter.
func checkRecording(t *testing.T, events []llm.StreamEvent, sse []byte) {
	t.Helper()
	checkAgainstRecording(t, events, readRecording(t, sse))
}

// recording is what a stream says, decoded with generic JSON.
type recording struct {
	Text, Thinking string
	Calls          []recordedCall
	Stop           llm.StopReason
	Usage          llm.Usage
	Model          string
}

type recordedCall struct {
	ID, Name, Args string
}

// readRecording decodes a recorded stream without the adapter's types: the
// concatenated content and reasoning, the tool calls by index, the finish
// reason and the last usage object (top-level or in a choice), normalized so
// that input + cache read + cache write = prompt_tokens.
func readRecording(t *testing.T, body []byte) recording {
	t.Helper()
	var rec recording
	calls := map[int]*recordedCall{}
	var order []int
	var finish string
	var lastUsage map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c map[string]any
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("recording: %v", err)
		}
		if m, _ := c["model"].(string); rec.Model == "" {
			rec.Model = m
		}
		if u, ok := c["usage"].(map[string]any); ok {
			lastUsage = u
		}
		choices, _ := c["choices"].([]any)
		for _, x := range choices {
			ch := x.(map[string]any)
			if u, ok := ch["usage"].(map[string]any); ok {
				lastUsage = u
			}
			if fr, ok := ch["finish_reason"].(string); ok {
				finish = fr
			}
			d, _ := ch["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				rec.Text += s
			}
			if s, _ := d["reasoning_content"].(string); s != "" {
				rec.Thinking += s
			} else if s, _ := d["reasoning"].(string); s != "" {
				rec.Thinking += s
			} else if details, ok := d["reasoning_details"].([]any); ok {
				for _, x := range details {
					if s, ok := x.(map[string]any)["text"].(string); ok {
						rec.Thinking += s
					}
				}
			}
			tcs, _ := d["tool_calls"].([]any)
			for _, x := range tcs {
				tc := x.(map[string]any)
				i := int(tc["index"].(float64))
				call := calls[i]
				if call == nil {
					call = &recordedCall{}
					calls[i] = call
					order = append(order, i)
				}
				if id, _ := tc["id"].(string); id != "" && call.ID == "" {
					call.ID = id
				}
				fn, _ := tc["function"].(map[string]any)
				if n, _ := fn["name"].(string); n != "" && call.Name == "" {
					call.Name = n
				}
				if a, ok := fn["arguments"].(string); ok {
					call.Args += a
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Ints(order)
	for _, i := range order {
		if calls[i].Args == "" {
			// A call without parameters: its input is the empty object.
			calls[i].Args = "{}"
		}
		rec.Calls = append(rec.Calls, *calls[i])
	}
	switch {
	case len(rec.Calls) > 0:
		rec.Stop = llm.StopToolUse
	case finish == "stop":
		rec.Stop = llm.StopEndTurn
	case finish == "length":
		rec.Stop = llm.StopMaxTokens
	default:
		t.Fatalf("recording ends with finish_reason %q", finish)
	}
	if lastUsage != nil {
		num := func(m map[string]any, k string) int64 {
			f, _ := m[k].(float64)
			return int64(f)
		}
		details, _ := lastUsage["prompt_tokens_details"].(map[string]any)
		rec.Usage = llm.Usage{
			OutputTokens:     num(lastUsage, "completion_tokens"),
			CacheReadTokens:  num(details, "cached_tokens"),
			CacheWriteTokens: num(details, "cache_write_tokens"),
		}
		rec.Usage.InputTokens = num(lastUsage, "prompt_tokens") - rec.Usage.CacheReadTokens - rec.Usage.CacheWriteTokens
	}
	return rec
}

// checkAgainstRecording compares the events with the recording's content.
func checkAgainstRecording(t *testing.T, events []llm.StreamEvent, want recording) {
	t.Helper()
	var got recording
	for _, ev := range events {
		switch e := ev.(type) {
		case llm.TextDelta:
			got.Text += e.Text
		case llm.ThinkingDelta:
			got.Thinking += e.Text
		case llm.ToolCallComplete:
			got.Calls = append(got.Calls, recordedCall{ID: e.ID, Name: e.Name, Args: string(e.Input)})
		case llm.StreamEnd:
			got.Stop, got.Usage, got.Model = e.StopReason, e.Usage, e.Model
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events differ from the recording's content (-want +got):\n%s", diff)
	}
}
