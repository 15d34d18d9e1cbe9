package shell_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/permission/shell"
)

// fxOpt is where the effects cases run: the workspace /w, home /h.
var fxOpt = shell.Options{Workspace: "/w", Home: "/h"}

func TestEffects(t *testing.T) {
	file := func(p string) shell.Read { return shell.Read{Path: p, Contents: true} }
	tree := func(p string) shell.Read { return shell.Read{Path: p, Tree: true, Contents: true} }
	names := func(p string) shell.Read { return shell.Read{Path: p} }
	listing := func(p string) shell.Read { return shell.Read{Path: p, Tree: true} }
	tests := []struct {
		cmd      string
		reads    []shell.Read
		writes   []string
		bounded  bool
		readOnly bool
	}{
		// Pure commands touch nothing.
		{"echo start 1 $(date +%s.%N); sleep 1; echo end 1 $(date +%s.%N)", nil, nil, true, true},
		{"pwd && whoami && uname -a", nil, nil, true, true},
		// Readers read their operands, relative to where they run.
		{"cat README.md", []shell.Read{file("/w/README.md")}, nil, true, true},
		{"head -n 20 a.txt b.txt", []shell.Read{file("/w/a.txt"), file("/w/b.txt")}, nil, true, true},
		{"cd sub && cat x", []shell.Read{file("/w/sub/x")}, nil, true, true},
		{"cd sub; cat x", []shell.Read{file("/w/x"), file("/w/sub/x")}, nil, true, true},
		{"(cd sub && cat x); cat y", []shell.Read{file("/w/sub/x"), file("/w/y")}, nil, true, true},
		{"cat a | grep -n foo | wc -l", []shell.Read{file("/w/a")}, nil, true, true},
		{"grep -n TODO main.go", []shell.Read{file("/w/main.go")}, nil, true, true},
		{"grep -rn TODO src", []shell.Read{tree("/w/src")}, nil, true, true},
		{"grep -r TODO", []shell.Read{tree("/w")}, nil, true, true},
		{"rg -n foo", []shell.Read{{Path: "/w", Tree: true, Contents: true, SkipsHidden: true}}, nil, true, true},
		{"rg --hidden foo lib", []shell.Read{tree("/w/lib")}, nil, true, true},
		{"sed -n '10,20p' f.go", []shell.Read{file("/w/f.go")}, nil, true, true},
		{"jq .name package.json", []shell.Read{file("/w/package.json")}, nil, true, true},
		{"wc -l < data.csv", []shell.Read{file("/w/data.csv")}, nil, true, true},
		{"cat src/*.go", []shell.Read{{Path: "/w/src/*.go", Contents: true, Glob: true}}, nil, true, true},
		// Listers read names.
		{"ls", []shell.Read{names("/w")}, nil, true, true},
		{"ls -la src", []shell.Read{names("/w/src")}, nil, true, true},
		{"ls -R", []shell.Read{listing("/w")}, nil, true, true},
		{"find . -name '*.go' -type f", []shell.Read{listing("/w")}, nil, true, true},
		{"find src test -newer stamp", []shell.Read{listing("/w/src"), listing("/w/test"), names("/w/stamp")}, nil, true, true},
		{"tree -L 2", []shell.Read{listing("/w")}, nil, true, true},
		// git reads the repository.
		{"git status", []shell.Read{listing("/w")}, nil, true, true},
		{"git log --oneline -5 && git diff --stat", []shell.Read{listing("/w")}, nil, true, true},
		{"git -C sub log", []shell.Read{listing("/w"), listing("/w/sub")}, nil, true, true},
		{"git show HEAD:src/a.go", []shell.Read{listing("/w"), file("/w/src/a.go")}, nil, true, true},
		{"git grep --untracked foo", []shell.Read{tree("/w"), file("/w/foo")}, nil, true, true},
		// Writers write exactly their targets.
		{"echo x > out.txt", nil, []string{"/w/out.txt"}, true, false},
		{"echo x >> log; sleep 1; echo y >> log", nil, []string{"/w/log"}, true, false},
		{"echo x > f1; cat f1", []shell.Read{file("/w/f1")}, []string{"/w/f1"}, true, false},
		{"rm -rf build dist", nil, []string{"/w/build", "/w/dist"}, true, false},
		{"mkdir -p a/b && touch a/b/c", nil, []string{"/w/a/b", "/w/a/b/c"}, true, false},
		{"mv a b", nil, []string{"/w/b", "/w/a"}, true, false},
		{"cp -r src dst", []shell.Read{tree("/w/src")}, []string{"/w/dst"}, true, false},
		{"cd out && tee log < in", []shell.Read{file("/w/out/in")}, []string{"/w/out/log"}, true, false},
		{"sed -i 's/a/b/' x.go", nil, []string{"/w/x.go"}, true, false},
		{"sort -o out in", []shell.Read{file("/w/in")}, []string{"/w/out"}, true, false},
		{"sort --output=out in", []shell.Read{file("/w/in")}, []string{"/w/out"}, true, false},
		{"uniq in out", []shell.Read{file("/w/in")}, []string{"/w/out"}, true, false},
		{"echo x 2>/dev/null > /dev/null", nil, nil, true, true},
		// Anything the analyser cannot bound.
		{"make", nil, nil, false, false},
		{"npm test", nil, nil, false, false},
		{"go build ./...", nil, nil, false, false},
		{"git commit -m x", nil, nil, false, false},
		{"git fetch", nil, nil, false, false},
		{"git remote show origin", nil, nil, false, false},
		{"python3 x.py", nil, nil, false, false},
		{"./run.sh", nil, nil, false, false},
		{"/usr/bin/cat x", nil, nil, false, false},
		{"cat $F", nil, nil, false, false},
		{"echo x > $OUT", nil, nil, false, false},
		{"rm *.o", nil, nil, false, false},
		{"cd $D && ls", nil, nil, false, false},
		{"sleep 5 &", nil, nil, false, false},
		{"timeout 5 cat x", nil, nil, false, false},
		{"sed 's/a/b/' f", nil, nil, false, false},
		{"grep -R foo .", nil, nil, false, false},
		{"rg -L foo", nil, nil, false, false},
		{"find -L . -name x", nil, nil, false, false},
		{"env", nil, nil, false, false},
		{"printenv", nil, nil, false, false},
		{"set", nil, nil, false, false},
		{"export -p", nil, nil, false, false},
		{"sha256sum -c sums.txt", nil, nil, false, false},
		{"wc --files0-from=list", nil, nil, false, false},
		{"date -s 2020-01-01", nil, nil, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			a := shell.Analyze(tc.cmd, fxOpt)
			fx := a.Effects
			if got := fx.Bounded(); got != tc.bounded {
				t.Fatalf("bounded = %v, want %v (unbounded: %q, unsafe: %q)", got, tc.bounded, fx.Unbounded, a.Unsafe)
			}
			if got := a.ReadOnly(); got != tc.readOnly {
				t.Errorf("read-only = %v, want %v (unsafe: %q)", got, tc.readOnly, a.Unsafe)
			}
			if !tc.bounded {
				return
			}
			sortReads := cmpopts.SortSlices(func(a, b shell.Read) bool { return a.Path < b.Path })
			sortStrings := cmpopts.SortSlices(func(a, b string) bool { return a < b })
			if d := cmp.Diff(tc.reads, fx.Reads, sortReads, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("reads (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.writes, fx.Writes, sortStrings, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("writes (-want +got):\n%s", d)
			}
		})
	}
}

// Reading a variable from the environment is a read of a possible secret.
func TestEffectsEnvironment(t *testing.T) {
	tests := []struct {
		cmd string
		env []string
	}{
		{"echo $HOME $PWD $PATH", nil},
		{"x=1; echo $x", nil},
		{"for f in a b; do cat $f; done", nil},
		{"echo $GITHUB_TOKEN", []string{"GITHUB_TOKEN"}},
		{`printf '%s' "${AWS_SECRET_ACCESS_KEY:-none}"`, []string{"AWS_SECRET_ACCESS_KEY"}},
		{"echo $((SECRET + 1))", []string{"SECRET"}},
		{"echo ${!TOK*}", []string{"!TOK", "TOK"}},
	}
	for _, tc := range tests {
		t.Run(tc.cmd, func(t *testing.T) {
			a := shell.Analyze(tc.cmd, fxOpt)
			if d := cmp.Diff(tc.env, a.Effects.Env, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("env (-want +got):\n%s", d)
			}
			if a.ReadOnly() != (len(tc.env) == 0) {
				t.Errorf("read-only = %v", a.ReadOnly())
			}
		})
	}
}
