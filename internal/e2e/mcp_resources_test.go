//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// npmServer finds an MCP server installed from npm (.ci/run installs
// them globally): a test skips without it, but fails under CI=true, where
// a skip would hide that the real servers were never tried.
func npmServer(t *testing.T, name string) string {
	t.Helper()
	return needTool(t, name, ".ci/run installs it: npm install -g @modelcontextprotocol/"+strings.TrimPrefix(name, "mcp-")+"@2026.8.31")
}

// everythingConfig writes an --mcp-config file that runs the real
// server-everything over stdio as "everything".
func everythingConfig(t *testing.T) string {
	t.Helper()
	bin := npmServer(t, "mcp-server-everything")
	cfg := filepath.Join(t.TempDir(), "servers.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin}}})
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// userBlocks are the text blocks of the last message of an Anthropic
// request.
func userBlocks(t *testing.T, req llmtest.Request) []string {
	t.Helper()
	var body struct {
		Messages []struct {
			Content []struct {
				Type, Text string
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, c := range body.Messages[len(body.Messages)-1].Content {
		if c.Type == "text" {
			out = append(out, c.Text)
		}
	}
	return out
}

// @everything:uri in a print-mode prompt attaches the resource the real
// server-everything serves: a text document of its listing, and a binary
// one of its templates, saved beside the session; an unknown URI is a
// warning on standard error and the prompt goes without it.
func TestMCPResourceMentionThroughTheBinary(t *testing.T) {
	cfg := everythingConfig(t)
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("read it")}})
	defer srv.Close()
	prompt := "summarise @everything:demo://resource/static/document/architecture.md and @everything:demo://resource/dynamic/blob/1, and @everything:demo://nothing/here"
	r := runNova(t, srv, "", "--mcp-config", cfg, prompt)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	ws := r.byType("warning")
	if len(ws) != 1 {
		t.Fatalf("warnings: %v", ws)
	}
	if w := ws[0]["message"].(string); !strings.HasPrefix(w, "could not attach @everything:demo://nothing/here: MCP server everything could not read demo://nothing/here: ") ||
		!strings.HasSuffix(w, "; the prompt was sent without it") {
		t.Errorf("warning: %s", w)
	}
	calls := modelCalls(srv)
	if len(calls) != 1 {
		t.Fatalf("%d model calls", len(calls))
	}
	blocks := userBlocks(t, calls[0])
	if len(blocks) != 4 || blocks[1] != prompt {
		t.Fatalf("blocks of the prompt's message (the preamble, the prompt, two attachments):\n%q", blocks)
	}
	doc := "<system-reminder>\nThe user attached @everything:demo://resource/static/document/architecture.md.\n" +
		"--- demo://resource/static/document/architecture.md (text/markdown, MCP resource of everything) ---\n# Everything Server – Architecture\n"
	if !strings.HasPrefix(blocks[2], doc) || !strings.HasSuffix(blocks[2], "\n</system-reminder>") {
		t.Errorf("the document:\n%s", blocks[2])
	}
	head := "<system-reminder>\nThe user attached @everything:demo://resource/dynamic/blob/1.\n" +
		"--- demo://resource/dynamic/blob/1 (text/plain, MCP resource of everything) ---\n[binary contents, "
	rest, ok := strings.CutPrefix(blocks[3], head)
	_, path, _ := strings.Cut(rest, "saved to ")
	path, ok2 := strings.CutSuffix(path, "]\n</system-reminder>")
	if !ok || !ok2 {
		t.Fatalf("the blob:\n%s", blocks[3])
	}
	if b, err := os.ReadFile(path); err != nil || !strings.HasPrefix(string(b), "Resource 1: This is a base64 blob") {
		t.Errorf("saved blob %s: %q, %v", path, b, err)
	}
}

// /mcp__everything__<prompt> in print mode is the real server's prompt,
// filled in with the arguments; a missing required one is an error and
// nothing reaches the model.
func TestMCPPromptCommandThroughTheBinary(t *testing.T) {
	cfg := everythingConfig(t)
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("sunny")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}})
	defer srv.Close()

	r := runNova(t, srv, "", "--mcp-config", cfg, "/mcp__everything__args-prompt")
	want := "/mcp__everything__args-prompt needs the argument city (Name of the city); nothing was sent. Usage: /mcp__everything__args-prompt CITY [STATE]"
	if lc := r.byType("loop_complete"); r.Code != 1 || len(lc) != 1 || lc[0]["error"] != want {
		t.Errorf("exit %d, loop_complete %v, stderr:\n%s", r.Code, lc, r.Stderr)
	}
	if n := len(modelCalls(srv)); n != 0 {
		t.Fatalf("%d model calls for a command that failed", n)
	}

	r = runNova(t, srv, "", "--mcp-config", cfg, `/mcp__everything__args-prompt "San Francisco" CA`)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	r = runNova(t, srv, "", "--mcp-config", cfg, "/mcp__everything__simple-prompt")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	calls := modelCalls(srv)
	if len(calls) != 2 {
		t.Fatalf("%d model calls", len(calls))
	}
	for i, want := range []string{"What's weather in San Francisco, CA?", "This is a simple prompt without arguments."} {
		blocks := userBlocks(t, calls[i])
		if got := blocks[len(blocks)-1]; got != want {
			t.Errorf("prompt %d = %q, want %q", i+1, got, want)
		}
	}
}
