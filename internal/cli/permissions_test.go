package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/sandbox"
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

// TestRunnerRulesFollowTheSandbox: a rule for a command that runs project
// code allows it only where the sandbox also keeps git metadata and
// hard-linked files read-only: under bubblewrap, not under Landlock (a PATH
// without bwrap), and the reason says why.
func TestRunnerRulesFollowTheSandbox(t *testing.T) {
	tests := []struct {
		backend    string
		want       permission.Behavior
		wantReason string
	}{
		{sandbox.KindBubblewrap, permission.Allow, "allowed by rule"},
		{sandbox.KindLandlock, permission.Ask, "Landlock cannot make part of the workspace read-only"},
	}
	for _, tt := range tests {
		t.Run(tt.backend, func(t *testing.T) {
			if tt.backend == sandbox.KindLandlock {
				t.Setenv("PATH", pathWithout(t, "bwrap"))
			}
			ws := t.TempDir()
			in := permissionInputs{
				Allow: []string{"Bash(npm test:*)"},
				Sandbox: func(extra []string) (*sandbox.Sandbox, error) {
					return sandbox.New(sandbox.ModeAuto, sandbox.Policy{Workspace: ws, Writable: extra})
				},
			}
			var errOut bytes.Buffer
			c, sb, err := buildChecker(in, ws, nil, &errOut)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { sb.Close() })
			if sb.Kind() != tt.backend {
				if os.Getenv("CI") == "true" {
					t.Fatalf("no %s sandbox here (%s); CI must have one", tt.backend, sb.Notice())
				}
				t.Skipf("no %s sandbox here: %s", tt.backend, sb.Notice())
			}
			d := c.Check(permission.Call{Tool: "Bash", Input: json.RawMessage(`{"command":"npm test"}`)})
			if d.Behavior != tt.want || !strings.Contains(d.Reason, tt.wantReason) {
				t.Errorf("%s: %+v", tt.backend, d)
			}
			limits := sandboxLimits(context.Background(), sb)
			if (limits != "") != (tt.backend == sandbox.KindLandlock) {
				t.Errorf("notice %q", limits)
			}
		})
	}
}

// pathWithout returns a PATH of one directory holding links to every
// program of the current PATH but the named ones.
func pathWithout(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, p := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(p)
		for _, e := range entries {
			if slices.Contains(names, e.Name()) {
				continue
			}
			_ = os.Symlink(filepath.Join(p, e.Name()), filepath.Join(dir, e.Name())) // the first one wins, as in PATH
		}
	}
	return dir
}
