//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scanFixture builds, under a fresh root, the files listed (content ""
// for an empty file; a name ending in / is a directory), links outside
// files into it and returns the root and the outside directory.
func scanFixture(t *testing.T, files []string) (root, outside string) {
	t.Helper()
	root, outside = workspace(t), workspace(t)
	for _, f := range files {
		p := filepath.Join(root, f)
		if f[len(f)-1] == '/' {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		writeFile(t, p, "x\n")
	}
	return root, outside
}

func link(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(from, to); err != nil {
		t.Fatal(err)
	}
}

func rel(root string, paths []string) []string {
	out := []string{}
	for _, p := range paths {
		r, err := filepath.Rel(root, p)
		if err != nil {
			r = p
		}
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestScanTree checks what one walk finds: every kind of git directory
// and .git entry, and files with several links, told apart by whether
// all their names are inside.
func TestScanTree(t *testing.T) {
	root, outside := scanFixture(t, []string{
		"src/main.go",
		".git/HEAD", ".git/config", ".git/objects/", ".git/refs/", ".git/hooks/pre-commit",
		".git/modules/lib/HEAD", ".git/modules/lib/config", ".git/modules/lib/objects/", ".git/modules/lib/refs/",
		".git/modules/group/inner/HEAD", ".git/modules/group/inner/objects/", ".git/modules/group/inner/refs/",
		".git/worktrees/wt/HEAD", ".git/worktrees/wt/commondir",
		"lib/x.go",
		"nested/.git/HEAD", "nested/.git/objects/", "nested/.git/refs/",
		"bare.git/HEAD", "bare.git/objects/", "bare.git/refs/", "bare.git/config",
		"half/HEAD", "half/objects/",
		"store/a", "store/b",
	})
	writeFile(t, filepath.Join(root, "lib", ".git"), "gitdir: ../.git/modules/lib\n")
	if err := os.Symlink("../nested/.git", filepath.Join(root, "src", ".git")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(outside, "bashrc"), "rc\n")
	writeFile(t, filepath.Join(outside, "pack"), "pack\n")
	link(t, filepath.Join(outside, "bashrc"), filepath.Join(root, "src", "rc"))
	link(t, filepath.Join(outside, "pack"), filepath.Join(root, ".git", "objects", "pack"))
	// A file linked twice inside: all its names are in the walk.
	link(t, filepath.Join(root, "store", "a"), filepath.Join(root, "copy", "a"))
	// A file linked into a protected entry of a git directory: that
	// name is not walked, so it counts as outside.
	link(t, filepath.Join(root, ".git", "hooks", "pre-commit"), filepath.Join(root, "scripts", "pre-commit"))

	tr := scanTree(context.Background(), []string{root}, 1000)
	if !tr.complete {
		t.Fatal("incomplete")
	}
	var outsideNames []string
	for _, lf := range tr.outsideLinks() {
		outsideNames = append(outsideNames, lf.names...)
	}
	got := map[string][]string{
		"git dirs":  rel(root, keys(tr.gitDirs)),
		"git links": rel(root, keys(tr.gitLinks)),
		"outside":   rel(root, outsideNames),
	}
	want := map[string][]string{
		"git dirs":  {".git", ".git/modules/group/inner", ".git/modules/lib", ".git/worktrees/wt", "bare.git", "nested/.git"},
		"git links": {"lib/.git", "src/.git"},
		"outside":   {".git/objects/pack", "scripts/pre-commit", "src/rc"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scan (-want +got):\n%s", d)
	}

	// The limit: the walk stops, and every linked file counts.
	small := scanTree(context.Background(), []string{root}, 5)
	if small.complete {
		t.Error("a walk over its limit says it is complete")
	}
	if _, ok := small.linkBinds(64); ok && len(small.linked) > 0 {
		t.Error("an incomplete walk trusts its link counts")
	}
	// A deadline that has passed.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if scanTree(ctx, []string{root}, 1000).complete {
		t.Error("a cancelled walk says it is complete")
	}
}

// TestLinkBinds checks which binds keep files with outside links read-only:
// single files, and a directory bound whole when everything in it, down to
// the bottom, is such a file (pnpm's store), but never a git directory's
// part.
func TestLinkBinds(t *testing.T) {
	var files []string
	for _, f := range []string{"a", "b", "sub/c", "sub/deep/d"} {
		files = append(files, "node_modules/.pnpm/pkg/"+f)
	}
	files = append(files, "node_modules/plain.js", "src/main.go", "src/linked.go",
		".git/HEAD", ".git/objects/", ".git/refs/")
	root, outside := scanFixture(t, nil)
	store := filepath.Join(outside, "store")
	for _, f := range files {
		if f[len(f)-1] == '/' {
			if err := os.MkdirAll(filepath.Join(root, f), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		switch {
		case f == "node_modules/plain.js" || f == "src/main.go" || f == ".git/HEAD":
			writeFile(t, filepath.Join(root, f), "x\n")
		default:
			writeFile(t, filepath.Join(store, f), "x\n")
			link(t, filepath.Join(store, f), filepath.Join(root, f))
		}
	}
	for _, o := range []string{"o1", "o2"} {
		writeFile(t, filepath.Join(store, o), "x\n")
		link(t, filepath.Join(store, o), filepath.Join(root, ".git", "objects", o))
	}
	tr := scanTree(context.Background(), []string{root}, 1000)

	tests := []struct {
		max    int
		want   []string
		wantOK bool
	}{
		{64, []string{".git/objects/o1", ".git/objects/o2", "node_modules/.pnpm", "src/linked.go"}, true},
		{4, []string{".git/objects/o1", ".git/objects/o2", "node_modules/.pnpm", "src/linked.go"}, true},
		{3, []string{}, false},
	}
	for _, tt := range tests {
		binds, ok := tr.linkBinds(tt.max)
		if d := cmp.Diff(tt.want, rel(root, binds)); d != "" || ok != tt.wantOK {
			t.Errorf("linkBinds(%d) = ok %v (-want +got):\n%s", tt.max, ok, d)
		}
	}
}

// TestRefresh checks that a second look finds exactly what is new: a
// repository made by git init or by hand, a .git file or link, a layout
// completed in an existing directory; and not what only moved.
func TestRefresh(t *testing.T) {
	root, _ := scanFixture(t, []string{
		"src/main.go", "old/.git/HEAD", "old/.git/objects/", "old/.git/refs/",
		"almost/HEAD", "almost/objects/", "deep/a/b/c/",
	})
	tr := scanTree(context.Background(), []string{root}, 1000)
	for _, f := range []string{
		"new/.git/HEAD", "new/.git/objects/", "new/.git/refs/",
		"deep/a/b/c/repo/HEAD", "deep/a/b/c/repo/objects/", "deep/a/b/c/repo/refs/",
	} {
		p := filepath.Join(root, f)
		if f[len(f)-1] == '/' {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else {
			writeFile(t, p, "ref: refs/heads/main\n")
		}
	}
	if err := os.Mkdir(filepath.Join(root, "almost", "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "src", ".git"), "gitdir: ../new/.git\n")
	if err := os.Rename(filepath.Join(root, "old"), filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	newDirs, newLinks := tr.refresh(context.Background())
	got := map[string][]string{"dirs": rel(root, keys(newDirs)), "links": rel(root, keys(newLinks))}
	want := map[string][]string{
		"dirs":  {"almost", "deep/a/b/c/repo", "new/.git"},
		"links": {"src/.git"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("refresh (-want +got):\n%s", d)
	}
	if _, ok := tr.gitDirs[filepath.Join(root, "moved", ".git")]; !ok {
		t.Error("the moved repository is not known at its new place")
	}
	// Nothing changed since: nothing new.
	newDirs, newLinks = tr.refresh(context.Background())
	if len(newDirs)+len(newLinks) != 0 {
		t.Errorf("second refresh found %v %v", newDirs, newLinks)
	}
	// A .git link pointed elsewhere is new again, though the inode may be
	// the old one's.
	if err := os.Remove(filepath.Join(root, "src", ".git")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../moved/.git", filepath.Join(root, "src", ".git")); err != nil {
		t.Fatal(err)
	}
	if _, newLinks = tr.refresh(context.Background()); len(newLinks) != 1 {
		t.Errorf("a replaced .git link is not new: %v", newLinks)
	}
}
