package openai

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
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

// checkRecording compares usage, model, stop reason, tool calls, reasoning
// items (encrypted content in full) and text with figures read straight
// from the recording.
func checkRecording(t *testing.T, events []llm.StreamEvent, sse []byte) {
	t.Helper()
	rec := readRecording(t, sse)
	end := events[len(events)-1].(llm.StreamEnd)
	if diff := cmp.Diff(rec.usage, end.Usage); diff != "" {
		t.Errorf("usage differs from the recording (-want +got):\n%s", diff)
	}
	if end.Model != rec.model {
		t.Errorf("model %q, recording says %q", end.Model, rec.model)
	}
	if end.StopReason != rec.stop {
		t.Errorf("stop reason %q, recording implies %q", end.StopReason, rec.stop)
	}
	if diff := cmp.Diff(rec.calls, assembleCalls(events)); diff != "" {
		t.Errorf("tool calls differ from the recording (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rec.reasoning, assembleThinking(events)); diff != "" {
		t.Errorf("reasoning differs from the recording (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(rec.text, assembleText(events)); diff != "" {
		t.Errorf("text differs from the recording (-want +got):\n%s", diff)
	}
	var searches []string
	for _, ev := range events {
		if e, ok := ev.(llm.ServerToolUse); ok {
			searches = append(searches, string(e.Input))
		}
	}
	if diff := cmp.Diff(rec.searches, searches); diff != "" {
		t.Errorf("searches differ from the recording (-want +got):\n%s", diff)
	}
}

// call is a tool call as the loop would assemble it.
type call struct{ ID, Name, Input string }

// thought is a reasoning block as the loop would assemble it.
type thought struct{ ItemID, Text, Encrypted string }

func assembleCalls(events []llm.StreamEvent) []call {
	var out []call
	for _, ev := range events {
		if e, ok := ev.(llm.ToolCallComplete); ok {
			out = append(out, call{e.ID, e.Name, string(e.Input)})
		}
	}
	return out
}

// assembleThinking joins the thinking deltas of each block (a change of
// Index starts a new one), as the loop does.
func assembleThinking(events []llm.StreamEvent) []thought {
	var out []thought
	last := -1
	for _, ev := range events {
		e, ok := ev.(llm.ThinkingDelta)
		if !ok {
			continue
		}
		if len(out) == 0 || e.Index != last {
			out = append(out, thought{ItemID: e.ItemID})
		}
		last = e.Index
		th := &out[len(out)-1]
		th.Text += e.Text
		th.Encrypted += e.Signature
	}
	return out
}

// assembleText joins the text of each block.
func assembleText(events []llm.StreamEvent) []string {
	var out []string
	last := -1
	for _, ev := range events {
		e, ok := ev.(llm.TextDelta)
		if !ok {
			continue
		}
		if len(out) == 0 || e.Index != last {
			out = append(out, "")
		}
		last = e.Index
		out[len(out)-1] += e.Text
	}
	return out
}

// recording is what a recorded stream says, read independently of the
// adapter's code from the raw JSON.
type recording struct {
	usage     llm.Usage
	model     string
	stop      llm.StopReason
	calls     []call
	reasoning []thought
	text      []string
	searches  []string // the inputs of the web searches
}

func readRecording(t *testing.T, sse []byte) recording {
	t.Helper()
	type item struct {
		Type             string `json:"type"`
		ID               string `json:"id"`
		CallID           string `json:"call_id"`
		Name             string `json:"name"`
		Arguments        string `json:"arguments"`
		EncryptedContent string `json:"encrypted_content"`
		Summary          []struct {
			Text string `json:"text"`
		} `json:"summary"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Status string `json:"status"`
		Action struct {
			Query string `json:"query"`
		} `json:"action"`
	}
	var rec recording
	sc := bufio.NewScanner(bytes.NewReader(sse))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type     string `json:"type"`
			Item     item   `json:"item"`
			Response struct {
				Model  string `json:"model"`
				Output []item `json:"output"`
				Usage  *struct {
					InputTokens        int64 `json:"input_tokens"`
					OutputTokens       int64 `json:"output_tokens"`
					InputTokensDetails struct {
						CachedTokens int64 `json:"cached_tokens"`
					} `json:"input_tokens_details"`
				} `json:"usage"`
			} `json:"response"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("recording: %v", err)
		}
		switch ev.Type {
		case "response.output_item.done":
			it := ev.Item
			switch it.Type {
			case "function_call":
				rec.calls = append(rec.calls, call{it.CallID, it.Name, it.Arguments})
			case "reasoning":
				var text []string
				for _, s := range it.Summary {
					text = append(text, s.Text)
				}
				if len(text) > 0 || it.EncryptedContent != "" {
					rec.reasoning = append(rec.reasoning, thought{it.ID, strings.Join(text, "\n\n"), it.EncryptedContent})
				}
			case "message":
				var s string
				for _, c := range it.Content {
					s += c.Text
				}
				rec.text = append(rec.text, s)
			}
		case "response.completed":
			r := ev.Response
			rec.model = r.Model
			if u := r.Usage; u != nil {
				rec.usage = llm.Usage{
					InputTokens:     u.InputTokens - u.InputTokensDetails.CachedTokens,
					OutputTokens:    u.OutputTokens,
					CacheReadTokens: u.InputTokensDetails.CachedTokens,
				}
			}
			rec.stop = llm.StopEndTurn
			for _, it := range r.Output {
				switch {
				case it.Type == "function_call":
					rec.stop = llm.StopToolUse
				case it.Type == "web_search_call" && it.Status == "completed":
					rec.usage.WebSearchRequests++
				}
				if it.Type == "web_search_call" {
					rec.searches = append(rec.searches, `{"query":`+strconv.Quote(it.Action.Query)+`}`)
				}
			}
		}
	}
	return rec
}

// deliberate applies this adapter's deliberate differences to the
// recording: the system prompt goes out as "instructions", not as a
// system/developer input message, tool_choice is not sent ("auto" is the
// API's default), and with web search the sources of each search are asked
// for.
func deliberate(t *testing.T, sent, recorded map[string]any) {
	delete(recorded, "tool_choice")
	if _, ok := recorded["include"]; !ok && strings.Contains(fmt.Sprint(recorded["tools"]), "web_search") {
		if diff := cmp.Diff([]any{"web_search_call.action.sources"}, sent["include"]); diff != "" {
			t.Errorf("include (-want +got):\n%s", diff)
		}
		delete(sent, "include")
	}
	input := recorded["input"].([]any)
	if first := input[0].(map[string]any); first["role"] == "system" || first["role"] == "developer" {
		recorded["instructions"] = first["content"]
		recorded["input"] = input[1:]
	}
}

// requestFromRecording decodes a recorded Responses request body into the
// llm.Request that produces it: consecutive function_call items are one
// assistant turn, consecutive function_call_output items one user turn.
func requestFromRecording(t *testing.T, body []byte) *llm.Request {
	t.Helper()
	var rec struct {
		Model           string `json:"model"`
		MaxOutputTokens int    `json:"max_output_tokens"`
		Reasoning       *struct {
			Effort string `json:"effort"`
		} `json:"reasoning"`
		Tools []struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"tools"`
		Input []struct {
			Type      string          `json:"type"`
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			CallID    string          `json:"call_id"`
			Name      string          `json:"name"`
			Arguments string          `json:"arguments"`
			Output    string          `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		t.Fatal(err)
	}
	req := &llm.Request{Model: rec.Model, MaxTokens: rec.MaxOutputTokens}
	if rec.Reasoning != nil {
		req.Thinking = &llm.Thinking{Effort: rec.Reasoning.Effort}
	}
	for _, tl := range rec.Tools {
		if tl.Type == "web_search" {
			req.WebSearch = &llm.WebSearch{}
			continue
		}
		req.Tools = append(req.Tools, llm.ToolSpec{Name: tl.Name, Description: tl.Description, InputSchema: tl.Parameters})
	}
	add := func(role llm.Role, b llm.Block) {
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == role {
			req.Messages[n-1].Content = append(req.Messages[n-1].Content, b)
			return
		}
		req.Messages = append(req.Messages, llm.Message{Role: role, Content: []llm.Block{b}})
	}
	for _, in := range rec.Input {
		switch {
		case in.Role == "system" || in.Role == "developer":
			if err := json.Unmarshal(in.Content, &req.System); err != nil {
				t.Fatalf("system content %s: %v", in.Content, err)
			}
		case in.Role == "user":
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(in.Content, &parts); err != nil {
				t.Fatalf("user content %s: %v", in.Content, err)
			}
			for _, p := range parts {
				if p.Type != "input_text" {
					t.Fatalf("recording has user part %q", p.Type)
				}
				add(llm.RoleUser, llm.Block{Type: llm.BlockText, Text: p.Text})
			}
		case in.Type == "function_call":
			add(llm.RoleAssistant, llm.Block{Type: llm.BlockToolUse, ToolUseID: in.CallID, ToolName: in.Name, Input: json.RawMessage(in.Arguments)})
		case in.Type == "function_call_output":
			add(llm.RoleUser, llm.Block{Type: llm.BlockToolResult, ToolUseID: in.CallID, Content: in.Output})
		default:
			t.Fatalf("recording has input item %+v", in)
		}
	}
	return req
}
