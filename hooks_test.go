//go:build unix

package nova_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm/llmtest"
)

// The contract of command hooks, with real shell scripts: what a hook
// reads on standard input, what its exit status and its output do, for
// every event.

// hookLab is a directory of hook scripts, each of which records the input
// of its every run.
type hookLab struct {
	t   *testing.T
	dir string
}

func newHookLab(t *testing.T) *hookLab {
	return &hookLab{t: t, dir: t.TempDir()}
}

// script writes the hook name: it appends its standard input, one line, to
// name.jsonl, then runs body (sh). It returns the command that runs it.
func (l *hookLab) script(name, body string) string {
	l.t.Helper()
	path := filepath.Join(l.dir, name+".sh")
	content := "in=$(cat)\nprintf '%s\\n' \"$in\" >> '" + l.path(name+".jsonl") + "'\n" + body + "\n"
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		l.t.Fatal(err)
	}
	return "sh '" + path + "'"
}

func (l *hookLab) path(name string) string { return filepath.Join(l.dir, name) }

// runs returns the input of each run of the hook name, decoded.
func (l *hookLab) runs(name string) []map[string]any {
	l.t.Helper()
	f, err := os.Open(l.path(name + ".jsonl"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		l.t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			l.t.Fatalf("%s read input that is not JSON: %v\n%s", name, err, sc.Text())
		}
		out = append(out, m)
	}
	return out
}

// hookDef is one hook of a settings file.
type hookDef struct {
	event, matcher, command string
	timeout                 float64
}

