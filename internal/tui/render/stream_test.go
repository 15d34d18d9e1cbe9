package render

import "testing"

func TestStableCut(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the stable prefix
	}{
		{"empty", "", ""},
		{"one open paragraph", "Hello wor", ""},
		{"paragraph then another", "One.\n\nTwo is still", "One.\n\n"},
		{"next block not started", "One.\n\n", ""},
		{"last of several", "One.\n\nTwo.\n\n## Three\n\nFour", "One.\n\nTwo.\n\n## Three\n\n"},
		{"inside an open fence", "Intro.\n\n```go\nfunc a() {}\n\nfunc b() {}\n", "Intro.\n\n"},
		{"after a closed fence", "```go\nx\n\ny\n```\n\nAfter", "```go\nx\n\ny\n```\n\n"},
		{"tilde fence needs tildes to close", "~~~\na\n```\n\nb\n", ""},
		{"longer closing run closes", "````\na\n\n`````\n\nb", "````\na\n\n`````\n\n"},
		{"shorter run does not close", "````\na\n```\n\nb", ""},
		{"list continuation stays", "- item\n\n  more of the item", ""},
		{"indented code stays", "Para.\n\n    code", ""},
		{"next item of a loose list stays", "- one\n\n- two\n\nAfter", "- one\n\n- two\n\n"},
		{"numbered loose list stays", "1. one\n\n2) two", ""},
		{"a list after a paragraph is a block", "Steps:\n\n- one", "Steps:\n\n"},
		{"partial line after a list waits", "- one\n\n12", ""},
		{"partial line after a list that cannot be an item", "- one\n\nA", "- one\n\n"},
		{"a rule is not a list item", "- one\n\n---\n\nx", "- one\n\n---\n\n"},
		{"blank line of spaces counts", "One.\n   \nTwo", "One.\n   \n"},
		{"inline backticks are not a fence", "Use ```x``` here.\n\nNext", "Use ```x``` here.\n\n"},
		{"unfinished last line may be a fence", "One.\n\n``", "One.\n\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.src[:StableCut(tc.src)]; got != tc.want {
				t.Errorf("StableCut(%q) keeps %q, want %q", tc.src, got, tc.want)
			}
		})
	}
}

// FuzzStableCut: the cut is a line start inside the source, and it never
// moves backwards as the source grows (the live renderer keeps what it
// rendered before the old cut).
func FuzzStableCut(f *testing.F) {
	f.Add("One.\n\n```\nx\n\n```\n\nTwo")
	f.Add("- a\n\n  b\n\nc")
	f.Fuzz(func(t *testing.T, src string) {
		c := StableCut(src)
		if c < 0 || c > len(src) {
			t.Fatalf("cut %d outside [0,%d]", c, len(src))
		}
		if c > 0 && src[c-1] != '\n' {
			t.Fatalf("cut %d is not at a line start", c)
		}
		for k := range len(src) {
			if p := StableCut(src[:k]); p > c {
				t.Fatalf("prefix of %d bytes cuts at %d, the whole source at %d", k, p, c)
			}
		}
	})
}
