package permission_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission"
)

// planEnv is newEnv with a data directory under home holding the plan
// file's directory, as the SDK lays it out.
func planEnv(t *testing.T) (env, string) {
	t.Helper()
	e := newEnv(t)
	plans := filepath.Join(e.home, ".novacode", "plans")
	if err := os.MkdirAll(plans, 0o700); err != nil {
		t.Fatal(err)
	}
	return e, filepath.Join(plans, "s1.md")
}

// In plan mode only read-only work runs, whatever the rules say: writes,
// commands that are not provably read-only, unknown programs and tools
// that may change things are denied with a reason that says how to go on;
// reads and read-only commands go on as in the other modes; the plan file
// is the one file that may be written.
func TestPlanMode(t *testing.T) {
	e, plan := planEnv(t)
	allowAll := []string{"Bash", "Edit", "Write", "mcp__s"}
	tests := []struct {
		name     string
		allow    []string
		ask      []string
		deny     []string
		tool     string
		in       json.RawMessage
		readOnly bool
		want     permission.Behavior
	}{
		// Denied, even where a rule allows.
		{name: "write", tool: "Write", in: input("file_path", "src/new.go", "content", "x"), want: permission.Deny},
		{name: "write allowed by rule", allow: allowAll, tool: "Write", in: input("file_path", "src/new.go", "content", "x"), want: permission.Deny},
		{name: "edit allowed by rule", allow: []string{"Edit(src/**)"}, tool: "Edit", in: input("file_path", "src/main.go"), want: permission.Deny},
		{name: "write outside", tool: "Write", in: input("file_path", filepath.Join(e.outside, "x")), want: permission.Deny},
		{name: "write .git hook", tool: "Write", in: input("file_path", ".git/hooks/pre-commit"), want: permission.Deny},
		{name: "write without a path", tool: "Write", in: input("content", "x"), want: permission.Deny},
		{name: "touch", tool: "Bash", in: input("command", "touch x"), want: permission.Deny},
		{name: "touch allowed by rule", allow: []string{"Bash(touch:*)"}, tool: "Bash", in: input("command", "touch x"), want: permission.Deny},
		{name: "sed -i", tool: "Bash", in: input("command", "sed -i s/a/b/ src/main.go"), want: permission.Deny},
		{name: "redirect", tool: "Bash", in: input("command", "echo hi > notes.txt"), want: permission.Deny},
		{name: "redirect allowed by rule", allow: allowAll, tool: "Bash", in: input("command", "echo hi > notes.txt"), want: permission.Deny},
		{name: "unknown program", tool: "Bash", in: input("command", "frobnicate --all"), want: permission.Deny},
		{name: "dangerous", tool: "Bash", in: input("command", "rm -rf /"), want: permission.Deny},
		{name: "unparseable", tool: "Bash", in: input("command", "echo 'x"), want: permission.Deny},
		{name: "no command", tool: "Bash", in: input("x", "y"), want: permission.Deny},
		{name: "a tool that may change things", allow: allowAll, tool: "mcp__s__add", in: json.RawMessage(`{}`), want: permission.Deny},
		{name: "the plan file by Bash", tool: "Bash", in: input("command", "echo plan > "+plan), want: permission.Deny},
		// Read-only work runs.
		{name: "read", tool: "Read", in: input("file_path", "src/main.go"), readOnly: true, want: permission.Allow},
		{name: "grep", tool: "Grep", in: input("pattern", "x"), readOnly: true, want: permission.Allow},
		{name: "ls", tool: "Bash", in: input("command", "ls -la src"), want: permission.Allow},
		{name: "git log", tool: "Bash", in: input("command", "git log --oneline -5"), want: permission.Allow},
		{name: "rg", tool: "Bash", in: input("command", "rg -n main src"), want: permission.Allow},
		{name: "read-only tool", tool: "mcp__s__echo", in: json.RawMessage(`{}`), readOnly: true, want: permission.Allow},
		// Reads the chain asks about elsewhere are asked here too.
		{name: "read outside", tool: "Read", in: input("file_path", filepath.Join(e.outside, "secret.txt")), readOnly: true, want: permission.Ask},
		{name: "cat a secret", tool: "Bash", in: input("command", "cat .env"), want: permission.Ask},
		{name: "fetch", tool: "WebFetch", in: input("url", "https://example.org/"), readOnly: true, want: permission.Ask},
		// Deny and ask rules still come first.
		{name: "deny rule", deny: []string{"Bash(ls:*)"}, tool: "Bash", in: input("command", "ls"), want: permission.Deny},
		{name: "ask rule", ask: []string{"Bash(git log:*)"}, tool: "Bash", in: input("command", "git log"), want: permission.Ask},
		// The plan file.
		{name: "write the plan file", tool: "Write", in: input("file_path", plan, "content", "# Plan"), want: permission.Allow},
		{name: "edit the plan file", tool: "Edit", in: input("file_path", plan), want: permission.Allow},
		{name: "the plan file through ..", tool: "Write", in: input("file_path", filepath.Join(filepath.Dir(plan), "..", "plans", "s1.md")), want: permission.Allow},
		{name: "the plan file by ~", tool: "Write", in: input("file_path", "~/.novacode/plans/s1.md"), want: permission.Allow},
		{name: "read the plan file", tool: "Read", in: input("file_path", plan), readOnly: true, want: permission.Allow},
		{name: "another plan", tool: "Write", in: input("file_path", filepath.Join(filepath.Dir(plan), "s2.md")), want: permission.Deny},
		{name: "the settings beside it", tool: "Write", in: input("file_path", filepath.Join(e.home, ".novacode", "settings.json")), want: permission.Deny},
		{name: "the plan file denied by rule", deny: []string{"Write"}, tool: "Write", in: input("file_path", plan), want: permission.Deny},
		// ExitPlanMode: only a person approves a plan.
		{name: "exit plan mode", tool: "ExitPlanMode", in: input("plan", "# Plan"), readOnly: true, want: permission.Ask},
		{name: "exit plan mode allowed by rule", allow: []string{"ExitPlanMode"}, tool: "ExitPlanMode", in: input("plan", "x"), readOnly: true, want: permission.Ask},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := checkerWith(t, e, permission.Config{Mode: permission.ModePlan, PlanFile: plan}, tc.allow, tc.ask, tc.deny)
			d := c.Check(permission.Call{Tool: tc.tool, Input: tc.in, ReadOnly: tc.readOnly})
			if d.Behavior != tc.want {
				t.Fatalf("%s %s: %s (%s), want %s", tc.tool, tc.in, d.Behavior, d.Reason, tc.want)
			}
			if d.Behavior == permission.Deny && tc.deny == nil {
				for _, part := range []string{"plan mode allows read-only tools only", plan, "ExitPlanMode"} {
					if !strings.Contains(d.Reason, part) {
						t.Errorf("the reason %q does not say %q", d.Reason, part)
					}
				}
			}
		})
	}
}

