package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/cobra"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/mcp/mcptest"
)

func TestMain(m *testing.M) {
	mcptest.MainIfServer() // this test binary re-run as an MCP server
	os.Exit(m.Run())
}

func TestMCPAddFlags(t *testing.T) {
	tests := []struct {
		args    []string
		want    MCPAddOptions
		wantErr string
	}{
		{args: []string{"fs", "--", "npx", "-y", "@modelcontextprotocol/server-filesystem", "/notes"},
			want: MCPAddOptions{Name: "fs", Scope: "local", Server: nova.MCPServerConfig{Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/notes"}}}},
		{args: []string{"fs", "npx"}, want: MCPAddOptions{Name: "fs", Scope: "local", Server: nova.MCPServerConfig{Command: "npx", Args: []string{}}}},
		{args: []string{"--scope", "user", "-e", "A=1", "-e", "B=x=y", "--env", "A=2", "--cwd", "/w", "db", "--", "pg-mcp"},
			want: MCPAddOptions{Name: "db", Scope: "user", Cwd: "/w", Server: nova.MCPServerConfig{Command: "pg-mcp", Args: []string{}, Env: map[string]string{"A": "2", "B": "x=y"}}}},
		{args: []string{"--transport", "http", "-H", "Authorization: Bearer ${T}", "--header", "X-Team:core", "issues", "https://mcp.example.com/mcp"},
			want: MCPAddOptions{Name: "issues", Scope: "local", Server: nova.MCPServerConfig{Type: "http", URL: "https://mcp.example.com/mcp",
				Headers: map[string]string{"Authorization": "Bearer ${T}", "X-Team": "core"}}}},
		{args: []string{"-t", "sse", "-s", "project", "legacy", "--", "http://localhost:3001/sse"},
			want: MCPAddOptions{Name: "legacy", Scope: "project", Server: nova.MCPServerConfig{Type: "sse", URL: "http://localhost:3001/sse"}}},
		{args: []string{"fs"}, wantErr: "say what to run: nova mcp add NAME -- COMMAND"},
		{args: []string{"fs", "--"}, wantErr: "say what to run"},
		{args: []string{}, wantErr: "requires at least 1 arg"},
		{args: []string{"--scope", "global", "fs", "--", "x"}, wantErr: `--scope must be user, project or local, not "global"`},
		{args: []string{"--transport", "ws", "a", "b"}, wantErr: `--transport must be stdio, http or sse, not "ws"`},
		{args: []string{"--transport", "http", "a"}, wantErr: "an http server takes one URL after its name"},
		{args: []string{"--transport", "http", "a", "u1", "u2"}, wantErr: "an http server takes one URL after its name"},
		{args: []string{"--transport", "http", "-e", "A=1", "a", "https://x"}, wantErr: "-e sets the environment of a stdio server"},
		{args: []string{"-H", "X: y", "a", "--", "cmd"}, wantErr: "-H sets headers of an HTTP server"},
		{args: []string{"-e", "novalue", "a", "--", "x"}, wantErr: `-e takes KEY=VALUE, not "novalue"`},
		{args: []string{"-e", "=v", "a", "--", "x"}, wantErr: `-e takes KEY=VALUE, not "=v"`},
		{args: []string{"-t", "http", "-H", "no colon", "a", "https://x"}, wantErr: `-H takes 'Name: value', not "no colon"`},
		{args: []string{"-t", "http", "-H", "Two words: v", "a", "https://x"}, wantErr: `-H takes 'Name: value'`},
		{args: []string{"a", "b", "--", "c"}, wantErr: "one name goes before --, not 2: a b"},
		{args: []string{"fs", "npx", "-y", "pkg"}, wantErr: "unknown shorthand flag: 'y' in -y (the server's command and its arguments go after --"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *MCPAddOptions
			cmd := newCmdMCPAdd(ios, func(_ context.Context, o *MCPAddOptions) error { got = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *got, cmpopts.IgnoreFields(MCPAddOptions{}, "IO"), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("options (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMCPRemoveGetListFlags(t *testing.T) {
	run := func(cmd *cobra.Command, args ...string) error {
		cmd.SetArgs(append([]string{}, args...)) // nil would be os.Args
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		return cmd.Execute()
	}
	ios, _, _, _ := iostreams.Test()
	var rm *MCPRemoveOptions
	rmCmd := func() *cobra.Command {
		return newCmdMCPRemove(ios, func(_ context.Context, o *MCPRemoveOptions) error { rm = o; return nil })
	}
	if err := run(rmCmd(), "db", "--scope", "project", "--cwd", "/w"); err != nil || rm.Name != "db" || rm.Scope != "project" || rm.Cwd != "/w" {
		t.Errorf("remove: %+v, %v", rm, err)
	}
	if err := run(rmCmd(), "db"); err != nil || rm.Scope != "" {
		t.Errorf("remove without scope: %+v, %v", rm, err)
	}
	if err := run(rmCmd(), "db", "-s", "everywhere"); err == nil || !strings.Contains(err.Error(), `--scope must be user, project or local, not "everywhere"`) {
		t.Errorf("remove bad scope: %v", err)
	}
	if err := run(rmCmd()); err == nil || !strings.Contains(err.Error(), "accepts 1 arg") {
		t.Errorf("remove without a name: %v", err)
	}

	var get *MCPGetOptions
	getCmd := newCmdMCPGet(ios, func(_ context.Context, o *MCPGetOptions) error { get = o; return nil })
	if err := run(getCmd, "--json", "web"); err != nil || get.Name != "web" || !get.JSON {
		t.Errorf("get: %+v, %v", get, err)
	}
	var list *MCPListOptions
	listCmd := newCmdMCPList(ios, func(_ context.Context, o *MCPListOptions) error { list = o; return nil })
	if err := run(listCmd, "--json", "--cwd", "/w"); err != nil || !list.JSON || list.Cwd != "/w" {
		t.Errorf("list: %+v, %v", list, err)
	}
	if err := run(newCmdMCPList(ios, nil), "extra"); err == nil {
		t.Error("list took an argument")
	}
}

// nova mcp add, list, get and remove against a temporary NOVA_HOME and
// workspace: a stdio server (this test binary), an HTTP one with a bearer
// token from the environment, one that exits at start and a .mcp.json
// server of the repository's, not approved.
func TestMCPCommands(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("NOVA_HOME", home)
	t.Setenv("MCPTEST_TOKEN", "s3cret")
	web := httptest.NewServer(mcptest.HTTPHandler(false, "s3cret"))
	defer web.Close()
	writeFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers": {"repo": {"command": "repo-server", "args": ["--port", "1"]}}}`)
	self, args, env := mcptest.Command(mcptest.ModeTools)
	exitEnv := "NOVA_MCPTEST=" + mcptest.ModeExit

	var out strings.Builder
	nova := func(wantCode int, args ...string) string {
		t.Helper()
		ios, _, stdout, stderr := iostreams.Test()
		full := append([]string{args[0], args[1], "--cwd", ws}, args[2:]...)
		if code := Run(context.Background(), ios, full); code != wantCode {
			t.Fatalf("%v: exit %d, want %d: %s%s", args, code, wantCode, stdout, stderr)
		}
		var quoted []string
		for _, a := range args {
			quoted = append(quoted, shellQuote(a))
		}
		out.WriteString("$ nova " + strings.Join(quoted, " ") + "\n" + stdout.String() + stderr.String())
		return stdout.String()
	}
	addArgs := []string{"mcp", "add", "--scope", "user"}
	for k, v := range env {
		addArgs = append(addArgs, "-e", k+"="+v)
	}
	nova(0, append(append(addArgs, "tools", "--", self), args...)...)
	nova(0, "mcp", "add", "-s", "local", "-e", exitEnv, "exits", "--", self, "-test.run=^$")
	nova(0, "mcp", "add", "--transport", "http", "-H", "Authorization: Bearer ${MCPTEST_TOKEN}", "web", web.URL)
	nova(1, "mcp", "add", "--transport", "http", "web", web.URL)
	nova(0, "mcp", "list")
	nova(0, "mcp", "get", "web")
	var got map[string]any
	if err := json.Unmarshal([]byte(nova(0, "mcp", "get", "--json", "tools")), &got); err != nil {
		t.Fatal(err)
	}
	if got["state"] != "connected" || len(got["tools"].([]any)) != 8 || got["config"].(map[string]any)["command"] != self {
		t.Errorf("get --json: %v", got)
	}
	nova(1, "mcp", "get", "nope")
	nova(0, "mcp", "remove", "web")
	nova(0, "mcp", "remove", "--scope", "user", "tools")
	nova(1, "mcp", "remove", "repo", "--scope", "user")
	nova(0, "mcp", "list")

	text := out.String()
	for _, r := range []struct{ from, to string }{{web.URL, "$URL"}, {self, "$SERVER"}, {ws, "$WS"}, {home, "$HOME"}} {
		text = strings.ReplaceAll(text, r.from, r.to)
	}
	golden(t, "mcp.golden", text)
}
