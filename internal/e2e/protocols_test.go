//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

var protocols = []struct {
	provider, protocol, model string
}{
	{"anthropic", llmtest.ProtocolAnthropic, "claude-sonnet-4-5"},
	{"openai", llmtest.ProtocolResponses, "gpt-5"},
	{"openai-chat", llmtest.ProtocolChat, "qwen3-coder"},
}

// body decodes a recorded request.
func body(t *testing.T, r llmtest.Request) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func list(v any) []any { l, _ := v.([]any); return l }
func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// A tool-using conversation of three turns, with thinking and usage, over
// each protocol: the same script, the same results, and requests in each
// protocol's own wire format.
func TestEveryProtocolEndToEnd(t *testing.T) {
	for _, p := range protocols {
		t.Run(p.provider, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("one\ntwo TODO\nthree\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := llmtest.NewServer(
				llmtest.Turn{Blocks: []llmtest.Block{
					llmtest.Thinking("Let me look at the file first.", "sig-abc"),
					llmtest.Text("Reading it."),
					llmtest.ToolUse("call_r", "Read", `{"file_path":"notes.txt"}`),
				}, Usage: llm.Usage{InputTokens: 1000, CacheReadTokens: 500, OutputTokens: 50}},
				llmtest.Turn{Blocks: []llmtest.Block{
					llmtest.ToolUse("call_b", "Bash", `{"command":"wc -l < notes.txt"}`),
					llmtest.ToolUse("call_g", "Grep", `{"pattern":"TODO","output_mode":"content"}`),
				}, Usage: llm.Usage{InputTokens: 100, CacheReadTokens: 1500, OutputTokens: 40}},
				llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("notes.txt has 3 lines and one TODO.")},
					Usage: llm.Usage{InputTokens: 50, CacheReadTokens: 1700, OutputTokens: 20}},
			)
			defer srv.Close()
			r := runNovaFor(t, srv, p.provider, ws, "--model", p.model, "--allowedTools", "Bash", "--effort", "medium", "summarize notes.txt")
			if r.Code != 0 || r.Result.Result != "notes.txt has 3 lines and one TODO." || r.Result.NumTurns != 3 {
				t.Fatalf("exit %d result %+v\nstderr: %s", r.Code, r.Result, r.Stderr)
			}
			// Normalized usage is the same whatever the protocol counts.
			u := r.Result.Usage
			if u.InputTokens != 1150 || u.CacheReadInputTokens != 3700 || u.OutputTokens != 110 {
				t.Errorf("usage = %+v, want input 1150, cache read 3700, output 110", u)
			}
			if len(r.byType("thinking_text")) == 0 {
				t.Error("no thinking_text events")
			}
			res := r.byType("tool_result")
			if len(res) != 3 {
				t.Fatalf("%d tool results", len(res))
			}
			for _, e := range res {
				if e["is_error"].(bool) {
					t.Errorf("%s failed: %s", e["name"], e["content"])
				}
			}
			if c := res[1]["content"].(string); strings.TrimSpace(c) != "3" {
				t.Errorf("wc result %q", c)
			}
			if c := res[2]["content"].(string); !strings.Contains(c, "two TODO") {
				t.Errorf("grep result %q", c)
			}

			reqs := modelCalls(srv)
			if len(reqs) != 3 {
				t.Fatalf("%d model calls", len(reqs))
			}
			for i, rq := range reqs {
				if rq.Protocol != p.protocol {
					t.Fatalf("call %d spoke %s", i, rq.Protocol)
				}
			}
			switch p.provider {
			case "anthropic":
				checkAnthropicWire(t, reqs)
			case "openai":
				checkResponsesWire(t, reqs)
			case "openai-chat":
				checkChatWire(t, reqs)
			}
		})
	}
}

