package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
)

func TestAllowAlwaysRemembersTheNarrowestRule(t *testing.T) {
	ws := t.TempDir()
	var errOut bytes.Buffer
	c, _, err := buildChecker(permissionInputs{Sandboxed: true}, ws, nil, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	call := permission.Call{Tool: "Bash", Input: json.RawMessage(`{"command":"npm run test -- --watch"}`)}
	d := c.Check(call)
	if d.Behavior != permission.Ask {
		t.Fatalf("first decision %+v", d)
	}
	rememberAlways(c, ws, &errOut)(agent.ToolCall{Name: "Bash", Input: call.Input}, d)
	if d := c.Check(call); d.Behavior != permission.Allow {
		t.Fatalf("after always: %+v", d)
	}
	data, err := os.ReadFile(filepath.Join(ws, ".novacode", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"Bash(npm run test:*)"`) {
		t.Fatalf("local settings:\n%s", data)
	}
	// The next session loads it.
	_, files, err := config.Load(config.Paths(t.TempDir(), ws)...)
	if err != nil {
		t.Fatal(err)
	}
	c2, _, err := buildChecker(permissionInputs{Sandboxed: true}, ws, files, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if d := c2.Check(call); d.Behavior != permission.Allow {
		t.Fatalf("next session: %+v", d)
	}
	if errOut.Len() != 0 {
		t.Fatalf("warnings: %s", errOut.String())
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
	_, files, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
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
