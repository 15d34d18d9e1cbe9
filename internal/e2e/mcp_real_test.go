//go:build unix

package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

// The real MCP servers of npm (@modelcontextprotocol/server-everything and
// server-filesystem, 2026.8.31, which .ci/run installs) driven through the
// nova binary in print mode with the scripted model. Each server gets a
// marker in its environment, so the test can find every process it made
// and check that none outlives nova.

// needServer returns the path of an MCP server's program on PATH; without
// it the test is skipped, or fails under CI=true (.ci/run installs it).
func needServer(t *testing.T, name string) string {
	t.Helper()
	return needTool(t, name, ".ci/run installs it: npm install -g @modelcontextprotocol/"+strings.TrimPrefix(name, "mcp-")+"@2026.8.31")
}

// marker is a value for NOVA_E2E_MARK unique to one server of one test.
func marker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "nova-e2e-" + hex.EncodeToString(b)
}

// marked lists the processes whose environment holds NOVA_E2E_MARK=mark,
// with their process groups.
func marked(mark string) map[int]int {
	out := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	want := []byte("NOVA_E2E_MARK=" + mark + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		if pgid, err := syscall.Getpgid(pid); err == nil {
			out[pid] = pgid
		}
	}
	return out
}

// serverGroups follows the processes of a marked server while nova runs:
// every group seen is checked once nova has exited.
type serverGroups struct {
	mark   string
	mu     sync.Mutex
	groups map[int]bool
}

func (g *serverGroups) look() int {
	found := marked(g.mark)
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, pgid := range found {
		g.groups[pgid] = true
	}
	return len(found)
}

