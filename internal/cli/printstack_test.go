package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/third_party/chroma/lexers"
	chromastyles "github.com/novacode/nova/third_party/chroma/styles"

	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/tui/render"
	"github.com/novacode/nova/llm/llmtest"
)

// Print mode never sets up the terminal UI's rendering: no Markdown renderer,
// no Chroma style or lexer parsed. One binary links all of it, and each of
// these is deferred to first use (third_party/chroma, render.NewMarkdown) so
// that a one-shot run does not pay milliseconds and megabytes for it at
// start (BENCHMARKS.md, Process size). A run of every protocol and output
// format, with a tool call, must leave all three untouched.
func TestPrintModeSetsUpNoRendering(t *testing.T) {
	if render.Initialised() || len(lexers.GlobalLexerRegistry.Lexers) != 0 || len(chromastyles.Registry) != 0 {
		t.Fatalf("rendering was set up before any print-mode run (at init, or by another test of this package): Markdown %v, %d lexers, %d styles",
			render.Initialised(), len(lexers.GlobalLexerRegistry.Lexers), len(chromastyles.Registry))
	}
	echo, _ := json.Marshal(map[string]string{"command": "echo hi"})
	for _, provider := range []string{"anthropic", "openai", "openai-chat"} {
		for _, format := range []string{"text", "json", "stream-json"} {
			t.Run(provider+"/"+format, func(t *testing.T) {
				srv := llmtest.NewServer(
					llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Running `echo`:\n\n```sh\necho hi\n```"), llmtest.ToolUse("t1", "Bash", string(echo))}},
					llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("# Done\n\n```go\nfunc main() {}\n```")}},
				)
				defer srv.Close()
				home := t.TempDir()
				if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"sandbox":"off"}`), 0o644); err != nil {
					t.Fatal(err)
				}
				t.Setenv("NOVA_HOME", home)
				for k, v := range map[string]string{
					"ANTHROPIC_API_KEY": "", "ANTHROPIC_BASE_URL": "", "ANTHROPIC_MODEL": "",
					"OPENAI_API_KEY": "", "OPENAI_BASE_URL": "", "OPENAI_MODEL": "",
				} {
					t.Setenv(k, v)
				}
				if provider == "anthropic" {
					t.Setenv("ANTHROPIC_API_KEY", "test-key")
					t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
				} else {
					t.Setenv("OPENAI_API_KEY", "test-key")
					t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
				}
				ios, _, out, errOut := iostreams.Test()
				args := []string{"-p", "--provider", provider, "--model", "test-model", "--output-format", format,
					"--cwd", t.TempDir(), "--allowedTools", "Bash", "run echo"}
				if code := Run(context.Background(), ios, args); code != 0 {
					t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
				}
				if !strings.Contains(out.String(), "Done") {
					t.Fatalf("stdout %q has no answer", out)
				}
				if render.Initialised() {
					t.Error("print mode made a Markdown renderer")
				}
				if n := len(lexers.GlobalLexerRegistry.Lexers); n != 0 {
					t.Errorf("print mode loaded %d Chroma lexers", n)
				}
				if n := len(chromastyles.Registry); n != 0 {
					t.Errorf("print mode loaded %d Chroma styles", n)
				}
			})
		}
	}
}
