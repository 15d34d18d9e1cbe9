package cli

import (
	"testing"
)

// What print mode writes to standard error before a run becomes the TUI's
// first notice, one line each, without the "nova: " prefix.
func TestStartNotice(t *testing.T) {
	tests := []struct{ trust, notes, want string }{
		{"", "", ""},
		{"", "nova: commands run unsandboxed\n", "commands run unsandboxed"},
		{"the workspace's settings were left out:\n  provider\n", "nova: warning: x.json: unknown settings y (ignored)\n",
			"the workspace's settings were left out:\n  provider\nwarning: x.json: unknown settings y (ignored)"},
	}
	for _, tc := range tests {
		if got := startNotice(tc.trust, tc.notes); got != tc.want {
			t.Errorf("startNotice(%q, %q) = %q, want %q", tc.trust, tc.notes, got, tc.want)
		}
	}
}

// --debug permissions: standard error in print mode; in the TUI, whose
// screen a line there would tear, a file named in the first notice.
