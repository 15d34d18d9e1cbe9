package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// A Settings field nobody classified is treated as widening at run time;
// this test makes the omission loud. A new field (hooks, MCP servers, an
// apiKeyHelper) must say here whether a repository may set it.
func TestEverySettingIsClassified(t *testing.T) {
	st := reflect.TypeFor[Settings]()
	for i := range st.NumField() {
		name, _, _ := strings.Cut(st.Field(i).Tag.Get("json"), ",")
		if _, ok := classes[name]; !ok {
			t.Errorf("Settings.%s (%q) has no entry in classes: decide whether a project may set it before trust", st.Field(i).Name, name)
		}
	}
	for path, s := range classes {
		switch s.class {
		case ClassByValue:
			if s.widens == nil || s.says == nil {
				t.Errorf("%s is classified by value but has no widens or says", path)
			}
		case ClassWidening:
			if s.says == nil {
				t.Errorf("%s is widening but does not say what it does", path)
			}
		case ClassMembers:
			n := 0
			for p := range classes {
				if strings.HasPrefix(p, path+".") {
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s is classified member by member but has no members", path)
			}
		}
	}
}

func TestClassOf(t *testing.T) {
	for path, want := range map[string]Class{
		"provider": ClassWidening, "providers": ClassWidening, "permissions.allow": ClassWidening,
		"permissions.additionalDirectories": ClassWidening, "permissions.deny": ClassNarrowing,
		"permissions.ask": ClassNarrowing, "model": ClassNeutral, "sandbox": ClassByValue,
		"permissions.defaultMode": ClassByValue, "workspaces": ClassUserOnly,
		"mcpServers": ClassWidening, "enabledMcpjsonServers": ClassWidening, "disabledMcpjsonServers": ClassNarrowing,
		"enableAllProjectMcpServers": ClassByValue, "mcpToolSearch": ClassNeutral, "autoMemory": ClassNeutral, "hooks": ClassWidening,
	} {
		if got, ok := ClassOf(path); !ok || got != want {
			t.Errorf("ClassOf(%s) = %v, %v; want %v", path, got, ok, want)
		}
	}
	if _, ok := ClassOf("modle"); ok {
		t.Error("an unknown key has a class")
	}
}

// applied is what a run would apply from the files: the merged settings
// and the permission members the rule parser reads (exact keys).
type applied struct {
	Settings    Settings
	Permissions map[string][]string
	MCPServers  []string // each file's, read per file
	Hooks       []string // each file's, read per file
}

func appliedOf(s Settings, files []File) applied {
	a := applied{Settings: s, Permissions: map[string][]string{}}
	a.Settings.Workspaces = nil
	for _, f := range files {
		if len(f.Settings.MCPServers) > 0 {
			a.MCPServers = append(a.MCPServers, compact(f.Settings.MCPServers))
		}
		if len(f.Settings.Hooks) > 0 {
			b, _ := json.Marshal(f.Settings.Hooks)
			a.Hooks = append(a.Hooks, string(b))
		}
		ms, _ := members(f.Data)
		for _, m := range ms {
			if leaf, ok := strings.CutPrefix(m.path, "permissions."); ok && m.exact {
				a.Permissions[leaf] = append(a.Permissions[leaf], compact(m.value))
			}
		}
	}
	return a
}

func loadWS(t *testing.T, user, project, local string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	paths := Paths(home, ws)
	for i, content := range []string{user, project, local} {
		if content != "" {
			write(t, paths[i], content)
		}
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Each setting of a project-level file, from the project's file and from
// the local one alike: widening ones apply only with trust, the rest
// always.
func TestProjectSettingsBeforeAndAfterTrust(t *testing.T) {
	type want struct {
		untrusted, trusted applied
		widening           []string // Setting of each Widening
	}
	none := applied{Permissions: map[string][]string{}}
	with := func(f func(*applied)) applied {
		a := applied{Permissions: map[string][]string{}}
		f(&a)
		return a
	}
	perm := func(k string, v ...string) applied {
		return with(func(a *applied) { a.Permissions[k] = v })
	}
	tests := []struct {
		name    string
		user    string
		project string
		want    want
	}{
		{name: "provider", project: `{"provider":"openai"}`,
			want: want{none, with(func(a *applied) { a.Settings.Provider = ptr("openai") }), []string{"provider"}}},
		{name: "provider over the user's", user: `{"provider":"anthropic"}`, project: `{"provider":"openai"}`,
			want: want{with(func(a *applied) { a.Settings.Provider = ptr("anthropic") }), with(func(a *applied) { a.Settings.Provider = ptr("openai") }), []string{"provider"}}},
		{name: "base URL", user: `{"providers":{"anthropic":{"baseURL":"http://mine"}}}`, project: `{"providers":{"anthropic":{"baseURL":"http://theirs"}}}`,
			want: want{
				with(func(a *applied) { a.Settings.Providers = map[string]Endpoint{"anthropic": {BaseURL: "http://mine"}} }),
				with(func(a *applied) { a.Settings.Providers = map[string]Endpoint{"anthropic": {BaseURL: "http://theirs"}} }),
				[]string{"providers.anthropic.baseURL"}}},
		{name: "API key", project: `{"providers":{"openai-chat":{"apiKey":"theirs"}}}`,
			want: want{none, with(func(a *applied) { a.Settings.Providers = map[string]Endpoint{"openai-chat": {APIKey: "theirs"}} }), []string{"providers.openai-chat.apiKey"}}},
		{name: "allow", project: `{"permissions":{"allow":["Bash","Edit(src/**)"]}}`,
			want: want{none, perm("allow", `["Bash","Edit(src/**)"]`), []string{"permissions.allow", "permissions.allow"}}},
		{name: "additional directories", project: `{"permissions":{"additionalDirectories":["/"]}}`,
			want: want{none, perm("additionalDirectories", `["/"]`), []string{"permissions.additionalDirectories"}}},
		{name: "bypassPermissions", project: `{"permissions":{"defaultMode":"bypassPermissions"}}`,
			want: want{none, perm("defaultMode", `"bypassPermissions"`), []string{"permissions.defaultMode"}}},
		{name: "acceptEdits", project: `{"permissions":{"defaultMode":"acceptEdits"}}`,
			want: want{none, perm("defaultMode", `"acceptEdits"`), []string{"permissions.defaultMode"}}},
		{name: "an unknown mode", project: `{"permissions":{"defaultMode":"yolo"}}`,
			want: want{none, perm("defaultMode", `"yolo"`), []string{"permissions.defaultMode"}}},
		{name: "default looser than the user's plan", user: `{"permissions":{"defaultMode":"plan"}}`, project: `{"permissions":{"defaultMode":"default"}}`,
			want: want{perm("defaultMode", `"plan"`), perm("defaultMode", `"plan"`, `"default"`), []string{"permissions.defaultMode"}}},
		{name: "plan", project: `{"permissions":{"defaultMode":"plan"}}`,
			want: want{perm("defaultMode", `"plan"`), perm("defaultMode", `"plan"`), nil}},
		{name: "default", user: `{"permissions":{"defaultMode":"acceptEdits"}}`, project: `{"permissions":{"defaultMode":"default"}}`,
			want: want{perm("defaultMode", `"acceptEdits"`, `"default"`), perm("defaultMode", `"acceptEdits"`, `"default"`), nil}},
		{name: "acceptEdits under the user's bypassPermissions", user: `{"permissions":{"defaultMode":"bypassPermissions"}}`, project: `{"permissions":{"defaultMode":"acceptEdits"}}`,
			want: want{perm("defaultMode", `"bypassPermissions"`, `"acceptEdits"`), perm("defaultMode", `"bypassPermissions"`, `"acceptEdits"`), nil}},
		// The permission layer does not fold case: a user's "DefaultMode"
		// sets nothing, so it cannot make a project's mode narrowing.
		{name: "a user's mode under a folded key", user: `{"permissions":{"DefaultMode":"bypassPermissions"}}`, project: `{"permissions":{"defaultMode":"acceptEdits"}}`,
			want: want{none, perm("defaultMode", `"acceptEdits"`), []string{"permissions.defaultMode"}}},
		{name: "ask and deny", project: `{"permissions":{"ask":["Bash(git push:*)"],"deny":["Read(.env)"]}}`,
			want: want{
				with(func(a *applied) {
					a.Permissions["ask"] = []string{`["Bash(git push:*)"]`}
					a.Permissions["deny"] = []string{`["Read(.env)"]`}
				}),
				with(func(a *applied) {
					a.Permissions["ask"] = []string{`["Bash(git push:*)"]`}
					a.Permissions["deny"] = []string{`["Read(.env)"]`}
				}),
				nil}},
		{name: "sandbox off", project: `{"sandbox":"off"}`,
			want: want{none, with(func(a *applied) { a.Settings.Sandbox = ptr("off") }), []string{"sandbox"}}},
		{name: "sandbox OFF", project: `{"sandbox":" OFF "}`,
			want: want{none, with(func(a *applied) { a.Settings.Sandbox = ptr(" OFF ") }), []string{"sandbox"}}},
		{name: "sandbox unknown", project: `{"sandbox":"maybe"}`,
			want: want{none, with(func(a *applied) { a.Settings.Sandbox = ptr("maybe") }), []string{"sandbox"}}},
		{name: "sandbox on", project: `{"sandbox":"on"}`,
			want: want{with(func(a *applied) { a.Settings.Sandbox = ptr("on") }), with(func(a *applied) { a.Settings.Sandbox = ptr("on") }), nil}},
		{name: "sandbox auto", project: `{"sandbox":"auto"}`,
			want: want{with(func(a *applied) { a.Settings.Sandbox = ptr("auto") }), with(func(a *applied) { a.Settings.Sandbox = ptr("auto") }), nil}},
		{name: "sandbox auto under the user's on", user: `{"sandbox":"on"}`, project: `{"sandbox":"auto"}`,
			want: want{with(func(a *applied) { a.Settings.Sandbox = ptr("on") }), with(func(a *applied) { a.Settings.Sandbox = ptr("auto") }), []string{"sandbox"}}},
		{name: "sandbox empty under the user's on", user: `{"sandbox":"on"}`, project: `{"sandbox":""}`,
			want: want{with(func(a *applied) { a.Settings.Sandbox = ptr("on") }), with(func(a *applied) { a.Settings.Sandbox = ptr("") }), []string{"sandbox"}}},
		{name: "web search off", project: `{"webSearch":false}`,
			want: want{with(func(a *applied) { a.Settings.WebSearch = new(false) }), with(func(a *applied) { a.Settings.WebSearch = new(false) }), nil}},
		{name: "web search on, the default", project: `{"webSearch":true}`,
			want: want{with(func(a *applied) { a.Settings.WebSearch = new(true) }), with(func(a *applied) { a.Settings.WebSearch = new(true) }), nil}},
		{name: "web search on where the user turned it off", user: `{"webSearch":false}`, project: `{"webSearch":true}`,
			want: want{with(func(a *applied) { a.Settings.WebSearch = new(false) }), with(func(a *applied) { a.Settings.WebSearch = new(true) }), []string{"webSearch"}}},
		{name: "neutral", project: `{"model":"m","contextWindow":1000,"maxOutputTokens":10,"compactThreshold":500,"prices":{"m":{"input":1}},
			"thinking":{"effort":"high"},"maxRetries":1,"timeouts":{"idle":"5s"},"$schema":"x"}`,
			want: want{all(), all(), nil}},
		// encoding/json matches keys to fields without regard to case, so
		// the classification does too.
		{name: "folded keys", project: `{"SANDBOX":"off","ſandbox":"off","Provider":"openai","s\u0061ndbox":"off"}`,
			want: want{none, with(func(a *applied) { a.Settings.Sandbox = ptr("off"); a.Settings.Provider = ptr("openai") }), []string{"sandbox", "sandbox", "provider", "sandbox"}}},
		{name: "repeated key", project: `{"sandbox":"on","sandbox":"off"}`,
			want: want{with(func(a *applied) { a.Settings.Sandbox = ptr("on") }), with(func(a *applied) { a.Settings.Sandbox = ptr("off") }), []string{"sandbox"}}},
		{name: "null sets nothing", project: `{"sandbox":null,"providers":null,"permissions":{"allow":null}}`,
			want: want{perm("allow", "null"), perm("allow", "null"), nil}},
		{name: "workspaces is never a project's", project: `{"workspaces":{"/x":{"trusted":true}}}`,
			want: want{none, none, nil}},
		{name: "MCP servers", project: `{"mcpServers":{"db":{"command":"pg-mcp"},"web":{"type":"http","url":"https://x"}}}`,
			want: want{none, with(func(a *applied) {
				a.MCPServers = []string{`{"db":{"command":"pg-mcp"},"web":{"type":"http","url":"https://x"}}`}
			}), []string{"mcpServers.db", "mcpServers.web"}}},
		// Hooks run programs: every command waits for trust, and the
		// user's own hooks stay beside the project's.
		{name: "hooks", user: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}`,
			project: `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh","timeout":5},{"type":"command","command":"./log.sh"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"cat notes"}]}]}}`,
			want: want{
				with(func(a *applied) {
					a.Hooks = []string{`{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}`}
				}),
				with(func(a *applied) {
					a.Hooks = []string{`{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}`,
						`{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh","timeout":5},{"type":"command","command":"./log.sh"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"cat notes"}]}]}`}
				}),
				[]string{"hooks.PreToolUse", "hooks.PreToolUse", "hooks.SessionStart"}}},
		{name: ".mcp.json servers enabled by the project", project: `{"enabledMcpjsonServers":["db"],"enableAllProjectMcpServers":true}`,
			want: want{none, with(func(a *applied) {
				a.Settings.EnabledMcpjsonServers = []string{"db"}
				a.Settings.EnableAllProjectMcpServers = new(true)
			}), []string{"enabledMcpjsonServers", "enableAllProjectMcpServers"}}},
		{name: ".mcp.json servers disabled by the project", user: `{"disabledMcpjsonServers":["a"]}`, project: `{"disabledMcpjsonServers":["db"],"enableAllProjectMcpServers":false,"mcpToolSearch":"always"}`,
			want: want{with(func(a *applied) {
				a.Settings.DisabledMcpjsonServers = []string{"a", "db"}
				a.Settings.EnableAllProjectMcpServers = new(false)
				a.Settings.MCPToolSearch = ptr("always")
			}), with(func(a *applied) {
				a.Settings.DisabledMcpjsonServers = []string{"a", "db"}
				a.Settings.EnableAllProjectMcpServers = new(false)
				a.Settings.MCPToolSearch = ptr("always")
			}), nil}},
	}
	for _, tc := range tests {
		for _, layer := range []string{"project", "local"} {
			t.Run(layer+"/"+tc.name, func(t *testing.T) {
				project, local := tc.project, ""
				if layer == "local" {
					project, local = "", tc.project
				}
				w := loadWS(t, tc.user, project, local)
				var got []string
				for _, x := range w.Widening {
					got = append(got, x.Setting)
					if x.Says == "" || !strings.HasSuffix(x.File, ".json") {
						t.Errorf("widening %+v does not say what it does or where it is", x)
					}
				}
				if diff := cmp.Diff(tc.want.widening, got); diff != "" {
					t.Errorf("widening settings (-want +got):\n%s", diff)
				}
				if (w.Hash != "") != (len(got) > 0) || w.NeedsTrust() != (len(got) > 0) {
					t.Errorf("hash %q, needs trust %v for %d widening settings", w.Hash, w.NeedsTrust(), len(got))
				}
				for _, trusted := range []bool{false, true} {
					s, files := w.Resolve(trusted)
					a := appliedOf(s, files)
					want := tc.want.untrusted
					if trusted {
						want = tc.want.trusted
					}
					if diff := cmp.Diff(want, a, cmpopts.EquateEmpty()); diff != "" {
						t.Errorf("trusted=%v: applied (-want +got):\n%s", trusted, diff)
					}
					if s.Workspaces != nil {
						t.Errorf("trusted=%v: a project set workspaces: %v", trusted, s.Workspaces)
					}
				}
			})
		}
	}
}

func all() applied {
	return applied{Permissions: map[string][]string{}, Settings: Settings{
		Model: ptr("m"), ContextWindow: ptr(1000), MaxOutputTokens: ptr(10), CompactThreshold: ptr(500),
		Prices: map[string]Price{"m": {Input: 1}}, Thinking: &Thinking{Effort: "high"}, MaxRetries: ptr(1),
		Timeouts: &Timeouts{Idle: Duration{5e9}},
	}}
}

// A withheld member leaves every other byte where it was, so the rule
// parser still reports the rest by line and column; a project's
// "workspaces" is reported.
func TestWithheldMembersKeepPositions(t *testing.T) {
	project := "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash\"\n    ],\n    \"deny\": [\"Read(.env)\"]\n  },\n  \"workspaces\": {}, \"sandbox\": \"off\"\n}\n"
	w := loadWS(t, "", project, "")
	_, files := w.Resolve(false)
	got := files[0]
	if len(got.Data) != len(project) || bytes.Count(got.Data, []byte("\n")) != strings.Count(project, "\n") {
		t.Fatalf("shape changed:\n%s", got.Data)
	}
	if i := strings.Index(project, `"Read(.env)"`); !bytes.HasPrefix(got.Data[i:], []byte(`"Read(.env)"`)) {
		t.Fatalf("the deny rule moved:\n%s", got.Data)
	}
	for _, gone := range []string{"Bash", "off", "workspaces"} {
		if bytes.Contains(got.Data, []byte(gone)) {
			t.Errorf("%q is still in the applied file:\n%s", gone, got.Data)
		}
	}
	if diff := cmp.Diff([]string{"workspaces"}, got.Ignored); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
	if len(got.Unknown) != 0 {
		t.Errorf("unknown keys %v", got.Unknown)
	}
}

func TestWideningSaysWhatItDoes(t *testing.T) {
	w := loadWS(t, "", `{"providers":{"anthropic":{"baseURL":"http://127.0.0.1:9/x","apiKey":"sk-theirs"}},
		"permissions":{"defaultMode":"bypassPermissions","allow":["Bash","Read(~/**)"],"additionalDirectories":["/"]},"sandbox":"off"}`, "")
	var got []string
	for _, x := range w.Widening {
		got = append(got, fmt.Sprintf("%s %s: %s", x.Setting, x.Value, x.Says))
	}
	want := []string{
		`providers.anthropic.apiKey "…": uses an API key of its choosing for anthropic: your prompts go to that key's account`,
		`providers.anthropic.baseURL "http://127.0.0.1:9/x": sends requests (and your API key) to http://127.0.0.1:9/x`,
		`permissions.defaultMode "bypassPermissions": lets every command run without asking (bypassPermissions)`,
		`permissions.allow "Bash": lets every command run without asking`,
		`permissions.allow "Read(~/**)": lets Read(~/**) run without asking`,
		`permissions.additionalDirectories "/": opens / to tools and commands as if it were part of the workspace`,
		`sandbox "off": runs commands outside the OS sandbox`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	for _, x := range w.Widening {
		if strings.Contains(x.Value, "sk-theirs") {
			t.Errorf("an API key is shown: %+v", x)
		}
	}
}

func TestMCPWideningSaysWhatItDoes(t *testing.T) {
	w := loadWS(t, "", "", `{"mcpServers":{"db":{"command":"npx","args":["-y","pg-mcp","--write"]},"api":{"type":"http","url":"https://mcp.example.com","headers":{"Authorization":"Bearer x"}}},
		"enabledMcpjsonServers":["github"],"enableAllProjectMcpServers":true}`)
	var got []string
	for _, x := range w.Widening {
		got = append(got, fmt.Sprintf("%s: %s", x.Setting, x.Says))
	}
	want := []string{
		"mcpServers.api: connects to the MCP server api at https://mcp.example.com, with the headers it defines",
		"mcpServers.db: runs the MCP server db: npx -y pg-mcp --write",
		"enabledMcpjsonServers: starts the MCP server github of the project's .mcp.json, whatever it runs, without asking you",
		"enableAllProjectMcpServers: starts every MCP server the project's .mcp.json defines, now or after it changes, without asking you",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

func TestHooksWideningSaysWhatItDoes(t *testing.T) {
	w := loadWS(t, "", "", `{"hooks":{"PreToolUse":[{"matcher":"Bash|Edit","hooks":[{"type":"command","command":"$NOVA_PROJECT_DIR/.novacode/hooks/check.sh"}]}],
		"PostToolUse":[{"hooks":[{"type":"command","command":"gofmt -w ."}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"date"}]}]}}`)
	var got []string
	for _, x := range w.Widening {
		got = append(got, fmt.Sprintf("%s %s: %s", x.Setting, x.Value, x.Says))
	}
	want := []string{
		`hooks.PostToolUse "gofmt -w .": runs gofmt -w . after every tool call, outside the sandbox, with your environment`,
		`hooks.PreToolUse "$NOVA_PROJECT_DIR/.novacode/hooks/check.sh": runs $NOVA_PROJECT_DIR/.novacode/hooks/check.sh before each call of Bash|Edit, and may approve, block or change it, outside the sandbox, with your environment`,
		`hooks.UserPromptSubmit "date": runs date with every prompt you send, outside the sandbox, with your environment`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}

// Answers about .mcp.json servers sit in the workspace's record beside
// the trust answer and the "allow always" rules; new answers keep the old.
func TestRememberMCP(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	if err := RememberAllow(w.UserPath, w.Key, []string{"Bash(make)"}); err != nil {
		t.Fatal(err)
	}
	if err := RememberMCP(w.UserPath, w.Key, map[string]MCPAnswer{"a": {Approved: true, Hash: "h1"}, "b": {Hash: "h2"}}); err != nil {
		t.Fatal(err)
	}
	if err := RememberMCP(w.UserPath, w.Key, map[string]MCPAnswer{"b": {Approved: true, Hash: "h3"}}); err != nil {
		t.Fatal(err)
	}
	w, err = LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := WorkspaceRecord{Allow: []string{"Bash(make)"}, MCPServers: map[string]MCPAnswer{"a": {Approved: true, Hash: "h1"}, "b": {Approved: true, Hash: "h3"}}}
	if diff := cmp.Diff(want, w.Record); diff != "" {
		t.Fatalf("record (-want +got):\n%s", diff)
	}
}

// The hash covers what needs trust and nothing else: a trust answer holds
// while that part is unchanged and is asked again when it changes.
func TestHashNamesTheWideningPart(t *testing.T) {
	base := loadWS(t, "", `{"permissions":{"allow":["Bash(npm test)"]},"model":"a"}`, "")
	tests := []struct {
		name, project, local string
		same                 bool
	}{
		{"reformatted", "{\n \"permissions\": {\"allow\": [ \"Bash(npm test)\" ]}, \"model\": \"a\"}", "", true},
		{"neutral and narrowing changes", `{"permissions":{"allow":["Bash(npm test)"],"deny":["Bash(rm:*)"]},"model":"b","sandbox":"on"}`, "", true},
		{"another rule", `{"permissions":{"allow":["Bash(npm test)","Bash"]}}`, "", false},
		{"bypassPermissions added", `{"permissions":{"allow":["Bash(npm test)"],"defaultMode":"bypassPermissions"}}`, "", false},
		{"moved to the local file", "", `{"permissions":{"allow":["Bash(npm test)"]}}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := loadWS(t, "", tc.project, tc.local)
			if (w.Hash == base.Hash) != tc.same {
				t.Fatalf("hash %s vs %s, want same=%v", w.Hash, base.Hash, tc.same)
			}
		})
	}
	if w := loadWS(t, "", `{"model":"a","permissions":{"deny":["Bash"]}}`, ""); w.Hash != "" || w.NeedsTrust() {
		t.Fatalf("nothing to trust, but hash %q", w.Hash)
	}
}

// The answer is remembered in the user's file for the widening part's hash;
// "allow always" rules sit beside it; everything else in the file stays as
// written.
func TestRememberTrustAndAllow(t *testing.T) {
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	project := write(t, filepath.Join(ws, ".novacode", "settings.json"), `{"sandbox":"off"}`)
	userFile := write(t, filepath.Join(home, "settings.json"), "{\n  \"model\": \"mine\",\n  \"providers\": {\"anthropic\": {\"apiKey\": \"k\"}}\n}\n")
	w, err := LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Remembered(); ok || w.Changed() {
		t.Fatal("an answer is remembered before any was given")
	}
	if err := RememberAllow(w.UserPath, w.Key, []string{"Bash(go test:*)"}); err != nil {
		t.Fatal(err)
	}
	if err := RememberTrust(w.UserPath, w.Key, w.Hash, false); err != nil {
		t.Fatal(err)
	}
	if err := RememberAllow(w.UserPath, w.Key, []string{"Bash(go test:*)", "Edit(/a.go)"}); err != nil {
		t.Fatal(err)
	}
	w, err = LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	want := WorkspaceRecord{SettingsHash: w.Hash, Trusted: false, Allow: []string{"Bash(go test:*)", "Edit(/a.go)"}}
	if diff := cmp.Diff(want, w.Record); diff != "" {
		t.Fatalf("record (-want +got):\n%s", diff)
	}
	if trusted, ok := w.Remembered(); !ok || trusted {
		t.Fatalf("remembered %v, %v; want not trusted", trusted, ok)
	}
	if err := RememberTrust(w.UserPath, w.Key, w.Hash, true); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(userFile)
	wantFile := "{\n  \"model\": \"mine\",\n  \"providers\": {\"anthropic\": {\"apiKey\": \"k\"}},\n  \"workspaces\": {\n    " +
		fmt.Sprintf("%q", w.Key) + ": {\n      \"allow\": [\n        \"Bash(go test:*)\",\n        \"Edit(/a.go)\"\n      ],\n      \"settingsHash\": " +
		fmt.Sprintf("%q", w.Hash) + ",\n      \"trusted\": true\n    }\n  }\n}\n"
	if diff := cmp.Diff(wantFile, string(data)); diff != "" {
		t.Fatalf("user file (-want +got):\n%s", diff)
	}
	// The project changes what it wants: the answer no longer holds.
	write(t, project, `{"sandbox":"off","permissions":{"defaultMode":"bypassPermissions"}}`)
	w, err = LoadWorkspace(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.Remembered(); ok || !w.Changed() {
		t.Fatal("a changed widening part kept its answer")
	}
	// The "allow always" rules are the person's and stay.
	if len(w.Record.Allow) != 2 {
		t.Fatalf("record %+v", w.Record)
	}
}

// A workspace reached through a symlink is the same workspace, and a
// symlinked user file (a dotfiles checkout) stays a symlink.
func TestWorkspaceKeyAndSymlinkedUserFile(t *testing.T) {
	dir := t.TempDir()
	real, link := filepath.Join(dir, "real"), filepath.Join(dir, "link")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if Key(link) != Key(real) {
		t.Fatalf("Key(%s) = %s, Key(%s) = %s", link, Key(link), real, Key(real))
	}
	dotfile := write(t, filepath.Join(dir, "dotfiles", "nova.json"), `{"model":"m"}`)
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dotfile, filepath.Join(home, "settings.json")); err != nil {
		t.Fatal(err)
	}
	if err := RememberAllow(filepath.Join(home, "settings.json"), Key(real), []string{"Read"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(home, "settings.json")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v", err)
	}
	if data, _ := os.ReadFile(dotfile); !bytes.Contains(data, []byte(`"Read"`)) || !bytes.Contains(data, []byte(`"model": "m"`)) {
		t.Fatalf("dotfile:\n%s", data)
	}
}

// Updates from several processes at once (here goroutines, each with its
// own lock) all land.
func TestConcurrentUpdatesAllLand(t *testing.T) {
	userFile := filepath.Join(t.TempDir(), "settings.json")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			errs <- RememberAllow(userFile, fmt.Sprintf("/ws%d", i%4), []string{fmt.Sprintf("Bash(job %d)", i)})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var got Settings
	data, _ := os.ReadFile(userFile)
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rec := range got.Workspaces {
		n += len(rec.Allow)
	}
	if n != 16 {
		t.Fatalf("%d of 16 rules landed:\n%s", n, data)
	}
}

func TestRememberRefusesABrokenUserFile(t *testing.T) {
	for _, content := range []string{`[1,2]`, `{"workspaces": 3}`, `{"workspaces": {"/w": []}}`, `{"model": `} {
		p := write(t, filepath.Join(t.TempDir(), "settings.json"), content)
		if err := RememberTrust(p, "/w", "h", true); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming the file", content, err)
		}
		if data, _ := os.ReadFile(p); string(data) != content {
			t.Errorf("%s: the file was changed to %s", content, data)
		}
	}
}

// What the repository wrote reaches the person's terminal only as text: no
// escape sequence, line break or bidirectional override survives into
// what the dialog and the notice show.
func TestWideningIsShownAsText(t *testing.T) {
	w := loadWS(t, "", `{"providers":{"anthropic\u001b[2J":{"baseURL":"http://x\u001b[8m\nall good\u202e"}},"permissions":{"allow":["Bash(\u0007ls)"]}}`, "")
	if len(w.Widening) != 2 {
		t.Fatalf("widening %+v", w.Widening)
	}
	for _, x := range w.Widening {
		for _, s := range []string{x.Setting, x.Value, x.Says} {
			if strings.IndexFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f || r == '\u202e' }) >= 0 {
				t.Errorf("%q reaches the terminal", s)
			}
		}
	}
	if got := w.Widening[0].Says; got != `sends requests (and your API key) to http://x\u001b[8m\u000aall good\u202e` {
		t.Errorf("says %q", got)
	}
}

// Run in the home directory, the workspace's .novacode/settings.json is
// the user's own file: nothing in it waits for trust.
func TestHomeDirectoryAsWorkspace(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".novacode", "settings.json"), `{"sandbox":"off","permissions":{"allow":["Bash"]}}`)
	w, err := LoadWorkspace(filepath.Join(home, ".novacode"), home)
	if err != nil {
		t.Fatal(err)
	}
	s, files := w.Resolve(false)
	if w.NeedsTrust() || len(files) != 1 || files[0].Layer != LayerUser || deref(s.Sandbox) != "off" {
		t.Fatalf("needs trust %v, files %+v", w.NeedsTrust(), files)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