func checkAnthropicWire(t *testing.T, reqs []llmtest.Request) {
	t.Helper()
	for i, rq := range reqs {
		b := body(t, rq)
		if n := strings.Count(string(rq.Body), `"cache_control"`); n != 3 {
			t.Errorf("request %d has %d cache breakpoints, want 3", i, n)
		}
		if obj(list(b["system"])[0])["cache_control"] == nil {
			t.Errorf("request %d: no breakpoint on the system block", i)
		}
		tools := list(b["tools"])
		if obj(tools[len(tools)-1])["cache_control"] == nil {
			t.Errorf("request %d: no breakpoint on the last tool", i)
		}
		for _, tl := range tools {
			if obj(tl)["input_schema"] == nil {
				t.Errorf("request %d: tool without input_schema: %v", i, tl)
			}
		}
		msgs := list(b["messages"])
		lastUser := list(obj(msgs[len(msgs)-1])["content"])
		if obj(lastUser[len(lastUser)-1])["cache_control"] == nil {
			t.Errorf("request %d: no breakpoint on the tail of the last user message", i)
		}
	}
	// Turn 2 carries the thinking block with its signature, the call and
	// its result.
	msgs := list(body(t, reqs[1])["messages"])
	asst := list(obj(msgs[1])["content"])
	if obj(asst[0])["type"] != "thinking" || obj(asst[0])["signature"] != "sig-abc" {
		t.Errorf("thinking not sent back: %v", asst[0])
	}
	wantPairs(t, "turn 2", anthropicCalls(msgs[1]), anthropicResults(msgs[2]), []string{"call_r"})
	msgs = list(body(t, reqs[2])["messages"])
	wantPairs(t, "turn 3", anthropicCalls(msgs[3]), anthropicResults(msgs[4]), []string{"call_b", "call_g"})
}

func anthropicCalls(m any) []string {
	var ids []string
	for _, b := range list(obj(m)["content"]) {
		if obj(b)["type"] == "tool_use" {
			ids = append(ids, obj(b)["id"].(string))
		}
	}
	return ids
}

func anthropicResults(m any) []string {
	var ids []string
	for _, b := range list(obj(m)["content"]) {
		if obj(b)["type"] == "tool_result" {
			ids = append(ids, obj(b)["tool_use_id"].(string))
		}
	}
	return ids
}

func wantPairs(t *testing.T, where string, calls, results, want []string) {
	t.Helper()
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("%s: calls (-want +got):\n%s", where, diff)
	}
	if diff := cmp.Diff(want, results); diff != "" {
		t.Errorf("%s: results (-want +got):\n%s", where, diff)
	}
}

func checkResponsesWire(t *testing.T, reqs []llmtest.Request) {
	t.Helper()
	for i, rq := range reqs {
		b := body(t, rq)
		if b["store"] != false {
			t.Errorf("request %d: store = %v, want false", i, b["store"])
		}
		for _, tl := range list(b["tools"]) {
			if obj(tl)["type"] != "function" || obj(tl)["parameters"] == nil || obj(tl)["input_schema"] != nil {
				t.Errorf("request %d: tool not in the Responses dialect: %v", i, tl)
			}
		}
		if obj(b["reasoning"])["effort"] != "medium" {
			t.Errorf("request %d: reasoning = %v", i, b["reasoning"])
		}
	}
	items := list(body(t, reqs[1])["input"])
	var kinds []string
	var calls, outputs []string
	for _, it := range items {
		m := obj(it)
		kind, _ := m["type"].(string)
		if kind == "" {
			kind = "message:" + m["role"].(string)
		}
		kinds = append(kinds, kind)
		switch kind {
		case "reasoning":
			if m["encrypted_content"] != "sig-abc" {
				t.Errorf("reasoning item sent back without its encrypted content: %v", m)
			}
		case "function_call":
			calls = append(calls, m["call_id"].(string))
		case "function_call_output":
			outputs = append(outputs, m["call_id"].(string))
		}
	}
	if diff := cmp.Diff([]string{"message:user", "reasoning", "message:assistant", "function_call", "function_call_output"}, kinds); diff != "" {
		t.Errorf("turn 2 input items (-want +got):\n%s", diff)
	}
	wantPairs(t, "turn 2", calls, outputs, []string{"call_r"})
	calls, outputs = nil, nil
	for _, it := range list(body(t, reqs[2])["input"])[5:] {
		switch m := obj(it); m["type"] {
		case "function_call":
			calls = append(calls, m["call_id"].(string))
		case "function_call_output":
			outputs = append(outputs, m["call_id"].(string))
		}
	}
	wantPairs(t, "turn 3", calls, outputs, []string{"call_b", "call_g"})
}

