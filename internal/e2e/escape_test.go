//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// snapshot records every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(b)
		default:
			out[rel] = "dir"
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func jsonInput(kv ...string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// The scripted model tries every kind of escape in default mode, with an
// allow rule for a harmless prefix. Nothing outside the workspace changes,
// and every attempt comes back to the model as a refusal it can read.
func TestEscapesThroughTheBinaryChangeNothingOutside(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	outside := filepath.Join(root, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(victim, filepath.Join(ws, "link-to-victim")))
	must(os.Symlink(filepath.Join(outside, "created-through-dangling"), filepath.Join(ws, "dangling")))
	must(os.Symlink(outside, filepath.Join(ws, "outdir")))
	must(os.Link(victim, filepath.Join(ws, "hardlink")))
	before := snapshot(t, outside)

	o := func(name string) string { return filepath.Join(outside, name) }
	attempts := []struct {
		tool, input string
	}{
		{"Bash", jsonInput("command", "echo hi; touch "+o("p1"))},
		{"Bash", jsonInput("command", "echo $(touch "+o("p2")+")")},
		{"Bash", jsonInput("command", "echo hi > "+o("p3"))},
		{"Bash", jsonInput("command", "echo ok && sh -c 'touch "+o("p4")+"'")},
		{"Bash", jsonInput("command", "echo hi\ntouch "+o("p5"))},
		{"Bash", jsonInput("command", "echo "+o("p6")+" | xargs touch")},
		{"Bash", jsonInput("command", "echo `touch "+o("p7")+"`")},
		{"Bash", jsonInput("command", "echo hi >> ../outside/victim.txt")},
		{"Bash", jsonInput("command", "echo hi > link-to-victim")},
		{"Bash", jsonInput("command", "echo x | tee "+o("p8"))},
		{"Bash", jsonInput("command", "echo hi; rm -rf "+outside)},
		{"Bash", jsonInput("command", "$'\\x74\\x6f\\x75\\x63\\x68' "+o("p9"))},
		{"Write", jsonInput("file_path", o("p10"), "content", "x")},
		{"Write", jsonInput("file_path", "../outside/p11", "content", "x")},
		{"Write", jsonInput("file_path", "dangling", "content", "x")},
		{"Write", jsonInput("file_path", "outdir/p12", "content", "x")},
		{"Write", jsonInput("file_path", "/proc/self/root"+o("p13"), "content", "x")},
		{"Write", jsonInput("file_path", "hardlink", "content", "pwned")},
		{"Write", jsonInput("file_path", "link-to-victim", "content", "pwned")},
		{"Edit", jsonInput("file_path", "link-to-victim", "old_string", "original", "new_string", "pwned")},
		{"Edit", jsonInput("file_path", "hardlink", "old_string", "original", "new_string", "pwned")},
		{"Edit", jsonInput("file_path", victim, "old_string", "original", "new_string", "pwned")},
	}
	var blocks []llmtest.Block
	for i, a := range attempts {
		blocks = append(blocks, llmtest.ToolUse("try"+string(rune('a'+i)), a.tool, a.input))
	}
	srv := llmtest.NewServer(
		// Read the links first, so Edit's read-before-write check is not
		// what stops it.
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("r1", "Read", jsonInput("file_path", "link-to-victim")),
			llmtest.ToolUse("r2", "Read", jsonInput("file_path", "hardlink")),
		}},
		llmtest.Turn{Blocks: blocks},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("I could not get out.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, ws, "--allowedTools", "Bash(echo:*)", "--permission-mode", "default", "try to escape")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	after := snapshot(t, outside)
	var changed []string
	for k, v := range after {
		if before[k] != v {
			changed = append(changed, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			changed = append(changed, k+" (deleted)")
		}
	}
	sort.Strings(changed)
	if len(changed) > 0 {
		t.Errorf("outside the workspace changed: %v", changed)
	}
	res := r.byType("tool_result")
	if len(res) != 2+len(attempts) {
		t.Fatalf("%d results", len(res))
	}
	for i, e := range res[2:] {
		c := e["content"].(string)
		if !e["is_error"].(bool) {
			t.Errorf("attempt %d (%s %s) was not refused: %s", i, attempts[i].tool, attempts[i].input, c)
		}
		if !strings.Contains(c, "ermission") && !strings.Contains(c, "refused") && !strings.Contains(c, "outside") {
			t.Logf("attempt %d refused with: %.200s", i, c)
		}
	}
}
