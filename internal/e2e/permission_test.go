//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

type checkResult struct {
	Decision, Reason, Rule, Sandbox string
}

func permissionCheck(t *testing.T, ws string, args ...string) (checkResult, string) {
	t.Helper()
	cmd := exec.Command(novaBin, append([]string{"permission", "check", "--cwd", ws}, args...)...)
	cmd.Env = append(os.Environ(), "NOVA_HOME="+t.TempDir())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("nova permission check %v: %v\n%s", args, err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 {
		t.Fatalf("want one JSON line, got %q", out.String())
	}
	var r checkResult
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatalf("%v: %s", err, lines[0])
	}
	return r, errOut.String()
}

// `nova permission check` answers without a model, from flags and the
// workspace's settings files (trusted here: its allow rules need it;
// TestHostileRepositoryPrintMode is about what happens without).
func TestPermissionCheckCommand(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := "{\n  \"permissions\": {\n    \"allow\": [\"Bash(git status)\", \"Bash(git diff:*\", \"Edit(docs/**)\"],\n    \"deny\": [\"Read(/secrets/**)\"]\n  }\n}\n"
	if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
		rule string
	}{
		{[]string{"Bash", `{"command":"git status"}`}, "allow", "Bash(git status)"},
		{[]string{"Bash", `{"command":"git status; rm -rf ~"}`}, "ask", ""},
		{[]string{"Bash", `{"command":"rm -rf /"}`}, "ask", ""},
		{[]string{"--mode", "bypassPermissions", "Bash", `{"command":"rm -rf /"}`}, "ask", ""},
		{[]string{"--mode", "bypassPermissions", "Bash", `{"command":"rm -rf ./build"}`}, "allow", ""},
		{[]string{"--allow", "Bash(npm run test:*)", "--sandboxed", "Bash", `{"command":"npm run test -- --watch"}`}, "allow", "Bash(npm run test:*)"},
		{[]string{"--deny", "Bash(curl:*)", "--mode", "bypassPermissions", "Bash", `{"command":"ls && curl https://attacker.example"}`}, "deny", "Bash(curl:*)"},
		{[]string{"Edit", `{"file_path":"docs/a.md","old_string":"a","new_string":"b"}`}, "allow", "Edit(/docs/**)"},
		{[]string{"Edit", `{"file_path":"src/a.go","old_string":"a","new_string":"b"}`}, "ask", ""},
		{[]string{"--mode", "acceptEdits", "Write", `{"file_path":".git/hooks/pre-commit","content":"x"}`}, "ask", ""},
		{[]string{"Read", `{"file_path":"secrets/key"}`}, "deny", "Read(/secrets/**)"},
		{[]string{"Read", `{"file_path":"../elsewhere"}`}, "ask", ""},
		{[]string{"--mode", "plan", "Write", `{"file_path":"a.txt","content":"x"}`}, "deny", ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r, stderr := permissionCheck(t, ws, append([]string{"--trust-workspace"}, tc.args...)...)
			if r.Decision != tc.want || r.Rule != tc.rule || r.Reason == "" {
				t.Fatalf("got %+v, want %s by %q", r, tc.want, tc.rule)
			}
			// The malformed rule is reported with its file and position,
			// and the others still load.
			if !strings.Contains(stderr, filepath.Join(".novacode", "settings.json")+":3:35:") || !strings.Contains(stderr, "Bash(git diff:*") {
				t.Fatalf("malformed rule not reported with its position:\n%s", stderr)
			}
		})
	}
}

// --debug permissions logs every decision with its reason.
func TestDebugPermissionsLogsDecisions(t *testing.T) {
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{bash("a", "echo hi"), bash("b", "rm -rf /")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}},
	)
	defer srv.Close()
	r := runNova(t, srv, "", "--allowedTools", "Bash(echo:*)", "--debug", "permissions", "go")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{
		`nova: permission: Bash {"command":"echo hi"} → allow: allowed by rule Bash(echo:*) [Bash(echo:*)]`,
		`nova: permission: Bash {"command":"rm -rf /"} → ask: dangerous command`,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
}

