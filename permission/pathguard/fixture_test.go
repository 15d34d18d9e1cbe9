//go:build unix

package pathguard

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixture is a small world in a temporary directory:
//
//	TMP/home            the home directory (~)
//	TMP/home/ws         the workspace
//	TMP/home/ws-evil    a sibling whose name starts like the workspace
//	TMP/out             outside everything
//	TMP/extra           an additional directory
//
// The workspace sits in home so that `..` escapes land on ~/.bashrc, as in
// the security corpus.
type fixture struct {
	tmp, home, ws, out, extra, evil string
	g                               *Guard
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fx := &fixture{
		tmp:   tmp,
		home:  filepath.Join(tmp, "home"),
		ws:    filepath.Join(tmp, "home", "ws"),
		out:   filepath.Join(tmp, "out"),
		extra: filepath.Join(tmp, "extra"),
		evil:  filepath.Join(tmp, "home", "ws-evil"),
	}
	files := map[string]string{
		"home/.bashrc":                  "# rc\n",
		"home/.ssh/id_ed25519":          "KEY\n",
		"home/.aws/credentials":         "[default]\n",
		"home/ws-evil/x":                "evil\n",
		"out/passwd":                    "root:x:0:0\n",
		"out/secret.txt":                "secret\n",
		"out/hardsrc":                   "shared\n",
		"extra/notes.txt":               "notes\n",
		"home/ws/src/main.go":           "package main\n",
		"home/ws/.git/HEAD":             "ref: refs/heads/main\n",
		"home/ws/.git/config":           "[core]\n",
		"home/ws/.git/hooks/pre-commit": "#!/bin/sh\n",
		// A submodule whose git directory has an innocent name.
		"home/ws/sub/.git":             "gitdir: ../gd/sub\n",
		"home/ws/gd/sub/HEAD":          "ref: refs/heads/main\n",
		"home/ws/gd/sub/objects/.keep": "",
		"home/ws/gd/sub/refs/.keep":    "",
		"home/ws/gd/sub/config":        "[core]\n",
		// A worktree: its git directory has HEAD and commondir only.
		"home/ws/wt/.git":         "gitdir: GD/gd/wt\n",
		"home/ws/gd/wt/HEAD":      "ref: refs/heads/wt\n",
		"home/ws/gd/wt/commondir": "../sub\n",
		// A .git file pointing below itself, at no valid layout.
		"home/ws/sm/.git":          "gitdir: .store\n",
		"home/ws/sm/.store/config": "[core]\n",
		// A bare-repository layout, and one that lacks refs/.
		"home/ws/bare/HEAD":               "ref: refs/heads/main\n",
		"home/ws/bare/objects/.keep":      "",
		"home/ws/bare/refs/.keep":         "",
		"home/ws/half/HEAD":               "ref: refs/heads/main\n",
		"home/ws/half/objects/.keep":      "",
		"home/ws/.env":                    "TOKEN=1\n",
		"home/ws/.env.example":            "TOKEN=\n",
		"home/ws/.env.local":              "TOKEN=2\n",
		"home/ws/certs/server.pem":        "PEM\n",
		"home/ws/.novacode/settings.json": "{}\n",
		"home/ws/.mcp.json":               "{}\n",
		"home/ws/.vscode/settings.json":   "{}\n",
		"home/ws/.idea/workspace.xml":     "<x/>\n",
	}
	for name, content := range files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		content = strings.ReplaceAll(content, "GD/", fx.ws+"/")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := [][2]string{
		{"home/ws/link-passwd", fx.out + "/passwd"},
		{"home/ws/link-bashrc", "../.bashrc"},
		{"home/ws/linkdir", fx.out},
		{"home/ws/dangling", fx.out + "/autostart/evil.desktop"},
		{"home/ws/dangling-in", "new.txt"},
		{"home/ws/loop1", "loop2"},
		{"home/ws/loop2", "loop1"},
		{"home/ws/chain1", "chain2"},
		{"home/ws/chain2", "src/main.go"},
		{"home/ws/up", ".."},
		{"home/ws/hooks", ".git/hooks"},
		{"home/ws/evil-prefix", "../ws-evil"},
		{"home/ws/extra-link", fx.extra + "/notes.txt"},
		{"out/link-in", fx.ws + "/src/main.go"},
	}
	for _, l := range links {
		if err := os.Symlink(l[1], filepath.Join(tmp, filepath.FromSlash(l[0]))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(fx.out, "hardsrc"), filepath.Join(fx.ws, "hard")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(fx.ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	fx.g, err = New(fx.ws, []string{fx.extra}, fx.home)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// diffInfo compares Inspect results. The reason fields (Protected, Secret,
// Special, Err) of want are substrings that must occur in got's: the
// wording may change, which check fired must not.
func diffInfo(want, got Info) string {
	for _, f := range []struct {
		got  *string
		want string
	}{{&got.Protected, want.Protected}, {&got.Secret, want.Secret}, {&got.Special, want.Special}, {&got.Err, want.Err}} {
		if f.want != "" && strings.Contains(*f.got, f.want) {
			*f.got = f.want
		}
	}
	return cmp.Diff(want, got)
}
