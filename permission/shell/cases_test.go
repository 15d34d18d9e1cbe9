package shell_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/permission/shell"
)

// caseFile is one file of testdata/cases: the cases of one command family.
// Every case runs with opt (the workspace ~/project in the home directory
// /home/user); in expected paths a leading ~ is that home directory.
type caseFile struct {
	About string     `json:"about"`
	Cases []caseSpec `json:"cases"`
}

// caseSpec is one command line and what must hold for it. A field left
// out is not checked; every case must parse unless parseError says so.
type caseSpec struct {
	Cmd string `json:"cmd"`
	Why string `json:"why,omitempty"`

	// Unsafe true: the line is flagged (an Unsafe or Dangerous reason,
	// or a parse error); false: it has no Unsafe reason.
	Unsafe *bool `json:"unsafe,omitempty"`
	// Dangerous false: no Dangerous reason; true: at least one; a string:
	// at least one, starting with that category ("destroys").
	Dangerous *danger `json:"dangerous,omitempty"`
	// ParseError: the line does not parse.
	ParseError bool `json:"parseError,omitempty"`
	// ProjectCode: whether the line runs code the workspace defines.
	ProjectCode *bool `json:"projectCode,omitempty"`

	// Writes are Analysis.Writes, exactly.
	Writes *[]shell.Write `json:"writes,omitempty"`
	// Reads, EffectWrites, MayWrite and Env are the effects' lists,
	// exactly (in any order).
	Reads        *[]shell.Read `json:"reads,omitempty"`
	EffectWrites *[]string     `json:"effectWrites,omitempty"`
	MayWrite     *[]string     `json:"mayWrite,omitempty"`
	Env          *[]string     `json:"env,omitempty"`
	Bounded      *bool         `json:"bounded,omitempty"`
	ReadOnly     *bool         `json:"readOnly,omitempty"`

	// Rules are Bash(...) allow rules; Covered says whether the naive
	// per-command check with them lets the line through: false for lines
	// a rule must not cover (checked leniently: the analyser must flag
	// them itself), true for ordinary lines the rules are meant for.
	Rules   []string `json:"rules,omitempty"`
	Covered *bool    `json:"covered,omitempty"`
}

// danger is false, true, or a category every… one reason must start with.
type danger struct {
	want     bool
	category string
}

func (d *danger) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &d.want); err == nil {
		return nil
	}
	if err := json.Unmarshal(b, &d.category); err != nil {
		return fmt.Errorf("dangerous is true, false or a category: %s", b)
	}
	d.want = true
	return nil
}

func (d danger) MarshalJSON() ([]byte, error) {
	if d.category != "" {
		return json.Marshal(d.category)
	}
	return json.Marshal(d.want)
}

// loadCases reads every case file, keyed by file name.
func loadCases(t testing.TB) map[string]caseFile {
	t.Helper()
	names, err := filepath.Glob("testdata/cases/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	out := map[string]caseFile{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		var f caseFile
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out[strings.TrimSuffix(filepath.Base(n), ".json")] = f
	}
	return out
}

// home expands a leading ~ in an expected path to opt's home.
func home(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return opt.Home + p[1:]
	}
	return p
}

func homes(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = home(p)
	}
	return out
}

// TestCases runs the cases of testdata/cases.
func TestCases(t *testing.T) {
	files := loadCases(t)
	total := 0
	seen := map[string]string{}
	for name, f := range files {
		if f.About == "" {
			t.Errorf("%s: no about", name)
		}
		for _, c := range f.Cases {
			total++
			if prev, dup := seen[c.Cmd]; dup {
				t.Errorf("%s: %q is also a case of %s", name, c.Cmd, prev)
			}
			seen[c.Cmd] = name
			t.Run(name+"/"+c.Cmd, func(t *testing.T) { c.check(t) })
		}
	}
	if total < 1000 {
		t.Errorf("only %d cases", total)
	}
}

func (c caseSpec) check(t *testing.T) {
	a := shell.Analyze(c.Cmd, opt)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Errorf(format+"\nanalysis: %s", append(args, dump(a))...)
	}
	if c.ParseError != (a.ParseError != "") {
		fail("parse error = %q, want one: %v", a.ParseError, c.ParseError)
	}
	if c.Unsafe != nil {
		flagged := len(a.Unsafe) > 0 || len(a.Dangerous) > 0 || a.ParseError != ""
		if *c.Unsafe && !flagged {
			fail("not flagged")
		}
		if !*c.Unsafe && len(a.Unsafe) > 0 {
			fail("unsafe: %q", a.Unsafe)
		}
	}
	if d := c.Dangerous; d != nil {
		switch {
		case !d.want && len(a.Dangerous) > 0:
			fail("dangerous: %q", a.Dangerous)
		case d.want && len(a.Dangerous) == 0:
			fail("not dangerous")
		case d.category != "" && !slices.ContainsFunc(a.Dangerous, func(r string) bool { return strings.HasPrefix(r, d.category+": ") }):
			fail("no reason of category %q: %q", d.category, a.Dangerous)
		}
	}
	if c.ProjectCode != nil && *c.ProjectCode != (len(a.ProjectCode) > 0) {
		fail("project code: %q, want %v", a.ProjectCode, *c.ProjectCode)
	}
	if c.Writes != nil {
		want := slices.Clone(*c.Writes)
		for i := range want {
			want[i].Path = home(want[i].Path)
		}
		if d := cmp.Diff(want, a.Writes, cmpopts.EquateEmpty()); d != "" {
			fail("writes (-want +got):\n%s", d)
		}
	}
	fx := a.Effects
	if c.Bounded != nil && *c.Bounded != fx.Bounded() {
		fail("bounded = %v, want %v (unbounded: %q)", fx.Bounded(), *c.Bounded, fx.Unbounded)
	}
	if c.ReadOnly != nil && *c.ReadOnly != a.ReadOnly() {
		fail("read-only = %v, want %v", a.ReadOnly(), *c.ReadOnly)
	}
	sortReads := cmpopts.SortSlices(func(a, b shell.Read) bool { return a.Path < b.Path })
	sortStrings := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if c.Reads != nil {
		want := slices.Clone(*c.Reads)
		for i := range want {
			want[i].Path = home(want[i].Path)
		}
		if d := cmp.Diff(want, fx.Reads, sortReads, cmpopts.EquateEmpty()); d != "" {
			fail("reads (-want +got):\n%s", d)
		}
	}
	for _, l := range []struct {
		name      string
		want, got *[]string
	}{{"effect writes", c.EffectWrites, &fx.Writes}, {"may write", c.MayWrite, &fx.MayWrite}, {"env", c.Env, &fx.Env}} {
		if l.want == nil {
			continue
		}
		want := slices.Clone(*l.want)
		if l.name != "env" {
			want = homes(want)
		}
		if d := cmp.Diff(want, *l.got, sortStrings, cmpopts.EquateEmpty()); d != "" {
			fail("%s (-want +got):\n%s", l.name, d)
		}
	}
	if c.Covered != nil {
		var rules []rule
		for _, r := range c.Rules {
			rules = append(rules, parseRule(t, r))
		}
		switch {
		case *c.Covered && !naiveSafe(a, rules, false):
			fail("rules %v do not cover it", c.Rules)
		case !*c.Covered && naiveSafe(a, rules, true):
			fail("rules %v would allow it", c.Rules)
		}
	}
}
