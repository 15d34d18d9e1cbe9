package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
)

// An "allow always" answer holds for the session and is kept in the
// person's own settings file, in the workspace's record: it applies in the
// next session whether or not the workspace is trusted, while an allow rule
// the repository wrote into .novacode/settings.local.json waits for trust.
func TestAllowAlwaysRemembersTheNarrowestRule(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	local := filepath.Join(ws, ".novacode", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(local, []byte(`{"permissions":{"allow":["Bash(curl:*)"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func() (*config.Workspace, *permission.Checker) {
		t.Helper()
		w, err := config.LoadWorkspace(home, ws)
		if err != nil {
			t.Fatal(err)
		}
		_, files := w.Resolve(false)
		c, _, err := buildChecker(permissionInputs{Sandboxed: true, Always: w.Record.Allow, AlwaysFrom: w.UserPath}, ws, files, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		return w, c
	}
	w, c := load()
	call := permission.Call{Tool: "Bash", Input: json.RawMessage(`{"command":"npm run test -- --watch"}`)}
	d := c.Check(call)
	if d.Behavior != permission.Ask {
		t.Fatalf("first decision %+v", d)
	}
	var errOut bytes.Buffer
	rememberAlways(c, w, &errOut)(agent.ToolCall{Name: "Bash", Input: call.Input}, d)
	if d := c.Check(call); d.Behavior != permission.Allow {
		t.Fatalf("after always: %+v", d)
	}
	if errOut.Len() != 0 {
		t.Fatalf("warnings: %s", errOut.String())
	}
	if data, _ := os.ReadFile(local); strings.Contains(string(data), "npm") {
		t.Fatalf("the answer went into the workspace:\n%s", data)
	}
	// The next session, in the same untrusted workspace, has it; the
	// repository's rule still waits.
	w, c = load()
	if diff := cmp.Diff([]string{"Bash(npm run test:*)"}, w.Record.Allow); diff != "" {
		t.Fatalf("remembered (-want +got):\n%s", diff)
	}
	if d := c.Check(call); d.Behavior != permission.Allow || d.Rule != "Bash(npm run test:*)" {
		t.Fatalf("next session: %+v", d)
	}
	if d := c.Check(permission.Call{Tool: "Bash", Input: json.RawMessage(`{"command":"curl https://example.org"}`)}); d.Behavior != permission.Ask {
		t.Fatalf("the repository's rule applied before trust: %+v", d)
	}
}

// A remembered rule this version cannot read is reported with the file it
// is in; the others still load.
func TestRememberedRulesThatDoNotParse(t *testing.T) {
	var errOut bytes.Buffer
	c, _, err := buildChecker(permissionInputs{Always: []string{"Bash(ls", "Bash(git log)"}, AlwaysFrom: "/home/me/.novacode/settings.json"}, t.TempDir(), nil, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); !strings.Contains(got, "/home/me/.novacode/settings.json") || !strings.Contains(got, "Bash(ls") {
		t.Fatalf("warnings: %q", got)
	}
	if d := c.Check(permission.Call{Tool: "Bash", Input: json.RawMessage(`{"command":"git log"}`)}); d.Rule != "Bash(git log)" {
		t.Fatalf("decision %+v", d)
	}
}

func TestMalformedRulesWarnAndTheRestLoad(t *testing.T) {
	ws := t.TempDir()
	p := filepath.Join(ws, ".novacode", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{\"permissions\": {\"allow\": [\"Bash(ls\", \"Bash(git status)\"],\n \"defaultMode\": \"acceptEdits\"}}"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := config.LoadWorkspace(t.TempDir(), ws)
	if err != nil {
		t.Fatal(err)
	}
	_, files := w.Resolve(true)
	var errOut bytes.Buffer
	c, _, err := buildChecker(permissionInputs{Allow: []string{"Bash(echo:*),Read(("}}, ws, files, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); !strings.Contains(got, p+":1:28") || !strings.Contains(got, "--allowedTools") {
		t.Fatalf("warnings:\n%s", got)
	}
	if c.Mode() != permission.ModeAcceptEdits {
		t.Fatalf("defaultMode not applied: %s", c.Mode())
	}
	for _, cmd := range []string{"git status", "echo hi"} {
		if d := c.Check(permission.Call{Tool: "Bash", Input: json.RawMessage(`{"command":"` + cmd + `"}`)}); d.Behavior != permission.Allow {
			t.Errorf("%s: %+v", cmd, d)
		}
	}
}