// gone checks that no process of the server is left, and no process in any
// group it had, once nova has exited.
func (g *serverGroups) gone(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(marked(g.mark)) > 0 {
		if time.Now().After(deadline) {
			t.Errorf("processes of the MCP server outlived nova: %v", marked(g.mark))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	g.mu.Lock()
	var pgids []int
	for p := range g.groups {
		pgids = append(pgids, p)
	}
	g.mu.Unlock()
	if len(pgids) == 0 {
		t.Error("no process of the MCP server was seen while nova ran")
	}
	groupsGone(t, pgids)
}

// writeConfig writes an --mcp-config file of servers; each gets mark in its
// environment.
func writeConfig(t *testing.T, mark string, servers map[string]map[string]any) string {
	t.Helper()
	for _, s := range servers {
		if _, ok := s["url"]; ok {
			continue
		}
		env, _ := s["env"].(map[string]string)
		if env == nil {
			env = map[string]string{}
		}
		env["NOVA_E2E_MARK"] = mark
		s["env"] = env
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": servers})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// toolsOf names the tools of an Anthropic request.
func toolsOf(t *testing.T, req llmtest.Request) map[string]json.RawMessage {
	t.Helper()
	var body struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, x := range body.Tools {
		out[x.Name] = x.InputSchema
	}
	return out
}

// resultsByID are the tool_result events of a run, by call id.
func resultsByID(r *run) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, x := range r.byType("tool_result") {
		out[x["id"].(string)] = x
	}
	return out
}

// wantTool checks one tool result: its error flag and what it says.
func wantTool(t *testing.T, rs map[string]map[string]any, id string, isError bool, says ...string) string {
	t.Helper()
	r, ok := rs[id]
	if !ok {
		t.Errorf("no result for %s", id)
		return ""
	}
	content, _ := r["content"].(string)
	if e, _ := r["is_error"].(bool); e != isError {
		t.Errorf("%s: is_error %v, want %v: %s", id, e, isError, content)
	}
	for _, s := range says {
		if !strings.Contains(content, s) {
			t.Errorf("%s: result lacks %q:\n%s", id, s, content)
		}
	}
	return content
}

// server-everything over stdio, with each mcpToolSearch mode. The model
// calls its tools at once, by name, while the server still starts (the
// calls wait for it): a text result, a structured one, an image (saved
// under the session's directory and described), and a call with bad
// arguments, which reaches the model as an error result; then it finds a
// tool through ToolSearch. The first request lists the server's tools or
// ToolSearch, as the mode and the server's progress decide: "always" lists
// ToolSearch and none of them; otherwise, a server still starting at the
// first request is behind ToolSearch too, and a connected one listed
// ("never") or as auto's threshold says.
func TestRealMCPEverythingStdio(t *testing.T) {
	bin := needServer(t, "mcp-server-everything")
	for _, mode := range []string{"always", "auto", "never"} {
		t.Run(mode, func(t *testing.T) {
			ws, home := t.TempDir(), t.TempDir()
			if err := os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.json"), []byte(`{"mcpToolSearch": "`+mode+`"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			mark := marker(t)
			cfg := writeConfig(t, mark, map[string]map[string]any{"everything": {"command": bin}})
			groups := &serverGroups{mark: mark, groups: map[int]bool{}}
			turns := []llmtest.Turn{
				{Blocks: []llmtest.Block{
					llmtest.ToolUse("echo", "mcp__everything__echo", `{"message":"hello from nova"}`),
					llmtest.ToolUse("structured", "mcp__everything__get-structured-content", `{"location":"Chicago"}`),
					llmtest.ToolUse("image", "mcp__everything__get-tiny-image", `{}`),
					llmtest.ToolUse("bad", "mcp__everything__get-sum", `{"a":"one"}`),
				}},
				{Blocks: []llmtest.Block{llmtest.ToolUse("search", "ToolSearch", `{"query":"select:mcp__everything__get-sum"}`)}},
				{Blocks: []llmtest.Block{llmtest.Text("done")}},
			}
			srv := llmtest.NewServer()
			defer srv.Close()
			var mu sync.Mutex
			n := 0
			srv.SetFallback(func(llmtest.Request) llmtest.Turn {
				groups.look()
				mu.Lock()
				defer mu.Unlock()
				n++
				return turns[min(n, len(turns))-1]
			})
			r := runNovaEnv(t, srv, "anthropic", ws, []string{"NOVA_HOME=" + home}, "--mcp-config", cfg, "use the everything server")
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			groups.gone(t)

			reqs := modelCalls(srv)
			if len(reqs) != 3 {
				t.Fatalf("%d model requests, want 3\nstderr: %s", len(reqs), r.Stderr)
			}
			first := toolsOf(t, reqs[0])
			_, search := first["ToolSearch"]
			echo, listed := first["mcp__everything__echo"]
			switch {
			case mode == "always" && (listed || !search):
				t.Errorf("always: the first request listed the server's tools or not ToolSearch: %v", keys(first))
			case listed && !bytes.Contains(echo, []byte(`"message"`)):
				t.Errorf("echo listed with the schema %s", echo)
			case !listed && !search:
				t.Errorf("neither the server's tools nor ToolSearch in the first request: %v", keys(first))
			}
			t.Logf("mcpToolSearch %s: first request lists the server's tools: %v, ToolSearch: %v", mode, listed, search)
			for i, req := range reqs[1:] {
				if !bytes.Equal(toolsJSON(t, req), toolsJSON(t, reqs[0])) {
					t.Errorf("request %d sent another tools array than the first", i+1)
				}
			}

			rs := resultsByID(r)
			wantTool(t, rs, "echo", false, "Echo: hello from nova")
			structured := wantTool(t, rs, "structured", false, `"temperature":36`, `"conditions":"Light rain / drizzle"`)
			if strings.Count(structured, "temperature") != 1 {
				t.Errorf("the structured content is said twice: %s", structured)
			}
			image := wantTool(t, rs, "image", false, "Here's the image you requested:", "[image: image/png, ", "The image above is the MCP logo.")
			m := regexp.MustCompile(`saved to (\S+)\]`).FindStringSubmatch(image)
			if m == nil {
				t.Fatalf("the image result names no file: %s", image)
			}
			if !strings.HasPrefix(m[1], home+string(filepath.Separator)) {
				t.Errorf("the image was saved outside the data directory %s: %s", home, m[1])
			}
			png, err := os.ReadFile(m[1])
			if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
				t.Errorf("saved image: %v, %.8q", err, png)
			}
			wantTool(t, rs, "bad", true, "Input validation error", "get-sum")
			wantTool(t, rs, "search", false, `"name":"mcp__everything__get-sum"`, `"a":{`)

			// What the model got back is what the events said.
			sent := toolResultsSent(t, reqs[1])
			if len(sent) != 4 || sent[3]["is_error"] != true || sent[0]["is_error"] == true {
				t.Errorf("results sent: %v", sent)
			}
		})
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// toolsJSON is a request's tools array as sent.
func toolsJSON(t *testing.T, req llmtest.Request) []byte {
	t.Helper()
	var body struct {
		Tools json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	return body.Tools
}

// server-everything over streamable HTTP, started by the test on a free
// port: a tool called by name at once reaches the model.
func TestRealMCPEverythingHTTP(t *testing.T) {
	bin := needServer(t, "mcp-server-everything")
	url := startHTTPServer(t, bin)
	ws := t.TempDir()
	cfg := writeConfig(t, "", map[string]map[string]any{"everything": {"type": "http", "url": url}})
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("echo", "mcp__everything__echo", `{"message":"over HTTP"}`)}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "--mcp-config", cfg, "echo over HTTP")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	wantTool(t, resultsByID(r), "echo", false, "Echo: over HTTP")
}

// startHTTPServer runs `mcp-server-everything streamableHttp` on a free
// port (PORT) in a process group of its own, killed when the test ends,
// and returns its URL once it accepts connections.
func startHTTPServer(t *testing.T, bin string) string {
	t.Helper()
	for attempt := 0; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		cmd := exec.Command(bin, "streamableHttp")
		cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		})
		deadline := time.Now().Add(15 * time.Second)
		for {
			c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
			if err == nil {
				c.Close()
				return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
			}
			select {
			case <-exited:
			case <-time.After(20 * time.Millisecond):
				if time.Now().Before(deadline) {
					continue
				}
				t.Fatalf("mcp-server-everything streamableHttp did not listen on port %d within 15 s: %s", port, stderr.String())
			}
			break // it exited: the port was taken meanwhile?
		}
		if attempt == 2 || !strings.Contains(stderr.String(), "already in use") {
			t.Fatalf("mcp-server-everything streamableHttp exited: %s", stderr.String())
		}
	}
}

