package shell

import (
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
