package openaichat

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const (
	// fixtureDir is the shared provider corpus.
	fixtureDir = "../testdata/providers/openai-chat"
	// recordingDir holds this package's own recordings of services the
	// corpus lacks (OpenRouter, Azure); see its README.
	recordingDir = "testdata/recordings"
)

// fixtures returns every recorded stream, the corpus first.
func fixtures(t testing.TB) []string {
	t.Helper()
	var all []string
	for _, dir := range []string{fixtureDir, recordingDir} {
		files, err := filepath.Glob(filepath.Join(dir, "*.sse"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no fixtures under %s", dir)
		}
		all = append(all, files...)
	}
	return all
}

// TestConformance replays every recorded stream through the real Client and
// compares the normalized events with a golden rendering, then checks them
// against what the recording itself says, decoded independently of the
// adapter.
func TestConformance(t *testing.T) {
	for _, file := range fixtures(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".sse")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(sseHandler(body))
			defer srv.Close()
			c := newTestClient(t, srv, Options{})

			events, err := collect(t, c.Stream(context.Background(), simpleRequest))
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}

			got := render(events)
			golden := filepath.Join("testdata", "golden", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("events differ from %s (-want +got):\n%s", golden, diff)
			}

			checkInvariants(t, events)
			checkAgainstRecording(t, events, readRecording(t, body))
		})
	}
}

// checkInvariants asserts what holds for every well-formed stream.
func checkInvariants(t *testing.T, events []llm.StreamEvent) {
	t.Helper()
	deltas := map[int]string{}
	open := map[int]llm.ToolCallStart{}
	seen := map[int]string{} // block index -> kind, to catch an index reused for another block
	kindAt := func(i int, idx int, kind string) {
		if k, ok := seen[idx]; ok && k != kind {
			t.Errorf("event %d: block index %d used for %s and %s", i, idx, k, kind)
		}
		seen[idx] = kind
	}
	ids := map[string]bool{}
	ends := 0
	for i, ev := range events {
		switch e := ev.(type) {
		case llm.TextDelta:
			kindAt(i, e.Index, "text")
			if e.Text == "" {
				t.Errorf("event %d: empty text delta", i)
			}
		case llm.ThinkingDelta:
			kindAt(i, e.Index, "thinking")
			if e.Origin != llm.OriginOpenAIChat {
				t.Errorf("event %d: thinking origin %q", i, e.Origin)
			}
		case llm.ToolCallStart:
			kindAt(i, e.Index, "tool")
			if e.ID == "" || e.Name == "" {
				t.Errorf("event %d: tool call start without id or name: %+v", i, e)
			}
			if _, ok := open[e.Index]; ok {
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
		case llm.StreamEnd:
			ends++
			if i != len(events)-1 {
				t.Errorf("StreamEnd at %d of %d events", i, len(events))
			}
			if e.Model == "" || e.StopReason == "" {
				t.Errorf("StreamEnd without model or stop reason: %+v", e)
			}
		}
	}
	if ends != 1 {
		t.Errorf("%d StreamEnd events, want 1", ends)
	}
	if len(open) != 0 {
		t.Errorf("tool calls never completed: %v", open)
	}
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
