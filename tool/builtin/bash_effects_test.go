package builtin

import (
	"encoding/json"
	"testing"

	"github.com/novacode/nova/tool"
)

// Pairs of commands, as two Bash calls of one turn: whether they conflict
// (the second waits for the first) comes from what the shell analyser says
// each touches.
func TestBashCallsConflict(t *testing.T) {
	env := &tool.Env{Dir: "/w"}
	bash := NewBash()
	fx := func(cmd string) tool.Effects {
		in, _ := json.Marshal(BashInput{Command: cmd})
		return bash.Effects(env, in)
	}
	tests := []struct {
		a, b     string
		conflict bool
	}{
		// Reads never conflict with reads.
		{"cat a.txt", "cat a.txt", false},
		{"ls -la", "git status", false},
		{"grep -rn foo .", "find . -name '*.go'", false},
		{"echo start 1 $(date +%s.%N); sleep 1; echo end 1", "echo start 2 $(date +%s.%N); sleep 1; echo end 2", false},
		// Disjoint writes run together.
		{"echo x > f1.txt; sleep 1; cat f1.txt", "echo y > f2.txt; sleep 1; cat f2.txt", false},
		{"touch a", "mkdir b", false},
		{"rm -rf build", "cat src/main.go", false},
		// The same file.
		{"echo x >> shared.txt", "echo y >> shared.txt", true},
		{"echo x > f", "cat f", true},
		{"cat f", "sed -i 's/a/b/' f", true},
		{"mv a b", "cat b", true},
		// A directory and a path below it, both ways.
		{"rm -rf build", "cat build/out.txt", true},
		{"echo x > src/new.go", "ls src", true},
		{"echo x > src/new.go", "grep -r foo src", true},
		{"echo x > docs/a.md", "grep -r foo src", false},
		{"ls", "touch new.txt", true},
		{"git status", "echo x > any/file", true},
		// cd, then relative paths.
		{"cd sub && echo x > f", "cat sub/f", true},
		{"cd sub && echo x > f", "cat f", false},
		{"cd sub; echo x > f", "cat f", true}, // the cd may fail
		{"(cd sub && echo x > f); cat g", "cat f", false},
		// Variables in paths: exclusive.
		{"cat $F", "cat a", true},
		{"echo x > $OUT", "ls other", true},
		{"cd $D && ls", "cat a", true},
		{"X=a.txt; cat $X", "echo y > b.txt", false}, // known value
		// Subshells and pipes: the union of their parts.
		{"(cat a; cat b) | sort", "echo x > b", true},
		{"cat a | grep x | wc -l", "echo y > c", false},
		{"echo $(cat a)", "echo x > a", true},
		// Programs the analyser cannot bound: exclusive.
		{"make", "cat a", true},
		{"npm test", "ls other", true},
		{"go build ./...", "echo hi", true},
		{"python3 x.py", "echo hi", true},
		{"./script.sh", "echo hi", true},
		{"git commit -m x", "echo hi", true},
		{"sleep 5 &", "echo hi", true},
		{"cat a && make", "echo hi", true},
	}
	for _, tc := range tests {
		if got := fx(tc.a).Conflicts(fx(tc.b)); got != tc.conflict {
			t.Errorf("%q vs %q: conflict = %v, want %v\n  a: %+v\n  b: %+v", tc.a, tc.b, got, tc.conflict, fx(tc.a), fx(tc.b))
		}
		if got := fx(tc.b).Conflicts(fx(tc.a)); got != tc.conflict {
			t.Errorf("%q vs %q: not symmetric", tc.b, tc.a)
		}
	}
}
