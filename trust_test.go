package nova

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/rules"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it):\n%s", name, diff)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Every member of the permissions object that the permission layer reads
// is classified for project-level files.
func TestEveryPermissionSettingIsClassified(t *testing.T) {
	lt := reflect.TypeFor[rules.Lists]()
	for i := range lt.NumField() {
		for _, name := range strings.Fields(lt.Field(i).Name) {
			key := string(unicode.ToLower(rune(name[0]))) + name[1:]
			if _, ok := config.ClassOf("permissions." + key); !ok {
				t.Errorf("rules.Lists.%s is read from settings as permissions.%s, which has no class in internal/config", name, key)
			}
		}
	}
}

// run is what a run would do with a workspace's settings: the endpoint it
// would call, the permission chain and the sandbox setting.
type applied struct {
	Endpoint endpoint
	Mode     permission.Mode
	Sandbox  string
	// Decisions for a few calls, by name.
	Decisions map[string]permission.Behavior
}

var probeCalls = map[string]permission.Call{
	"touch":       {Tool: "Bash", Input: json.RawMessage(`{"command":"touch x"}`)},
	"git status":  {Tool: "Bash", Input: json.RawMessage(`{"command":"git status"}`)},
	"read /other": {Tool: "Read", Input: json.RawMessage(`{"file_path":"/other/x"}`), ReadOnly: true},
}

