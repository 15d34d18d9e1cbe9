package rules

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ruleAt is a rule's text and position, the part of a loaded rule that
// these tests check (the parse itself is TestParseValid's business).
type ruleAt struct {
	Rule      string
	Line, Col int
}

func positions(rs []Rule) []ruleAt {
	var out []ruleAt
	for _, r := range rs {
		out = append(out, ruleAt{r.String(), r.Source.Line, r.Source.Col})
	}
	return out
}

func errorStrings(errs []ParseError) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func TestParseJSONLists(t *testing.T) {
	// Columns count bytes; tabs and the multi-byte é before a rule show it.
	const file = `{
  "model": "x",
  "permissions": {
    "allow": ["Bash(git status)", "Read(./src/**)",
           "Bash(git diff",
      "Bash(npm run test:*)"],
    "deny": [
	"Read(~/.ssh/**)", 42, {"x": ["y"]}, "bash(rm:*)"
    ],
    "ask": null,
    "additionalDirectories": ["../shared", "/opt/x"],
    "defaultMode": "acceptEdits",
    "unknownKey": {"nested": [1, 2, {"a": "b"}]}
  },
  "other": {"permissions": {"allow": ["Bash"]}}
}`
	lists, errs, err := ParseJSONLists(".nova/settings.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ruleAt{
		{"Bash(git status)", 4, 15},
		{"Read(/src/**)", 4, 35},
		{"Bash(npm run test:*)", 6, 7},
	}, positions(lists.Allow)); diff != "" {
		t.Errorf("allow (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]ruleAt{{"Read(~/.ssh/**)", 8, 2}}, positions(lists.Deny)); diff != "" {
		t.Errorf("deny (-want +got):\n%s", diff)
	}
	if lists.Ask != nil {
		t.Errorf("ask = %v, want none", lists.Ask)
	}
	if diff := cmp.Diff([]string{"../shared", "/opt/x"}, lists.AdditionalDirectories); diff != "" {
		t.Errorf("additionalDirectories (-want +got):\n%s", diff)
	}
	if lists.DefaultMode != "acceptEdits" {
		t.Errorf("defaultMode = %q", lists.DefaultMode)
	}
	wantErrs := []string{
		`.nova/settings.json:5:12: rule "Bash(git diff": Bash(… needs a closing parenthesis: write Bash(git diff)`,
		`.nova/settings.json:8:21: permissions.deny[1] is a number, want a string`,
		`.nova/settings.json:8:25: permissions.deny[2] is an object, want a string`,
		`.nova/settings.json:8:39: rule "bash(rm:*)": unknown tool "bash": tool names are case-sensitive; did you mean Bash?`,
	}
	if diff := cmp.Diff(wantErrs, errorStrings(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if len(errs) > 0 && errs[0].Source != (Source{".nova/settings.json", 5, 12}) {
		t.Errorf("first error source = %+v", errs[0].Source)
	}
}

func TestParseJSONListsColumnsAreBytes(t *testing.T) {
	data := "{\"permissions\":{\"deny\":[\"Read(é)\", \"Bash(x\"]}}"
	_, errs, err := ParseJSONLists("f", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	// "Bash(x" starts after 36 bytes: the é is two bytes.
	if diff := cmp.Diff([]string{`f:1:37: rule "Bash(x": Bash(… needs a closing parenthesis: write Bash(x)`}, errorStrings(errs)); diff != "" {
		t.Error(diff)
	}
}

func TestParseJSONListsShapes(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    Lists
		errs    []string
		fileErr string
	}{
		{name: "empty object", data: `{}`},
		{name: "no permissions", data: `{"model": "x", "hooks": [1, {"a": null}]}`},
		{name: "null permissions", data: `{"permissions": null}`},
		{
			name: "permissions not an object",
			data: `{"permissions": ["Bash"], "x": 1}`,
			errs: []string{`f:1:17: permissions is an array, want an object such as {"allow": ["Bash(git status)"]}`},
		},
		{
			name: "allow not an array",
			data: `{"permissions": {"allow": "Bash", "deny": ["Edit"]}}`,
			want: Lists{Deny: []Rule{{Tool: "Edit", Source: Source{"f", 1, 44}}}},
			errs: []string{`f:1:27: permissions.allow is the string "Bash", want an array of strings`},
		},
		{
			name: "defaultMode not a string",
			data: `{"permissions": {"defaultMode": 3}}`,
			errs: []string{`f:1:33: permissions.defaultMode is a number, want a string such as "default"`},
		},
		{
			name: "nested arrays skipped",
			data: `{"permissions": {"allow": [["Bash"], true, "Read"]}}`,
			want: Lists{Allow: []Rule{{Tool: "Read", Source: Source{"f", 1, 44}}}},
			errs: []string{
				`f:1:28: permissions.allow[0] is an array, want a string`,
				`f:1:38: permissions.allow[1] is a boolean, want a string`,
			},
		},
		{
			name: "duplicate keys add up",
			data: `{"permissions": {"deny": ["Bash"]}, "permissions": {"deny": ["Edit"]}}`,
			want: Lists{Deny: []Rule{{Tool: "Bash", Source: Source{"f", 1, 27}}, {Tool: "Edit", Source: Source{"f", 1, 62}}}},
		},
		{name: "not JSON", data: `{"permissions": {"allow": ["Bash",]}}`, fileErr: `f:1:35: settings are not valid JSON: invalid character ']' looking for beginning of value`},
		{name: "empty file", data: ``, fileErr: `f:1:1: settings are not valid JSON: unexpected end of JSON input`},
		{name: "second line", data: "{\n  \"a\": tru\n}", fileErr: `f:2:11: settings are not valid JSON: invalid character '\n' in literal true (expecting 'e')`},
		{name: "trailing garbage", data: `{} x`, fileErr: `f:1:4: settings are not valid JSON: invalid character 'x' after top-level value`},
		{name: "array at top", data: `["Bash"]`, fileErr: `f: read settings: the top level is an array, want an object`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, errs, err := ParseJSONLists("f", []byte(tc.data))
			if tc.fileErr != "" {
				if err == nil || err.Error() != tc.fileErr {
					t.Fatalf("error = %v, want %s", err, tc.fileErr)
				}
				if errs != nil || got.Allow != nil || got.Deny != nil {
					t.Errorf("a bad file returned rules or rule errors: %+v %v", got, errs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("lists (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, errorStrings(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseFlagList(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   []ruleAt
		errs   []string
	}{
		{"comma", []string{"Bash(git diff:*),Read"}, []ruleAt{{"Bash(git diff:*)", 1, 1}, {"Read", 1, 18}}, nil},
		{"spaces inside parens", []string{"Bash(npm run test:*)"}, []ruleAt{{"Bash(npm run test:*)", 1, 1}}, nil},
		{"space separated", []string{"Read  Edit\tGlob"}, []ruleAt{{"Read", 1, 1}, {"Edit", 1, 7}, {"Glob", 1, 12}}, nil},
		{"comma and space", []string{"Read, Edit ,Bash(ls -la)"}, []ruleAt{{"Read", 1, 1}, {"Edit", 1, 7}, {"Bash(ls -la)", 1, 13}}, nil},
		{"several values", []string{"Read", "Bash(git log:*) WebFetch(domain:example.org)"}, []ruleAt{{"Read", 1, 1}, {"Bash(git log:*)", 2, 1}, {"WebFetch(domain:example.org)", 2, 17}}, nil},
		{"quoted parenthesis and comma", []string{`Bash(echo "a),b"),Read`}, []ruleAt{{"Bash(echo 'a),b')", 1, 1}, {"Read", 1, 19}}, nil},
		{"nested parentheses", []string{`Bash(python -c 'print(1)'),Task(a (b))`}, []ruleAt{{"Bash(python -c 'print(1)')", 1, 1}, {"Task(a (b))", 1, 28}}, nil},
		{"empty items", []string{",, ,", ""}, nil, nil},
		{"unclosed group", []string{"Read,Bash(git diff, Edit"}, []ruleAt{{"Read", 1, 1}}, []string{`--allowedTools:1:6: rule "Bash(git diff, Edit": Bash(… needs a closing parenthesis: write Bash(git diff, Edit)`}},
		{"bad rule among good", []string{"Read,bash,Edit"}, []ruleAt{{"Read", 1, 1}, {"Edit", 1, 11}}, []string{`--allowedTools:1:6: rule "bash": unknown tool "bash": tool names are case-sensitive; did you mean Bash?`}},
		{"text after group", []string{"Bash(ls)x,Read"}, []ruleAt{{"Read", 1, 11}}, []string{`--allowedTools:1:1: rule "Bash(ls)x": unexpected text "x" after the closing parenthesis`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rules, errs := ParseFlagList("--allowedTools", tc.values)
			if diff := cmp.Diff(tc.want, positions(rules)); diff != "" {
				t.Errorf("rules (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.errs, errorStrings(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			for _, r := range rules {
				if r.Source.File != "--allowedTools" {
					t.Errorf("%s: Source.File = %q", r, r.Source.File)
				}
			}
		})
	}
}

func TestParseFlagListSourceString(t *testing.T) {
	rules, _ := ParseFlagList("--disallowedTools", []string{"Read", "Edit,Bash(rm:*)"})
	var got []string
	for _, r := range rules {
		got = append(got, r.Source.String()+" "+r.String())
	}
	want := []string{"--disallowedTools:1:1 Read", "--disallowedTools:2:1 Edit", "--disallowedTools:2:6 Bash(rm:*)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
	if s := (Source{File: "x"}).String(); s != "x" {
		t.Errorf("Source without a line = %q", s)
	}
	if !strings.HasPrefix(ParseError{Rule: "r"}.Error(), `rule "r": invalid rule`) {
		t.Errorf("ParseError without Err: %q", ParseError{Rule: "r"}.Error())
	}
}
