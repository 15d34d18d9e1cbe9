package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Servers added to and removed from a settings file: the file's other
// members stay byte for byte as written and in their order, the other
// servers keep their definitions and order, a name defined again is
// replaced in place, and the result is what the settings reader and the
// trust classifier read.
func TestSetAndRemoveMCPServer(t *testing.T) {
	dir := t.TempDir()
	path := write(t, filepath.Join(dir, "settings.json"), `{
  "model":   "mine",
  "mcpServers": {"b": {"command": "b-server", "args": ["--x"]},
                 "a": {"type": "http", "url": "https://a.example/mcp"}},
  "workspaces": {"/w": {"trusted": true, "allow": ["Read"]}}
}
`)
	replaced, err := SetMCPServer(path, "c", json.RawMessage(`{"command": "c", "env": {"K": "v"}}`), true)
	if err != nil || replaced {
		t.Fatalf("add c: %v, %v", replaced, err)
	}
	replaced, err = SetMCPServer(path, "b", json.RawMessage(`{"command":"b2"}`), true)
	if err != nil || !replaced {
		t.Fatalf("replace b: %v, %v", replaced, err)
	}
	got, _ := os.ReadFile(path)
	want := `{
  "model": "mine",
  "mcpServers": {
    "b": {
      "command": "b2"
    },
    "a": {
      "type": "http",
      "url": "https://a.example/mcp"
    },
    "c": {
      "command": "c",
      "env": {
        "K": "v"
      }
    }
  },
  "workspaces": {"/w": {"trusted": true, "allow": ["Read"]}}
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("file (-want +got):\n%s", diff)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	names, err := MCPServerNames(path)
	if err != nil || !cmp.Equal(names, []string{"b", "a", "c"}) {
		t.Errorf("names %v, %v", names, err)
	}
	f, err := readFile(path, LayerUser)
	if err != nil || f.Settings.Model == nil || *f.Settings.Model != "mine" || f.Settings.Workspaces["/w"].Allow[0] != "Read" {
		t.Fatalf("read back: %+v, %v", f, err)
	}

	for _, name := range []string{"a", "b", "c"} {
		removed, err := RemoveMCPServer(path, name, true)
		if err != nil || !removed {
			t.Fatalf("remove %s: %v, %v", name, removed, err)
		}
	}
	if removed, err := RemoveMCPServer(path, "a", true); err != nil || removed {
		t.Fatalf("remove a again: %v, %v", removed, err)
	}
	got, _ = os.ReadFile(path)
	want = "{\n  \"model\": \"mine\",\n  \"mcpServers\": {},\n  \"workspaces\": {\"/w\": {\"trusted\": true, \"allow\": [\"Read\"]}}\n}\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Fatalf("file (-want +got):\n%s", diff)
	}
}

// .mcp.json is created readable by everyone (it is the project's), keeps
// the mode it has, and a missing file is not created by a removal; a
// symlinked file is written through the link; a file that is not what it
// should be is an error and stays as it is.
func TestMCPServerFiles(t *testing.T) {
	dir := t.TempDir()
	mcpJSON := filepath.Join(dir, ".mcp.json")
	if removed, err := RemoveMCPServer(mcpJSON, "x", false); err != nil || removed {
		t.Fatalf("%v, %v", removed, err)
	}
	if _, err := os.Stat(mcpJSON); !os.IsNotExist(err) {
		t.Fatal("a removal created the file")
	}
	if _, err := SetMCPServer(mcpJSON, "x", json.RawMessage(`{"command":"x"}`), false); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(mcpJSON)
	if string(got) != "{\n  \"mcpServers\": {\n    \"x\": {\n      \"command\": \"x\"\n    }\n  }\n}\n" {
		t.Errorf("created:\n%s", got)
	}
	if fi, _ := os.Stat(mcpJSON); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	if err := os.Chmod(mcpJSON, 0o664); err != nil {
		t.Fatal(err)
	}
	if _, err := SetMCPServer(mcpJSON, "y", json.RawMessage(`{"command":"y"}`), false); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(mcpJSON); fi.Mode().Perm() != 0o664 {
		t.Errorf("mode %v", fi.Mode())
	}

	real := write(t, filepath.Join(dir, "dotfiles", "nova.json"), `{"model":"m"}`)
	link := filepath.Join(dir, "home", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if _, err := SetMCPServer(link, "z", json.RawMessage(`{"command":"z"}`), true); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v", err)
	}
	if names, _ := MCPServerNames(real); !cmp.Equal(names, []string{"z"}) {
		t.Errorf("through the link: %v", names)
	}

	for _, bad := range []string{`{"mcpServers": ["x"]}`, `[1]`, `{"mcpServers": {"x": }`} {
		p := write(t, filepath.Join(dir, "bad.json"), bad)
		_, err := SetMCPServer(p, "w", json.RawMessage(`{"command":"w"}`), false)
		if err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%s: %v", bad, err)
		}
		if got, _ := os.ReadFile(p); string(got) != bad {
			t.Errorf("%s changed to %s", bad, got)
		}
	}
	if _, err := SetMCPServer(mcpJSON, "v", json.RawMessage(`["not an object"]`), false); err == nil {
		t.Error("a definition that is not an object was written")
	}
}
