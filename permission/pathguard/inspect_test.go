//go:build unix

package pathguard

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

func TestInspect(t *testing.T) {
	fx := newFixture(t)
	ws, home, out, extra := fx.ws, fx.home, fx.out, fx.extra
	j := filepath.Join

	// An open descriptor for the /dev/fd case.
	fdFile, err := os.Open(j(out, "passwd"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fdFile.Close() })
	fd := strconv.Itoa(int(fdFile.Fd()))

	const shell = "shell start-up file"
	tests := []struct {
		name string
		in   string
		base string
		want Info
	}{
		// Plain cases.
		{"plain file", "src/main.go", "", Info{Abs: j(ws, "src/main.go"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},
		{"workspace itself", ws, "", Info{Abs: ws, Resolved: ws, Inside: true, Root: ws}},
		{"relative to base", "main.go", j(ws, "src"), Info{Abs: j(ws, "src/main.go"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},
		{"relative base", "main.go", "src", Info{Abs: j(ws, "src/main.go"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},
		{"new file", "src/new.go", "", Info{Abs: j(ws, "src/new.go"), Resolved: j(ws, "src/new.go"), Inside: true, Root: ws}},
		{"additional dir", j(extra, "notes.txt"), "", Info{Abs: j(extra, "notes.txt"), Resolved: j(extra, "notes.txt"), Inside: true, Root: extra, HardLinks: 1}},
		{"doubled slashes", ws + "//src///main.go", "", Info{Abs: j(ws, "src/main.go"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},
		{"trailing /.", ws + "/src/.", "", Info{Abs: j(ws, "src"), Resolved: j(ws, "src"), Inside: true, Root: ws}},
		{"percent-encoding is a literal name", "src/..%2f..%2f..%2f.bashrc", "", Info{Abs: j(ws, "src/..%2f..%2f..%2f.bashrc"), Resolved: j(ws, "src/..%2f..%2f..%2f.bashrc"), Inside: true, Root: ws}},

		// Escapes by `..`.
		{"dotdot relative", "../.bashrc", "", Info{Abs: j(home, ".bashrc"), Resolved: j(home, ".bashrc"), HardLinks: 1, Protected: shell}},
		{"dotdot absolute", ws + "/../.bashrc", "", Info{Abs: j(home, ".bashrc"), Resolved: j(home, ".bashrc"), HardLinks: 1, Protected: shell}},
		{"dotdot from additional dir", extra + "/../home/.bashrc", "", Info{Abs: j(home, ".bashrc"), Resolved: j(home, ".bashrc"), HardLinks: 1, Protected: shell}},
		{"dotdot out and back", "../ws/src/main.go", "", Info{Abs: j(ws, "src/main.go"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},

		// Escapes by symlink.
		{"symlink to outside file", "link-passwd", "", Info{Abs: j(ws, "link-passwd"), Resolved: j(out, "passwd"), HardLinks: 1}},
		{"symlink to ~/.bashrc", "link-bashrc", "", Info{Abs: j(ws, "link-bashrc"), Resolved: j(home, ".bashrc"), HardLinks: 1, Protected: shell}},
		{"symlinked parent directory", "linkdir/secret.txt", "", Info{Abs: j(ws, "linkdir/secret.txt"), Resolved: j(out, "secret.txt"), HardLinks: 1}},
		{"new file under symlinked directory", "linkdir/new/x.txt", "", Info{Abs: j(ws, "linkdir/new/x.txt"), Resolved: j(out, "new/x.txt")}},
		{"dangling symlink to outside", "dangling", "", Info{Abs: j(ws, "dangling"), Resolved: j(out, "autostart/evil.desktop")}},
		{"dangling symlink inside", "dangling-in", "", Info{Abs: j(ws, "dangling-in"), Resolved: j(ws, "new.txt"), Inside: true, Root: ws}},
		{"symlink to parent", "up/.bashrc", "", Info{Abs: j(ws, "up/.bashrc"), Resolved: j(home, ".bashrc"), HardLinks: 1, Protected: shell}},
		{"symlink to parent and back", "up/ws/src/main.go", "", Info{Abs: j(ws, "up/ws/src/main.go"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},
		{"symlink chain inside", "chain1", "", Info{Abs: j(ws, "chain1"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},
		{"symlink loop", "loop1", "", Info{Abs: j(ws, "loop1"), Resolved: j(ws, "loop1"), Err: "more than 40 symbolic links"}},
		{"loop in a parent", "loop1/x", "", Info{Abs: j(ws, "loop1/x"), Resolved: j(ws, "loop1/x"), Err: "more than 40 symbolic links"}},
		{"outside link into workspace", j(out, "link-in"), "", Info{Abs: j(out, "link-in"), Resolved: j(ws, "src/main.go"), Inside: true, Root: ws, HardLinks: 1}},
		{"link into additional dir", "extra-link", "", Info{Abs: j(ws, "extra-link"), Resolved: j(extra, "notes.txt"), Inside: true, Root: extra, HardLinks: 1}},
		{"dotdot after a symlink is ambiguous", "linkdir/../src/main.go", "", Info{Abs: j(ws, "src/main.go"), Resolved: j(ws, "src/main.go"), HardLinks: 1, Err: "the kernel reads it as " + j(fx.tmp, "src/main.go")}},

		// Prefix confusion.
		{"sibling with the same prefix", j(fx.evil, "x"), "", Info{Abs: j(fx.evil, "x"), Resolved: j(fx.evil, "x"), HardLinks: 1}},
		{"symlink to the sibling", "evil-prefix/x", "", Info{Abs: j(ws, "evil-prefix/x"), Resolved: j(fx.evil, "x"), HardLinks: 1}},

		// Hard links and special files.
		{"hard link to outside file", "hard", "", Info{Abs: j(ws, "hard"), Resolved: j(ws, "hard"), Inside: true, Root: ws, HardLinks: 2}},
		{"FIFO", "fifo", "", Info{Abs: j(ws, "fifo"), Resolved: j(ws, "fifo"), Inside: true, Root: ws, Special: "named pipe"}},
		{"/dev/null", "/dev/null", "", Info{Abs: "/dev/null", Resolved: "/dev/null", Special: "under /dev"}},

		// /proc and /dev/fd magic links.
		{"/proc/self/root to workspace", "/proc/self/root" + j(ws, "src/main.go"), "", Info{Abs: "/proc/self/root" + j(ws, "src/main.go"), Resolved: j(ws, "src/main.go"), HardLinks: 1, Special: "/proc/self"}},
		{"/proc/self/root to ssh key", "/proc/self/root" + j(home, ".ssh/id_ed25519"), "", Info{Abs: "/proc/self/root" + j(home, ".ssh/id_ed25519"), Resolved: j(home, ".ssh/id_ed25519"), HardLinks: 1, Secret: "SSH key", Special: "/proc/self"}},
		{"/proc/<pid>/root", "/proc/" + strconv.Itoa(os.Getpid()) + "/root" + j(out, "passwd"), "", Info{Abs: "/proc/" + strconv.Itoa(os.Getpid()) + "/root" + j(out, "passwd"), Resolved: j(out, "passwd"), HardLinks: 1, Special: "/proc/" + strconv.Itoa(os.Getpid()) + "/root"}},
		{"/dev/fd/N", "/dev/fd/" + fd, "", Info{Abs: "/dev/fd/" + fd, Resolved: j(out, "passwd"), HardLinks: 1, Special: "a /proc link"}},

		// Protected names.
		{".git/hooks", ".git/hooks/pre-commit", "", Info{Abs: j(ws, ".git/hooks/pre-commit"), Resolved: j(ws, ".git/hooks/pre-commit"), Inside: true, Root: ws, HardLinks: 1, Protected: "inside a .git directory"}},
		{".git/config", ".git/config", "", Info{Abs: j(ws, ".git/config"), Resolved: j(ws, ".git/config"), Inside: true, Root: ws, HardLinks: 1, Protected: "inside a .git directory"}},
		{".git itself", ".git", "", Info{Abs: j(ws, ".git"), Resolved: j(ws, ".git"), Inside: true, Root: ws, Protected: "a .git entry"}},
		{".git/. trailing", ws + "/.git/.", "", Info{Abs: j(ws, ".git"), Resolved: j(ws, ".git"), Inside: true, Root: ws, Protected: "a .git entry"}},
		{".git. trailing dot", ".git./hooks/pre-commit", "", Info{Abs: j(ws, ".git./hooks/pre-commit"), Resolved: j(ws, ".git./hooks/pre-commit"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{".git trailing space", ".git /config", "", Info{Abs: j(ws, ".git /config"), Resolved: j(ws, ".git /config"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{".GIT case", ".GIT/hooks/pre-commit", "", Info{Abs: j(ws, ".GIT/hooks/pre-commit"), Resolved: j(ws, ".GIT/hooks/pre-commit"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{"NTFS stream", ".git::$INDEX_ALLOCATION/hooks/x", "", Info{Abs: j(ws, ".git::$INDEX_ALLOCATION/hooks/x"), Resolved: j(ws, ".git::$INDEX_ALLOCATION/hooks/x"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{"backslashes", `C:\Users\u\project\.git.\hooks\pre-commit`, "", Info{Abs: j(ws, `C:\Users\u\project\.git.\hooks\pre-commit`), Resolved: j(ws, `C:\Users\u\project\.git.\hooks\pre-commit`), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{"symlink to .git/hooks", "hooks/pre-commit", "", Info{Abs: j(ws, "hooks/pre-commit"), Resolved: j(ws, ".git/hooks/pre-commit"), Inside: true, Root: ws, HardLinks: 1, Protected: "inside a .git directory"}},
		{"gitdir target laid out as git dir", "gd/sub/hooks/post-checkout", "", Info{Abs: j(ws, "gd/sub/hooks/post-checkout"), Resolved: j(ws, "gd/sub/hooks/post-checkout"), Inside: true, Root: ws, Protected: "inside " + j(ws, "gd/sub") + ", which is laid out as a git directory"}},
		{"worktree git dir (HEAD + commondir)", "gd/wt/hooks/x", "", Info{Abs: j(ws, "gd/wt/hooks/x"), Resolved: j(ws, "gd/wt/hooks/x"), Inside: true, Root: ws, Protected: "inside " + j(ws, "gd/wt") + ", which is laid out"}},
		{"gitdir file target below it", "sm/.store/config", "", Info{Abs: j(ws, "sm/.store/config"), Resolved: j(ws, "sm/.store/config"), Inside: true, Root: ws, HardLinks: 1, Protected: "the git directory that " + j(ws, "sm/.git") + " points to"}},
		{"submodule work tree is not protected", "sub/main.go", "", Info{Abs: j(ws, "sub/main.go"), Resolved: j(ws, "sub/main.go"), Inside: true, Root: ws}},
		{"writing a .git file", "sub/.git", "", Info{Abs: j(ws, "sub/.git"), Resolved: j(ws, "sub/.git"), Inside: true, Root: ws, HardLinks: 1, Protected: "a .git entry"}},
		{"bare repository layout", "bare/hooks/post-checkout", "", Info{Abs: j(ws, "bare/hooks/post-checkout"), Resolved: j(ws, "bare/hooks/post-checkout"), Inside: true, Root: ws, Protected: "laid out as a git directory"}},
		{"completing a bare layout", "half/refs", "", Info{Abs: j(ws, "half/refs"), Resolved: j(ws, "half/refs"), Inside: true, Root: ws, Protected: "would make " + j(ws, "half") + " a git directory"}},
		{".git/commondir", ".git/commondir", "", Info{Abs: j(ws, ".git/commondir"), Resolved: j(ws, ".git/commondir"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{".git/info", ".git/info/attributes", "", Info{Abs: j(ws, ".git/info/attributes"), Resolved: j(ws, ".git/info/attributes"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{".git/worktrees", ".git/worktrees/wt/commondir", "", Info{Abs: j(ws, ".git/worktrees/wt/commondir"), Resolved: j(ws, ".git/worktrees/wt/commondir"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{".git/modules", ".git/modules/lib/config", "", Info{Abs: j(ws, ".git/modules/lib/config"), Resolved: j(ws, ".git/modules/lib/config"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{"nested repository's hook", "vendor/lib/.git/hooks/pre-commit", "", Info{Abs: j(ws, "vendor/lib/.git/hooks/pre-commit"), Resolved: j(ws, "vendor/lib/.git/hooks/pre-commit"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{"repository a command would create", "new/.git/config", "", Info{Abs: j(ws, "new/.git/config"), Resolved: j(ws, "new/.git/config"), Inside: true, Root: ws, Protected: "inside a .git directory"}},
		{"completing a layout by writing into it", "half/refs/heads/main", "", Info{Abs: j(ws, "half/refs/heads/main"), Resolved: j(ws, "half/refs/heads/main"), Inside: true, Root: ws, Protected: "creating refs would make " + j(ws, "half") + " a git directory"}},
		{"a missing directory that completes nothing", "half/docs/x.md", "", Info{Abs: j(ws, "half/docs/x.md"), Resolved: j(ws, "half/docs/x.md"), Inside: true, Root: ws}},
		{".gitattributes", ".gitattributes", "", Info{Abs: j(ws, ".gitattributes"), Resolved: j(ws, ".gitattributes"), Inside: true, Root: ws, Protected: "git attributes"}},
		{".gitattributes in a subdirectory", "src/.gitattributes", "", Info{Abs: j(ws, "src/.gitattributes"), Resolved: j(ws, "src/.gitattributes"), Inside: true, Root: ws, Protected: "git attributes"}},
		{".gitmodules", ".gitmodules", "", Info{Abs: j(ws, ".gitmodules"), Resolved: j(ws, ".gitmodules"), Inside: true, Root: ws, Protected: "submodule configuration"}},
		{".GITMODULES case", ".GITMODULES", "", Info{Abs: j(ws, ".GITMODULES"), Resolved: j(ws, ".GITMODULES"), Inside: true, Root: ws, Protected: "submodule configuration"}},
		{".envrc", ".envrc", "", Info{Abs: j(ws, ".envrc"), Resolved: j(ws, ".envrc"), Inside: true, Root: ws, Protected: "direnv"}},
		{".envrc trailing dot", "sub/.envrc.", "", Info{Abs: j(ws, "sub/.envrc."), Resolved: j(ws, "sub/.envrc."), Inside: true, Root: ws, Protected: "direnv"}},
		{"~/.gitconfig", "~/.gitconfig", "", Info{Abs: j(home, ".gitconfig"), Resolved: j(home, ".gitconfig"), Protected: "git's configuration for every repository"}},
		{"~/.config/git/config", "~/.config/git/config", "", Info{Abs: j(home, ".config/git/config"), Resolved: j(home, ".config/git/config"), Protected: "git's configuration for every repository"}},
		{".novacode", ".novacode/settings.json", "", Info{Abs: j(ws, ".novacode/settings.json"), Resolved: j(ws, ".novacode/settings.json"), Inside: true, Root: ws, HardLinks: 1, Protected: "NovaCode's own settings"}},
		{".mcp.json", ".mcp.json", "", Info{Abs: j(ws, ".mcp.json"), Resolved: j(ws, ".mcp.json"), Inside: true, Root: ws, HardLinks: 1, Protected: "MCP"}},
		{".vscode/settings.json is not protected", ".vscode/settings.json", "", Info{Abs: j(ws, ".vscode/settings.json"), Resolved: j(ws, ".vscode/settings.json"), Inside: true, Root: ws, HardLinks: 1}},
		{".idea is not protected", ".idea/workspace.xml", "", Info{Abs: j(ws, ".idea/workspace.xml"), Resolved: j(ws, ".idea/workspace.xml"), Inside: true, Root: ws, HardLinks: 1}},
		{".gitignore is not protected", ".gitignore", "", Info{Abs: j(ws, ".gitignore"), Resolved: j(ws, ".gitignore"), Inside: true, Root: ws}},
		{"fish config", ".config/fish/config.fish", "", Info{Abs: j(ws, ".config/fish/config.fish"), Resolved: j(ws, ".config/fish/config.fish"), Inside: true, Root: ws, Protected: "fish start-up"}},
		{".zshenv trailing dot", ".zshenv.", "", Info{Abs: j(ws, ".zshenv."), Resolved: j(ws, ".zshenv."), Inside: true, Root: ws, Protected: shell}},
		{"/etc/profile.d", "/etc/profile.d/novacode-test-missing.sh", "", Info{Abs: "/etc/profile.d/novacode-test-missing.sh", Resolved: "/etc/profile.d/novacode-test-missing.sh", Protected: "system-wide shell start-up"}},

		// Home and secrets.
		{"~/.bashrc", "~/.bashrc", "", Info{Abs: j(home, ".bashrc"), Resolved: j(home, ".bashrc"), HardLinks: 1, Protected: shell}},
		{"~ alone", "~", "", Info{Abs: home, Resolved: home}},
		{"~/.aws", "~/.aws/credentials", "", Info{Abs: j(home, ".aws/credentials"), Resolved: j(home, ".aws/credentials"), HardLinks: 1, Secret: "~/.aws"}},
		{"~/.ssh directory", "~/.ssh", "", Info{Abs: j(home, ".ssh"), Resolved: j(home, ".ssh"), Secret: "~/.ssh"}},
		{"~/.docker/config.json", "~/.docker/config.json", "", Info{Abs: j(home, ".docker/config.json"), Resolved: j(home, ".docker/config.json"), Secret: "~/.docker/config.json"}},
		{".env", ".env", "", Info{Abs: j(ws, ".env"), Resolved: j(ws, ".env"), Inside: true, Root: ws, HardLinks: 1, Secret: "environment file"}},
		{".env.local", ".env.local", "", Info{Abs: j(ws, ".env.local"), Resolved: j(ws, ".env.local"), Inside: true, Root: ws, HardLinks: 1, Secret: "environment file"}},
		{".env.example is no secret", ".env.example", "", Info{Abs: j(ws, ".env.example"), Resolved: j(ws, ".env.example"), Inside: true, Root: ws, HardLinks: 1}},
		{"*.pem", "certs/server.pem", "", Info{Abs: j(ws, "certs/server.pem"), Resolved: j(ws, "certs/server.pem"), Inside: true, Root: ws, HardLinks: 1, Secret: "key or certificate"}},
		{"id_rsa anywhere", "keys/id_rsa", "", Info{Abs: j(ws, "keys/id_rsa"), Resolved: j(ws, "keys/id_rsa"), Inside: true, Root: ws, Secret: "SSH key"}},

		// Malformed input.
		{"NUL byte", "ok.txt\x00/../../../.bashrc", "", Info{Err: "NUL byte"}},
		{"NUL byte in base", "ok.txt", "src\x00", Info{Err: "NUL byte"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.Input = tt.in
			got := fx.g.Inspect(tt.in, tt.base)
			if d := diffInfo(tt.want, got); d != "" {
				t.Errorf("Inspect(%q, %q) mismatch (-want +got):\n%s", tt.in, tt.base, d)
			}
		})
	}
	if runtime.GOOS != "linux" {
		t.Log("the /proc cases assume Linux")
	}
}