func checkChatWire(t *testing.T, reqs []llmtest.Request) {
	t.Helper()
	for i, rq := range reqs {
		b := body(t, rq)
		if obj(b["stream_options"])["include_usage"] != true {
			t.Errorf("request %d: usage not requested: %v", i, b["stream_options"])
		}
		for _, tl := range list(b["tools"]) {
			if obj(tl)["type"] != "function" || obj(obj(tl)["function"])["parameters"] == nil {
				t.Errorf("request %d: tool not in the function dialect: %v", i, tl)
			}
		}
	}
	pairs := func(msgs []any) (calls, results []string) {
		for _, m := range msgs {
			for _, tc := range list(obj(m)["tool_calls"]) {
				calls = append(calls, obj(tc)["id"].(string))
			}
			if obj(m)["role"] == "tool" {
				results = append(results, obj(m)["tool_call_id"].(string))
			}
		}
		return calls, results
	}
	msgs := list(body(t, reqs[1])["messages"])
	var roles []string
	for _, m := range msgs {
		roles = append(roles, obj(m)["role"].(string))
	}
	if diff := cmp.Diff([]string{"system", "user", "assistant", "tool"}, roles); diff != "" {
		t.Errorf("turn 2 roles (-want +got):\n%s", diff)
	}
	c, r := pairs(msgs)
	wantPairs(t, "turn 2", c, r, []string{"call_r"})
	c, r = pairs(list(body(t, reqs[2])["messages"])[4:])
	wantPairs(t, "turn 3", c, r, []string{"call_b", "call_g"})
}

// Faults at the binary level, for every protocol: each ends in a retry that
// succeeds or in a clear error, never a hang or a panic.
func TestFaultsEveryProtocol(t *testing.T) {
	ok := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Recovered.")}, Usage: llm.Usage{InputTokens: 10, OutputTokens: 2}}
	tests := []struct {
		name      string
		turns     []llmtest.Turn
		settings  string
		wantCode  int
		wantCalls int
		wantErr   string // in the result's error; "" = success
		// retry is the retry event's kind, wait its wait_ms (-1: any).
		retry string
		wait  float64
	}{
		{name: "429 with Retry-After is retried", turns: []llmtest.Turn{{Status: 429, RetryAfter: "1"}, ok},
			wantCalls: 2, retry: "rate_limit", wait: 1000},
		{name: "overloaded is retried", turns: []llmtest.Turn{{Status: 529}, ok},
			settings: `{"maxRetries": 2}`, wantCalls: 2, retry: "overloaded", wait: -1},
		{name: "auth error is not retried", turns: []llmtest.Turn{{Status: 401}, ok},
			wantCode: 1, wantCalls: 1, wantErr: "authentication"},
		{name: "stream cut mid tool call", turns: []llmtest.Turn{{Blocks: []llmtest.Block{
			llmtest.Text("Let me run it."), llmtest.ToolUse("c1", "Bash", `{"command":"echo hi"}`)}, CutAfter: 6}, ok},
			wantCode: 1, wantCalls: 1, wantErr: "broken_stream"},
		{name: "error event mid stream", turns: []llmtest.Turn{{Blocks: []llmtest.Block{llmtest.Text("Partial answer")},
			StreamError: &llmtest.StreamError{Type: "api_error", Message: "internal failure"}}, ok},
			wantCode: 1, wantCalls: 1, wantErr: "internal failure"},
		{name: "endpoint never answers", turns: []llmtest.Turn{{Hang: true}},
			settings: `{"maxRetries": 0, "timeouts": {"firstEvent": "1s"}}`, wantCode: 1, wantCalls: 1, wantErr: "no answer from the model endpoint for 1s"},
	}
	for _, p := range protocols {
		for _, tc := range tests {
			t.Run(p.provider+"/"+tc.name, func(t *testing.T) {
				ws := t.TempDir()
				if tc.settings != "" {
					if err := os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.json"), []byte(tc.settings), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				srv := llmtest.NewServer(tc.turns...)
				defer srv.Close()
				start := time.Now()
				r := runNovaFor(t, srv, p.provider, ws, "--model", p.model, "--allowedTools", "Bash", "go")
				if time.Since(start) > 30*time.Second {
					t.Errorf("took %v", time.Since(start))
				}
				if r.Code != tc.wantCode {
					t.Fatalf("exit %d, want %d; result %+v\nstderr: %s", r.Code, tc.wantCode, r.Result, r.Stderr)
				}
				if n := len(modelCalls(srv)); n != tc.wantCalls {
					t.Errorf("%d model calls, want %d", n, tc.wantCalls)
				}
				if tc.wantErr == "" {
					if r.Result.Subtype != "success" || r.Result.Result != "Recovered." {
						t.Errorf("result %+v", r.Result)
					}
				} else if r.Result.Subtype != "error_during_execution" || !strings.Contains(r.Result.Error, tc.wantErr) {
					t.Errorf("result %+v, want error containing %q", r.Result, tc.wantErr)
				}
				// A retry is a stream-json event before anything of the
				// answer, and no stderr line.
				retries := r.byType("retry")
				switch {
				case tc.retry == "" && len(retries) != 0:
					t.Errorf("retry events %v, want none", retries)
				case tc.retry != "" && (len(retries) != 1 || retries[0]["kind"] != tc.retry || r.Events[0] != "retry" ||
					(tc.wait >= 0 && retries[0]["wait_ms"] != tc.wait)):
					t.Errorf("retry events %v (events %v), want one of kind %s first", retries, r.Events, tc.retry)
				}
				if strings.Contains(r.Stderr, "retrying") {
					t.Errorf("stderr %q: stream-json carries retries as events", r.Stderr)
				}
				if strings.Contains(r.Stderr, "goroutine ") || strings.Contains(r.Stderr, "panic") {
					t.Errorf("stderr shows a crash:\n%s", r.Stderr)
				}
			})
		}
	}
}

// In text mode a retry is a line on standard error (where it harms nothing
// and says why the answer is late); standard output is the answer alone.
func TestRetryInTextMode(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Status: 529}, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Recovered.")}})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := novaCmd(t, ctx, srv, "", "--output-format", "text", "go")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	if got := stdout.String(); got != "Recovered.\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "nova: overloaded (HTTP 529) — retrying in ") || !strings.Contains(got, "(1/4): model call failed (overloaded, HTTP 529)") || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr = %q, want one retry line", got)
	}
}

