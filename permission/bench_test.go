package permission_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/shell"
)

// bigTree makes a workspace of n files in n/100 directories (a README at
// the top) for the benchmarks, under dir.
func bigTree(b *testing.B, dir string, n int) string {
	b.Helper()
	ws := filepath.Join(dir, "ws")
	for d := range n / 100 {
		sub := filepath.Join(ws, fmt.Sprintf("pkg%04d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%03d.go", f)), []byte("package x\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# x\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return ws
}

// BenchmarkCheck is the chain's cost per command on a 100,000-file
// workspace: the full decision against the shell analysis alone (the
// baseline: what every decision cost before paths were resolved), and a
// recursive search against a bare walk of the same tree (the baseline for
// the secret scan such a command needs).
func BenchmarkCheck(b *testing.B) {
	ws := bigTree(b, b.TempDir(), 100_000)
	c, err := permission.New(permission.Config{Mode: permission.ModeDefault, Workspace: ws, Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	cmds := []string{
		"ls -la",
		"cat README.md pkg0001/file001.go",
		"git status && git diff --stat",
		"cp README.md pkg0002/copy.md && rm -f pkg0003/file004.go",
		"npm test -- pkg0001/file001.go",
		"grep -rn TODO .",
	}
	for _, cmd := range cmds {
		in := input("command", cmd)
		b.Run("chain/"+cmd, func(b *testing.B) {
			for b.Loop() {
				c.Check(permission.Call{Tool: "Bash", Input: in})
			}
		})
		b.Run("analyse/"+cmd, func(b *testing.B) {
			for b.Loop() {
				shell.Analyze(cmd, shell.Options{Workspace: ws})
			}
		})
	}
	b.Run("baseline/walk", func(b *testing.B) {
		for b.Loop() {
			n := 0
			_ = filepath.WalkDir(ws, func(string, fs.DirEntry, error) error { n++; return nil })
		}
	})
}
