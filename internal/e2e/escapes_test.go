//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The red team's escapes through `nova permission check`: deny rules dodged
// by another name of the program or file (issue 11, root cause 4), file
// tools in bypassPermissions (5) and reads through links or of secrets by
// commands (7). Each must be asked or denied, never allowed.
func TestEscapesThroughPermissionCheck(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	for _, d := range []string{"docs", "src", ".git", ".ssh-dir"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	for p, c := range map[string]string{
		filepath.Join(ws, ".env"): "TOKEN=x", filepath.Join(ws, "src", "main.go"): "package main",
		filepath.Join(ws, ".git", "config"): "", filepath.Join(home, ".ssh", "id_rsa"): "k", filepath.Join(home, ".bashrc"): "",
	} {
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	bypass := []string{"--mode", "bypassPermissions"}
	tests := []struct {
		args []string
		want string // "allow", "ask" or "deny"
	}{
		// 4. Deny rules hold against other names.
		{[]string{"--deny", "Bash(rm:*)", "Bash", `{"command":"/bin/rm -rf build"}`}, "deny"},
		{[]string{"--deny", "Bash(rm:*)", "Bash", `{"command":"r=rm; $r -rf build"}`}, "deny"},
		{append([]string{"--deny", "Bash(rm:*)"}, append(bypass, "Bash", `{"command":"$(which rm) -rf build"}`)...), "ask"},
		{[]string{"--deny", "Bash(git push:*)", "Bash", `{"command":"git -C . push"}`}, "deny"},
		{[]string{"--deny", "Bash(git push:*)", "Bash", `{"command":"/usr/bin/git push"}`}, "deny"},
		{append([]string{"--deny", "Edit(./docs/**)"}, append(bypass, "Bash", `{"command":"cp x docs/README.md"}`)...), "deny"},
		{append([]string{"--deny", "Read(./.env)"}, append(bypass, "Bash", `{"command":"cat .env"}`)...), "deny"},
		// 5. File tools in bypassPermissions keep the hard checks.
		{append(bypass, "Write", `{"file_path":"~/.bashrc","content":"x"}`), "ask"},
		{append(bypass, "Edit", `{"file_path":".git/config","old_string":"a","new_string":"b"}`), "ask"},
		{append(bypass, "Write", `{"file_path":"~/.ssh/authorized_keys","content":"x"}`), "ask"},
		{append(bypass, "Write", `{"file_path":".novacode/settings.json","content":"{}"}`), "ask"},
		{append(bypass, "Write", `{"file_path":".novacode/settings.local.json","content":"{}"}`), "ask"},
		{append(bypass, "Write", `{"file_path":"src/new.go","content":"package main"}`), "allow"},
		// 7. Reads through links and of secrets by commands.
		{[]string{"--allow", "Bash(cat:*)", "Bash", `{"command":"cat .env"}`}, "ask"},
		{[]string{"--allow", "Bash(cat:*)", "Bash", `{"command":"cat link/id_rsa"}`}, "ask"},
		{[]string{"--allow", "Bash(grep:*)", "Bash", `{"command":"grep -r SECRET ."}`}, "ask"},
		{[]string{"--allow", "Bash(cat:*)", "Bash", `{"command":"cat src/main.go"}`}, "allow"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			cmd := exec.Command(novaBin, append([]string{"permission", "check", "--cwd", ws}, tc.args...)...)
			cmd.Env = append(os.Environ(), "NOVA_HOME="+t.TempDir(), "HOME="+home)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %s", err, errOut.String())
			}
			var r checkResult
			if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &r); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if r.Decision != tc.want {
				t.Fatalf("got %s (%s), want %s", r.Decision, r.Reason, tc.want)
			}
		})
	}
}