// ExitPlanMode is asked in plan mode, where only a person can answer (no
// suggested rule, nothing a run without a person could lift), and denied in
// every other mode: there is no plan to approve.
func TestExitPlanMode(t *testing.T) {
	e, plan := planEnv(t)
	type got struct {
		Behavior    permission.Behavior
		NeedsPerson bool
		Suggest     []string
	}
	tests := []struct {
		mode permission.Mode
		want got
	}{
		{permission.ModePlan, got{permission.Ask, true, nil}},
		{permission.ModeDefault, got{Behavior: permission.Deny}},
		{permission.ModeAcceptEdits, got{Behavior: permission.Deny}},
		{permission.ModeBypass, got{Behavior: permission.Deny}},
	}
	for _, tc := range tests {
		c := checkerWith(t, e, permission.Config{Mode: tc.mode, PlanFile: plan}, nil, nil, nil)
		d := c.Check(permission.Call{Tool: "ExitPlanMode", Input: input("plan", "x"), ReadOnly: true})
		if diff := cmp.Diff(tc.want, got{d.Behavior, d.NeedsPerson, d.Suggest}); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.mode, diff)
		}
		if d.Behavior == permission.Deny && !strings.Contains(d.Reason, "not in plan mode") {
			t.Errorf("%s: reason %q", tc.mode, d.Reason)
		}
	}
}

// The plan file is matched as it resolves: a symlink at its place (to a
// start-up file, say) is not the plan file, nor is a hard-linked one; in
// the other modes writing it is decided as any file outside the workspace,
// and reading it needs no question.
func TestPlanFileIsExact(t *testing.T) {
	e, plan := planEnv(t)
	write := func(mode permission.Mode, p string) permission.Decision {
		c := checkerWith(t, e, permission.Config{Mode: mode, PlanFile: p}, nil, nil, nil)
		return c.Check(permission.Call{Tool: "Write", Input: input("file_path", p, "content", "x")})
	}
	if d := write(permission.ModeAcceptEdits, plan); d.Behavior != permission.Ask {
		t.Errorf("acceptEdits, the plan file: %s (%s), want ask (outside the workspace)", d.Behavior, d.Reason)
	}
	linked := filepath.Join(filepath.Dir(plan), "linked.md")
	if err := os.Symlink(filepath.Join(e.home, ".bashrc"), linked); err != nil {
		t.Fatal(err)
	}
	if d := write(permission.ModePlan, linked); d.Behavior != permission.Deny {
		t.Errorf("a plan file that is a symlink to .bashrc: %s (%s), want deny", d.Behavior, d.Reason)
	}
	hard := filepath.Join(filepath.Dir(plan), "hard.md")
	if err := os.Link(filepath.Join(e.outside, "secret.txt"), hard); err != nil {
		t.Fatal(err)
	}
	if d := write(permission.ModePlan, hard); d.Behavior != permission.Deny {
		t.Errorf("a hard-linked plan file: %s (%s), want deny", d.Behavior, d.Reason)
	}
	for _, mode := range []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan} {
		c := checkerWith(t, e, permission.Config{Mode: mode, PlanFile: plan}, nil, nil, nil)
		if d := c.Check(permission.Call{Tool: "Read", Input: input("file_path", plan), ReadOnly: true}); d.Behavior != permission.Allow {
			t.Errorf("%s: reading the plan file: %s (%s)", mode, d.Behavior, d.Reason)
		}
	}
	// SetPlanFile follows the session: the old plan file is no longer one.
	c := checkerWith(t, e, permission.Config{Mode: permission.ModePlan, PlanFile: plan}, nil, nil, nil)
	other := filepath.Join(filepath.Dir(plan), "s2.md")
	c.SetPlanFile(other)
	if d := c.Check(permission.Call{Tool: "Write", Input: input("file_path", plan)}); d.Behavior != permission.Deny {
		t.Errorf("the previous plan file: %s", d.Behavior)
	}
	if d := c.Check(permission.Call{Tool: "Write", Input: input("file_path", other)}); d.Behavior != permission.Allow {
		t.Errorf("the new plan file: %s (%s)", d.Behavior, d.Reason)
	}
}
