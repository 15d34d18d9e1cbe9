package contextinfo

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSystemPrompt(t *testing.T) {
	tests := []struct {
		name, dir, model string
		now              time.Time
		wantEnv          string
	}{
		{"a day", "/work/proj", "claude-sonnet-4-5", time.Date(2025, 6, 1, 23, 59, 0, 0, time.UTC),
			"<env>\nWorking directory: /work/proj\nPlatform: " + runtime.GOOS + "/" + runtime.GOARCH + "\nDate: 2025-06-01\nModel: claude-sonnet-4-5\n</env>"},
		{"the date in now's location", "/tmp/x y", "gpt-5", time.Date(2026, 1, 2, 0, 30, 0, 0, time.FixedZone("UTC+1", 3600)),
			"<env>\nWorking directory: /tmp/x y\nPlatform: " + runtime.GOOS + "/" + runtime.GOARCH + "\nDate: 2026-01-02\nModel: gpt-5\n</env>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := SystemPrompt(tt.dir, tt.model, tt.now)
			if !strings.HasPrefix(got, "You are NovaCode, a coding agent") {
				t.Errorf("SystemPrompt does not start with the role:\n%s", got)
			}
			_, env, ok := strings.Cut(got, "\n\n")
			if !ok {
				t.Fatalf("no blank line between the instructions and the <env> block:\n%s", got)
			}
			if d := cmp.Diff(tt.wantEnv, env); d != "" {
				t.Errorf("<env> block (-want +got):\n%s", d)
			}
			// The same inputs later the same day: the same bytes (the
			// provider's prompt cache starts with the system prompt).
			if again := SystemPrompt(tt.dir, tt.model, tt.now.Add(-time.Minute)); again != got {
				t.Errorf("SystemPrompt changed within the day:\n%s\n---\n%s", got, again)
			}
		})
	}
}
