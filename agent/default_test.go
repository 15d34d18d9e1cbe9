package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// TestNilPermissionsIsSafe checks the loop's default without a checker: a
// read-only tool runs, Bash is asked (a permission_request, or a denial at
// once when nobody can answer), and only AllowAll lets it run unasked.
func TestNilPermissionsIsSafe(t *testing.T) {
	type outcome struct {
		Asked      []string // names in permission requests
		LSRan      bool
		BashRan    bool
		BashDenial event.ToolResult // its Denied, Reason, NeedsApproval
	}
	denied := event.ToolResult{Denied: true, NeedsApproval: true,
		Reason: "no permission checker is set, so every call that may change something needs a person's approval"}
	tests := []struct {
		name           string
		permissions    agent.PermissionChecker
		nonInteractive bool
		answer         string
		want           outcome
		wantContent    string // in Bash's result
	}{
		{name: "nil, non-interactive: denied", nonInteractive: true,
			want:        outcome{LSRan: true, BashDenial: denied},
			wantContent: "nobody can approve it in this non-interactive run. Only a person can approve it"},
		{name: "nil, a person denies", answer: event.Deny,
			want:        outcome{Asked: []string{"Bash"}, LSRan: true, BashDenial: event.ToolResult{Denied: true, Reason: "the user denied it"}},
			wantContent: "The user denied this call."},
		{name: "nil, a person allows", answer: event.Allow,
			want:        outcome{Asked: []string{"Bash"}, LSRan: true, BashRan: true},
			wantContent: "made"},
		{name: "AllowAll, non-interactive: runs", permissions: agent.AllowAll, nonInteractive: true,
			want:        outcome{LSRan: true, BashRan: true},
			wantContent: "made"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			fc := &fakeClient{scripts: [][]step{
				{call(0, "ls", "LS", jsonObject(t, "path", dir)), call(1, "sh", "Bash", `{"command":"echo made > made.txt && cat made.txt"}`), end(llm.StopToolUse, 1, 1)},
				answer("ok"),
			}}
			a := &agent.Agent{Client: fc, Model: "claude-sonnet-4-5",
				Tools:       tool.NewRegistry(builtin.NewLS(), builtin.NewBash()),
				Env:         &tool.Env{Dir: dir, Files: tool.NewFileState()},
				Permissions: tt.permissions, NonInteractive: tt.nonInteractive,
			}
			conv := agent.NewConversation("s", "", "go")
			var got outcome
			var bash event.ToolResult
			for e := range a.Run(context.Background(), conv) {
				validateEvent(t, e)
				switch e := e.(type) {
				case *event.PermissionRequest:
					got.Asked = append(got.Asked, e.Name)
					e.Respond(event.Decision{Behavior: tt.answer})
				case event.ToolResult:
					switch e.ID {
					case "ls":
						got.LSRan = !e.IsError && !e.Denied
					case "sh":
						bash = e
					}
				case event.LoopComplete:
					if e.Reason != event.ReasonDone {
						t.Errorf("loop ended with %+v", e)
					}
				}
			}
			checkHistory(t, conv)
			_, err := os.Stat(filepath.Join(dir, "made.txt"))
			got.BashRan = err == nil
			got.BashDenial = event.ToolResult{Denied: bash.Denied, Reason: bash.Reason, NeedsApproval: bash.NeedsApproval}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("outcome mismatch (-want +got):\n%s", d)
			}
			if !strings.Contains(bash.Content, tt.wantContent) {
				t.Errorf("Bash result %q does not contain %q", bash.Content, tt.wantContent)
			}
		})
	}
}

// TestNilPermissionsAsksForWebSearch: without a checker the provider's web
// search (billed, and it sends the conversation's words to a search) is
// asked too: offered only when a person allows it, never in print mode.
func TestNilPermissionsAsksForWebSearch(t *testing.T) {
	tests := []struct {
		name           string
		permissions    agent.PermissionChecker
		nonInteractive bool
		answer         string
		wantAsked      int
		wantOffered    bool
	}{
		{name: "nil, allowed", answer: event.Allow, wantAsked: 1, wantOffered: true},
		{name: "nil, denied", answer: event.Deny, wantAsked: 1},
		{name: "nil, non-interactive", nonInteractive: true},
		{name: "AllowAll", permissions: agent.AllowAll, nonInteractive: true, wantOffered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := &fakeClient{scripts: [][]step{answer("one")}}
			a := &agent.Agent{Client: fc, Model: "claude-sonnet-4-5", Tools: tool.NewRegistry(), Env: &tool.Env{},
				WebSearch: &llm.WebSearch{}, AskWebSearch: true,
				Permissions: tt.permissions, NonInteractive: tt.nonInteractive}
			evs := runAnswering(t, a, agent.NewConversation("s", "", "hi"), event.Decision{Behavior: tt.answer})
			asked := 0
			for _, e := range evs {
				if _, ok := e.(*event.PermissionRequest); ok {
					asked++
				}
			}
			offered := fc.reqs()[0].WebSearch != nil
			if asked != tt.wantAsked || offered != tt.wantOffered {
				t.Errorf("asked %d times, offered %v; want %d, %v", asked, offered, tt.wantAsked, tt.wantOffered)
			}
		})
	}
}

// jsonObject is the JSON object {key: value}.
func jsonObject(t *testing.T, key, value string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{key: value})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
