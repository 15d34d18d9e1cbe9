package nova_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/mcp"
	"github.com/novacode/nova/mcp/mcptest"
)

// listed is each server's name, scope, state and tool count, "name scope
// state tools".
func listed(sts []nova.MCPServerStatus) []string {
	var out []string
	for _, st := range sts {
		out = append(out, st.Name+" "+st.Scope+" "+st.State+" "+strconv.Itoa(st.Tools))
	}
	return out
}

func byName(t *testing.T, sts []nova.MCPServerStatus, name string) nova.MCPServerStatus {
	t.Helper()
	for _, st := range sts {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no server %s in %v", name, listed(sts))
	return nova.MCPServerStatus{}
}

// Servers added in each scope land in their file, and MCPList reports
// each server as a session would start it: connected with its tools, a
// repository's .mcp.json server waiting for approval, one that exits at
// start failed with why, a definition that is not usable failed with why.
// A server added to .mcp.json by the person is approved for them; one added
// to the local file of a workspace where nothing needed trust is trusted.
// Removing finds the scope, or asks for it when several define the name.
func TestMCPAddListGetRemove(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	tools := testServer(mcptest.ModeTools, nil)
	add := func(scope, name string, c mcp.ServerConfig) nova.MCPEdit {
		t.Helper()
		e, err := nova.MCPAdd(ws, home, scope, name, c)
		if err != nil {
			t.Fatalf("add %s %s: %v", scope, name, err)
		}
		return e
	}
	if e := add("user", "mine", tools); e.File != filepath.Join(home, "settings.json") || e.Notice != "" {
		t.Errorf("user: %+v", e)
	}
	if e := add("project", "shared", tools); e.File != filepath.Join(ws, ".mcp.json") || e.Notice != "" {
		t.Errorf("project: %+v", e)
	}
	if e := add("local", "here", tools); e.File != filepath.Join(ws, ".novacode", "settings.local.json") || e.Notice != "" {
		t.Errorf("local: %+v", e)
	}
	web := httptest.NewServer(mcptest.HTTPHandler(false, "s3cret"))
	defer web.Close()
	add("user", "web", mcp.ServerConfig{Type: "http", URL: web.URL, Headers: map[string]string{"Authorization": "Bearer ${WEB_TOKEN:-s3cret}"}})
	add("user", "exits", testServer(mcptest.ModeExit, nil))
	// What a repository brings, and a definition nobody could use.
	if _, err := config.SetMCPServer(filepath.Join(ws, ".mcp.json"), "repo", []byte(`{"command":"repo-server"}`), false); err != nil {
		t.Fatal(err)
	}
	if _, err := config.SetMCPServer(filepath.Join(home, "settings.json"), "broken", []byte(`{"type":"http"}`), true); err != nil {
		t.Fatal(err)
	}

	sts, err := nova.MCPList(context.Background(), ws, home)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"exits user failed 0", "mine user connected 8", "web user connected 8",
		"repo project needs approval 0", "shared project connected 8",
		"here local connected 8",
		"broken user failed 0",
	}
	if diff := cmp.Diff(want, listed(sts)); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if st := byName(t, sts, "exits"); !strings.Contains(st.Error, "the process exited (exit status 2) before it finished starting") {
		t.Errorf("exits: %+v", st)
	}
	if st := byName(t, sts, "broken"); st.Error != `its definition is not usable: it has no "url" (a http server needs one)` {
		t.Errorf("broken: %+v", st)
	}
	if st := byName(t, sts, "repo"); st.Describe != "repo-server" || !strings.Contains(st.Error, "not approved") {
		t.Errorf("repo: %+v", st)
	}
	if st := byName(t, sts, "web"); st.Describe != "http "+web.URL || st.Transport != "http" {
		t.Errorf("web: %+v", st)
	}

	d, err := nova.MCPGet(context.Background(), ws, home, "web")
	if err != nil {
		t.Fatal(err)
	}
	if d.State != "connected" || d.Config.Headers["Authorization"] != "Bearer ${WEB_TOKEN:-s3cret}" || d.Source != filepath.Join(home, "settings.json") || len(d.ToolNames) != 8 {
		t.Errorf("get web: %+v", d)
	}
	if _, err := nova.MCPGet(context.Background(), ws, home, "nope"); err == nil || !strings.Contains(err.Error(), `no MCP server named "nope"`) {
		t.Errorf("get nope: %v", err)
	}

	for _, bad := range []struct{ scope, name, says string }{
		{"user", "mine", `MCP server "mine" is already defined in ` + filepath.Join(home, "settings.json") + "; remove it first (nova mcp remove mine --scope user)"},
		{"global", "x", `the scope must be user, project or local, not "global"`},
		{"user", "a__b", `MCP server "a__b": its name holds "__"`},
	} {
		if _, err := nova.MCPAdd(ws, home, bad.scope, bad.name, tools); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("add %s %s: %v", bad.scope, bad.name, err)
		}
	}
	if _, err := nova.MCPAdd(ws, home, "user", "nocmd", mcp.ServerConfig{}); err == nil || !strings.Contains(err.Error(), `has no "command"`) {
		t.Errorf("add without a command: %v", err)
	}

	// A name in two scopes: the later one wins in this workspace, and a
	// removal must say which.
	if e := add("user", "here", tools); !strings.Contains(e.Notice, "the definition of here in "+filepath.Join(ws, ".novacode", "settings.local.json")+" (local) is used instead") {
		t.Errorf("notice: %q", e.Notice)
	}
	if _, err := nova.MCPRemove(ws, home, "", "here"); err == nil || !strings.Contains(err.Error(), "defined in several scopes (user, local); say which with --scope") {
		t.Errorf("remove here: %v", err)
	}
	e, err := nova.MCPRemove(ws, home, "local", "here")
	if err != nil || !strings.Contains(e.Notice, "here is still defined in "+filepath.Join(home, "settings.json")+" (user)") {
		t.Errorf("remove local here: %+v, %v", e, err)
	}
	for _, name := range []string{"here", "shared", "mine"} {
		if _, err := nova.MCPRemove(ws, home, "", name); err != nil {
			t.Errorf("remove %s: %v", name, err)
		}
	}
	if _, err := nova.MCPRemove(ws, home, "", "mine"); err == nil || !strings.Contains(err.Error(), `no MCP server named "mine"`) {
		t.Errorf("remove mine again: %v", err)
	}
	if _, err := nova.MCPRemove(ws, home, "project", "mine"); err == nil {
		t.Error("removed from a scope that does not define it")
	}
	sts, _ = nova.MCPList(context.Background(), ws, home)
	if diff := cmp.Diff([]string{"exits", "web", "repo", "broken"}, names(sts)); diff != "" {
		t.Errorf("after removals (-want +got):\n%s", diff)
	}
	got, _ := os.ReadFile(filepath.Join(ws, ".mcp.json"))
	if string(got) != "{\n  \"mcpServers\": {\n    \"repo\": {\n      \"command\": \"repo-server\"\n    }\n  }\n}\n" {
		t.Errorf(".mcp.json:\n%s", got)
	}
}

