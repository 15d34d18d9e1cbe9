package acp

import (
	"errors"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/mcp"
)

// TestStopReason: how a run's end answers the prompt.
func TestStopReason(t *testing.T) {
	tests := []struct {
		name      string
		done      *event.LoopComplete
		runErr    error
		cancelled bool
		want      acpsdk.StopReason
		wantErr   string
	}{
		{"done", &event.LoopComplete{Reason: event.ReasonDone}, nil, false, acpsdk.StopReasonEndTurn, ""},
		{"refused", &event.LoopComplete{Reason: event.ReasonDone, StopReason: "refusal"}, nil, false, acpsdk.StopReasonRefusal, ""},
		{"max turns", &event.LoopComplete{Reason: event.ReasonMaxTurns}, nil, false, acpsdk.StopReasonMaxTurnRequests, ""},
		{"cancelled", &event.LoopComplete{Reason: event.ReasonCancelled}, nil, true, acpsdk.StopReasonCancelled, ""},
		{"the output limit", &event.LoopComplete{Reason: event.ReasonError, StopReason: "max_tokens", Error: "the model hit its output token limit 5 times in a row"}, errors.New("x"), false, acpsdk.StopReasonMaxTokens, ""},
		{"an error while cancelling", &event.LoopComplete{Reason: event.ReasonError, Error: "context canceled"}, errors.New("context canceled"), true, acpsdk.StopReasonCancelled, ""},
		{"an error", &event.LoopComplete{Reason: event.ReasonError, Error: "model call failed (auth): invalid key"}, errors.New("model call failed"), false, "", "model call failed (auth): invalid key"},
		{"cancelled before the end", nil, nil, true, acpsdk.StopReasonCancelled, ""},
		{"no end", nil, errors.New("nova: the session is closed"), false, "", "nova: the session is closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := stopReason(tc.done, tc.runErr, tc.cancelled)
			if got != tc.want {
				t.Errorf("stop reason = %q, want %q", got, tc.want)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr):
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestPromptOf: an ACP prompt as nova's text and images.
func TestPromptOf(t *testing.T) {
	png := "image/png"
	text := func(s string) acpsdk.ContentBlock { return acpsdk.TextBlock(s) }
	tests := []struct {
		name       string
		blocks     []acpsdk.ContentBlock
		wantText   string
		wantImages []nova.Image
		wantErr    string
	}{
		{"text", []acpsdk.ContentBlock{text("fix "), text("the build")}, "fix the build", nil, ""},
		{"a file in the workspace", []acpsdk.ContentBlock{text("look at "), acpsdk.ResourceLinkBlock("main.go", "file:///ws/cmd/main.go"), text(" please")}, "look at @cmd/main.go please", nil, ""},
		{"a file outside", []acpsdk.ContentBlock{acpsdk.ResourceLinkBlock("hosts", "file:///etc/hosts")}, "@/etc/hosts", nil, ""},
		{"a name with a space", []acpsdk.ContentBlock{acpsdk.ResourceLinkBlock("a b", "file:///ws/a%20b.txt")}, `@"a b.txt"`, nil, ""},
		{"another link", []acpsdk.ContentBlock{acpsdk.ResourceLinkBlock("docs", "https://go.dev/doc")}, "https://go.dev/doc", nil, ""},
		{"an embedded file", []acpsdk.ContentBlock{text("explain"), acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{Uri: "file:///ws/a.go", Text: "package a\n"}})},
			"explain\n\n<context ref=\"file:///ws/a.go\">\npackage a\n</context>", nil, ""},
		{"an image", []acpsdk.ContentBlock{text("what is this?"), acpsdk.ImageBlock("iVBORw==", png)}, "what is this?", []nova.Image{{MediaType: png, Data: []byte("\x89PNG")}}, ""},
		{"an embedded image", []acpsdk.ContentBlock{acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{BlobResourceContents: &acpsdk.BlobResourceContents{Uri: "file:///ws/a.png", Blob: "iVBORw==", MimeType: &png}})}, "", []nova.Image{{MediaType: png, Data: []byte("\x89PNG")}}, ""},
		{"a binary resource", []acpsdk.ContentBlock{acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{BlobResourceContents: &acpsdk.BlobResourceContents{Uri: "file:///ws/a.zip", Blob: "UEsD"}})}, "", nil, "the resource file:///ws/a.zip is binary (no type given); nova takes text and images"},
		{"an image not in base64", []acpsdk.ContentBlock{acpsdk.ImageBlock("%%%", png)}, "", nil, "an image of the prompt is not base64: illegal base64 data at input byte 0"},
		{"audio", []acpsdk.ContentBlock{acpsdk.AudioBlock("AAAA", "audio/wav")}, "", nil, "nova takes no audio"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gotText, gotImages, err := promptOf(tc.blocks, "/ws")
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantText, gotText); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantImages, gotImages); diff != "" {
				t.Errorf("images (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpandCommand: a user's slash command filled in as the TUI fills
// it; anything else goes as it is.
func TestExpandCommand(t *testing.T) {
	cmds := map[string]string{
		"fix":    "Fix the issue: $ARGUMENTS\nThen run the tests.",
		"review": "Review the diff.\n",
	}
	tests := []struct{ in, want string }{
		{"/fix the login bug", "Fix the issue: the login bug\nThen run the tests."},
		{"/fix", "Fix the issue: \nThen run the tests."},
		{"/review", "Review the diff.\n"},
		{"/review focus on errors", "Review the diff.\n\nfocus on errors"},
		{"/review\nthe second line", "Review the diff.\n\nthe second line"},
		{"/mcp__github__pr 12", "/mcp__github__pr 12"},
		{"/unknown x", "/unknown x"},
		{"fix the build", "fix the build"},
	}
	for _, tc := range tests {
		if got := expandCommand(cmds, tc.in); got != tc.want {
			t.Errorf("expandCommand(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestUserCommands: the commands the editor is offered, by name, each
// described by its template's first line.
func TestUserCommands(t *testing.T) {
	got := userCommands(map[string]string{
		"review": "# Review the diff\n\nLook at …",
		"fix":    "\n\nFix $ARGUMENTS",
		"empty":  "",
	})
	want := []acpsdk.AvailableCommand{
		{Name: "empty", Description: "user command"},
		{Name: "fix", Description: "Fix $ARGUMENTS", Input: &acpsdk.AvailableCommandInput{Unstructured: &acpsdk.UnstructuredCommandInput{Hint: "arguments"}}},
		{Name: "review", Description: "Review the diff"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestMCPServers: the editor's MCP servers in nova's configuration; one
// reached over ACP itself is left out, with why.
func TestMCPServers(t *testing.T) {
	got, skipped := mcpServers([]acpsdk.McpServer{
		{Stdio: &acpsdk.McpServerStdio{Name: "fs", Command: "mcp-server-filesystem", Args: []string{"/ws"}, Env: []acpsdk.EnvVariable{{Name: "DEBUG", Value: "1"}}}},
		{Http: &acpsdk.McpServerHttpInline{Name: "api", Type: "http", Url: "https://mcp.example/mcp", Headers: []acpsdk.HttpHeader{{Name: "Authorization", Value: "Bearer t"}}}},
		{Sse: &acpsdk.McpServerSseInline{Name: "old", Type: "sse", Url: "https://mcp.example/sse"}},
		{Acp: &acpsdk.McpServerAcpInline{Name: "inproc", Type: "acp", Id: "x"}},
	})
	want := map[string]mcp.ServerConfig{
		"fs":  {Type: "stdio", Command: "mcp-server-filesystem", Args: []string{"/ws"}, Env: map[string]string{"DEBUG": "1"}},
		"api": {Type: "http", URL: "https://mcp.example/mcp", Headers: map[string]string{"Authorization": "Bearer t"}},
		"old": {Type: "sse", URL: "https://mcp.example/sse"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"the editor's MCP server inproc is reached over ACP, which nova does not offer; it was left out"}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