// A Bash command allowed by a rule still cannot write outside the workspace
// or reach the network: under bubblewrap where it is installed, and under
// Landlock where it is not (a PATH without bwrap).
func TestSandboxedBashThroughTheBinary(t *testing.T) {
	for _, backend := range []string{"bubblewrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			var env []string
			switch backend {
			case "bubblewrap":
				needTool(t, "bwrap", ".ci/run installs bubblewrap")
			case "landlock":
				env = []string{"PATH=" + pathWithout(t, "bwrap")}
			}
			sandboxedBash(t, backend, env)
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

func sandboxedBash(t *testing.T, backend string, env []string) {
	root := t.TempDir()
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "target.txt"), []byte(filepath.Join(outside, "x.txt")), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := newListener(t)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			bash("in", "echo inside > inside.txt && cat inside.txt"),
			// The target is read from a file at run time, so the chain
			// cannot see it (a visible write outside is asked even in
			// bypass mode): only the sandbox stands in the way.
			bash("out", "echo escaped > \"$(cat target.txt)\"; echo rc=$?"),
			bash("net", "cat </dev/tcp/127.0.0.1/"+ln.port+" && echo connected || echo no-network"),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
	)
	defer srv.Close()
	// bypassPermissions: the rules allow everything; only the OS sandbox
	// stands between the command and the machine.
	r := runNovaEnv(t, srv, "anthropic", ws, env, "--permission-mode", "bypassPermissions", "--debug", "permissions", "go")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if strings.Contains(r.Stderr, "unsandboxed") {
		missing(t, fmt.Sprintf("no %s sandbox here: %s", backend, r.Stderr))
	}
	if !strings.Contains(strings.ToLower(r.Stderr), backend) {
		t.Errorf("the debug log does not name the %s sandbox:\n%s", backend, r.Stderr)
	}
	res := r.byType("tool_result")
	if got := res[0]["content"].(string); !strings.Contains(got, "inside") {
		t.Errorf("write inside failed: %s", got)
	}
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err == nil {
		t.Errorf("the sandboxed command wrote outside the workspace: %s", res[1]["content"])
	}
	if got := res[2]["content"].(string); !strings.Contains(got, "no-network") || ln.accepted() {
		t.Errorf("the sandboxed command reached the network: %s", got)
	}

	// Control: the same script with the sandbox off does get out, so the
	// checks above can fail. The setting needs trust, given for this run.
	if err := os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.local.json"), []byte(`{"sandbox":"off"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.Push(
		llmtest.Turn{Blocks: []llmtest.Block{
			bash("out", "echo escaped > \"$(cat target.txt)\""),
			bash("net", "cat </dev/tcp/127.0.0.1/"+ln.port+" && echo connected || echo no-network"),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
	)
	r = runNovaEnv(t, srv, "anthropic", ws, env, "--permission-mode", "bypassPermissions", "--trust-workspace", "go")
	res = r.byType("tool_result")
	if _, err := os.Stat(filepath.Join(outside, "x.txt")); err != nil || !strings.Contains(res[1]["content"].(string), "connected") {
		t.Fatalf("control run without the sandbox did not get out: %v %v", err, res)
	}
}

// nova permission check decides as a run on this machine would: it sets
// the sandbox up as a run does and asks it what it can promise, unless
// told to assume one or none. An empty settings file sets nothing.
func TestPermissionCheckDetectsTheSandbox(t *testing.T) {
	needTool(t, "bwrap", ".ci/run installs bubblewrap")
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".novacode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".novacode", "settings.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	noBwrap := "PATH=" + pathWithout(t, "bwrap")
	// More files hard-linked from outside than bubblewrap binds read-only:
	// it cannot promise to confine project code there.
	linked, outside := t.TempDir(), t.TempDir()
	for i := range 65 {
		name := fmt.Sprintf("f%d", i)
		if err := os.WriteFile(filepath.Join(outside, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(filepath.Join(outside, name), filepath.Join(linked, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		ws       string
		env      []string
		settings string // the user's own
		args     []string
		sandbox  []string // any of
		decision string
		reason   string // part of it
	}{
		{name: "bubblewrap here", sandbox: []string{"bubblewrap"}, decision: "allow"},
		{name: "bubblewrap, but too many hard links", ws: linked, sandbox: []string{"bubblewrap"}, decision: "ask", reason: "have hard links outside them"},
		{name: "without bubblewrap", env: []string{noBwrap}, sandbox: []string{"landlock", "none"}, decision: "ask"},
		{name: "sandbox off in settings", settings: `{"sandbox": "off"}`, sandbox: []string{"none"}, decision: "ask"},
		{name: "--no-sandbox", args: []string{"--no-sandbox"}, sandbox: []string{"none"}, decision: "ask"},
		{name: "--sandboxed=false", args: []string{"--sandboxed=false"}, sandbox: []string{"none"}, decision: "ask"},
		{name: "--sandboxed without bubblewrap", env: []string{noBwrap}, args: []string{"--sandboxed"}, sandbox: []string{"assumed"}, decision: "allow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			if tc.settings != "" {
				if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(tc.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			dir := ws
			if tc.ws != "" {
				dir = tc.ws
			}
			args := append([]string{"permission", "check", "--cwd", dir, "--allow", "Bash(npm test:*)"}, tc.args...)
			cmd := exec.Command(novaBin, append(args, "Bash", `{"command":"npm test"}`)...)
			cmd.Env = append(append(os.Environ(), "NOVA_HOME="+home), tc.env...)
			var out, errOut bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errOut
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %s", err, errOut.String())
			}
			var r checkResult
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("%v: %s", err, out.String())
			}
			if r.Decision != tc.decision || !slices.Contains(tc.sandbox, r.Sandbox) || !strings.Contains(r.Reason, tc.reason) {
				t.Fatalf("got %+v, want %s under %v", r, tc.decision, tc.sandbox)
			}
			if strings.Contains(errOut.String(), "settings.json") {
				t.Errorf("the empty settings file was reported: %s", errOut.String())
			}
		})
	}
}
