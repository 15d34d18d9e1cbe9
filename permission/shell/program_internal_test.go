package shell

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Each program has one description: a name registered by two families
// would be judged by whichever registered last.
func TestProgramsRegisteredOnce(t *testing.T) {
	if len(duplicates) > 0 {
		t.Errorf("registered more than once: %q", duplicates)
	}
}

// Option tables are data: check that every row is one the engine reads as
// meant.
func TestOptionTables(t *testing.T) {
	seen := map[*program]bool{}
	for name, p := range programs {
		if seen[p] {
			continue
		}
		seen[p] = true
		if p.handler != nil && (len(p.opts) > 0 || p.check != nil) {
			t.Errorf("%s: a handler and a table: the table would be ignored", name)
		}
		names := map[string]bool{}
		for _, row := range p.opts {
			if len(row.names) == 0 && row.act != 0 {
				t.Errorf("%s: a row without names", name)
			}
			for _, n := range row.names {
				switch {
				case strings.HasPrefix(n, "--") && len(n) > 2:
				case len(n) == 2 && n[0] == '-' && n[1] != '-':
				case p.wordOptions && len(n) > 2 && n[0] == '-':
				default:
					t.Errorf("%s: %q is not an option name", name, n)
				}
				if names[n] {
					t.Errorf("%s: %s is in two rows", name, n)
				}
				names[n] = true
			}
			if row.act&(asRun|runs|widens) != 0 && row.why == "" {
				t.Errorf("%s: %v says nothing about what it does", name, row.names)
			}
			if !row.takesValue() && row.act&valueActsMask != 0 {
				t.Errorf("%s: %v has a value act but takes no value", name, row.names)
			}
		}
	}
}

// Adding a command is adding its description and its cases: every
// description with a table or a check has a case in testdata/cases that
// runs it.
func TestProgramsHaveCases(t *testing.T) {
	names, err := filepath.Glob("testdata/cases/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no case files: %v", err)
	}
	used := map[*program]bool{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		var f struct{ Cases []struct{ Cmd string } }
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		for _, c := range f.Cases {
			for _, cm := range Analyze(c.Cmd, Options{Workspace: "/w", Home: "/h"}).Commands {
				used[programs[canonical(cm.Program)]] = true
			}
		}
	}
	var missing []string
	for name, p := range programs {
		if !used[p] && (len(p.opts) > 0 || p.check != nil) {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Errorf("programs with no case: %q", missing)
	}
}
