package rules

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var fuzzSeeds = []string{
	"Bash", "Bash(git status)", "Bash(npm run test:*)", "Bash(npm run *)", `Bash(grep "a b":*)`,
	`Bash(echo 'it'\''s')`, `Bash(echo "a\"b")`, "Bash(echo '':*)", "Bash(python -c 'print(1)')",
	"Read(./src/**)", "Edit(docs/**)", "Read(~/.ssh/**)", "Edit(//etc/hosts)", "Read(/secrets/**)",
	"Edit(*.go)", "Read(src/)", "Read(../x/**)", "Glob(/a/[ ]b)", "Edit({a,b}/**)", `Edit(/a\[1\])`,
	"WebFetch(domain:example.org)", "WebFetch(domain:[::1])", "WebSearch", "Task(Explore)",
	"mcp__srv", "mcp__srv__*", "mcp__srv__tool(x)", "Bash(git status", "bash", "Read(domain:x)",
	"Read(~)", "Read(//)", "Read(..)", "Bash(ls; rm)", "Bash(a\\\nb)",
	"Bash(echo 'é\u00a0x')", "Edit(/a b/\u0085c)", "WebFetch(domain:Bücher.example)", "Task(\xff)",
}

// checkRoundTrip fails unless a parsed rule survives String and Parse.
func checkRoundTrip(t *testing.T, in string, r Rule) {
	t.Helper()
	s := r.String()
	again, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q) = %#v, but Parse of its String %q: %v", in, r, s, err)
	}
	r.Source = Source{}
	if diff := cmp.Diff(r, again); diff != "" {
		t.Fatalf("Parse(%q).String() = %q does not round-trip (-first +second):\n%s", in, s, diff)
	}
	if again.String() != s {
		t.Fatalf("String not stable: %q then %q", s, again.String())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	b := Base{ProjectRoot: "/root/proj", Home: "/home/u"}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			var pe ParseError
			if !errors.As(err, &pe) || pe.Err == nil || pe.Err.Error() == "" {
				t.Fatalf("Parse(%q) error %v is not a ParseError with a message", s, err)
			}
			return
		}
		checkRoundTrip(t, s, r)
		// The matchers must not panic on any rule.
		r.MatchCommand([]string{"git", "status"})
		r.MatchCommandBroad([]string{"/bin/git", "status"})
		r.MatchPath("/root/proj/src/a.go", b)
		r.MatchPath("/root/proj/src/a.go", Base{ProjectRoot: "/", Home: "/", FoldCase: true})
		r.MatchDomain("api.example.org")
		r.MatchTool("Bash")
		r.MatchString(s)
		if r.Kind == KindCommand {
			if !r.MatchCommand(r.Words) {
				t.Fatalf("%s does not match its own words %q", r, r.Words)
			}
			if sug := SuggestCommand(r.Words); sug.String() != "" {
				checkRoundTrip(t, "suggestion", sug)
			}
		}
		if r.Kind == KindDomain && !r.MatchDomain(r.Pattern) {
			t.Fatalf("%s does not match its own host %q", r, r.Pattern)
		}
		// A path made from the rule's text must give a suggestion that
		// round-trips and matches it.
		p := "/root/proj/" + s
		sug := SuggestPath("Edit", p, b)
		checkRoundTrip(t, "path suggestion "+p, sug)
	})
}

func FuzzParseJSONLists(f *testing.F) {
	f.Add([]byte(`{"permissions":{"allow":["Bash(git status)","Read(./src/**)"],"deny":["Bash(git diff",3],"ask":null,"additionalDirectories":["x"],"defaultMode":"plan"}}`))
	f.Add([]byte("{\n  \"permissions\": {\n    \"deny\": [\n      \"WebFetch(domain:example.org)\"\n    ]\n  }\n}"))
	f.Add([]byte(`{"x":[{"permissions":1}],"permissions":{"allow":[[],{}],"deny":"Bash"}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"permissions":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lists, errs, err := ParseJSONLists("f", data)
		if err != nil {
			if len(errs) != 0 || lists.Allow != nil || lists.Ask != nil || lists.Deny != nil {
				t.Fatalf("file error %v, yet rules or rule errors came back", err)
			}
			return
		}
		lines := newLineIndex(data)
		last := lines[len(lines)-1]
		inFile := func(s Source) bool {
			return s.File == "f" && s.Line >= 1 && s.Line <= len(lines) && s.Col >= 1 &&
				(s.Line < len(lines) && lines[s.Line-1]+s.Col-1 < lines[s.Line] || s.Line == len(lines) && last+s.Col-1 < len(data))
		}
		for _, list := range [][]Rule{lists.Allow, lists.Ask, lists.Deny} {
			for _, r := range list {
				if !inFile(r.Source) {
					t.Fatalf("rule %s has a position outside the file: %+v", r, r.Source)
				}
				if off := lines[r.Source.Line-1] + r.Source.Col - 1; data[off] != '"' {
					t.Fatalf("rule %s: position %+v is %q, not the opening quote", r, r.Source, data[off])
				}
				checkRoundTrip(t, "json", r)
			}
		}
		for _, e := range errs {
			if !inFile(e.Source) || e.Err == nil {
				t.Fatalf("bad ParseError %+v", e)
			}
		}
	})
}
