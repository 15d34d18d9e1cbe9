//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// benchTree makes a tree of files like a mid-sized repository: 50
// directories of 100 subdirectories of 20 files (100,000 files, 5,051
// directories), a .git directory, and 10 files linked from outside.
func benchTree(b *testing.B, files int) string {
	b.Helper()
	root := b.TempDir()
	outside := b.TempDir()
	const perDir, subdirs = 20, 100
	n := 0
	for i := 0; n < files; i++ {
		for j := 0; j < subdirs && n < files; j++ {
			dir := filepath.Join(root, fmt.Sprintf("d%02d", i), fmt.Sprintf("s%03d", j))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			for k := 0; k < perDir && n < files; k++ {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.go", k)), nil, 0o644); err != nil {
					b.Fatal(err)
				}
				n++
			}
		}
	}
	for _, d := range []string{".git/objects", ".git/refs", ".git/hooks"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		src := filepath.Join(outside, fmt.Sprint(i))
		if err := os.WriteFile(src, nil, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Link(src, filepath.Join(root, "d00", "s000", fmt.Sprintf("linked%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	return root
}

// BenchmarkScan measures the walk of the writable directories (at the
// start of a session, and before a rule for a project runner is trusted)
// on 100,000 files, beside what it is compared with in the same run:
//
//   - WalkDir: filepath.WalkDir visiting every entry, no stat (the floor
//     for any walk).
//   - WalkDirLstat: WalkDir and an Lstat of every regular file for its
//     link count, the naive way of doing what the scan does.
//   - find: `find ROOT -type f -links +1`, the same question asked of find.
//   - Refresh: the look for what changed that every command costs when
//     nothing changed (a stat per directory).
func BenchmarkScan(b *testing.B) {
	root := benchTree(b, 100_000)
	b.Run("Scan", func(b *testing.B) {
		for b.Loop() {
			tr := scanTree(context.Background(), []string{root}, scanLimit)
			if !tr.complete || len(tr.outsideLinks()) != 10 {
				b.Fatalf("complete %v, %d linked", tr.complete, len(tr.outsideLinks()))
			}
		}
	})
	b.Run("WalkDir", func(b *testing.B) {
		for b.Loop() {
			n := 0
			_ = filepath.WalkDir(root, func(string, fs.DirEntry, error) error { n++; return nil })
			if n < 100_000 {
				b.Fatal(n)
			}
		}
	})
	b.Run("WalkDirLstat", func(b *testing.B) {
		for b.Loop() {
			linked := 0
			_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					if fi, err := os.Lstat(p); err == nil && fi.Sys().(*syscall.Stat_t).Nlink > 1 {
						linked++
					}
				}
				return nil
			})
			if linked != 10 {
				b.Fatal(linked)
			}
		}
	})
	b.Run("find", func(b *testing.B) {
		if _, err := exec.LookPath("find"); err != nil {
			b.Skip("no find")
		}
		for b.Loop() {
			out, err := exec.Command("find", root, "-type", "f", "-links", "+1").Output()
			if err != nil || bytes.Count(out, []byte("\n")) != 10 {
				b.Fatalf("%v: %d lines", err, bytes.Count(out, []byte("\n")))
			}
		}
	})
	b.Run("Refresh", func(b *testing.B) {
		tr := scanTree(context.Background(), []string{root}, scanLimit)
		for b.Loop() {
			if d, l := tr.refresh(context.Background()); len(d)+len(l) != 0 {
				b.Fatal("something new")
			}
		}
	})
}
