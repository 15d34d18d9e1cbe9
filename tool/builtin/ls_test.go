package builtin

import (
	"fmt"
	"strings"
	"testing"
)

func lsFixture(t *testing.T) string {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{
		".gitignore":            "node_modules/\n*.tmp\n",
		".env.example":          "",
		"README.md":             "",
		"go.mod":                "",
		"cmd/app/main.go":       "",
		"internal/.gitignore":   "secret.txt\n",
		"internal/secret.txt":   "",
		"internal/util.go":      "",
		"internal/util_test.go": "",
		"internal/empty/.keep":  "",
		"node_modules/x/y.js":   "",
		"scratch.tmp":           "",
		"testdata/big.json":     "",
		".git/HEAD":             "",
	})
	return env.Dir
}

func TestLS(t *testing.T) {
	dir := lsFixture(t)
	tests := []struct {
		name   string
		input  LSInput
		golden string
	}{
		{"tree", LSInput{Path: dir}, "ls_tree"},
		{"ignore patterns", LSInput{Path: dir, Ignore: []string{"*_test.go", "testdata", "cmd/**"}}, "ls_ignore"},
		{"subdirectory", LSInput{Path: "internal"}, "ls_sub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.Dir = dir
			res := run(t, NewLS(), env, tt.input)
			if res.IsError {
				t.Fatal(res.Content)
			}
			golden(t, tt.golden, dir, res.Content)
		})
	}
}

func TestLSErrors(t *testing.T) {
	dir := lsFixture(t)
	env := newEnv(t)
	env.Dir = dir
	check(t, run(t, NewLS(), env, LSInput{Path: "README.md"}), dir, true, "$DIR/README.md is a file, not a directory", "use Read")
	check(t, run(t, NewLS(), env, LSInput{Path: "interal"}), dir, true, "Directory does not exist: $DIR/interal. Did you mean $DIR/internal?")
	check(t, run(t, NewLS(), env, LSInput{Path: dir, Ignore: []string{"[x"}}), dir, true, "Invalid ignore pattern")
	check(t, run(t, NewLS(), env, LSInput{Path: "internal/empty", Ignore: []string{".keep"}}), dir, false, "- $DIR/internal/empty/\n  (no entries)\n")
}

// TestLSCap checks the cap and that it cuts the deepest levels first.
func TestLSCap(t *testing.T) {
	env := newEnv(t)
	files := map[string]string{"zz-top.txt": ""}
	for i := range lsMaxEntries + 50 {
		files[fmt.Sprintf("a/deep/f%04d", i)] = ""
	}
	writeFiles(t, env.Dir, files)
	res := run(t, NewLS(), env, LSInput{Path: env.Dir})
	check(t, res, env.Dir, false,
		"There are more than 1000 entries under $DIR; only the first 1000 are shown",
		"\n  - zz-top.txt\n", // shallow entries survive although they sort last
		"\n      - f0996\n")
	if strings.Contains(res.Content, "f0997") {
		t.Error("listed more than 1000 entries")
	}
}
