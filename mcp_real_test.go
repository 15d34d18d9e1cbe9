package nova_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/mcp"
)

// The real server-everything of npm (.ci/run installs it; internal/e2e
// drives it through the binary), through the SDK: with mcpToolSearch
// "never" and the server connected before the first request, its tools are
// listed in that request with their own schemas, and no ToolSearch — the
// case print mode cannot force, since its first request never waits.
func TestMCPRealServerListed(t *testing.T) {
	bin, err := exec.LookPath("mcp-server-everything")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("mcp-server-everything is not installed, and CI must run this test (.ci/run installs it with npm)")
		}
		t.Skip("mcp-server-everything is not installed (.ci/run installs it)")
	}
	srv := llmtest.NewServer(
		call("c1", "mcp__everything__get-sum", `{"a":2,"b":3}`),
		text("done"),
	)
	defer srv.Close()
	o := testOptions(t, srv)
	o.InMemory, o.NoContext = true, true
	o.MCPToolSearch = "never"
	o.MCPServers = map[string]mcp.ServerConfig{"everything": {Command: bin}}
	s, err := nova.Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	waitMCP(t, s, "everything", "connected")
	res := send(t, s, "add")
	if len(res.ToolCalls) != 1 || res.ToolCalls[0].IsError || res.ToolCalls[0].Result != "The sum of 2 and 3 is 5." {
		t.Fatalf("calls: %+v", res.ToolCalls)
	}
	reqs := modelCalls(srv)
	first := decodeRequest(t, reqs[0])
	names := first.toolNames()
	if contains(names, "ToolSearch") || !contains(names, "mcp__everything__echo") || !contains(names, "mcp__everything__get-structured-content") {
		t.Errorf("first request's tools: %v", names)
	}
	for _, x := range first.Tools {
		if x.Name == "mcp__everything__echo" && !bytes.Contains(x.InputSchema, []byte(`"message"`)) {
			t.Errorf("echo's schema: %s", x.InputSchema)
		}
	}
	if !strings.Contains(first.system(), "# MCP server instructions") {
		t.Error("the server's instructions are not in the system prompt")
	}
	if !bytes.Equal(decodeRequest(t, reqs[1]).RawTools, first.RawTools) {
		t.Error("the tools array changed")
	}
}
