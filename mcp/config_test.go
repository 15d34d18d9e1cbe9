package mcp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseFile(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		want     map[string]ServerConfig
		problems []string // substrings, one per problem
		err      string
	}{
		{name: "every transport", data: `{"mcpServers": {
			"fs": {"command": "npx", "args": ["-y", "server-fs", "."], "env": {"A": "1"}},
			"web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}},
			"old": {"type": "sse", "url": "http://localhost:3000/sse"},
			"implicit": {"url": "https://example.com/mcp"}}}`,
			want: map[string]ServerConfig{
				"fs":       {Command: "npx", Args: []string{"-y", "server-fs", "."}, Env: map[string]string{"A": "1"}},
				"web":      {Type: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer ${T}"}},
				"old":      {Type: "sse", URL: "http://localhost:3000/sse"},
				"implicit": {URL: "https://example.com/mcp"},
			}},
		{name: "a bad server is left out, the rest kept", data: `{"mcpServers": {
			"ok": {"command": "srv"},
			"nocmd": {"args": ["x"]},
			"badtype": {"type": "websocket", "url": "ws://x"},
			"badurl": {"type": "http", "url": "ftp://x"},
			"badargs": {"command": "x", "args": "not a list"},
			"a__b": {"command": "x"}}}`,
			want: map[string]ServerConfig{"ok": {Command: "srv"}},
			problems: []string{
				`f.json: MCP server "a__b" left out: its name holds "__"`,
				`f.json: MCP server "badargs" left out: cannot unmarshal`,
				`f.json: MCP server "badtype" left out: its type "websocket" is not one of`,
				`f.json: MCP server "badurl" left out: its url "ftp://x" is not an http or https URL`,
				`f.json: MCP server "nocmd" left out: it has no "command"`,
			}},
		{name: "names that make the same tool names", data: `{"mcpServers": {"a.b": {"command": "x"}, "a_b": {"command": "y"}}}`,
			want:     map[string]ServerConfig{"a.b": {Command: "x"}},
			problems: []string{`MCP server "a_b" left out: its tools would have the same names as those of server "a.b"`}},
		{name: "null defines nothing", data: `{"mcpServers": null}`, want: map[string]ServerConfig{}},
		{name: "not JSON", data: `{"mcpServers": `, err: "f.json: not a JSON object"},
		{name: "no mcpServers", data: `{"servers": {}}`, err: `f.json: no "mcpServers" object`},
		{name: "mcpServers not an object", data: `{"mcpServers": []}`, err: `f.json: "mcpServers" is not an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFile("f.json", []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, f.Servers); d != "" {
				t.Errorf("servers (-want +got):\n%s", d)
			}
			if len(f.Problems) != len(tt.problems) {
				t.Fatalf("problems = %v, want %d", f.Problems, len(tt.problems))
			}
			for i, p := range tt.problems {
				if !strings.Contains(f.Problems[i].Error(), p) {
					t.Errorf("problem %d = %q, want %q in it", i, f.Problems[i], p)
				}
			}
		})
	}
}

func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "TOKEN": "s3cret", "EMPTY": ""}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		name string
		in   ServerConfig
		want ServerConfig
		err  string
	}{
		{name: "everywhere",
			in: ServerConfig{Command: "${HOME}/bin/srv", Args: []string{"--root=${HOME}", "--port=${PORT:-8080}"},
				Env: map[string]string{"T": "${TOKEN}"}},
			want: ServerConfig{Command: "/home/u/bin/srv", Args: []string{"--root=/home/u", "--port=8080"},
				Env: map[string]string{"T": "s3cret"}}},
		{name: "url and headers",
			in:   ServerConfig{Type: "http", URL: "https://${HOST:-api.example.com}/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
			want: ServerConfig{Type: "http", URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}}},
		{name: "an empty variable takes the default", in: ServerConfig{Command: "${EMPTY:-srv}"}, want: ServerConfig{Command: "srv"}},
		{name: "an empty default", in: ServerConfig{Command: "srv", Args: []string{"${NOPE:-}"}}, want: ServerConfig{Command: "srv", Args: []string{""}}},
		{name: "$VAR without braces stays", in: ServerConfig{Command: "srv", Args: []string{"$HOME"}}, want: ServerConfig{Command: "srv", Args: []string{"$HOME"}}},
		{name: "missing", in: ServerConfig{Command: "srv", Args: []string{"${A}", "${B}", "${A}"}}, err: "environment variable A, B is not set"},
		{name: "the expansion must still make a server", in: ServerConfig{Command: "${NOTHING:-}"}, err: `it has no "command"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Expand(tt.in, lookup)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 80)
	tests := []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server.v2", "get-thing", "mcp__my_server_v2__get-thing"},
		{"srv", "ünïcode/tool", "mcp__srv___n_code_tool"},
		{"srv", long, "mcp__srv__" + strings.Repeat("x", 45) + "_" + "HASH"},
	}
	for _, tt := range tests {
		got := ToolName(tt.server, tt.tool)
		if strings.HasSuffix(tt.want, "HASH") {
			if len(got) != MaxToolName || !strings.HasPrefix(got, strings.TrimSuffix(tt.want, "HASH")) {
				t.Errorf("ToolName(%q, long) = %q (%d)", tt.server, got, len(got))
			}
			continue
		}
		if got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
		}
	}
	if a, b := ToolName("srv", long+"a"), ToolName("srv", long+"b"); a == b {
		t.Errorf("two long names are the same: %q", a)
	}
}

func TestHashFollowsTheDefinition(t *testing.T) {
	a := ServerConfig{Command: "srv", Env: map[string]string{"A": "1", "B": "2"}}
	b := ServerConfig{Command: "srv", Env: map[string]string{"B": "2", "A": "1"}}
	c := ServerConfig{Command: "srv", Args: []string{"--evil"}, Env: map[string]string{"A": "1", "B": "2"}}
	if a.Hash() != b.Hash() || a.Hash() == c.Hash() {
		t.Errorf("hashes: %s %s %s", a.Hash(), b.Hash(), c.Hash())
	}
}
