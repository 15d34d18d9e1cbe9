package printmode

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
)

func run(t *testing.T, format Format, evs ...event.Event) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	p := New(&out, &errOut, format, "sess-1")
	for _, e := range evs {
		if err := p.Handle(e); err != nil {
			t.Fatal(err)
		}
	}
	code := p.Finish()
	return out.String(), errOut.String(), code
}

var toolRun = []event.Event{
	event.StreamText{Turn: 1, Text: "checking"},
	event.ToolUse{Turn: 1, ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`)},
	event.ToolResult{Turn: 1, ID: "t1", Name: "Bash", Content: "a\nb", DurationMS: 7},
	event.TurnComplete{Turn: 1, StopReason: "tool_use"},
	event.StreamText{Turn: 2, Text: "done"},
	event.LoopComplete{Reason: event.ReasonDone, Turns: 2, FinalText: "done", DurationMS: 42,
		Usage: event.TokenCounts{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 3, CacheWriteTokens: 2}, CostUSD: 0.5},
}

func TestStreamJSON(t *testing.T) {
	out, _, code := run(t, FormatStreamJSON, toolRun...)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(toolRun)+1 {
		t.Fatalf("got %d lines, want one per event plus the result:\n%s", len(lines), out)
	}
	for i, e := range toolRun {
		var head struct{ Type string }
		if err := json.Unmarshal([]byte(lines[i]), &head); err != nil || head.Type != e.Type() {
			t.Fatalf("line %d = %s", i, lines[i])
		}
	}
	var r Result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		t.Fatal(err)
	}
	want := Result{
		Type: "result", Subtype: SubtypeSuccess, Result: "done", NumTurns: 2, DurationMS: 42, SessionID: "sess-1",
		Usage:        Usage{InputTokens: 10, OutputTokens: 5, CacheReadInputTokens: 3, CacheCreationInputTokens: 2},
		TotalCostUSD: 0.5,
		ToolCalls:    []ToolCall{{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`), DurationMS: 7}},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Fatalf("result (-want +got):\n%s", diff)
	}
}

func TestSubtypesAndExitCodes(t *testing.T) {
	tests := []struct {
		reason, subtype string
		code            int
	}{
		{event.ReasonDone, SubtypeSuccess, ExitOK},
		{event.ReasonMaxTurns, SubtypeMaxTurns, ExitError},
		{event.ReasonError, SubtypeError, ExitError},
		{event.ReasonCancelled, SubtypeCancelled, ExitCancelled},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			out, _, code := run(t, FormatJSON, event.LoopComplete{Reason: tc.reason, Error: "why"})
			var r Result
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if r.Subtype != tc.subtype || code != tc.code || r.IsError != (tc.code != 0) {
				t.Fatalf("subtype %s exit %d is_error %v", r.Subtype, code, r.IsError)
			}
		})
	}
}

func TestTextFormat(t *testing.T) {
	out, errOut, code := run(t, FormatText, toolRun...)
	if out != "done\n" || errOut != "" || code != 0 {
		t.Fatalf("out %q err %q code %d", out, errOut, code)
	}
	out, errOut, code = run(t, FormatText, event.LoopComplete{Reason: event.ReasonError, Error: "model call failed (overloaded)"})
	if out != "" || errOut != "nova: model call failed (overloaded)\n" || code != 1 {
		t.Fatalf("out %q err %q code %d", out, errOut, code)
	}
}

func TestInvalidToolInputStaysValidJSON(t *testing.T) {
	out, _, _ := run(t, FormatJSON,
		event.ToolUse{Turn: 1, ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":`)},
		event.LoopComplete{Reason: event.ReasonDone})
	var r Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, out)
	}
	if string(r.ToolCalls[0].Input) != `"{\"file_path\":"` {
		t.Fatalf("input = %s", r.ToolCalls[0].Input)
	}
}

// Retries and warnings: an event line in stream-json, a line on standard
// error otherwise; standard output keeps only the answer (or the result).
func TestNoticesGoToStderrOutsideStreamJSON(t *testing.T) {
	notices := []event.Event{
		event.Retry{Turn: 1, Kind: "overloaded", StatusCode: 529, Error: "model call failed (overloaded, HTTP 529)", Retry: 1, MaxRetries: 4, WaitMS: 1100},
		event.Warning{Turn: 1, Message: "could not save Bash(ls) for next time"},
		event.StreamText{Turn: 1, Text: "done"},
		event.LoopComplete{Reason: event.ReasonDone, Turns: 1, FinalText: "done"},
	}
	const lines = "nova: overloaded (HTTP 529) — retrying in 1.1 s (1/4): model call failed (overloaded, HTTP 529)\n" +
		"nova: warning: could not save Bash(ls) for next time\n"
	tests := []struct {
		format     Format
		wantStderr string
		wantTypes  []string // of the stdout lines, stream-json only
	}{
		{FormatText, lines, nil},
		{FormatJSON, lines, nil},
		{FormatStreamJSON, "", []string{"retry", "warning", "stream_text", "loop_complete", "result"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.format), func(t *testing.T) {
			out, errOut, code := run(t, tc.format, notices...)
			if code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			if diff := cmp.Diff(tc.wantStderr, errOut); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
			if tc.format == FormatText && out != "done\n" {
				t.Errorf("stdout = %q", out)
			}
			if tc.wantTypes != nil {
				var types []string
				for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
					var head struct{ Type string }
					if err := json.Unmarshal([]byte(l), &head); err != nil {
						t.Fatalf("%v: %s", err, l)
					}
					types = append(types, head.Type)
				}
				if diff := cmp.Diff(tc.wantTypes, types); diff != "" {
					t.Errorf("stdout lines (-want +got):\n%s", diff)
				}
			}
		})
	}
}