func names(sts []nova.MCPServerStatus) []string {
	var out []string
	for _, st := range sts {
		out = append(out, st.Name)
	}
	return out
}

// A server added to the local file of a trusted workspace keeps it
// trusted (the person's own addition); in a workspace that is not trusted
// it waits for trust, and MCPList says so.
func TestMCPAddLocalAndTrust(t *testing.T) {
	tools := testServer(mcptest.ModeTools, nil)
	for _, trusted := range []bool{true, false} {
		t.Run(strconv.FormatBool(trusted), func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			putFile(t, filepath.Join(ws, ".novacode", "settings.json"), `{"permissions": {"allow": ["Bash(make)"]}}`)
			if trusted {
				if _, err := nova.SetTrust(ws, home, true); err != nil {
					t.Fatal(err)
				}
			}
			e, err := nova.MCPAdd(ws, home, "local", "here", tools)
			if err != nil {
				t.Fatal(err)
			}
			w, err := config.LoadWorkspace(home, ws)
			if err != nil {
				t.Fatal(err)
			}
			still, ok := w.Remembered()
			sts, err := nova.MCPList(context.Background(), ws, home)
			if err != nil {
				t.Fatal(err)
			}
			st := byName(t, sts, "here")
			if trusted {
				if !ok || !still || e.Notice != "" || st.State != "connected" {
					t.Errorf("trusted %v %v, notice %q, %+v", still, ok, e.Notice, st)
				}
				// Removing it keeps the trust too.
				if _, err := nova.MCPRemove(ws, home, "local", "here"); err != nil {
					t.Fatal(err)
				}
				w, _ = config.LoadWorkspace(home, ws)
				if still, ok := w.Remembered(); !ok || !still {
					t.Error("trust lost by the removal")
				}
				return
			}
			if ok || !strings.Contains(e.Notice, "This workspace is not trusted, so the servers of .novacode/settings.local.json do not start until you trust it: run nova trust") {
				t.Errorf("untrusted: remembered %v, notice %q", ok, e.Notice)
			}
			if st.State != "needs trust" || st.Scope != "local" || !strings.Contains(st.Error, "run nova trust") {
				t.Errorf("%+v", st)
			}
			if slices.Contains(names(sts), "") {
				t.Error(names(sts))
			}
		})
	}
}
