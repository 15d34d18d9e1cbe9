package printmode

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/event/eventtest"
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
		Usage:             Usage{InputTokens: 10, OutputTokens: 5, CacheReadInputTokens: 3, CacheCreationInputTokens: 2},
		TotalCostUSD:      0.5,
		ToolCalls:         []ToolCall{{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"ls"}`), DurationMS: 7}},
		PermissionDenials: []PermissionDenial{},
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

// searchRun searches twice (once in vain) and cites what it found, twice.
var searchRun = []event.Event{
	event.WebSearch{Turn: 1, ID: "s1", Query: "go 1.26", Status: event.SearchSearching},
	event.WebSearch{Turn: 1, ID: "s1", Query: "go 1.26", Status: event.SearchDone, Results: []event.SearchResult{{Title: "Go 1.26", URL: "https://go.dev/doc/go1.26"}, {URL: "https://go.dev/blog/"}}},
	event.StreamText{Turn: 1, Text: "Go 1.26 is out."},
	event.Citation{Turn: 1, URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"},
	event.StreamText{Turn: 1, Text: " It was released in February."},
	event.Citation{Turn: 1, URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"},
	event.Citation{Turn: 1, URL: "https://go.dev/blog/"},
	event.WebSearch{Turn: 1, ID: "s2", Query: "go 1.27", Status: event.SearchSearching},
	event.WebSearch{Turn: 1, ID: "s2", Query: "go 1.27", Status: event.SearchFailed, Error: "max_uses_exceeded"},
	event.LoopComplete{Reason: event.ReasonDone, Turns: 1, FinalText: "Go 1.26 is out. It was released in February.",
		Usage: event.TokenCounts{InputTokens: 10, OutputTokens: 5, WebSearchRequests: 1}, CostUSD: 0.02},
}

func TestWebSearch(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		out, errOut, code := run(t, FormatText, searchRun...)
		const wantOut = "Go 1.26 is out. It was released in February.\n\nSources:\n" +
			"[1] Go 1.26 Release Notes — https://go.dev/doc/go1.26\n[2] https://go.dev/blog/\n"
		const wantErr = "nova: searched the web for \"go 1.26\": 2 results\nnova: web search for \"go 1.27\" failed: max_uses_exceeded\n"
		if diff := cmp.Diff(wantOut+wantErr, out+errOut); diff != "" || code != ExitOK {
			t.Errorf("exit %d; standard output and error (-want +got):\n%s", code, diff)
		}
		_, errOut, _ = run(t, FormatText, event.WebSearch{Turn: 1, Status: event.SearchUnavailable, Error: "the endpoint does not take web search"}, event.LoopComplete{Reason: event.ReasonDone})
		if errOut != "nova: the endpoint does not take web search\n" {
			t.Errorf("unavailable: %q", errOut)
		}
	})
	for _, format := range []Format{FormatJSON, FormatStreamJSON} {
		t.Run(string(format), func(t *testing.T) {
			out, errOut, _ := run(t, format, searchRun...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if format == FormatStreamJSON && len(lines) != len(searchRun)+1 {
				t.Fatalf("%d lines, want one per event and the result:\n%s", len(lines), out)
			}
			var r Result
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
				t.Fatal(err)
			}
			want := Result{Type: "result", Subtype: SubtypeSuccess, Result: "Go 1.26 is out. It was released in February.", NumTurns: 1, SessionID: "sess-1",
				Usage: Usage{InputTokens: 10, OutputTokens: 5, ServerToolUse: ServerToolUse{WebSearchRequests: 1}}, TotalCostUSD: 0.02,
				ToolCalls: []ToolCall{}, PermissionDenials: []PermissionDenial{},
				Sources: []Source{{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"}, {URL: "https://go.dev/blog/"}}}
			if diff := cmp.Diff(want, r); diff != "" || errOut != "" {
				t.Errorf("stderr %q; result (-want +got):\n%s", errOut, diff)
			}
		})
	}
	// Without searches the result says nothing of them.
	out, _, _ := run(t, FormatJSON, toolRun...)
	if strings.Contains(out, "server_tool_use") || strings.Contains(out, "sources") {
		t.Errorf("result of a run without searches: %s", out)
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

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it):\n%s", name, diff)
	}
}

// A print-mode run in default mode: one read ran; an edit and a command
// needed approval nobody could give (a flag would allow them), a dangerous
// command needed a person, and a deny rule stopped another.
func deniedRun() []event.Event {
	use := func(id, name, in string) event.Event {
		return event.ToolUse{Turn: 1, ID: id, Name: name, Input: json.RawMessage(in)}
	}
	return []event.Event{
		use("r", "Read", `{"file_path":"main.go"}`),
		use("w", "Write", `{"file_path":"hello.txt","content":"hi"}`),
		use("b", "Bash", `{"command":"go test ./..."}`),
		use("t", "Bash", `{"command":"touch created"}`),
		use("d", "Bash", `{"command":"rm -rf ~"}`),
		use("x", "Bash", `{"command":"rm old.txt"}`),
		event.ToolResult{Turn: 1, ID: "r", Name: "Read", Content: "package main", DurationMS: 1},
		event.ToolResult{Turn: 1, ID: "w", Name: "Write", Content: "not granted", IsError: true, Denied: true,
			Reason: "Write changes files", NeedsApproval: true, SuggestMode: "acceptEdits"},
		event.ToolResult{Turn: 1, ID: "b", Name: "Bash", Content: "not granted", IsError: true, Denied: true,
			Reason: "running a command needs approval", NeedsApproval: true, Suggest: []string{"Bash(go test:*)"}},
		event.ToolResult{Turn: 1, ID: "t", Name: "Bash", Content: "not granted", IsError: true, Denied: true,
			Reason: "running a command needs approval", NeedsApproval: true, Suggest: []string{"Bash(touch created)"}, SuggestMode: "acceptEdits"},
		event.ToolResult{Turn: 1, ID: "d", Name: "Bash", Content: "not granted", IsError: true, Denied: true,
			Reason: "dangerous command: destroys: removes the home directory", NeedsApproval: true},
		event.ToolResult{Turn: 1, ID: "x", Name: "Bash", Content: "denied", IsError: true, Denied: true,
			Reason: "denied by rule Bash(rm:*)"},
		event.TurnComplete{Turn: 1, StopReason: "tool_use"},
		event.StreamText{Turn: 2, Text: "Done."},
		event.LoopComplete{Reason: event.ReasonDone, Turns: 2, FinalText: "Done.", DurationMS: 42},
	}
}

// Denied calls are summarised on standard error in every format, with the
// flags that would allow them; the model's answer stays on standard output
// and the exit code stays 0, as Claude Code's does: the run did finish.
func TestDeniedCallsSummary(t *testing.T) {
	for _, format := range []Format{FormatText, FormatJSON, FormatStreamJSON} {
		t.Run(string(format), func(t *testing.T) {
			out, errOut, code := run(t, format, deniedRun()...)
			if code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			golden(t, "denied.stderr.golden", errOut)
			if format == FormatText && out != "Done.\n" {
				t.Fatalf("stdout = %q", out)
			}
		})
	}
	tests := []struct {
		name string
		evs  []event.Event
		want string
	}{
		{"one call a flag allows", []event.Event{
			event.ToolUse{Turn: 1, ID: "w", Name: "Edit", Input: json.RawMessage(`{"file_path":"a.go"}`)},
			event.ToolResult{Turn: 1, ID: "w", Name: "Edit", IsError: true, Denied: true, Reason: "Edit changes files", NeedsApproval: true, SuggestMode: "acceptEdits"},
			event.LoopComplete{Reason: event.ReasonDone},
		}, "nova: 1 tool call was denied (print mode cannot ask for approval):\n  Edit a.go: Edit changes files\nTo allow it, run again with: --permission-mode acceptEdits\n"},
		{"a deny rule only", []event.Event{
			event.ToolUse{Turn: 1, ID: "x", Name: "Bash", Input: json.RawMessage(`{"command":"rm x"}`)},
			event.ToolResult{Turn: 1, ID: "x", Name: "Bash", IsError: true, Denied: true, Reason: "denied by rule Bash(rm:*)"},
			event.LoopComplete{Reason: event.ReasonDone},
		}, "nova: 1 tool call was denied:\n  Bash rm x: denied by rule Bash(rm:*)\n"},
		{"nothing denied", toolRun, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, _ := run(t, FormatText, tc.evs...)
			if diff := cmp.Diff(tc.want, errOut); diff != "" {
				t.Fatalf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

// The JSON result marks denied calls in tool_calls and lists them in
// permission_denials, in json and stream-json alike.
func TestDeniedCallsInResult(t *testing.T) {
	for _, format := range []Format{FormatJSON, FormatStreamJSON} {
		t.Run(string(format), func(t *testing.T) {
			out, _, _ := run(t, format, deniedRun()...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var r Result
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
				t.Fatal(err)
			}
			b, err := json.MarshalIndent(struct {
				ToolCalls         []ToolCall         `json:"tool_calls"`
				PermissionDenials []PermissionDenial `json:"permission_denials"`
			}{r.ToolCalls, r.PermissionDenials}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "denied.result.golden", string(b)+"\n")
		})
	}
	// Without denials the list is there, and empty.
	out, _, _ := run(t, FormatJSON, toolRun...)
	if !strings.Contains(out, `"permission_denials":[]`) {
		t.Fatalf("result = %s", out)
	}
}

// A run whose Task calls ran subagents: one in the foreground, which
// retried, warned, had a call denied and ran a subagent of its own, and
// one in the background, whose end the mailbox delivers.
func subagentRun() []event.Event {
	child := func(e event.Event) event.Event {
		return event.Child{ParentToolUseID: "task_1", AgentID: "agent_1", Event: e}
	}
	nested := func(e event.Event) event.Event {
		return child(event.Child{ParentToolUseID: "task_9", AgentID: "agent_2", Event: e})
	}
	return []event.Event{
		event.StreamText{Turn: 1, Text: "Let me look."},
		event.ToolUse{Turn: 1, ID: "task_1", Name: "Task", Input: json.RawMessage(`{"description":"find the tests","prompt":"Find the tests of package a.","subagent_type":"Explore"}`)},
		event.ToolUse{Turn: 1, ID: "task_2", Name: "Task", Input: json.RawMessage(`{"description":"run the linter","prompt":"Run the linter.","run_in_background":true}`)},
		event.ToolDone{Turn: 1, ID: "task_2", Name: "Task", DurationMS: 1},
		child(event.Retry{Turn: 1, Kind: "overloaded", StatusCode: 529, Error: "model call failed (overloaded, HTTP 529)", Retry: 1, MaxRetries: 4, WaitMS: 1100}),
		child(event.StreamText{Turn: 1, Text: "Searching."}),
		child(event.ToolUse{Turn: 1, ID: "c1", Name: "Grep", Input: json.RawMessage(`{"pattern":"func Test"}`)}),
		child(event.ToolUse{Turn: 1, ID: "c2", Name: "Bash", Input: json.RawMessage(`{"command":"rm -rf build"}`)}),
		child(event.ToolDone{Turn: 1, ID: "c1", Name: "Grep", DurationMS: 3}),
		child(event.ToolResult{Turn: 1, ID: "c1", Name: "Grep", Content: "a_test.go", DurationMS: 3}),
		child(event.ToolResult{Turn: 1, ID: "c2", Name: "Bash", Content: "not granted", IsError: true, Denied: true,
			Reason: "running a command needs approval", NeedsApproval: true, Suggest: []string{"Bash(rm -rf build)"}}),
		child(event.Warning{Turn: 1, Message: "could not keep a.go for rewinding"}),
		nested(event.StreamText{Turn: 1, Text: "deeper"}),
		nested(event.LoopComplete{Reason: event.ReasonDone, Turns: 1, FinalText: "deeper", CostUSD: 0.001}),
		child(event.ToolResult{Turn: 2, ID: "task_9", Name: "Task", Content: "deeper",
			Subagent: &event.SubagentRun{AgentID: "agent_2", AgentType: "Explore", Turns: 1, CostUSD: 0.001}}),
		child(event.StreamText{Turn: 2, Text: "The tests are in a_test.go."}),
		child(event.LoopComplete{Reason: event.ReasonDone, Turns: 2, FinalText: "The tests are in a_test.go.", CostUSD: 0.011}),
		event.ToolDone{Turn: 1, ID: "task_1", Name: "Task", DurationMS: 900},
		event.ToolResult{Turn: 1, ID: "task_1", Name: "Task", Content: "The tests are in a_test.go.", DurationMS: 900,
			Subagent: &event.SubagentRun{AgentID: "agent_1", AgentType: "Explore", Turns: 2,
				Usage: event.TokenCounts{InputTokens: 1200, OutputTokens: 80}, CostUSD: 0.011, Transcript: "/data/projects/-w/sess-1.agent_1.jsonl"}},
		event.ToolResult{Turn: 1, ID: "task_2", Name: "Task", Content: "Started agent_3 in the background.", DurationMS: 1,
			Subagent: &event.SubagentRun{AgentID: "agent_3", AgentType: "general-purpose", Background: true, Transcript: "/data/projects/-w/sess-1.agent_3.jsonl"}},
		event.TurnComplete{Turn: 1, StopReason: "tool_use"},
		event.Mailbox{Turn: 2, Items: []event.MailItem{{Kind: "agent", From: "agent_3", Text: "The linter found nothing."}}},
		event.StreamText{Turn: 2, Text: "Tests in a_test.go; the linter is happy."},
		event.LoopComplete{Reason: event.ReasonDone, Turns: 2, FinalText: "Tests in a_test.go; the linter is happy.", DurationMS: 2000,
			Usage: event.TokenCounts{InputTokens: 3000, OutputTokens: 200}, CostUSD: 0.05},
	}
}

// stream-json writes a subagent's events as its own, each with the Task
// call that started it; the result lists the run's own calls, every
// denial (a subagent's with its Task call), and the subagents the run's
// Task calls ran, its totals the run's end's alone. Text output is the
// run's answer; a subagent's retries, warnings and denials go to standard
// error under its id.
func TestSubagents(t *testing.T) {
	out, errOut, code := run(t, FormatStreamJSON, subagentRun()...)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	golden(t, "subagents.stream.golden", out)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(subagentRun())+1 {
		t.Fatalf("%d lines, want one per event and the result", len(lines))
	}
	for _, l := range lines[:len(lines)-1] {
		if err := eventtest.ValidateJSON([]byte(l)); err != nil {
			t.Errorf("a line does not match the events' schema: %v\n%s", err, l)
		}
	}
	golden(t, "subagents.stream-stderr.golden", errOut)

	out, errOut, code = run(t, FormatText, subagentRun()...)
	if code != ExitOK || out != "Tests in a_test.go; the linter is happy.\n" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	golden(t, "subagents.stderr.golden", errOut)

	out, _, _ = run(t, FormatJSON, subagentRun()...)
	if last := lines[len(lines)-1] + "\n"; out != last {
		t.Errorf("json result differs from stream-json's result line:\n%s\n%s", out, last)
	}
}
