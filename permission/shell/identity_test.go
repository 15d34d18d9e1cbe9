package shell_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission/shell"
)

// fxOpt is where the identity cases run: the workspace /w, home /h.
var fxOpt = shell.Options{Workspace: "/w", Home: "/h"}

// Every way of naming a program that the analyser can see gives the same
// words to deny rules.
func TestCommandIdentity(t *testing.T) {
	tests := []struct {
		cmd   string
		canon [][]string // of each command, in order; nil: unknown
	}{
		{"rm -rf x", [][]string{{"rm", "-rf", "x"}}},
		{"/bin/rm -rf x", [][]string{{"rm", "-rf", "x"}}},
		{"./node_modules/.bin/rm x", [][]string{{"rm", "x"}}},
		{`\rm x`, [][]string{{"rm", "x"}}},
		{`"r"m x`, [][]string{{"rm", "x"}}},
		{"r=rm; $r -rf x", [][]string{{"rm", "-rf", "x"}}},
		{`r=/usr/bin/rm; "$r" x`, [][]string{{"rm", "x"}}},
		{"$(which rm) -rf x", [][]string{nil, {"which", "rm"}}},
		{"$RM x", [][]string{nil}},
		{"git -C . push origin main", [][]string{{"git", "push", "origin", "main"}}},
		{"/usr/bin/git --no-pager -c x=y push", [][]string{{"git", "push"}}},
		{"git --git-dir=.git --work-tree=. push -f", [][]string{{"git", "push", "-f"}}},
		{"sudo /bin/rm x", [][]string{{"sudo", "/bin/rm", "x"}, {"rm", "x"}}},
		{"timeout 5 rm x", [][]string{{"timeout", "5", "rm", "x"}, {"rm", "x"}}},
		{"X=a; rm $X", [][]string{{"rm", "a"}}},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			a := shell.Analyze(tc.cmd, fxOpt)
			var got [][]string
			for _, c := range a.Commands {
				got = append(got, c.Canon)
			}
			if d := cmp.Diff(tc.canon, got); d != "" {
				t.Errorf("canonical words (-want +got):\n%s", d)
			}
		})
	}
}
