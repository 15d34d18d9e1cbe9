package nova

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/sandbox"
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
	if err := rememberAlways(c, w)(agent.ToolCall{Name: "Bash", Input: call.Input}, d); err != nil {
		t.Fatal(err)
	}
	if d := c.Check(call); d.Behavior != permission.Allow {
		t.Fatalf("after always: %+v", d)
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

// A rule that cannot be saved still holds for the session, and the failure
// is returned for the loop's warning event, not written anywhere.
func TestAllowAlwaysThatCannotBeSaved(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := buildChecker(permissionInputs{Sandboxed: true}, t.TempDir(), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	call := permission.Call{Tool: "Bash", Input: json.RawMessage(`{"command":"npm run test"}`)}
	d := c.Check(call)
	w := &config.Workspace{Key: "/ws", UserPath: filepath.Join(blocker, "settings.json")}
	err = rememberAlways(c, w)(agent.ToolCall{Name: "Bash", Input: call.Input}, d)
	if err == nil || !strings.Contains(err.Error(), "could not save Bash(npm run test) for next time") {
		t.Fatalf("error = %v", err)
	}
	if d := c.Check(call); d.Behavior != permission.Allow {
		t.Fatalf("the rule does not hold for the session: %+v", d)
	}
}

// An empty settings file sets nothing, for the rules as for the rest of
// the settings; a broken one is named once, with what to do.
func TestEmptyAndBrokenSettingsFiles(t *testing.T) {
	tests := []struct {
		name, data string
		wantErr    string
	}{
		{"empty", "", ""},
		{"blank", " \n\t\n", ""},
		{"object", "{}", ""},
		{"broken", `{"permissions": {"allow": ["Bash",]}}`,
			"settings: /ws/.novacode/settings.json:1:35: settings are not valid JSON: invalid character ']' looking for beginning of value; fix or remove the file and run again"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := []config.File{{Path: "/ws/.novacode/settings.json", Data: []byte(tc.data)}}
			var errOut bytes.Buffer
			_, _, err := buildChecker(permissionInputs{}, t.TempDir(), files, &errOut)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantErr || errOut.Len() != 0 {
				t.Fatalf("error %q, want %q; warnings %q", got, tc.wantErr, errOut.String())
			}
			if strings.Count(got, "settings.json") > 1 {
				t.Fatalf("the path is named twice: %s", got)
			}
		})
	}
}