// The context window comes from settings, else the endpoint's models API,
// else the built-in table; usage events report it.
func TestContextWindowResolution(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		model    string
		models   []llmtest.Model
		settings string
		want     float64
	}{
		{"anthropic endpoint", "anthropic", "claude-sonnet-4-5", []llmtest.Model{{ID: "claude-sonnet-4-5", ContextWindow: 150_000, MaxOutput: 64_000}}, "", 150_000},
		{"compatible endpoint", "openai-chat", "qwen3-coder", []llmtest.Model{{ID: "qwen3-coder", ContextWindow: 32_768, MaxOutput: 8_192}}, "", 32_768},
		{"settings win", "openai-chat", "qwen3-coder", []llmtest.Model{{ID: "qwen3-coder", ContextWindow: 32_768}}, `{"contextWindow": 100000}`, 100_000},
		{"catalog when the endpoint does not know", "anthropic", "claude-haiku-4-5", []llmtest.Model{{ID: "other", ContextWindow: 1000}}, "", 200_000},
		{"default for an unknown model", "openai-chat", "mystery-model", nil, "", float64(llm.DefaultModelInfo.ContextWindow)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if tc.settings != "" {
				_ = os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755)
				if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.local.json"), []byte(tc.settings), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}})
			defer srv.Close()
			srv.SetModels(tc.models)
			r := runNovaFor(t, srv, tc.provider, ws, "--model", tc.model, "hi")
			u := r.byType("usage")
			if r.Code != 0 || len(u) != 1 {
				t.Fatalf("exit %d, %d usage events\n%s", r.Code, len(u), r.Stderr)
			}
			if got := u[0]["context_window"].(float64); got != tc.want {
				t.Fatalf("context_window = %v, want %v", got, tc.want)
			}
		})
	}
}

// Usage the endpoint does not report is estimated and says so; prices come
// from settings when given.
func TestMissingUsageEstimatedAndPricesFromSettings(t *testing.T) {
	ws := t.TempDir()
	_ = os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755)
	settings := `{"prices": {"local-model": {"input": 1000000, "output": 0}}}`
	if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("An answer of some length.")}, OmitUsage: true})
	defer srv.Close()
	r := runNovaFor(t, srv, "openai-chat", ws, "--model", "local-model", "hi")
	u := r.byType("usage")
	if r.Code != 0 || len(u) != 1 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	call := obj(u[0]["call"])
	in := call["input_tokens"].(float64)
	if call["estimated"] != true || in < 100 || call["output_tokens"].(float64) < 1 {
		t.Fatalf("usage = %v, want an estimate marked estimated", call)
	}
	// 1,000,000 USD per million input tokens: the cost is the token count.
	if r.Result.TotalCostUSD != in {
		t.Fatalf("cost %v for %v input tokens at the configured price", r.Result.TotalCostUSD, in)
	}
}
