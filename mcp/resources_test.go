package mcp

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/novacode/nova/mcp/mcptest"
)

// Resources and prompts of a server: listed, read and filled in through
// the same session as its tools, waiting for a server still starting.
func TestResourcesAndPrompts(t *testing.T) {
	m := newManager(t, Options{})
	// No wait for the start: the first request waits for it.
	if err := m.Start(stdio(t, "test", mcptest.ModeTools, nil)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	rs, err := m.Resources(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	want := []Resource{
		{Server: "test", URI: mcptest.GreetingURI, Name: "greeting", Description: "A friendly text.", MIMEType: "text/plain"},
		{Server: "test", URI: mcptest.PixelURI, Name: "pixel", Description: "A tiny image.", MIMEType: "image/png"},
	}
	if d := cmp.Diff(want, rs); d != "" {
		t.Errorf("resources (-want +got):\n%s", d)
	}

	cs, err := m.ReadResource(ctx, "test", mcptest.GreetingURI)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Contents{{URI: mcptest.GreetingURI, MIMEType: "text/plain", Text: mcptest.Greeting}}, cs); d != "" {
		t.Errorf("text contents (-want +got):\n%s", d)
	}
	cs, err = m.ReadResource(ctx, "test", mcptest.PixelURI)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].MIMEType != "image/png" || string(cs[0].Blob) != string(mcptest.PNG) || cs[0].Text != "" {
		t.Errorf("binary contents = %+v", cs)
	}
	if _, err := m.ReadResource(ctx, "test", "test://nothing"); err == nil || !strings.Contains(err.Error(), "MCP server test could not read test://nothing") {
		t.Errorf("unknown resource: %v", err)
	}
	if _, err := m.ReadResource(ctx, "other", mcptest.GreetingURI); !errors.Is(err, ErrNoServer) {
		t.Errorf("unknown server: %v", err)
	}

	ps, err := m.Prompts(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	wantPrompts := []Prompt{
		{Server: "test", Name: "greet", Command: "mcp__test__greet", Description: "Greets the user."},
		{Server: "test", Name: "review", Command: "mcp__test__review", Description: "Reviews a file.", Arguments: []PromptArgument{
			{Name: "file", Description: "the file to review", Required: true}, {Name: "focus", Description: "what to look at"}}},
	}
	if d := cmp.Diff(wantPrompts, ps); d != "" {
		t.Errorf("prompts (-want +got):\n%s", d)
	}
	msgs, err := m.GetPrompt(ctx, "test", "review", map[string]string{"file": "main.go", "focus": "errors"})
	if err != nil {
		t.Fatal(err)
	}
	wantMsgs := []PromptMessage{
		{Role: "user", Text: "Review main.go, focusing on errors."},
		{Role: "user", Text: "[resource " + mcptest.GreetingURI + ", text/plain]\n" + mcptest.Greeting},
	}
	if d := cmp.Diff(wantMsgs, msgs); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
	if _, err := m.GetPrompt(ctx, "test", "review", nil); err == nil || !strings.Contains(err.Error(), "could not fill in its prompt review") {
		t.Errorf("a prompt the server refuses: %v", err)
	}
}

// A server of tools only has no resources and no prompts, and says so
// when asked to read one; a disabled server is not started by a request.
func TestNoResourcesOrPrompts(t *testing.T) {
	m := newManager(t, Options{})
	if err := m.Start(stdio(t, "many", mcptest.ModeMany, map[string]string{mcptest.EnvTools: "2"})); err != nil {
		t.Fatal(err)
	}
	if err := m.AddDisabled(stdio(t, "off", mcptest.ModeTools, nil), "you declined it"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if rs, err := m.Resources(ctx, "many"); err != nil || rs != nil {
		t.Errorf("resources = %v, %v", rs, err)
	}
	if ps, err := m.Prompts(ctx, "many"); err != nil || ps != nil {
		t.Errorf("prompts = %v, %v", ps, err)
	}
	if _, err := m.ReadResource(ctx, "many", "x://y"); err == nil || err.Error() != "MCP server many offers no resources" {
		t.Errorf("read: %v", err)
	}
	if _, err := m.Resources(ctx, "off"); err == nil || !strings.Contains(err.Error(), "was not started: you declined it") {
		t.Errorf("disabled: %v", err)
	}
}

// Binary content of a prompt message is saved and named, as in tool
// results.
func TestPromptImageSaved(t *testing.T) {
	dir := t.TempDir()
	m := newManager(t, Options{SpillDir: dir})
	text := m.contentText("mcp__s__p", imageContent())
	_, path, ok := strings.Cut(text, "saved to ")
	if !ok || !strings.HasPrefix(text, "[image: image/png, 67 bytes") {
		t.Fatalf("text = %q", text)
	}
	if b, err := os.ReadFile(strings.TrimSuffix(path, "]")); err != nil || string(b) != string(mcptest.PNG) {
		t.Errorf("saved: %v", err)
	}
}

func imageContent() *sdk.ImageContent {
	return &sdk.ImageContent{Data: mcptest.PNG, MIMEType: "image/png"}
}
