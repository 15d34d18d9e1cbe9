package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/tool"
)

// The plan a call asks to approve is its input's, else the plan file's.
func TestExitPlanModePlan(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plans", "s.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("# From the file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withFile := &tool.Env{Dir: dir, PlanFile: func() string { return file }}
	tests := []struct {
		name  string
		env   *tool.Env
		input string
		want  string
	}{
		{"input", withFile, `{"plan":"  # Given\n\n1. Edit a.go\n"}`, "# Given\n\n1. Edit a.go"},
		{"empty input, the file", withFile, `{"plan":""}`, "# From the file"},
		{"no plan field", withFile, `{}`, "# From the file"},
		{"no plan file", &tool.Env{Dir: dir}, `{}`, ""},
		{"a missing plan file", &tool.Env{Dir: dir, PlanFile: func() string { return filepath.Join(dir, "none.md") }}, `{}`, ""},
	}
	pa := NewExitPlanMode().(tool.PlanApprover)
	for _, tc := range tests {
		if got := pa.Plan(tc.env, json.RawMessage(tc.input)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Run (after the person approved) keeps the approved plan in the plan file
// and tells the model to go on; the results of the other answers say what
// happens next.
func TestExitPlanModeResults(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plans", "s.md") // its directory does not exist yet
	env := &tool.Env{Dir: dir, PlanFile: func() string { return file }}
	tl := NewExitPlanMode()
	res, err := tl.Run(context.Background(), env, json.RawMessage(`{"plan":"# Plan\n1. Do it"}`))
	if err != nil || res.IsError || !strings.Contains(res.Content, "approved") || !strings.Contains(res.Content, file) {
		t.Fatalf("Run: %+v, %v", res, err)
	}
	b, err := os.ReadFile(file)
	if err != nil || string(b) != "# Plan\n1. Do it\n" {
		t.Fatalf("plan file: %q, %v", b, err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("plan file mode %v", fi.Mode().Perm())
	}
	// Without a plan file, nothing is written.
	res, _ = tl.Run(context.Background(), &tool.Env{Dir: dir}, json.RawMessage(`{"plan":"x"}`))
	if res.IsError || strings.Contains(res.Content, "plans") {
		t.Errorf("Run without a plan file: %+v", res)
	}

	pa := tl.(tool.PlanApprover)
	type result struct {
		IsError bool
		Says    []string
	}
	check := func(name string, r tool.Result, want result) {
		t.Helper()
		got := result{IsError: r.IsError}
		for _, s := range want.Says {
			if strings.Contains(r.Content, s) {
				got.Says = append(got.Says, s)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: %q (-want +got)\n%s", name, r.Content, diff)
		}
	}
	check("keep planning", pa.KeepPlanning("split step 2"), result{true, []string{"keep planning", "They said: split step 2", "ExitPlanMode again"}})
	check("keep planning, no words", pa.KeepPlanning("  "), result{true, []string{"keep planning", "ExitPlanMode again"}})
	check("unattended", pa.Unattended(), result{false, []string{"run ends here", "Nothing was changed"}})
}