// server-filesystem over stdio on a temporary directory: the model lists
// it and reads a file through the server's read-only tools; a write, which
// is not read-only, is denied in print mode with how to allow it.
func TestRealMCPFilesystem(t *testing.T) {
	bin := needServer(t, "mcp-server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mark := marker(t)
	cfg := writeConfig(t, mark, map[string]map[string]any{"fs": {"command": bin, "args": []string{dir}}})
	groups := &serverGroups{mark: mark, groups: map[int]bool{}}
	in := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	srv := llmtest.NewServer()
	defer srv.Close()
	var mu sync.Mutex
	n := 0
	srv.SetFallback(func(llmtest.Request) llmtest.Turn {
		groups.look()
		mu.Lock()
		defer mu.Unlock()
		if n++; n > 1 {
			return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}}
		}
		return llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("ls", "mcp__fs__list_directory", in(map[string]string{"path": dir})),
			llmtest.ToolUse("read", "mcp__fs__read_text_file", in(map[string]string{"path": filepath.Join(dir, "notes.txt")})),
			llmtest.ToolUse("write", "mcp__fs__write_file", in(map[string]string{"path": filepath.Join(dir, "new.txt"), "content": "x"})),
		}}
	})
	r := runNova(t, srv, t.TempDir(), "--mcp-config", cfg, "read my notes")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	groups.gone(t)
	rs := resultsByID(r)
	wantTool(t, rs, "ls", false, "[FILE] notes.txt")
	wantTool(t, rs, "read", false, "remember the milk")
	wantTool(t, rs, "write", true, "Permission to use mcp__fs__write_file was not granted", "--allowedTools 'mcp__fs__write_file'")
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied write happened: %v", err)
	}
}
