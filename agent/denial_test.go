package agent

import "testing"

func TestEndSentence(t *testing.T) {
	tests := []struct{ in, want string }{
		{"go run instead", "go run instead."},
		{"go run instead.", "go run instead."},
		{"really?", "really?"},
		{"stop!  \n", "stop!"},
		{"wait…", "wait…"},
		{"use make,", "use make."},
		{"try this:", "try this."},
		{`he said "stop."`, `he said "stop."`},
		{"(see the README.)", "(see the README.)"},
		{`run "make"`, `run "make".`},
		{"(see the README)", "(see the README)."},
		{"", ""},
	}
	for _, tc := range tests {
		if got := endSentence(tc.in); got != tc.want {
			t.Errorf("endSentence(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAllowFlags(t *testing.T) {
	tests := []struct {
		rules []string
		mode  string
		want  string
	}{
		{nil, "acceptEdits", "--permission-mode acceptEdits"},
		{[]string{"Bash(go test:*)"}, "", "--allowedTools 'Bash(go test:*)'"},
		{[]string{"Bash(touch x)", "Bash(ls)"}, "acceptEdits", "--permission-mode acceptEdits --allowedTools 'Bash(touch x)' --allowedTools 'Bash(ls)'"},
		{[]string{"Bash(echo it's)"}, "", `--allowedTools 'Bash(echo it'\''s)'`},
	}
	for _, tc := range tests {
		if got := allowFlags(tc.rules, tc.mode); got != tc.want {
			t.Errorf("allowFlags(%q, %q) = %q, want %q", tc.rules, tc.mode, got, tc.want)
		}
	}
}
