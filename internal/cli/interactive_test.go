package cli

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/tui"
)

// /bashes shows the session's background commands as nova.Session.Shells
// reports them, field for field (the start time aside: the TUI shows how
// long each has run).
func TestTUIBashes(t *testing.T) {
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		shells []nova.Shell
		want   []tui.BashInfo
	}{
		{"none", nil, []tui.BashInfo{}},
		{"running and ended", []nova.Shell{
			{ID: "bash_1", Command: "npm run dev", Description: "Dev server", Started: started, Duration: time.Minute, Running: true, Output: "/tmp/s/bash_1.out"},
			{ID: "bash_2", Command: "make", Agent: "agent-7", Started: started, Duration: 2 * time.Second, Killed: true, ExitCode: -1, Output: "/tmp/s/bash_2.out"},
		}, []tui.BashInfo{
			{ID: "bash_1", Command: "npm run dev", Description: "Dev server", Duration: time.Minute, Running: true, Output: "/tmp/s/bash_1.out"},
			{ID: "bash_2", Command: "make", Agent: "agent-7", Duration: 2 * time.Second, Killed: true, ExitCode: -1, Output: "/tmp/s/bash_2.out"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tuiBashes(tc.shells)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
