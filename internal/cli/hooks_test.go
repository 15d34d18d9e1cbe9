package cli

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
)

func TestHooksText(t *testing.T) {
	got := hooksText([]nova.HookInfo{
		{Event: "PreToolUse", Matcher: "Bash|Edit", Command: "$NOVA_PROJECT_DIR/.novacode/hooks/check.sh", Timeout: time.Minute, Source: "/ws/.novacode/settings.json"},
		{Event: "Stop", Source: "Options.Hooks"},
		{Event: "SessionStart", Command: "cat notes", Source: "/ws/.novacode/settings.local.json", Withheld: true},
	}, "/ws")
	want := `Hooks of this session (read when it started: a change to the settings files takes effect in a new session):
  PreToolUse [Bash|Edit]  $NOVA_PROJECT_DIR/.novacode/hooks/check.sh · 1m0s · .novacode/settings.json
  Stop  (a Go function) · Options.Hooks
This workspace's own hooks, left out until you trust it (nova trust):
  SessionStart  cat notes · .novacode/settings.local.json`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := hooksText(nil, "/ws"); got[:8] != "No hooks" {
		t.Errorf("no hooks: %q", got)
	}
}