// writeHooks writes a settings file holding defs (each in a group of its
// own), and extra members if given.
func writeHooks(t *testing.T, path string, defs ...hookDef) {
	t.Helper()
	hooks := map[string][]any{}
	for _, d := range defs {
		h := map[string]any{"type": "command", "command": d.command}
		if d.timeout > 0 {
			h["timeout"] = d.timeout
		}
		g := map[string]any{"hooks": []any{h}}
		if d.matcher != "" {
			g["matcher"] = d.matcher
		}
		hooks[d.event] = append(hooks[d.event], g)
	}
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
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

func userSettings(o nova.Options) string { return filepath.Join(o.DataDir, "settings.json") }

// hsend runs a prompt; permission requests and questions go to answer
// (nil: allow, and "ok").
func hsend(t *testing.T, s *nova.Session, prompt string, answer func(*event.PermissionRequest)) ([]event.Event, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var evs []event.Event
	var runErr error
	for e, err := range s.Send(ctx, prompt) {
		if err != nil {
			runErr = err
			continue
		}
		switch e := e.(type) {
		case *event.PermissionRequest:
			if answer != nil {
				answer(e)
			} else {
				e.Respond(nova.Allow())
			}
		case *event.Question:
			e.Respond(event.Answer{Text: "ok"})
		}
		evs = append(evs, e)
	}
	return evs, runErr
}

func warnings(evs []event.Event) []string {
	var out []string
	for _, e := range evs {
		if w, ok := e.(event.Warning); ok {
			out = append(out, w.Message)
		}
	}
	return out
}

func toolResults(evs []event.Event) map[string]event.ToolResult {
	out := map[string]event.ToolResult{}
	for _, e := range evs {
		if r, ok := e.(event.ToolResult); ok {
			out[r.ID] = r
		}
	}
	return out
}

func lastComplete(t *testing.T, evs []event.Event) event.LoopComplete {
	t.Helper()
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	lc, ok := evs[len(evs)-1].(event.LoopComplete)
	if !ok {
		t.Fatalf("last event %T", evs[len(evs)-1])
	}
	return lc
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func open(t *testing.T, o nova.Options) *nova.Session {
	t.Helper()
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Every event's hook reads the common fields and its own, each present,
// nothing else; $NOVA_PROJECT_DIR and $CLAUDE_PROJECT_DIR are the
// workspace, which is also the working directory; SessionStart's and
// UserPromptSubmit's standard output reaches the model.
func TestCommandHookInputs(t *testing.T) {
	srv := llmtest.NewServer(
		call("r1", "Read", `{"file_path":"notes.txt"}`),
		call("r2", "Read", `{"file_path":"missing.txt"}`),
		call("w1", "Write", `{"file_path":"new.txt","content":"hi"}`),
		text("All done."),
		text("SUMMARY"),
	)
	defer srv.Close()
	o := testOptions(t, srv)
	o.Interactive = true
	writeFile(t, filepath.Join(o.Dir, "notes.txt"), "the notes")
	lab := newHookLab(t)
	env := lab.path("env.txt")
	writeHooks(t, userSettings(o),
		hookDef{event: "SessionStart", command: lab.script("ss", `echo "$NOVA_PROJECT_DIR|$CLAUDE_PROJECT_DIR|$(pwd)" > '`+env+`'; echo SESSION-CONTEXT`)},
		hookDef{event: "UserPromptSubmit", command: lab.script("ups", "echo PROMPT-CONTEXT")},
		hookDef{event: "PreToolUse", command: lab.script("pre", "")},
		hookDef{event: "PermissionRequest", command: lab.script("perm", "")},
		hookDef{event: "PostToolUse", command: lab.script("post", "")},
		hookDef{event: "PostToolUseFailure", command: lab.script("fail", "")},
		hookDef{event: "Notification", command: lab.script("note", "")},
		hookDef{event: "Stop", command: lab.script("stop", "")},
		hookDef{event: "SubagentStop", command: lab.script("sub", "")},
		hookDef{event: "PreCompact", command: lab.script("pc", "")},
		hookDef{event: "SessionEnd", command: lab.script("end", "")},
	)
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := hsend(t, s, "hello", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := warnings(evs); len(w) > 0 {
		t.Errorf("warnings: %q", w)
	}
	if _, err := s.Compact(context.Background(), "keep the notes"); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	common := []string{"cwd", "hook_event_name", "permission_mode", "session_id", "transcript_path"}
	fields := map[string][]string{
		"ss": {"source"}, "ups": {"prompt"}, "pre": {"tool_input", "tool_name", "tool_use_id"},
		"perm": {"tool_input", "tool_name", "tool_use_id"}, "post": {"tool_input", "tool_name", "tool_response", "tool_use_id"},
		"fail": {"error", "is_interrupt", "tool_input", "tool_name", "tool_use_id"}, "note": {"message", "notification_type"},
		"stop": {"stop_hook_active"}, "pc": {"custom_instructions", "trigger"}, "end": {"reason"},
	}
	want := map[string][]string{ // what each run says, in order
		"ss":   {"SessionStart source=startup", "SessionStart source=compact"},
		"ups":  {"UserPromptSubmit prompt=hello"},
		"pre":  {"PreToolUse tool_name=Read tool_use_id=r1", "PreToolUse tool_name=Read tool_use_id=r2", "PreToolUse tool_name=Write tool_use_id=w1"},
		"perm": {"PermissionRequest tool_name=Write tool_use_id=w1"},
		"post": {"PostToolUse tool_name=Read tool_use_id=r1", "PostToolUse tool_name=Write tool_use_id=w1"},
		"fail": {"PostToolUseFailure is_interrupt=false tool_name=Read tool_use_id=r2"},
		"note": {"Notification message=NovaCode needs your permission to use Write notification_type=permission_prompt"},
		"stop": {"Stop stop_hook_active=false"},
		"pc":   {"PreCompact custom_instructions=keep the notes trigger=manual"},
		"end":  {"SessionEnd reason=other"},
	}
	for name, runs := range want {
		var got []string
		for _, in := range lab.runs(name) {
			if diff := cmp.Diff(append(slices.Clone(common), fields[name]...), keys(in), cmp.Transformer("sort", func(s []string) []string {
				s = slices.Clone(s)
				sort.Strings(s)
				return s
			})); diff != "" {
				t.Errorf("%s: fields (-want +got):\n%s", name, diff)
			}
			if in["session_id"] != id || in["cwd"] != o.Dir || in["permission_mode"] != "default" {
				t.Errorf("%s: common fields %v", name, in)
			}
			if p, _ := in["transcript_path"].(string); p == "" {
				t.Errorf("%s: no transcript_path", name)
			} else if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: transcript_path: %v", name, err)
			}
			line := in["hook_event_name"].(string)
			for _, k := range fields[name] {
				if k == "error" {
					continue // checked below
				}
				switch v := in[k].(type) {
				case string, bool:
					line += fmt.Sprintf(" %s=%v", k, v)
				}
			}
			got = append(got, line)
		}
		if diff := cmp.Diff(runs, got); diff != "" {
			t.Errorf("%s runs (-want +got):\n%s", name, diff)
		}
	}
	if n := len(lab.runs("sub")); n != 0 {
		t.Errorf("SubagentStop ran %d times; there are no subagents", n)
	}
	post := lab.runs("post")
	if len(post) > 0 {
		if r, _ := post[0]["tool_response"].(map[string]any); r == nil || !strings.Contains(fmt.Sprint(r["content"]), "the notes") {
			t.Errorf("tool_response %v", post[0]["tool_response"])
		}
		if in, _ := post[0]["tool_input"].(map[string]any); in["file_path"] != "notes.txt" {
			t.Errorf("tool_input %v", post[0]["tool_input"])
		}
	}
	if f := lab.runs("fail"); len(f) > 0 && !strings.Contains(fmt.Sprint(f[0]["error"]), "missing.txt") {
		t.Errorf("PostToolUseFailure error %v", f[0]["error"])
	}
	b, _ := os.ReadFile(env)
	if got := strings.TrimSpace(string(b)); got != o.Dir+"|"+o.Dir+"|"+o.Dir {
		t.Errorf("environment and directory: %q, want the workspace %s three times", got, o.Dir)
	}
	first := string(modelCalls(srv)[0].Body)
	for _, c := range []string{"SESSION-CONTEXT", "PROMPT-CONTEXT"} {
		if !strings.Contains(first, c) {
			t.Errorf("the first request lacks %s", c)
		}
	}
}

// requestsText is every model request's body, in order.
func requestsText(srv *llmtest.Server) []string {
	var out []string
	for _, r := range modelCalls(srv) {
		out = append(out, string(r.Body))
	}
	return out
}

// Exit status 0 is fine, 2 blocks with standard error as the reason, any
// other status is a failure the person is told about while the call goes
// on.
func TestCommandHookExitStatus(t *testing.T) {
	t.Run("PreToolUse", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("b1", "Bash", `{"command":"rm -rf build"}`),
			llmtest.ToolUse("r1", "Read", `{"file_path":"notes.txt"}`),
			llmtest.ToolUse("g1", "Glob", `{"pattern":"*.txt"}`),
		}}, text("ok"))
		defer srv.Close()
		o := testOptions(t, srv)
		o.PermissionMode = nova.ModeBypassPermissions
		writeFile(t, filepath.Join(o.Dir, "notes.txt"), "the notes")
		writeFile(t, filepath.Join(o.Dir, "build", "x"), "x")
		lab := newHookLab(t)
		writeHooks(t, userSettings(o),
			hookDef{event: "PreToolUse", matcher: "Bash", command: lab.script("no-rm", "echo 'rm is not allowed here' >&2; exit 2")},
			hookDef{event: "PreToolUse", matcher: "Read", command: lab.script("broken", "echo oops >&2; exit 1")},
			hookDef{event: "PreToolUse", matcher: "Glob", command: lab.script("chatty", "echo 'just saying'")},
		)
		s := open(t, o)
		evs, err := hsend(t, s, "clean", nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := toolResults(evs)
		if r := rs["b1"]; !r.Denied || !strings.Contains(r.Content, "rm is not allowed here") {
			t.Errorf("the blocked call: %+v", r)
		}
		if _, err := os.Stat(filepath.Join(o.Dir, "build", "x")); err != nil {
			t.Errorf("the blocked rm ran: %v", err)
		}
		if r := rs["r1"]; r.IsError || !strings.Contains(r.Content, "the notes") {
			t.Errorf("the call of a failing hook did not go on: %+v", r)
		}
		if r := rs["g1"]; r.IsError || !strings.Contains(r.Content, "notes.txt") {
			t.Errorf("plain output of a PreToolUse hook changed the call: %+v", r)
		}
		w := warnings(evs)
		if len(w) != 1 || !strings.Contains(w[0], "PreToolUse hook `sh ") || !strings.Contains(w[0], "failed: exited with status 1: oops") {
			t.Errorf("warnings %q", w)
		}
		if sent := requestsText(srv)[1]; !strings.Contains(sent, "rm is not allowed here") || strings.Contains(sent, "just saying") {
			t.Errorf("what the model was told: %s", sent)
		}
	})

	t.Run("UserPromptSubmit", func(t *testing.T) {
		srv := llmtest.NewServer(text("ok"))
		defer srv.Close()
		o := testOptions(t, srv)
		lab := newHookLab(t)
		writeHooks(t, userSettings(o), hookDef{event: "UserPromptSubmit",
			command: lab.script("guard", `case "$in" in *secret*) echo 'no secrets in prompts' >&2; exit 2;; esac; echo "Today is Tuesday."`)})
		s := open(t, o)
		evs, err := hsend(t, s, "print the secret", nil)
		if err == nil || !strings.Contains(err.Error(), "no secrets in prompts") || lastComplete(t, evs).Reason != event.ReasonError {
			t.Fatalf("refused prompt: %v", err)
		}
		if n := len(modelCalls(srv)); n != 0 {
			t.Fatalf("a refused prompt reached the model (%d requests)", n)
		}
		if _, err := hsend(t, s, "what day is it?", nil); err != nil {
			t.Fatal(err)
		}
		if sent := requestsText(srv)[0]; !strings.Contains(sent, "Today is Tuesday.") || strings.Contains(sent, "print the secret") {
			t.Errorf("request: %s", sent)
		}
	})

	t.Run("PostToolUse", func(t *testing.T) {
		srv := llmtest.NewServer(call("w1", "Write", `{"file_path":"a.go","content":"package a"}`), text("ok"))
		defer srv.Close()
		o := testOptions(t, srv)
		o.PermissionMode = nova.ModeAcceptEdits
		lab := newHookLab(t)
		writeHooks(t, userSettings(o), hookDef{event: "PostToolUse", matcher: "Write|Edit", command: lab.script("lint", "echo 'lint: a.go lacks a doc comment' >&2; exit 2")})
		s := open(t, o)
		evs, err := hsend(t, s, "write a.go", nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := toolResults(evs)["w1"]; r.IsError {
			t.Errorf("the call: %+v", r)
		}
		if sent := requestsText(srv)[1]; !strings.Contains(sent, "lint: a.go lacks a doc comment") {
			t.Errorf("the model was not told: %s", sent)
		}
	})

	t.Run("Stop", func(t *testing.T) {
		srv := llmtest.NewServer(text("Done."), text("Really done."), text("Next."), text("Next, really."))
		defer srv.Close()
		o := testOptions(t, srv)
		lab := newHookLab(t)
		writeHooks(t, userSettings(o), hookDef{event: "Stop", command: lab.script("tests", "echo 'Run the tests first.' >&2; exit 2")})
		s := open(t, o)
		evs, err := hsend(t, s, "do it", nil)
		if err != nil {
			t.Fatal(err)
		}
		if lc := lastComplete(t, evs); lc.Reason != event.ReasonDone || lc.FinalText != "Really done." {
			t.Fatalf("loop_complete %+v", lc)
		}
		reqs := requestsText(srv)
		if len(reqs) != 2 || !strings.Contains(reqs[1], "Run the tests first.") {
			t.Fatalf("%d requests; the continuation: %v", len(reqs), reqs)
		}
		var active []any
		for _, in := range lab.runs("tests") {
			active = append(active, in["stop_hook_active"])
		}
		if diff := cmp.Diff([]any{false, true}, active); diff != "" {
			t.Errorf("stop_hook_active (-want +got):\n%s", diff)
		}
		// The next prompt may be continued once again.
		if _, err := hsend(t, s, "more", nil); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("SessionStart", func(t *testing.T) {
		srv := llmtest.NewServer(text("ok"))
		defer srv.Close()
		o := testOptions(t, srv)
		lab := newHookLab(t)
		writeHooks(t, userSettings(o), hookDef{event: "SessionStart", command: lab.script("ss", "echo 'cannot block a start' >&2; exit 2")})
		s := open(t, o)
		if n := s.Notice(); !strings.Contains(n, "SessionStart hook") || !strings.Contains(n, "exited with status 2: cannot block a start") {
			t.Errorf("notice %q", n)
		}
		if _, err := hsend(t, s, "hi", nil); err != nil {
			t.Fatal(err)
		}
	})
}

// jsonHook is a hook script that prints answer (JSON) when its input
// contains when ("" for always).
func jsonHook(lab *hookLab, name, when, answer string) string {
	if when == "" {
		return lab.script(name, "cat <<'EOF'\n"+answer+"\nEOF")
	}
	return lab.script(name, "case \"$in\" in *'"+when+"'*) cat <<'EOF'\n"+answer+"\nEOF\n;; esac")
}

// Each field of a hook's JSON answer on standard output.
func TestCommandHookJSON(t *testing.T) {
	type setup struct {
		srv *llmtest.Server
		o   nova.Options
		lab *hookLab
	}
	newSetup := func(t *testing.T, turns ...llmtest.Turn) setup {
		srv := llmtest.NewServer(turns...)
		t.Cleanup(srv.Close)
		o := testOptions(t, srv)
		writeFile(t, filepath.Join(o.Dir, "notes.txt"), "the notes")
		return setup{srv, o, newHookLab(t)}
	}
	asked := func(t *testing.T, o *nova.Options, answer nova.Decision) *[]string {
		var reasons []string
		o.CanUseTool = func(_ context.Context, r nova.PermissionRequest) nova.Decision {
			reasons = append(reasons, r.Tool+": "+r.Reason)
			return answer
		}
		return &reasons
	}
	readFile := func(t *testing.T, path string) string {
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run("permissionDecision deny", func(t *testing.T) {
		x := newSetup(t, call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
		writeHooks(t, userSettings(x.o), hookDef{event: "PreToolUse", command: jsonHook(x.lab, "deny", "",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not today"}}`)})
		evs, err := hsend(t, open(t, x.o), "read", nil)
		if err != nil {
			t.Fatal(err)
		}
		if r := toolResults(evs)["r1"]; !r.Denied || !strings.Contains(r.Content, "not today") || strings.Contains(r.Content, "the notes") {
			t.Errorf("result %+v", r)
		}
	})

	t.Run("permissionDecision ask", func(t *testing.T) {
		x := newSetup(t, call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
		reasons := asked(t, &x.o, nova.Deny("no"))
		writeHooks(t, userSettings(x.o), hookDef{event: "PreToolUse", command: jsonHook(x.lab, "ask", "",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check this read"}}`)})
		evs, err := hsend(t, open(t, x.o), "read", nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(*reasons) != 1 || !strings.Contains((*reasons)[0], "check this read") {
			t.Errorf("asked %q", *reasons)
		}
		if r := toolResults(evs)["r1"]; !r.Denied {
			t.Errorf("result %+v", r)
		}
	})

	t.Run("permissionDecision allow", func(t *testing.T) {
		// Nobody can be asked: without the hook the write is denied. A
		// deny rule and a hard check still hold.
		x := newSetup(t, llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"a"}`),
			llmtest.ToolUse("w2", "Write", `{"file_path":"b.txt","content":"b"}`),
			llmtest.ToolUse("w3", "Write", `{"file_path":".novacode/settings.json","content":"{}"}`),
		}}, text("ok"))
		x.o.Deny = []string{"Write(b.txt)"}
		writeHooks(t, userSettings(x.o), hookDef{event: "PreToolUse", command: jsonHook(x.lab, "allow", "",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"the formatter checked it"}}`)})
		evs, err := hsend(t, open(t, x.o), "write", nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := toolResults(evs)
		if readFile(t, filepath.Join(x.o.Dir, "a.txt")) != "a" || rs["w1"].IsError {
			t.Errorf("the allowed write did not run: %+v", rs["w1"])
		}
		if readFile(t, filepath.Join(x.o.Dir, "b.txt")) != "" || !rs["w2"].Denied {
			t.Errorf("a hook's allow beat a deny rule: %+v", rs["w2"])
		}
		if readFile(t, filepath.Join(x.o.Dir, ".novacode", "settings.json")) != "" || !rs["w3"].Denied {
			t.Errorf("a hook's allow beat a hard check: %+v", rs["w3"])
		}
	})

	t.Run("updatedInput", func(t *testing.T) {
		x := newSetup(t, llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"from the model"}`),
			llmtest.ToolUse("w2", "Write", `{"file_path":"b.txt","content":"from the model"}`),
			llmtest.ToolUse("r1", "Read", `{"file_path":"notes.txt"}`),
		}}, text("ok"))
		x.o.PermissionMode = nova.ModeAcceptEdits
		writeFile(t, filepath.Join(x.o.Dir, ".env"), "TOKEN=secret")
		writeHooks(t, userSettings(x.o),
			hookDef{event: "PreToolUse", matcher: "Write", command: jsonHook(x.lab, "fix-a", "a.txt",
				`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":"a.txt","content":"from the hook"}}}`)},
			// An input the tool rejects runs nothing.
			hookDef{event: "PreToolUse", matcher: "Write", command: jsonHook(x.lab, "break-b", "b.txt",
				`{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"file_path":3}}}`)},
			// The chain decides about the new input: a secret is asked
			// about, and nobody can answer.
			hookDef{event: "PreToolUse", matcher: "Read", command: jsonHook(x.lab, "to-secret", "",
				`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"file_path":".env"}}}`)},
		)
		evs, err := hsend(t, open(t, x.o), "write", nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := toolResults(evs)
		if got := readFile(t, filepath.Join(x.o.Dir, "a.txt")); got != "from the hook" {
			t.Errorf("a.txt = %q", got)
		}
		for _, e := range evs {
			if u, ok := e.(event.ToolUse); ok && u.ID == "w1" {
				if !strings.Contains(string(u.Input), "from the hook") || !strings.Contains(string(u.ModelInput), "from the model") {
					t.Errorf("tool_use %s / %s", u.Input, u.ModelInput)
				}
			}
		}
		if _, err := os.Stat(filepath.Join(x.o.Dir, "b.txt")); err == nil || !rs["w2"].Denied || !strings.Contains(rs["w2"].Content, "does not accept") {
			t.Errorf("an invalid replacement: %+v, %v", rs["w2"], err)
		}
		if r := rs["r1"]; !r.Denied || strings.Contains(r.Content, "secret") {
			t.Errorf("a replacement went past the chain: %+v", r)
		}
		// The model's own call is what history keeps.
		if sent := requestsText(x.srv)[1]; !strings.Contains(sent, "from the model") {
			t.Errorf("history lost the model's call: %s", sent)
		}
	})

	t.Run("additionalContext", func(t *testing.T) {
		x := newSetup(t, call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
		writeHooks(t, userSettings(x.o),
			hookDef{event: "PreToolUse", command: jsonHook(x.lab, "pre", "", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"PRE-CONTEXT"}}`)},
			hookDef{event: "PostToolUse", command: jsonHook(x.lab, "post", "", `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"POST-CONTEXT"}}`)},
			hookDef{event: "UserPromptSubmit", command: jsonHook(x.lab, "ups", "", `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"UPS-CONTEXT"}}`)},
			hookDef{event: "SessionStart", command: jsonHook(x.lab, "ss", "", `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"SS-CONTEXT"}}`)},
		)
		if _, err := hsend(t, open(t, x.o), "read", nil); err != nil {
			t.Fatal(err)
		}
		reqs := requestsText(x.srv)
		for i, want := range [][]string{{"SS-CONTEXT", "UPS-CONTEXT"}, {"PRE-CONTEXT", "POST-CONTEXT"}} {
			for _, w := range want {
				if !strings.Contains(reqs[i], w) {
					t.Errorf("request %d lacks %s", i, w)
				}
			}
		}
	})

	t.Run("continue false", func(t *testing.T) {
		x := newSetup(t, call("r1", "Read", `{"file_path":"notes.txt"}`), text("never"))
		writeHooks(t, userSettings(x.o), hookDef{event: "PostToolUse", command: jsonHook(x.lab, "halt", "", `{"continue":false,"stopReason":"the build is broken"}`)})
		evs, err := hsend(t, open(t, x.o), "read", nil)
		if err == nil || err.Error() != "stopped by a PostToolUse hook: the build is broken" {
			t.Fatalf("error %v", err)
		}
		if lc := lastComplete(t, evs); lc.Reason != event.ReasonError || lc.Error != err.Error() {
			t.Errorf("loop_complete %+v", lc)
		}
		if n := len(modelCalls(x.srv)); n != 1 {
			t.Errorf("%d model calls after the stop, want 1", n)
		}
	})

	t.Run("systemMessage and suppressOutput", func(t *testing.T) {
		x := newSetup(t, call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
		writeHooks(t, userSettings(x.o),
			hookDef{event: "PostToolUse", command: jsonHook(x.lab, "say", "", `{"systemMessage":"notes.txt was read"}`)},
			hookDef{event: "PreToolUse", command: jsonHook(x.lab, "quiet", "", `{"suppressOutput":true}`)},
		)
		evs, err := hsend(t, open(t, x.o), "read", nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := warnings(evs); len(w) != 1 || w[0] != "PostToolUse hook: notes.txt was read" {
			t.Errorf("warnings %q", w)
		}
		if r := toolResults(evs)["r1"]; r.IsError {
			t.Errorf("result %+v", r)
		}
	})

	t.Run("decision block", func(t *testing.T) {
		x := newSetup(t, call("r1", "Read", `{"file_path":"notes.txt"}`), text("done"), text("tested"))
		writeHooks(t, userSettings(x.o),
			hookDef{event: "PostToolUse", command: jsonHook(x.lab, "post", "", `{"decision":"block","reason":"notes.txt is stale"}`)},
			hookDef{event: "Stop", command: jsonHook(x.lab, "stop", `"stop_hook_active":false`, `{"decision":"block","reason":"Run the tests."}`)},
			hookDef{event: "UserPromptSubmit", command: jsonHook(x.lab, "ups", "forbidden", `{"decision":"block","reason":"not that"}`)},
		)
		s := open(t, x.o)
		evs, err := hsend(t, s, "read", nil)
		if err != nil {
			t.Fatal(err)
		}
		reqs := requestsText(x.srv)
		if len(reqs) != 3 || !strings.Contains(reqs[1], "notes.txt is stale") || !strings.Contains(reqs[2], "Run the tests.") {
			t.Errorf("requests %q", reqs)
		}
		if lc := lastComplete(t, evs); lc.FinalText != "tested" {
			t.Errorf("loop_complete %+v", lc)
		}
		if _, err := hsend(t, s, "forbidden things", nil); err == nil || !strings.Contains(err.Error(), "not that") {
			t.Errorf("blocked prompt: %v", err)
		}
	})

	t.Run("PermissionRequest", func(t *testing.T) {
		x := newSetup(t, llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"a"}`),
			llmtest.ToolUse("w2", "Write", `{"file_path":"b.txt","content":"b"}`),
			llmtest.ToolUse("w3", "Write", `{"file_path":".novacode/settings.json","content":"{}"}`),
			llmtest.ToolUse("w4", "Write", `{"file_path":"c.txt","content":"c"}`),
		}}, text("ok"))
		reasons := asked(t, &x.o, nova.Deny("the person said no"))
		allow := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
		writeHooks(t, userSettings(x.o),
			hookDef{event: "PermissionRequest", matcher: "Write", command: jsonHook(x.lab, "a", "a.txt", allow)},
			hookDef{event: "PermissionRequest", matcher: "Write", command: jsonHook(x.lab, "b", "b.txt",
				`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"b.txt is generated"}}}`)},
			hookDef{event: "PermissionRequest", matcher: "Write", command: jsonHook(x.lab, "settings", ".novacode", allow)},
		)
		evs, err := hsend(t, open(t, x.o), "write", nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := toolResults(evs)
		if readFile(t, filepath.Join(x.o.Dir, "a.txt")) != "a" {
			t.Errorf("a.txt was not written: %+v", rs["w1"])
		}
		if r := rs["w2"]; !r.Denied || !strings.Contains(r.Content, "b.txt is generated") {
			t.Errorf("b.txt: %+v", r)
		}
		// Only a person may allow writing NovaCode's settings; c.txt no
		// hook answers for.
		if readFile(t, filepath.Join(x.o.Dir, ".novacode", "settings.json")) != "" || !rs["w3"].Denied {
			t.Errorf("settings: %+v", rs["w3"])
		}
		if len(*reasons) != 2 || !strings.HasPrefix((*reasons)[0], "Write: writing") || !strings.HasPrefix((*reasons)[1], "Write: ") {
			t.Errorf("asked %q", *reasons)
		}
		if w := warnings(evs); len(w) != 1 || !strings.Contains(w[0], "only a person may allow this call") {
			t.Errorf("warnings %q", w)
		}
	})

	t.Run("broken JSON", func(t *testing.T) {
		x := newSetup(t, llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.ToolUse("r1", "Read", `{"file_path":"notes.txt"}`),
			llmtest.ToolUse("g1", "Glob", `{"pattern":"*.txt"}`),
		}}, text("ok"))
		writeHooks(t, userSettings(x.o),
			hookDef{event: "PreToolUse", matcher: "Read", command: jsonHook(x.lab, "cut", "", `{"decision":"block","reason":"cut off`)},
			hookDef{event: "PreToolUse", matcher: "Glob", command: jsonHook(x.lab, "odd", "", `{"decision":"maybe"}`)},
		)
		evs, err := hsend(t, open(t, x.o), "read", nil)
		if err != nil {
			t.Fatal(err)
		}
		rs := toolResults(evs)
		if rs["r1"].Denied || rs["g1"].Denied {
			t.Errorf("a broken answer blocked: %+v", rs)
		}
		w := warnings(evs)
		if len(w) != 2 {
			t.Fatalf("warnings %q", w)
		}
		for _, m := range w {
			if !strings.Contains(m, "printed JSON NovaCode cannot read on standard output") || !strings.Contains(m, "as if the hook had not answered") {
				t.Errorf("warning %q", m)
			}
		}
	})
}

// Matchers are Claude Code's: a name or names joined by | match exactly,
// anything else is a regular expression found in the name; empty and *
// match everything. SessionStart matches its source, PreCompact its
// trigger.
func TestCommandHookMatchers(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.ToolUse("r1", "Read", `{"file_path":"notes.txt"}`),
		llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"a"}`),
		llmtest.ToolUse("g1", "Glob", `{"pattern":"*"}`),
	}}, text("ok"), text("SUMMARY"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.PermissionMode = nova.ModeAcceptEdits
	writeFile(t, filepath.Join(o.Dir, "notes.txt"), "n")
	lab := newHookLab(t)
	matchers := map[string]string{"read": "Read", "read-write": "Read|Write", "prefix": "^Wr", "regexp": "G.ob", "all": "*",
		"empty": "", "bash": "Bash", "part": "Rea", "spaced": "Read | Write"}
	var defs []hookDef
	for name, m := range matchers {
		defs = append(defs, hookDef{event: "PreToolUse", matcher: m, command: lab.script(name, "")})
	}
	defs = append(defs,
		hookDef{event: "SessionStart", matcher: "startup", command: lab.script("startup", "")},
		hookDef{event: "SessionStart", matcher: "resume|clear", command: lab.script("resume", "")},
		hookDef{event: "PreCompact", matcher: "auto", command: lab.script("auto", "")},
		hookDef{event: "PreCompact", matcher: "manual", command: lab.script("manual", "")},
	)
	writeHooks(t, userSettings(o), defs...)
	s := open(t, o)
	if _, err := hsend(t, s, "go", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for name := range matchers {
		got[name] = nil
		for _, in := range lab.runs(name) {
			got[name] = append(got[name], in["tool_name"].(string))
		}
	}
	for _, name := range []string{"startup", "resume", "auto", "manual"} {
		got[name] = nil
		for _, in := range lab.runs(name) {
			got[name] = append(got[name], fmt.Sprint(in["source"], in["trigger"]))
		}
	}
	want := map[string][]string{
		"read": {"Read"}, "read-write": {"Read", "Write"}, "prefix": {"Write"}, "regexp": {"Glob"},
		"all": {"Read", "Write", "Glob"}, "empty": {"Read", "Write", "Glob"}, "bash": nil, "part": nil, "spaced": nil,
		"startup": {"startup<nil>"}, "resume": nil, "auto": nil, "manual": {"<nil>manual"},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })); diff != "" {
		t.Errorf("runs by matcher (-want +got):\n%s", diff)
	}
}

// The hooks of one event run in parallel; a command named twice (in one
// file or two) runs once.
func TestCommandHooksRunInParallelAndOnce(t *testing.T) {
	srv := llmtest.NewServer(text("ok"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.TrustWorkspace = true
	lab := newHookLab(t)
	slow1 := lab.script("slow1", "sleep 1; echo ONE")
	slow2 := lab.script("slow2", "sleep 1; echo TWO")
	twice := lab.script("twice", "echo TWICE")
	writeHooks(t, userSettings(o),
		hookDef{event: "UserPromptSubmit", command: slow1},
		hookDef{event: "UserPromptSubmit", command: twice},
		hookDef{event: "UserPromptSubmit", command: twice},
	)
	writeHooks(t, filepath.Join(o.Dir, ".novacode", "settings.local.json"),
		hookDef{event: "UserPromptSubmit", command: slow2},
		hookDef{event: "UserPromptSubmit", command: twice},
	)
	s := open(t, o)
	start := time.Now()
	if _, err := hsend(t, s, "go", nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 1900*time.Millisecond {
		t.Errorf("two hooks of a second each took %v: not in parallel", d)
	}
	if n := len(lab.runs("twice")); n != 1 {
		t.Errorf("a command named three times ran %d times", n)
	}
	sent := requestsText(srv)[0]
	// In the order of the files and of the hooks in them.
	if !strings.Contains(sent, `ONE\nTWICE\nTWO`) {
		t.Errorf("contexts not merged in order: %.400s", sent)
	}
}

// procGone reports whether pid has exited (or is a zombie waiting to be
// reaped).
func procGone(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func waitGone(t *testing.T, what string, pids ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for !procGone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: process %s still runs", what, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func readPid(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if s := strings.TrimSpace(string(b)); err == nil && s != "" {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A hook that hangs is killed at its timeout, with what it started; the
// session goes on as if it had not answered. A Send interrupted while a
// hook runs kills it too.
func TestCommandHookTimeoutAndCancel(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		srv := llmtest.NewServer(call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
		defer srv.Close()
		o := testOptions(t, srv)
		writeFile(t, filepath.Join(o.Dir, "notes.txt"), "the notes")
		lab := newHookLab(t)
		writeHooks(t, userSettings(o), hookDef{event: "PreToolUse", timeout: 0.5,
			command: lab.script("hang", "echo $$ > '"+lab.path("shell.pid")+"'; sleep 60 & echo $! > '"+lab.path("child.pid")+"'; wait")})
		s := open(t, o)
		start := time.Now()
		evs, err := hsend(t, s, "read", nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the run took %v", d)
		}
		if r := toolResults(evs)["r1"]; r.IsError || !strings.Contains(r.Content, "the notes") {
			t.Errorf("the call did not go on: %+v", r)
		}
		if w := warnings(evs); len(w) != 1 || !strings.Contains(w[0], "did not finish within 500ms and was killed") {
			t.Errorf("warnings %q", w)
		}
		waitGone(t, "after the timeout", readPid(t, lab.path("shell.pid")), readPid(t, lab.path("child.pid")))
	})

	t.Run("cancel", func(t *testing.T) {
		srv := llmtest.NewServer(call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
		defer srv.Close()
		o := testOptions(t, srv)
		lab := newHookLab(t)
		writeHooks(t, userSettings(o), hookDef{event: "PreToolUse",
			command: lab.script("hang", "echo $$ > '"+lab.path("shell.pid")+"'; sleep 60")})
		s := open(t, o)
		go func() {
			readPid(t, lab.path("shell.pid"))
			s.Interrupt()
		}()
		start := time.Now()
		evs, _ := hsend(t, s, "read", nil)
		if lc := lastComplete(t, evs); lc.Reason != event.ReasonCancelled {
			t.Errorf("loop_complete %+v", lc)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the interrupted run took %v", d)
		}
		waitGone(t, "after the interrupt", readPid(t, lab.path("shell.pid")))
		if w := warnings(evs); len(w) != 0 {
			t.Errorf("an interrupted hook was reported: %q", w)
		}
	})
}

// A hook that prints 10 MB costs no more than what is kept of it: its
// answer is ignored (standard output) or cut (standard error, the reason
// the model reads).
func TestCommandHookFloodsOutput(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.ToolUse("r1", "Read", `{"file_path":"notes.txt"}`),
		llmtest.ToolUse("g1", "Glob", `{"pattern":"*"}`),
	}}, text("ok"))
	defer srv.Close()
	o := testOptions(t, srv)
	writeFile(t, filepath.Join(o.Dir, "notes.txt"), "the notes")
	lab := newHookLab(t)
	writeHooks(t, userSettings(o),
		hookDef{event: "PreToolUse", matcher: "Read", command: lab.script("out", "head -c 10000000 /dev/zero | tr '\\0' x")},
		hookDef{event: "PreToolUse", matcher: "Glob", command: lab.script("err", "head -c 10000000 /dev/zero | tr '\\0' y >&2; exit 2")},
	)
	s := open(t, o)
	evs, err := hsend(t, s, "read", nil)
	if err != nil {
		t.Fatal(err)
	}
	rs := toolResults(evs)
	if r := rs["r1"]; r.IsError || !strings.Contains(r.Content, "the notes") {
		t.Errorf("the call did not go on: %+v", r)
	}
	if w := warnings(evs); len(w) != 1 || !strings.Contains(w[0], "printed more than 1048576 bytes on standard output") {
		t.Errorf("warnings %q", w)
	}
	if r := rs["g1"]; !r.Denied || len(r.Content) > 12_000 || !strings.Contains(r.Content, "more characters cut") {
		t.Errorf("the blocked call's reason: %d characters, denied %v", len(r.Content), r.Denied)
	}
}

// A workspace's own hooks run only once it is trusted; the person's own
// always run. Session.Hooks lists both, and the withheld ones.
func TestProjectHooksNeedTrust(t *testing.T) {
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprint("trusted=", trusted), func(t *testing.T) {
			srv := llmtest.NewServer(text("ok"))
			defer srv.Close()
			o := testOptions(t, srv)
			o.TrustWorkspace = trusted
			lab := newHookLab(t)
			mine, theirs := lab.script("mine", ""), lab.script("theirs", "")
			writeHooks(t, userSettings(o), hookDef{event: "UserPromptSubmit", command: mine})
			project := filepath.Join(o.Dir, ".novacode", "settings.json")
			writeHooks(t, project, hookDef{event: "UserPromptSubmit", matcher: "", command: theirs, timeout: 5})
			o.Hooks.Stop = []nova.HookFunc{func(context.Context, nova.HookInput) (nova.HookOutput, error) { return nova.HookOutput{}, nil }}
			s := open(t, o)
			if _, err := hsend(t, s, "hi", nil); err != nil {
				t.Fatal(err)
			}
			if n := len(lab.runs("mine")); n != 1 {
				t.Errorf("the user's hook ran %d times", n)
			}
			ran := len(lab.runs("theirs"))
			if ran != map[bool]int{false: 0, true: 1}[trusted] {
				t.Errorf("the project's hook ran %d times", ran)
			}
			if n := s.Notice(); trusted == strings.Contains(n, "hooks.UserPromptSubmit") {
				t.Errorf("notice %q", n)
			}
			want := []nova.HookInfo{
				{Event: "UserPromptSubmit", Command: mine, Timeout: time.Minute, Source: userSettings(o)},
				{Event: "UserPromptSubmit", Command: theirs, Source: project, Withheld: true},
				{Event: "Stop", Source: "Options.Hooks"},
			}
			if trusted {
				want[1] = nova.HookInfo{Event: "UserPromptSubmit", Command: theirs, Timeout: 5 * time.Second, Source: project}
			} else {
				want = []nova.HookInfo{want[0], want[2], want[1]}
			}
			if diff := cmp.Diff(want, s.Hooks()); diff != "" {
				t.Errorf("Session.Hooks (-want +got):\n%s", diff)
			}
		})
	}
}

// The settings are read once, when the session opens: a hook written
// into them later (by the model, were it allowed to, or by anyone) waits
// for the next session.
func TestHooksAreReadOnce(t *testing.T) {
	srv := llmtest.NewServer(text("one"), text("two"))
	defer srv.Close()
	o := testOptions(t, srv)
	lab := newHookLab(t)
	s := open(t, o)
	if _, err := hsend(t, s, "one", nil); err != nil {
		t.Fatal(err)
	}
	writeHooks(t, userSettings(o), hookDef{event: "UserPromptSubmit", command: lab.script("late", "")})
	if _, err := hsend(t, s, "two", nil); err != nil {
		t.Fatal(err)
	}
	if n := len(lab.runs("late")); n != 0 || len(s.Hooks()) != 0 {
		t.Errorf("a hook added during the session ran %d times; listed: %v", n, s.Hooks())
	}
}

// Go hooks and command hooks share one dispatch: both run, in parallel,
// and their answers merge (the strictest decision wins).
func TestGoAndCommandHooksTogether(t *testing.T) {
	srv := llmtest.NewServer(call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
	defer srv.Close()
	o := testOptions(t, srv)
	writeFile(t, filepath.Join(o.Dir, "notes.txt"), "n")
	lab := newHookLab(t)
	writeHooks(t, userSettings(o), hookDef{event: "PreToolUse", command: jsonHook(lab, "deny", "",
		`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the script says no"}}`)})
	started := make(chan struct{})
	o.Hooks.PreToolUse = []nova.ToolHook{{Matcher: "Read", Run: func(ctx context.Context, in nova.HookInput) (nova.HookOutput, error) {
		close(started)
		return nova.HookOutput{PermissionDecision: "allow", AdditionalContext: "GO-CONTEXT"}, nil
	}}}
	evs, err := hsend(t, open(t, o), "read", nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if r := toolResults(evs)["r1"]; !r.Denied || !strings.Contains(r.Content, "the script says no") {
		t.Errorf("result %+v", r)
	}
	if !strings.Contains(requestsText(srv)[1], "GO-CONTEXT") {
		t.Error("the Go hook's context is lost")
	}
}

// .novacode/ stays out of the model's reach in every mode: writing it with
// Write, Edit or a redirect is asked of a person, whom no rule, mode or
// hook stands in for; a run that cannot ask denies it, with a PreToolUse
// hook allowing everything.
func TestNovacodeStaysProtected(t *testing.T) {
	calls := []struct{ tool, input string }{
		{"Write", `{"file_path":".novacode/settings.json","content":"{\"hooks\":{}}"}`},
		{"Edit", `{"file_path":".novacode/settings.local.json","old_string":"{}","new_string":"{\"hooks\":{}}"}`},
		{"Bash", `{"command":"echo '{\"hooks\":{}}' > .novacode/settings.json"}`},
		{"Bash", `{"command":"cp evil.json .novacode/settings.local.json"}`},
	}
	for _, mode := range []string{nova.ModeAcceptEdits, nova.ModeBypassPermissions} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, ".novacode", "settings.json"), "{}")
		writeFile(t, filepath.Join(dir, ".novacode", "settings.local.json"), "{}")
		for _, c := range calls {
			res, err := nova.CheckPermission(context.Background(), c.tool, json.RawMessage(c.input),
				nova.CheckOptions{Dir: dir, DataDir: t.TempDir(), PermissionMode: mode, Allow: []string{"Write", "Edit", "Bash"}, Sandbox: "assumed"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Behavior != "ask" || !(res.NeedsPerson || res.Hard) {
				t.Errorf("%s: %s %s: %s (%s), want asked of a person", mode, c.tool, c.input, res.Behavior, res.Reason)
			}
		}

		var blocks []llmtest.Block
		for i, c := range calls {
			blocks = append(blocks, llmtest.ToolUse(fmt.Sprint("c", i), c.tool, c.input))
		}
		srv := llmtest.NewServer(llmtest.Turn{Blocks: blocks}, text("ok"))
		o := testOptions(t, srv)
		o.Dir, o.PermissionMode, o.Allow = dir, mode, []string{"Write", "Edit", "Bash"}
		lab := newHookLab(t)
		writeHooks(t, userSettings(o), hookDef{event: "PreToolUse", command: jsonHook(lab, "yes", "",
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`)})
		res, err := nova.Run(context.Background(), "add a hook", o)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range res.ToolCalls {
			if !c.Denied {
				t.Errorf("%s: %s ran: %+v", mode, c.Name, c)
			}
		}
		for _, f := range []string{"settings.json", "settings.local.json"} {
			if b, _ := os.ReadFile(filepath.Join(dir, ".novacode", f)); string(b) != "{}" {
				t.Errorf("%s: %s = %q", mode, f, b)
			}
		}
	}
}

// HookInput in JSON: the common fields and the event's, each present.
func TestHookInputJSON(t *testing.T) {
	for _, tc := range []struct {
		in   nova.HookInput
		want string
	}{
		{nova.HookInput{SessionID: "s", Cwd: "/w", PermissionMode: "default", HookEventName: "Stop"},
			`{"session_id":"s","transcript_path":"","cwd":"/w","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false}`},
		{nova.HookInput{SessionID: "s", HookEventName: "PostToolUse", ToolName: "Read", ToolInput: json.RawMessage(`{"file_path":"a"}`),
			ToolUseID: "t1", ToolResponse: &nova.ToolResponse{Content: "x"}, Prompt: "not this one"},
			`{"session_id":"s","transcript_path":"","cwd":"","permission_mode":"","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"a"},"tool_response":{"content":"x"},"tool_use_id":"t1"}`},
		{nova.HookInput{HookEventName: "PreCompact", Trigger: "auto"},
			`{"session_id":"","transcript_path":"","cwd":"","permission_mode":"","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":""}`},
		{nova.HookInput{HookEventName: "Custom", Prompt: "p"},
			`{"session_id":"","transcript_path":"","cwd":"","permission_mode":"","hook_event_name":"Custom","prompt":"p"}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s:\n got %s, %v\nwant %s", tc.in.HookEventName, b, err, tc.want)
		}
	}
}

// A question for the person is a Notification too.
func TestNotificationOfAQuestion(t *testing.T) {
	srv := llmtest.NewServer(call("q1", "AskUserQuestion", `{"question":"Which database?","options":["Postgres","SQLite"]}`), text("ok"))
	defer srv.Close()
	o := testOptions(t, srv)
	o.Interactive = true
	lab := newHookLab(t)
	writeHooks(t, userSettings(o), hookDef{event: "Notification", matcher: "question", command: lab.script("note", "")})
	s, err := nova.Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hsend(t, s, "pick", nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil { // waits for hooks in the background
		t.Fatal(err)
	}
	runs := lab.runs("note")
	if len(runs) != 1 || runs[0]["message"] != "Which database?" || runs[0]["notification_type"] != "question" {
		t.Errorf("runs %v", runs)
	}
}

// Exit status 2 of the other events: PermissionRequest denies with
// standard error, PostToolUseFailure tells the model, PreCompact cannot
// block (you are told, the compaction happens).
func TestCommandHookExitStatusOtherEvents(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.ToolUse("r1", "Read", `{"file_path":"missing.txt"}`),
		llmtest.ToolUse("w1", "Write", `{"file_path":"a.txt","content":"a"}`),
	}}, text("ok"), text("SUMMARY"), text("again"))
	defer srv.Close()
	o := testOptions(t, srv)
	reasons := 0
	o.CanUseTool = func(context.Context, nova.PermissionRequest) nova.Decision { reasons++; return nova.Allow() }
	lab := newHookLab(t)
	writeHooks(t, userSettings(o),
		hookDef{event: "PostToolUseFailure", command: lab.script("fail", "echo 'missing.txt is generated by make' >&2; exit 2")},
		hookDef{event: "PermissionRequest", command: lab.script("perm", "echo 'no writes today' >&2; exit 2")},
		hookDef{event: "PreCompact", command: lab.script("pc", "echo 'compaction noted' >&2; exit 2")},
	)
	s := open(t, o)
	evs, err := hsend(t, s, "go", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := toolResults(evs)["w1"]; !r.Denied || !strings.Contains(r.Content, "no writes today") || reasons != 0 {
		t.Errorf("the write: %+v (CanUseTool asked %d times)", r, reasons)
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "a.txt")); err == nil {
		t.Error("a.txt was written")
	}
	if sent := requestsText(srv)[1]; !strings.Contains(sent, "missing.txt is generated by make") {
		t.Errorf("the model was not told: %.300s", sent)
	}
	c, err := s.Compact(context.Background(), "")
	if err != nil || c.Reason != "manual" {
		t.Fatalf("compact %+v, %v", c, err)
	}
	evs, err = hsend(t, s, "again", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := warnings(evs); len(w) != 1 || !strings.Contains(w[0], "PreCompact hook") || !strings.Contains(w[0], "exited with status 2: compaction noted") {
		t.Errorf("warnings %q", w)
	}
}

// A Go hook that panics is reported like one that fails; the others'
// answers count.
func TestPanickingGoHook(t *testing.T) {
	srv := llmtest.NewServer(call("r1", "Read", `{"file_path":"notes.txt"}`), text("ok"))
	defer srv.Close()
	o := testOptions(t, srv)
	writeFile(t, filepath.Join(o.Dir, "notes.txt"), "n")
	o.Hooks.PreToolUse = []nova.ToolHook{
		{Run: func(context.Context, nova.HookInput) (nova.HookOutput, error) { panic("boom") }},
		{Run: func(context.Context, nova.HookInput) (nova.HookOutput, error) {
			return nova.HookOutput{PermissionDecision: "deny", Reason: "second says no"}, nil
		}},
	}
	evs, err := hsend(t, open(t, o), "read", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := toolResults(evs)["r1"]; !r.Denied || !strings.Contains(r.Content, "second says no") {
		t.Errorf("result %+v", r)
	}
	if w := warnings(evs); len(w) != 1 || w[0] != "PreToolUse hook 1 failed: panicked: boom" {
		t.Errorf("warnings %q", w)
	}
}
