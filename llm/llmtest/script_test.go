package llmtest_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

func TestParseScript(t *testing.T) {
	cases := []struct {
		name    string
		json    string
		want    []llmtest.Turn
		wantErr string
	}{
		{
			name: "full turn",
			json: `[{
				"model": "claude-opus-4-5",
				"blocks": [
					{"kind": "thinking", "text": "hmm", "signature": "sig"},
					{"kind": "text", "text": "hi", "delay": "1.5s"},
					{"kind": "tool_use", "id": "toolu_a", "name": "edit", "input": {"path": "a.go",  "n": [1, 2]}, "fragments": 4, "delay": 2000000}
				],
				"stop_reason": "tool_use",
				"usage": {"input_tokens": 1, "output_tokens": 2, "cache_read_input_tokens": 3, "cache_creation_input_tokens": 4},
				"chunk_delay": "25ms",
				"cut_after": 7
			}]`,
			want: []llmtest.Turn{{
				Model: "claude-opus-4-5",
				Blocks: []llmtest.Block{
					{Kind: "thinking", Text: "hmm", Signature: "sig"},
					{Kind: "text", Text: "hi", Delay: 1500 * time.Millisecond},
					{Kind: "tool_use", ID: "toolu_a", Name: "edit", Input: `{"path":"a.go","n":[1,2]}`, Fragments: 4, Delay: 2 * time.Millisecond},
				},
				StopReason: "tool_use",
				Usage:      llm.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4},
				ChunkDelay: 25 * time.Millisecond,
				CutAfter:   7,
			}},
		},
		{
			name: "malformed input as a string",
			json: `[{"blocks": [{"kind": "tool_use", "name": "bash", "input": "{\"command\": \"ls"}]}]`,
			want: []llmtest.Turn{{Blocks: []llmtest.Block{{Kind: "tool_use", Name: "bash", Input: `{"command": "ls`}}}},
		},
		{
			name: "errors and faults",
			json: `[{"status": 429, "retry_after": "3", "error_type": "rate_limit_error", "error_message": "slow down"},
			        {"stream_error": {"type": "api_error"}}, {"hang": true}, {"stall_after": 2},
			        {"status": 400, "error_code": "context_length_exceeded"}, {"omit_usage": true}]`,
			want: []llmtest.Turn{
				{Status: 429, RetryAfter: "3", ErrorType: "rate_limit_error", ErrorMessage: "slow down"},
				{StreamError: &llmtest.StreamError{Type: "api_error"}},
				{Hang: true},
				{StallAfter: 2},
				{Status: 400, ErrorCode: "context_length_exceeded"},
				{OmitUsage: true},
			},
		},
		{name: "empty", json: `[]`, want: []llmtest.Turn{}},
		{name: "not an array", json: `{"blocks": []}`, wantErr: "cannot unmarshal"},
		{name: "unknown key", json: `[{"cut_afer": 3}]`, wantErr: `unknown field "cut_afer"`},
		{name: "unknown block key", json: `[{"blocks": [{"kind": "text", "txt": "a"}]}]`, wantErr: `unknown field "txt"`},
		{name: "bad duration", json: `[{"chunk_delay": "fast"}]`, wantErr: "invalid duration"},
		{name: "fractional nanoseconds", json: `[{"chunk_delay": 1.5}]`, wantErr: "integer nanoseconds"},
		{name: "unknown kind", json: `[{}, {"blocks": [{"kind": "image"}]}]`, wantErr: `turn 1: block 0: unknown kind "image"`},
		{name: "redirect status", json: `[{"status": 302}]`, wantErr: "status 302"},
		{name: "trailing data", json: `[] []`, wantErr: "trailing data"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := llmtest.ParseScript([]byte(tc.json))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestTurnJSONRoundTrip checks scripts written by code (json.Marshal) read
// back unchanged, with durations as strings.
func TestTurnJSONRoundTrip(t *testing.T) {
	turns := []llmtest.Turn{
		{},
		{
			Blocks: []llmtest.Block{
				llmtest.Text("a <b> & c"),
				llmtest.Thinking("t", "s"),
				llmtest.RedactedThinking("d"),
				{Kind: "tool_use", Name: "x", Input: `{"broken`, Fragments: 2, Delay: 3 * time.Second},
			},
			Usage:       llm.Usage{InputTokens: 9},
			ChunkDelay:  time.Millisecond,
			StreamError: &llmtest.StreamError{Message: "m"},
		},
	}
	data, err := json.Marshal(turns)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"chunk_delay":"1ms"`, `"delay":"3s"`, `"input":"{\"broken"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("encoding %s lacks %s", data, want)
		}
	}
	if strings.Contains(string(data), `"usage":{"input_tokens":0`) || strings.Contains(string(data), `"chunk_delay":"0s"`) {
		t.Errorf("zero values not omitted: %s", data)
	}
	got, err := llmtest.ParseScript(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, turns) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, turns)
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		turn llmtest.Turn
		ok   bool
	}{
		{llmtest.Turn{}, true},
		{llmtest.Turn{Status: 200}, true},
		{llmtest.Turn{Status: 529}, true},
		{llmtest.Turn{Status: 99}, false},
		{llmtest.Turn{Status: 302}, false},
		{llmtest.Turn{CutAfter: -1}, false},
		{llmtest.Turn{ChunkDelay: -time.Second}, false},
		{llmtest.Turn{Blocks: []llmtest.Block{{Kind: "text", Fragments: -1}}}, false},
		{llmtest.Turn{Blocks: []llmtest.Block{{Kind: ""}}}, false},
		{llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("", "", "not json")}}, true},
	}
	for i, tc := range cases {
		if err := tc.turn.Validate(); (err == nil) != tc.ok {
			t.Errorf("case %d: Validate() = %v, want ok=%v", i, err, tc.ok)
		}
	}
}
