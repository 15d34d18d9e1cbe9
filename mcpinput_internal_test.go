package nova

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"  a  b\tc\n d ", []string{"a", "b", "c", "d"}, ""},
		{`'a b' "c d" e\ f`, []string{"a b", "c d", "e f"}, ""},
		{`"say \"hi\" \n" '\'`, []string{`say "hi" \n`, `\`}, ""},
		{`x"y z"w ''`, []string{"xy zw", ""}, ""},
		{`"open`, nil, `a " quote is not closed`},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestPromptCommand(t *testing.T) {
	for in, want := range map[string][3]string{
		"/mcp__a__b":            {"mcp__a__b", "", "true"},
		"  /mcp__a__b x 'y z'":  {"mcp__a__b", "x 'y z'", "true"},
		"/mcp__a__b\nmore text": {"mcp__a__b", "more text", "true"},
		"/help":                 {"", "", "false"},
		"see /mcp__a__b":        {"", "", "false"},
	} {
		cmd, args, ok := promptCommand(in)
		if got := [3]string{cmd, args, map[bool]string{true: "true", false: "false"}[ok]}; got != want {
			t.Errorf("%q = %q, want %q", in, got, want)
		}
	}
}
