package tool_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

func TestEffectsConflict(t *testing.T) {
	r := func(p ...string) tool.Effects { return tool.Effects{Reads: p} }
	w := func(p ...string) tool.Effects { return tool.Effects{Writes: p} }
	tests := []struct {
		name     string
		a, b     tool.Effects
		conflict bool
	}{
		{"nothing and nothing", tool.Effects{}, tool.Effects{}, false},
		{"reads of one file", r("/w/a"), r("/w/a"), false},
		{"write and read of one file", w("/w/a"), r("/w/a"), true},
		{"writes of one file", w("/w/a"), w("/w/a"), true},
		{"writes of two files", w("/w/a"), w("/w/b"), false},
		{"write below a read directory", w("/w/d/x"), r("/w/d"), true},
		{"write of a directory above a read", w("/w/d"), r("/w/d/x/y"), true},
		{"sibling with a common prefix", w("/w/d"), r("/w/dd/x"), false},
		{"root read", w("/x"), tool.ReadsEverything(), true},
		{"exclusive and nothing", tool.Exclusive(), tool.Effects{}, true},
		{"exclusive and a read", tool.Exclusive(), r("/w/a"), true},
		{"read-everything and a read", tool.ReadsEverything(), r("/w/a"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Conflicts(tc.b); got != tc.conflict {
				t.Errorf("a.Conflicts(b) = %v", got)
			}
			if got := tc.b.Conflicts(tc.a); got != tc.conflict {
				t.Errorf("b.Conflicts(a) = %v", got)
			}
		})
	}
}

func TestEffectsResolved(t *testing.T) {
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	got := tool.Effects{Writes: []string{filepath.Join(dir, "link", "new", "f")}, Reads: []string{filepath.Join(dir, "real", "g")}}.Resolved()
	want := tool.Effects{
		Writes: []string{filepath.Join(dir, "link", "new", "f"), filepath.Join(real, "new", "f")},
		Reads:  []string{filepath.Join(real, "g")},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("resolved (-want +got):\n%s", d)
	}
	if !tool.Exclusive().Resolved().Exclusive {
		t.Error("exclusive lost")
	}
}
