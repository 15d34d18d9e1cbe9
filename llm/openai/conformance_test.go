package openai

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
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const fixtureDir = "../testdata/providers/openai-responses"

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

// TestConformance replays every recorded Responses stream through the real
// Client and compares the normalized events with a golden rendering, then
// checks what no golden file should be trusted for: the invariants of the
// event contract, and usage, stop reason and reasoning items against
// figures read straight from the recording.
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

			checkInvariants(t, events, true)
			rec := readRecording(t, body)
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
		})
	}
}

var simpleRequest = &llm.Request{
	Model: "gpt-5", MaxTokens: 1000,
	Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}},
}

// checkInvariants asserts what holds for every well-formed stream; with
// validJSON, every tool input must also be valid JSON (true of the
// recordings, not of a stream cut by max_output_tokens).
func checkInvariants(t *testing.T, events []llm.StreamEvent, validJSON bool) {
	t.Helper()
	deltas := map[int]string{}
	open := map[int]llm.ToolCallStart{}
	completed := map[string]int{}
	ends := 0
	for i, ev := range events {
		switch e := ev.(type) {
		case llm.ThinkingDelta:
			if e.Origin != llm.OriginOpenAIResponses || !strings.HasPrefix(e.ItemID, "rs_") {
				t.Errorf("event %d: thinking delta with origin %q item %q", i, e.Origin, e.ItemID)
			}
		case llm.ToolCallStart:
			if e.ID == "" || e.Name == "" {
				t.Errorf("event %d: tool call start without id or name: %+v", i, e)
			}
			if _, dup := open[e.Index]; dup {
				t.Errorf("event %d: second start for index %d", i, e.Index)
			}
			open[e.Index] = e
		case llm.ToolCallDelta:
			if open[e.Index].ID != e.ID {
				t.Errorf("event %d: delta id %q, start id %q", i, e.ID, open[e.Index].ID)
			}
			deltas[e.Index] += e.PartialJSON
		case llm.ToolCallComplete:
			completed[e.ID]++
			start, ok := open[e.Index]
			if !ok {
				t.Errorf("event %d: complete without start: %+v", i, e)
			}
			if start.ID != e.ID || start.Name != e.Name {
				t.Errorf("event %d: complete %s/%s, start %s/%s", i, e.ID, e.Name, start.ID, start.Name)
			}
			if validJSON && !json.Valid(e.Input) {
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
			if sum := e.Usage.InputTokens + e.Usage.CacheReadTokens + e.Usage.CacheWriteTokens; sum != e.Usage.PromptTokens() || e.Usage.InputTokens < 0 {
				t.Errorf("usage does not add up: %+v", e.Usage)
			}
		}
	}
	if ends != 1 {
		t.Errorf("%d StreamEnd events, want 1", ends)
	}
	if len(open) != 0 {
		t.Errorf("tool calls never completed: %v", open)
	}
	for id, n := range completed {
		if n != 1 {
			t.Errorf("tool call %s completed %d times", id, n)
		}
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
				if it.Type == "function_call" {
					rec.stop = llm.StopToolUse
				}
			}
		}
	}
	return rec
}

// TestRecordedRequests rebuilds, for every recorded request, the llm.Request
// the recording's client must have had, sends it through Stream and compares
// the body on the wire with the recorded one. Deliberate differences are
// applied to the recording first:
//
//   - the system prompt goes out as "instructions", not as a
//     system/developer input message;
//   - tool_choice is not sent: "auto" is the API's default.
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

			want := mustJSON(t, recorded).(map[string]any)
			delete(want, "tool_choice")
			input := want["input"].([]any)
			if first := input[0].(map[string]any); first["role"] == "system" || first["role"] == "developer" {
				want["instructions"] = first["content"]
				want["input"] = input[1:]
			}
			if diff := cmp.Diff(any(want), mustJSON(t, sent)); diff != "" {
				t.Errorf("request body differs from the recording (-want +got):\n%s", diff)
			}
		})
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
