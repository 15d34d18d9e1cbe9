package anthropic

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const fixtureDir = "../testdata/providers/anthropic"

func fixtures(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.sse"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no fixtures under %s", fixtureDir)
	}
	return files
}

// TestConformance replays every recorded Anthropic stream through the real
// Client and compares the normalized events with a golden rendering, then
// checks the invariants no golden file should be trusted for.
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

			events, err := collect(t, c.Stream(context.Background(), &llm.Request{
				Model: "claude-sonnet-4-20250514", MaxTokens: 1024,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}},
			}))
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
			if diff := cmp.Diff(recordedUsage(t, body), events[len(events)-1].(llm.StreamEnd).Usage); diff != "" {
				t.Errorf("usage differs from the recording (-want +got):\n%s", diff)
			}
		})
	}
}

// checkInvariants asserts what holds for every well-formed stream.
func checkInvariants(t *testing.T, events []llm.StreamEvent) {
	t.Helper()
	deltas := map[int]string{}
	open := map[int]llm.ToolCallStart{}
	ends := 0
	for i, ev := range events {
		switch e := ev.(type) {
		case llm.ToolCallStart:
			if e.ID == "" || e.Name == "" {
				t.Errorf("event %d: tool call start without id or name: %+v", i, e)
			}
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
			delete(deltas, e.Index)
		case llm.StreamEnd:
			ends++
			if i != len(events)-1 {
				t.Errorf("StreamEnd at %d of %d events", i, len(events))
			}
			if e.Model == "" || e.StopReason == "" {
				t.Errorf("StreamEnd without model or stop reason: %+v", e)
			}
			if e.StopReason == llm.StopToolUse && !hasToolCall(events) {
				t.Errorf("stop reason tool_use without any tool call")
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

func hasToolCall(events []llm.StreamEvent) bool {
	for _, ev := range events {
		if _, ok := ev.(llm.ToolCallComplete); ok {
			return true
		}
	}
	return false
}

// recordedUsage computes the expected usage straight from the recording:
// message_start's figures, each replaced by the final message_delta's where
// that reports one.
func recordedUsage(t *testing.T, sse []byte) llm.Usage {
	t.Helper()
	type usage struct {
		Input      *int64 `json:"input_tokens"`
		Output     *int64 `json:"output_tokens"`
		CacheRead  *int64 `json:"cache_read_input_tokens"`
		CacheWrite *int64 `json:"cache_creation_input_tokens"`
	}
	var u llm.Usage
	apply := func(x usage) {
		set := func(dst *int64, v *int64) {
			if v != nil {
				*dst = *v
			}
		}
		set(&u.InputTokens, x.Input)
		set(&u.OutputTokens, x.Output)
		set(&u.CacheReadTokens, x.CacheRead)
		set(&u.CacheWriteTokens, x.CacheWrite)
	}
	sc := bufio.NewScanner(bytes.NewReader(sse))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type    string `json:"type"`
			Message struct {
				Usage usage `json:"usage"`
			} `json:"message"`
			Usage usage `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("recording: %v", err)
		}
		switch ev.Type {
		case "message_start":
			apply(ev.Message.Usage)
		case "message_delta":
			apply(ev.Usage)
		}
	}
	return u
}

// TestRecordedRequests rebuilds, for every recorded request, the llm.Request
// the recording's client must have had, sends it through Stream and compares
// the body on the wire with the recorded one. Prompt-caching markers are
// compared separately (the recorder placed its own), as are the fields
// NovaCode does not send (tool_choice).
func TestRecordedRequests(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.request.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded requests: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".request.json")
		t.Run(name, func(t *testing.T) {
			recorded, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sse, err := os.ReadFile(filepath.Join(fixtureDir, name+".sse"))
			if err != nil {
				t.Fatal(err)
			}
			req := requestFromRecording(t, recorded)
			var mu sync.Mutex
			var sent []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				sent = b
				mu.Unlock()
				sseHandler(sse)(w, r)
			}))
			defer srv.Close()
			c := newTestClient(t, srv, Options{})
			if _, err := collect(t, c.Stream(context.Background(), req)); err != nil {
				t.Fatalf("Stream: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()

			got, want := mustJSON(t, sent), mustJSON(t, recorded)
			checkCacheBreakpoints(t, got)
			for _, v := range []any{got, want} {
				stripKey(v, "cache_control")
				delete(v.(map[string]any), "tool_choice")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("request body differs from the recording (-want +got):\n%s", diff)
			}
		})
	}
}

// requestFromRecording decodes a recorded Messages request body into the
// llm.Request that produces it.
func requestFromRecording(t *testing.T, body []byte) *llm.Request {
	t.Helper()
	var rec struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		System    []struct {
			Text string `json:"text"`
		} `json:"system"`
		Thinking *struct {
			BudgetTokens int `json:"budget_tokens"`
		} `json:"thinking"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		Messages []struct {
			Role    llm.Role `json:"role"`
			Content []struct {
				Type      llm.BlockType   `json:"type"`
				Text      string          `json:"text"`
				Thinking  string          `json:"thinking"`
				Signature string          `json:"signature"`
				Data      string          `json:"data"`
				ID        string          `json:"id"`
				Name      string          `json:"name"`
				Input     json.RawMessage `json:"input"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Model: rec.Model, MaxTokens: rec.MaxTokens}
	for _, s := range rec.System {
		req.System += s.Text
	}
	if rec.Thinking != nil {
		req.Thinking = &llm.Thinking{BudgetTokens: rec.Thinking.BudgetTokens}
	}
	for _, tl := range rec.Tools {
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	for _, m := range rec.Messages {
		msg := llm.Message{Role: m.Role}
		for _, c := range m.Content {
			b := llm.Block{Type: c.Type}
			switch c.Type {
			case llm.BlockText:
				b.Text = c.Text
			case llm.BlockThinking:
				b.Text, b.Signature = c.Thinking, c.Signature
			case llm.BlockRedactedThinking:
				b.Data = c.Data
			case llm.BlockToolUse:
				b.ToolUseID, b.ToolName, b.Input = c.ID, c.Name, c.Input
			case llm.BlockToolResult:
				b.ToolUseID, b.IsError = c.ToolUseID, c.IsError
				var parts []struct {
					Text string `json:"text"`
				}
				if err := json.Unmarshal(c.Content, &parts); err != nil {
					if err := json.Unmarshal(c.Content, &b.Content); err != nil {
						t.Fatalf("tool_result content %s: %v", c.Content, err)
					}
				}
				for _, p := range parts {
					b.Content += p.Text
				}
			default:
				t.Fatalf("recording has block type %q", c.Type)
			}
			msg.Content = append(msg.Content, b)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req
}

// checkCacheBreakpoints asserts that cache_control is on exactly the system
// block, the last tool and the last block of the last user message.
func checkCacheBreakpoints(t *testing.T, body any) {
	t.Helper()
	root := body.(map[string]any)
	want := map[string]bool{}
	if sys, ok := root["system"].([]any); ok {
		want[jsonPath("system", len(sys)-1)] = true
	}
	if tools, ok := root["tools"].([]any); ok {
		want[jsonPath("tools", len(tools)-1)] = true
	}
	msgs := root["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i].(map[string]any)
		if m["role"] == "user" {
			want[jsonPath(jsonPath("messages", i)+".content", len(m["content"].([]any))-1)] = true
			break
		}
	}
	got := map[string]bool{}
	findKey(body, "", "cache_control", func(path string, v any) {
		got[path] = true
		if diff := cmp.Diff(map[string]any{"type": "ephemeral"}, v); diff != "" {
			t.Errorf("cache_control at %s (-want +got):\n%s", path, diff)
		}
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cache_control breakpoints (-want +got):\n%s", diff)
	}
}

func jsonPath(prefix string, i int) string {
	return prefix + "[" + strconv.Itoa(i) + "]"
}

// findKey calls fn for every object member named key, with its path.
func findKey(v any, path, key string, fn func(path string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if k == key {
				fn(path, e)
				continue
			}
			findKey(e, p, key, fn)
		}
	case []any:
		for i, e := range x {
			findKey(e, jsonPath(path, i), key, fn)
		}
	}
}

// stripKey deletes every object member named key.
func stripKey(v any, key string) {
	switch x := v.(type) {
	case map[string]any:
		delete(x, key)
		for _, e := range x {
			stripKey(e, key)
		}
	case []any:
		for _, e := range x {
			stripKey(e, key)
		}
	}
}