func applyWorkspace(t *testing.T, home, ws string, trusted bool, env map[string]string) applied {
	t.Helper()
	w, err := config.LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	settings, files := w.Resolve(trusted)
	ep, err := chooseEndpoint("", "", settings, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := buildChecker(permissionInputs{Sandboxed: true, Always: w.Record.Allow, AlwaysFrom: w.UserPath}, ws, files, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a := applied{Endpoint: ep, Mode: c.Mode(), Sandbox: deref(settings.Sandbox), Decisions: map[string]permission.Behavior{}}
	for name, call := range probeCalls {
		a.Decisions[name] = c.Check(call).Behavior
	}
	return a
}

// Each widening setting, from the project's file or the local one, is
// ignored until the workspace is trusted and applied after; each narrowing
// one always applies. Environment variables beat every file, trusted or
// not. Checked through the functions a run uses: chooseEndpoint,
// buildChecker, the sandbox setting.
func TestWorkspaceSettingsApplyOnlyWhenTrusted(t *testing.T) {
	key := map[string]string{"ANTHROPIC_API_KEY": "my-key"}
	mine := applied{
		Endpoint: endpoint{Provider: "anthropic", APIKey: "my-key", Model: "claude-sonnet-4-5"},
		Mode:     permission.ModeDefault,
		Decisions: map[string]permission.Behavior{
			"touch": permission.Ask, "git status": permission.Allow, "read /other": permission.Ask,
		},
	}
	change := func(f func(*applied)) applied {
		a := mine
		a.Decisions = map[string]permission.Behavior{}
		for k, v := range mine.Decisions {
			a.Decisions[k] = v
		}
		f(&a)
		return a
	}
	tests := []struct {
		name               string
		user, project      string
		env                map[string]string
		untrusted, trusted applied
	}{
		{name: "base URL", project: `{"providers":{"anthropic":{"baseURL":"http://theirs.example"}}}`, env: key,
			untrusted: mine, trusted: change(func(a *applied) { a.Endpoint.BaseURL = "http://theirs.example" })},
		{name: "base URL over the user's", user: `{"providers":{"anthropic":{"baseURL":"http://mine.example"}}}`,
			project: `{"providers":{"anthropic":{"baseURL":"http://theirs.example"}}}`, env: key,
			untrusted: change(func(a *applied) { a.Endpoint.BaseURL = "http://mine.example" }),
			trusted:   change(func(a *applied) { a.Endpoint.BaseURL = "http://theirs.example" })},
		{name: "the environment's base URL beats a trusted file", project: `{"providers":{"anthropic":{"baseURL":"http://theirs.example"}}}`,
			env:       map[string]string{"ANTHROPIC_API_KEY": "my-key", "ANTHROPIC_BASE_URL": "http://env.example"},
			untrusted: change(func(a *applied) { a.Endpoint.BaseURL = "http://env.example" }),
			trusted:   change(func(a *applied) { a.Endpoint.BaseURL = "http://env.example" })},
		{name: "API key", user: `{"providers":{"anthropic":{"apiKey":"my-file-key"}}}`, project: `{"providers":{"anthropic":{"apiKey":"their-key"}}}`,
			untrusted: change(func(a *applied) { a.Endpoint.APIKey = "my-file-key" }),
			trusted:   change(func(a *applied) { a.Endpoint.APIKey = "their-key" })},
		{name: "the environment's key beats a trusted file", project: `{"providers":{"anthropic":{"apiKey":"their-key"}}}`, env: key,
			untrusted: mine, trusted: mine},
		{name: "provider", user: `{"providers":{"openai-chat":{"baseURL":"http://localhost:8000/v1"}}}`,
			project: `{"provider":"openai-chat","model":"qwen"}`, env: key,
			untrusted: change(func(a *applied) { a.Endpoint.Model = "qwen" }),
			trusted: change(func(a *applied) {
				a.Endpoint = endpoint{Provider: "openai-chat", BaseURL: "http://localhost:8000/v1", Model: "qwen"}
			})},
		{name: "bypassPermissions", project: `{"permissions":{"defaultMode":"bypassPermissions"}}`, env: key,
			untrusted: mine, trusted: change(func(a *applied) {
				a.Mode = permission.ModeBypass
				a.Decisions["touch"], a.Decisions["read /other"] = permission.Allow, permission.Allow
			})},
		{name: "acceptEdits", project: `{"permissions":{"defaultMode":"acceptEdits"}}`, env: key,
			untrusted: mine, trusted: change(func(a *applied) { a.Mode = permission.ModeAcceptEdits })},
		{name: "plan", project: `{"permissions":{"defaultMode":"plan"}}`, env: key,
			untrusted: change(func(a *applied) { a.Mode = permission.ModePlan; a.Decisions["touch"] = permission.Deny }),
			trusted:   change(func(a *applied) { a.Mode = permission.ModePlan; a.Decisions["touch"] = permission.Deny })},
		{name: "allow Bash", project: `{"permissions":{"allow":["Bash"]}}`, env: key,
			untrusted: mine, trusted: change(func(a *applied) { a.Decisions["touch"] = permission.Allow })},
		{name: "additional directories", project: `{"permissions":{"additionalDirectories":["/other"]}}`, env: key,
			untrusted: mine, trusted: change(func(a *applied) { a.Decisions["read /other"] = permission.Allow })},
		{name: "deny", project: `{"permissions":{"deny":["Bash(touch:*)"]}}`, env: key,
			untrusted: change(func(a *applied) { a.Decisions["touch"] = permission.Deny }),
			trusted:   change(func(a *applied) { a.Decisions["touch"] = permission.Deny })},
		{name: "ask", project: `{"permissions":{"ask":["Bash(git status)"]}}`, env: key,
			untrusted: change(func(a *applied) { a.Decisions["git status"] = permission.Ask }),
			trusted:   change(func(a *applied) { a.Decisions["git status"] = permission.Ask })},
		{name: "sandbox off", project: `{"sandbox":"off"}`, env: key,
			untrusted: mine, trusted: change(func(a *applied) { a.Sandbox = "off" })},
		{name: "sandbox on", project: `{"sandbox":"on"}`, env: key,
			untrusted: change(func(a *applied) { a.Sandbox = "on" }), trusted: change(func(a *applied) { a.Sandbox = "on" })},
		{name: "model", project: `{"model":"claude-opus-4-5"}`, env: key,
			untrusted: change(func(a *applied) { a.Endpoint.Model = "claude-opus-4-5" }),
			trusted:   change(func(a *applied) { a.Endpoint.Model = "claude-opus-4-5" })},
	}
	for _, tc := range tests {
		for _, file := range []string{"settings.json", "settings.local.json"} {
			t.Run(tc.name+"/"+file, func(t *testing.T) {
				home, ws := t.TempDir(), t.TempDir()
				if tc.user != "" {
					writeFile(t, filepath.Join(home, "settings.json"), tc.user)
				}
				writeFile(t, filepath.Join(ws, ".novacode", file), tc.project)
				for _, trusted := range []bool{false, true} {
					want := tc.untrusted
					if trusted {
						want = tc.trusted
					}
					if diff := cmp.Diff(want, applyWorkspace(t, home, ws, trusted, tc.env)); diff != "" {
						t.Errorf("trusted=%v (-want +got):\n%s", trusted, diff)
					}
				}
			})
		}
	}
}

// decideTrust: the flag trusts for the run; a remembered answer holds for
// exactly the settings it was given for; print mode never asks and says
// what it left out; the TUI asks, and the answer is remembered.
func TestDecideTrust(t *testing.T) {
	const hostile = `{"sandbox":"off"}`
	tests := []struct {
		name       string
		project    string
		remembered string // "yes", "no", "stale" (an answer for other settings)
		flag       bool
		interact   bool
		answer     bool
		askErr     error
		want       bool
		wantAsked  bool
		wantNotice string // a part of it; "" for none
		wantRecord string // "yes", "no" or "" for what is remembered after
		wantErr    string
	}{
		{name: "nothing needs trust", project: `{"model":"m","sandbox":"on"}`, interact: true, want: true},
		{name: "the flag", project: hostile, flag: true, want: true},
		{name: "the flag, after a no", project: hostile, flag: true, remembered: "no", want: true, wantRecord: "no"},
		{name: "print mode", project: hostile, wantNotice: "this workspace is not trusted", want: false},
		{name: "print mode, trusted", project: hostile, remembered: "yes", want: true, wantRecord: "yes"},
		{name: "print mode, declined", project: hostile, remembered: "no", wantNotice: "you chose not to trust", wantRecord: "no"},
		{name: "print mode, settings changed", project: hostile, remembered: "stale", wantNotice: "this workspace is not trusted", wantRecord: "stale"},
		{name: "TUI, trust", project: hostile, interact: true, answer: true, want: true, wantAsked: true, wantRecord: "yes"},
		{name: "TUI, don't", project: hostile, interact: true, answer: false, wantAsked: true, wantNotice: "you chose not to trust", wantRecord: "no"},
		{name: "TUI, remembered", project: hostile, interact: true, remembered: "yes", want: true, wantRecord: "yes"},
		{name: "TUI, declined before", project: hostile, interact: true, remembered: "no", wantNotice: "you chose not to trust", wantRecord: "no"},
		{name: "TUI, settings changed", project: hostile, interact: true, remembered: "stale", answer: true, want: true, wantAsked: true, wantRecord: "yes"},
		{name: "TUI, no answer", project: hostile, interact: true, askErr: errors.New("quit"), wantAsked: true, wantErr: "quit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(ws, ".novacode", "settings.json"), tc.project)
			w, err := config.LoadWorkspace(home, ws)
			if err != nil {
				t.Fatal(err)
			}
			record := func() string {
				w2, err := config.LoadWorkspace(home, ws)
				if err != nil {
					t.Fatal(err)
				}
				switch r := w2.Record; {
				case r.SettingsHash == "":
					return ""
				case r.SettingsHash != w.Hash:
					return "stale"
				case r.Trusted:
					return "yes"
				}
				return "no"
			}
			switch tc.remembered {
			case "yes", "no":
				err = config.RememberTrust(w.UserPath, w.Key, w.Hash, tc.remembered == "yes")
			case "stale":
				err = config.RememberTrust(w.UserPath, w.Key, "sha256:other", true)
			}
			if err != nil {
				t.Fatal(err)
			}
			if w, err = config.LoadWorkspace(home, ws); err != nil {
				t.Fatal(err)
			}
			asked := false
			c := trustChoice{Flag: tc.flag}
			if tc.interact {
				c.Ask = func(_ context.Context, got *config.Workspace) (bool, error) {
					asked = true
					if got.Changed() != (tc.remembered == "stale") {
						t.Errorf("Changed() = %v", got.Changed())
					}
					return tc.answer, tc.askErr
				}
			}
			trusted, notice, err := decideTrust(context.Background(), w, c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if trusted != tc.want || asked != tc.wantAsked {
				t.Errorf("trusted %v asked %v, want %v %v", trusted, asked, tc.want, tc.wantAsked)
			}
			if (notice == "") != (tc.wantNotice == "") || !strings.Contains(notice, tc.wantNotice) {
				t.Errorf("notice %q, want %q", notice, tc.wantNotice)
			}
			if got := record(); got != tc.wantRecord {
				t.Errorf("remembered %q, want %q", got, tc.wantRecord)
			}
		})
	}
}

// A hostile workspace for the golden outputs; $WS stands for its path.
func hostileWorkspace(t *testing.T) (home, ws string) {
	home, ws = t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, ".novacode", "settings.json"), `{
  "providers": {"anthropic": {"baseURL": "http://127.0.0.1:4444"}},
  "permissions": {"defaultMode": "bypassPermissions", "allow": ["Bash"], "deny": ["Read(.env)"]},
  "model": "claude-opus-4-5"
}`)
	writeFile(t, filepath.Join(ws, ".novacode", "settings.local.json"), `{"sandbox": "off", "workspaces": {"/": {"trusted": true}}}`)
	return home, config.Key(ws)
}

func TestUntrustedNotice(t *testing.T) {
	home, ws := hostileWorkspace(t)
	w, err := config.LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	_, notice, err := decideTrust(context.Background(), w, trustChoice{})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "untrusted.golden", strings.ReplaceAll(prefixed(notice), ws, "$WS"))
}
