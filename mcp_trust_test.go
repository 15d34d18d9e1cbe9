package nova_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/mcp/mcptest"
)

// mcpJSON is a configuration file of the given servers.
func mcpJSON(t *testing.T, servers map[string]mcp.ServerConfig) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// states is each server's scope and state, "name scope state".
func states(s *nova.Session) []string {
	var out []string
	for _, st := range s.MCPServers() {
		out = append(out, st.Name+" "+st.Scope+" "+st.State)
	}
	slices.Sort(out)
	return out
}

// settle waits until no server is connecting.
func settle(t *testing.T, s *nova.Session) {
	t.Helper()
	for _, st := range s.MCPServers() {
		waitMCP(t, s, st.Name, "connected", "failed", "disabled")
	}
}

// A cloned repository's .mcp.json starts nothing until the person
// approved its servers: print mode (nobody to ask) says so once; an
// approval is remembered for the definition it was given for, and asked
// again when the repository changes it.
func TestMCPJSONNeedsApproval(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	o := testOptions(t, srv)
	o.InMemory = true
	pidFile := filepath.Join(t.TempDir(), "pids")
	servers := map[string]mcp.ServerConfig{
		"a": testServer(mcptest.ModeTools, map[string]string{mcptest.EnvPIDFile: pidFile}),
		"b": testServer(mcptest.ModeTools, map[string]string{mcptest.EnvPIDFile: pidFile}),
	}
	putFile(t, filepath.Join(o.Dir, ".mcp.json"), mcpJSON(t, servers))
	open := func(approve func(context.Context, []nova.MCPServerInfo) ([]string, error)) *nova.Session {
		t.Helper()
		o.ApproveMCPServers = approve
		s, err := nova.Open(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		settle(t, s)
		return s
	}

	// Nobody to ask: nothing starts, and Notice says so.
	s := open(nil)
	if d := cmp.Diff([]string{"a project disabled", "b project disabled"}, states(s)); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
	wantNotice := "nova: .mcp.json defines servers a, b that you have not approved; run nova (interactive) to approve them, or add them with --mcp-config\n"
	if !strings.Contains(s.Notice(), wantNotice) || strings.Count(s.Notice(), ".mcp.json") != 1 {
		t.Errorf("notice = %q", s.Notice())
	}
	s.Close()
	if _, err := os.Stat(pidFile); err == nil {
		t.Fatalf("a server ran: %s", pidFile)
	}

	// The person approves a, declines b.
	var asked []nova.MCPServerInfo
	s = open(func(_ context.Context, infos []nova.MCPServerInfo) ([]string, error) {
		asked = infos
		return []string{"a"}, nil
	})
	if len(asked) != 2 || asked[0].Name != "a" || asked[0].Transport != "stdio" || asked[0].File != filepath.Join(o.Dir, ".mcp.json") ||
		!strings.Contains(asked[0].Describe, "-test.run=^$") || asked[0].Changed {
		t.Errorf("asked = %+v", asked)
	}
	if d := cmp.Diff([]string{"a project connected", "b project disabled"}, states(s)); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
	if strings.Contains(s.Notice(), ".mcp.json") {
		t.Errorf("notice = %q", s.Notice())
	}
	s.Close()

	// Remembered: nobody is asked, and print mode starts a.
	s = open(nil)
	if d := cmp.Diff([]string{"a project connected", "b project disabled"}, states(s)); d != "" {
		t.Errorf("remembered states (-want +got):\n%s", d)
	}
	if strings.Contains(s.Notice(), ".mcp.json") {
		t.Errorf("notice = %q", s.Notice())
	}
	s.Close()

	// The repository changes what a runs: asked again, for a only.
	changed := servers["a"]
	changed.Args = append(changed.Args, "-test.v")
	servers["a"] = changed
	putFile(t, filepath.Join(o.Dir, ".mcp.json"), mcpJSON(t, servers))
	asked = nil
	s = open(func(_ context.Context, infos []nova.MCPServerInfo) ([]string, error) {
		asked = infos
		return nil, nil
	})
	if len(asked) != 1 || asked[0].Name != "a" || !asked[0].Changed {
		t.Errorf("asked = %+v", asked)
	}
	if d := cmp.Diff([]string{"a project disabled", "b project disabled"}, states(s)); d != "" {
		t.Errorf("states (-want +got):\n%s", d)
	}
}

// What the settings files say about .mcp.json and their own servers: a
// workspace's file may enable servers (or define its own) only once the
// workspace is trusted; it may always disable them; the user's own file
// and --mcp-config are trusted; StrictMCPConfig starts only the latter.
func TestMCPSettingsAndTrust(t *testing.T) {
	tools := testServer(mcptest.ModeTools, nil)
	one := func(name string) string { return mcpJSON(t, map[string]mcp.ServerConfig{name: tools}) }
	servers := func(name string) string { // an "mcpServers" member
		b, _ := json.Marshal(map[string]mcp.ServerConfig{name: tools})
		return string(b)
	}
	tests := []struct {
		name                 string
		user, local, project string // settings files
		mcpJSON              string
		configFile           string // --mcp-config
		strict, trust        bool
		want                 []string
		notice               []string // in Notice
	}{
		{name: "enabled by an untrusted workspace", mcpJSON: one("p"), local: `{"enabledMcpjsonServers":["p"]}`,
			want: []string{"p project disabled"}, notice: []string{"enabledMcpjsonServers", ".mcp.json defines servers p that you have not approved"}},
		{name: "enabled by a trusted workspace", mcpJSON: one("p"), local: `{"enabledMcpjsonServers":["p"]}`, trust: true,
			want: []string{"p project connected"}},
		{name: "all enabled by a trusted workspace", mcpJSON: one("p"), project: `{"enableAllProjectMcpServers":true}`, trust: true,
			want: []string{"p project connected"}},
		{name: "enabled by the user", mcpJSON: one("p"), user: `{"enabledMcpjsonServers":["p"]}`,
			want: []string{"p project connected"}},
		{name: "disabled by an untrusted workspace", mcpJSON: one("p"), user: `{"enableAllProjectMcpServers":true}`, local: `{"disabledMcpjsonServers":["p"]}`,
			want: []string{"p project disabled"}},
		{name: "a workspace's own servers, untrusted", local: `{"mcpServers":` + servers("l") + `}`,
			want: nil, notice: []string{"mcpServers.l", "runs the MCP server l"}},
		{name: "a workspace's own servers, trusted", local: `{"mcpServers":` + servers("l") + `}`, project: `{"mcpServers":` + servers("w") + `}`, trust: true,
			want: []string{"l local connected", "w workspace connected"}},
		{name: "the user's servers", user: `{"mcpServers":` + servers("u") + `}`,
			want: []string{"u user connected"}},
		{name: "--mcp-config", configFile: one("f"), user: `{"mcpServers":` + servers("u") + `}`,
			want: []string{"f flag connected", "u user connected"}},
		{name: "--strict-mcp-config", configFile: one("f"), user: `{"mcpServers":` + servers("u") + `}`, mcpJSON: one("p"), strict: true,
			want: []string{"f flag connected"}},
		{name: "--mcp-config overrides a name", configFile: one("p"), mcpJSON: one("p"),
			want: []string{"p flag connected"}},
		{name: "a bad server is left out", configFile: `{"mcpServers":{"ok":{"command":"` + tools.Command + `","args":["-test.run=^$"],"env":{"NOVA_MCPTEST":"tools"}},"bad":{"type":"http"}}}`,
			want: []string{"ok flag connected"}, notice: []string{`MCP server "bad" left out: it has no "url"`}},
		{name: "a missing variable", configFile: `{"mcpServers":{"v":{"command":"${NOPE_NOT_SET}"}}}`,
			want: []string{"v flag disabled"}, notice: []string{`MCP server "v" not started: environment variable NOPE_NOT_SET is not set`}},
		{name: "a broken .mcp.json", mcpJSON: `{"mcpServers": [`,
			want: nil, notice: []string{".mcp.json: not a JSON object", "its MCP servers were not started"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			o := testOptions(t, srv)
			o.InMemory, o.TrustWorkspace, o.StrictMCPConfig = true, tt.trust, tt.strict
			for path, content := range map[string]string{
				filepath.Join(o.DataDir, "settings.json"):                tt.user,
				filepath.Join(o.Dir, ".novacode", "settings.json"):       tt.project,
				filepath.Join(o.Dir, ".novacode", "settings.local.json"): tt.local,
				filepath.Join(o.Dir, ".mcp.json"):                        tt.mcpJSON,
			} {
				if content != "" {
					putFile(t, path, content)
				}
			}
			if tt.configFile != "" {
				f := filepath.Join(t.TempDir(), "servers.json")
				putFile(t, f, tt.configFile)
				o.MCPConfigFiles = []string{f}
			}
			s, err := nova.Open(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			settle(t, s)
			if d := cmp.Diff(tt.want, states(s)); d != "" {
				t.Errorf("states (-want +got):\n%s", d)
			}
			for _, n := range tt.notice {
				if !strings.Contains(s.Notice(), n) {
					t.Errorf("notice lacks %q:\n%s", n, s.Notice())
				}
			}
		})
	}
}

func TestMCPConfigFileErrors(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	tests := []struct{ name, content, want string }{
		{"missing", "", "MCP config: open"},
		{"not JSON", "{", "MCP config " + "%s: not a JSON object"},
		{"no mcpServers", `{"servers":{}}`, `no "mcpServers" object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions(t, srv)
			o.InMemory = true
			f := filepath.Join(t.TempDir(), "mcp.json")
			if tt.content != "" {
				putFile(t, f, tt.content)
			}
			o.MCPConfigFiles = []string{f}
			_, err := nova.Open(context.Background(), o)
			want := tt.want
			if strings.Contains(want, "%s") {
				want = strings.ReplaceAll(want, "%s", f)
			}
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v, want %q", err, want)
			}
		})
	}
}

func putFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
