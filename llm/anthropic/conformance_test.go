package anthropic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strconv"
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

// checkRecording compares the final usage with the recording's (searches
// included).
func checkRecording(t *testing.T, events []llm.StreamEvent, sse []byte) {
	t.Helper()
	if diff := cmp.Diff(recordedUsage(t, sse), events[len(events)-1].(llm.StreamEnd).Usage); diff != "" {
		t.Errorf("usage differs from the recording (-want +got):\n%s", diff)
	}
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
		Server     *struct {
			WebSearch *int64 `json:"web_search_requests"`
		} `json:"server_tool_use"`
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
		if x.Server != nil {
			set(&u.WebSearchRequests, x.Server.WebSearch)
		}
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

// deliberate takes out what the recordings' client sent and this adapter
// does not: its own prompt-caching markers (this adapter's are checked
// here, as checkCacheBreakpoints wants them) and tool_choice; and what this
// adapter sends and the recordings' client did not: the caller of a server
// tool call, which the API reported and this adapter sends back.
func deliberate(t *testing.T, sent, recorded map[string]any) {
	checkCacheBreakpoints(t, sent)
	for _, v := range []map[string]any{sent, recorded} {
		stripKey(v, "cache_control")
		delete(v, "tool_choice")
	}
	for _, m := range sent["messages"].([]any) {
		for _, b := range m.(map[string]any)["content"].([]any) {
			if b := b.(map[string]any); b["type"] == "server_tool_use" {
				if diff := cmp.Diff(map[string]any{"type": "direct"}, b["caller"]); diff != "" {
					t.Errorf("server_tool_use caller (-want +got):\n%s", diff)
				}
				delete(b, "caller")
			}
		}
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
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
			MaxUses     int             `json:"max_uses"`
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
		if tl.Type == "web_search_20250305" {
			req.WebSearch = &llm.WebSearch{MaxUses: tl.MaxUses}
			continue
		}
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Name, Description: tl.Description, InputSchema: tl.InputSchema})
	}
	var raws []struct {
		Content []json.RawMessage `json:"content"`
	}
	var whole struct {
		Messages *[]struct {
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	whole.Messages = &raws
	if err := json.Unmarshal(body, &whole); err != nil {
		t.Fatal(err)
	}
	for i, m := range rec.Messages {
		msg := llm.Message{Role: m.Role}
		for j, c := range m.Content {
			b := llm.Block{Type: c.Type}
			switch c.Type {
			case "server_tool_use":
				b = llm.Block{Type: llm.BlockServerToolUse, ToolUseID: c.ID, ToolName: c.Name, Input: c.Input, Origin: llm.OriginAnthropic}
			case "web_search_tool_result":
				// The block goes back as the API sent it.
				b = llm.Block{Type: llm.BlockServerToolResult, ToolUseID: c.ToolUseID, ToolName: "web_search",
					Raw: raws[i].Content[j], Origin: llm.OriginAnthropic}
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
