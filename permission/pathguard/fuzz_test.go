//go:build unix

package pathguard

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzInspect feeds arbitrary paths and bases to Inspect and Recheck on the
// fixture: they must not panic, and what Inspect reports must hang
// together. Inspect and Recheck only look (Lstat, Readlink, reading small
// .git files), so a fuzzed path cannot change anything.
func FuzzInspect(f *testing.F) {
	fx := newFixture(f)
	for _, seed := range []string{
		"", ".", "..", "/", "//", "~", "~/", "~/.bashrc", "src/main.go", "../.bashrc", "loop1/x",
		"linkdir/../src/main.go", "/proc/self/root/etc/passwd", "/proc/self/cwd/../x", "/dev/fd/0",
		`C:\x\.git.\hooks\y`, ".git::$DATA", "a\x00b", ".env.local", "up/up/up/..", strings.Repeat("../", 50),
		strings.Repeat("a/", 300), "\xff\xfe", "dangling/../../x",
	} {
		f.Add(seed, "")
		f.Add(seed, "src")
	}
	f.Fuzz(func(t *testing.T, p, base string) {
		info := fx.g.Inspect(p, base)
		if info.Input != p {
			t.Errorf("Input = %q, want %q", info.Input, p)
		}
		if info.Inside && (info.Root == "" || info.Err != "") {
			t.Errorf("Inside with Root %q, Err %q", info.Root, info.Err)
		}
		if info.Err == "" {
			if !filepath.IsAbs(info.Abs) || filepath.Clean(info.Abs) != info.Abs {
				t.Errorf("Abs %q is not absolute and clean", info.Abs)
			}
			if !filepath.IsAbs(info.Resolved) {
				t.Errorf("Resolved %q is not absolute", info.Resolved)
			}
		}
		_ = fx.g.Recheck(p, false, []string{base})
		_ = fx.g.Recheck(info.Resolved, true, nil)
	})
}
