//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// Memory at the end of a run, in a real terminal: when a run ends, the
// small model's proposal appears as a suggestion; accepting it writes the
// project's NOVA.md; declining the next one writes nothing.
func TestTUIMemorySuggestion(t *testing.T) {
	needTmux(t)
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer()
	defer srv.Close()
	var mu sync.Mutex
	extractions := 0
	srv.SetFallback(func(r llmtest.Request) llmtest.Turn {
		mu.Lock()
		defer mu.Unlock()
		// The extraction: the small model, asked for durable facts.
		if r.JSON()["model"] == "claude-haiku-4-5" && strings.Contains(string(r.Body), "durable facts") {
			extractions++
			facts := []string{"- Run the tests with go test ./...", "- Lint with staticcheck ./..."}
			return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(facts[min(extractions, 2)-1])}}
		}
		return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Answered.")}}
	})
	// The default, said: startTUI turns suggestions off for other tests.
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"autoMemory":"suggest"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startTUI(t, "memory", srv, ws, home, "'how do I run the tests?'")
	scr := s.waitFor("Remember for next time?")
	for _, want := range []string{"• Run the tests with go test ./...", "❯ 1. Yes, in the project's memory (NOVA.md)", "4. No (esc)"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the suggestion lacks %q:\n%s", want, scr)
		}
	}
	project := filepath.Join(ws, "NOVA.md")
	if _, err := os.Stat(project); err == nil {
		t.Fatal("NOVA.md written before the suggestion was accepted")
	}
	s.run("send-keys", "-t", s.name, "Enter")
	s.waitFor("Saved to NOVA.md")
	if b, err := os.ReadFile(project); err != nil || string(b) != "## Learned by NovaCode\n\n- Run the tests with go test ./...\n" {
		t.Fatalf("NOVA.md: %q, %v", b, err)
	}

	// The next run's suggestion, declined: nothing is written.
	s.run("send-keys", "-t", s.name, "-l", "and the linter?")
	s.run("send-keys", "-t", s.name, "Enter")
	s.waitFor("• Lint with staticcheck ./...")
	s.run("send-keys", "-t", s.name, "Escape")
	s.waitUntil("the suggestion gone", func(scr string) bool { return !strings.Contains(scr, "Remember for next time?") })
	if b, _ := os.ReadFile(project); string(b) != "## Learned by NovaCode\n\n- Run the tests with go test ./...\n" {
		t.Fatalf("NOVA.md after declining: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, "NOVA.md")); err == nil {
		t.Fatal("the user's NOVA.md was written")
	}
	mu.Lock()
	defer mu.Unlock()
	if extractions != 2 {
		t.Errorf("%d extraction calls, want 2", extractions)
	}
}
