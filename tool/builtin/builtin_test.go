package builtin

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/novacode/nova/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newEnv returns a session rooted in a fresh temporary directory.
func newEnv(t testing.TB) *tool.Env {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &tool.Env{Dir: dir, Files: tool.NewFileState()}
}

// run calls tl with input marshalled to JSON, failing the test on a Go error.
func run(t testing.TB, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	return runCtx(context.Background(), t, tl, env, input)
}

func runCtx(ctx context.Context, t testing.TB, tl tool.Tool, env *tool.Env, input any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	res, err := tl.Run(ctx, env, raw)
	if err != nil {
		t.Fatalf("%s(%s): Go error %v", tl.Name(), raw, err)
	}
	return res
}

// writeFiles creates files (relative path → content) under dir.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// setMtimes gives the named files modification times one minute apart, in
// the order given: the last one is the newest.
func setMtimes(t testing.TB, dir string, names ...string) {
	t.Helper()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, n := range names {
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(n)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

// golden compares got with testdata/name.golden, after replacing the
// temporary directory with $DIR; -update rewrites the file instead.
func golden(t *testing.T, name, dir, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, dir, "$DIR")
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// check asserts a result's error flag and that its text contains every
// one of wants (with $DIR standing for dir).
func check(t *testing.T, res tool.Result, dir string, wantErr bool, wants ...string) {
	t.Helper()
	if res.IsError != wantErr {
		t.Errorf("IsError = %v, want %v; content:\n%s", res.IsError, wantErr, abbreviate(res.Content))
	}
	for _, w := range wants {
		w = strings.ReplaceAll(w, "$DIR", dir)
		if !strings.Contains(res.Content, w) {
			t.Errorf("content does not contain %q:\n%s", w, abbreviate(res.Content))
		}
	}
}

// abbreviate keeps failure messages readable when a tool's output is long.
func abbreviate(s string) string {
	if len(s) <= 3000 {
		return s
	}
	return s[:1500] + "\n[...]\n" + s[len(s)-1500:]
}

func TestAllOrderAndSafety(t *testing.T) {
	var names []string
	safe := map[string]bool{}
	for _, tl := range All() {
		names = append(names, tl.Name())
		safe[tl.Name()] = tl.ReadOnly()
	}
	want := []string{"Bash", "BashOutput", "KillShell", "Glob", "Grep", "LS", "Read", "Edit", "Write", "AskUserQuestion", "WebFetch", "TodoWrite", "ExitPlanMode"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tool order (-want +got):\n%s", diff)
	}
	wantSafe := map[string]bool{"Bash": false, "BashOutput": true, "KillShell": false, "Glob": true, "Grep": true, "LS": true, "Read": true, "Edit": false, "Write": false, "AskUserQuestion": true,
		"WebFetch": false, "TodoWrite": true, "ExitPlanMode": false}
	if diff := cmp.Diff(wantSafe, safe); diff != "" {
		t.Errorf("read-only tools (-want +got):\n%s", diff)
	}
}

func TestSchemas(t *testing.T) {
	type schema struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	tests := []struct {
		tool     string
		required []string
		props    []string
	}{
		{"Bash", []string{"command"}, []string{"command", "description", "run_in_background", "timeout"}},
		{"BashOutput", []string{"bash_id"}, []string{"bash_id", "filter"}},
		{"KillShell", []string{"shell_id"}, []string{"shell_id"}},
		{"Glob", []string{"pattern"}, []string{"path", "pattern"}},
		{"Grep", []string{"pattern"}, []string{"-A", "-B", "-C", "-i", "-n", "glob", "head_limit", "multiline", "output_mode", "path", "pattern", "type"}},
		{"LS", []string{"path"}, []string{"ignore", "path"}},
		{"Read", []string{"file_path"}, []string{"file_path", "limit", "offset"}},
		{"Edit", []string{"file_path", "old_string", "new_string"}, []string{"file_path", "new_string", "old_string", "replace_all"}},
		{"Write", []string{"file_path", "content"}, []string{"content", "file_path"}},
		{"WebFetch", []string{"url", "prompt"}, []string{"prompt", "url"}},
		{"TodoWrite", []string{"todos"}, []string{"todos"}},
		{"ExitPlanMode", []string{"plan"}, []string{"plan"}},
	}
	tools := map[string]tool.Tool{}
	for _, tl := range All() {
		tools[tl.Name()] = tl
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			var s schema
			if err := json.Unmarshal(tools[tt.tool].Schema(), &s); err != nil {
				t.Fatal(err)
			}
			if s.Type != "object" {
				t.Errorf("type = %q, want object", s.Type)
			}
			if diff := cmp.Diff(tt.required, s.Required); diff != "" {
				t.Errorf("required (-want +got):\n%s", diff)
			}
			var props []string
			for p, raw := range s.Properties {
				props = append(props, p)
				var d struct{ Description string }
				if err := json.Unmarshal(raw, &d); err != nil || d.Description == "" {
					t.Errorf("property %s has no description", p)
				}
			}
			slices.Sort(props)
			if diff := cmp.Diff(tt.props, props); diff != "" {
				t.Errorf("properties (-want +got):\n%s", diff)
			}
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Errorf("additionalProperties should be false")
			}
			if tools[tt.tool].Description() == "" {
				t.Errorf("no description")
			}
		})
	}

	var grep struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []string
		} `json:"properties"`
	}
	if err := json.Unmarshal(tools["Grep"].Schema(), &grep); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"content", "files_with_matches", "count"}, grep.Properties["output_mode"].Enum); diff != "" {
		t.Errorf("Grep output_mode enum (-want +got):\n%s", diff)
	}
	for _, p := range []string{"-A", "-B", "-C", "head_limit"} {
		if got := grep.Properties[p].Type; got != "integer" {
			t.Errorf("Grep %s type = %q, want integer", p, got)
		}
	}
}

// TestInvalidInput checks that schema violations come back as error
// results, not Go errors, for every tool.
func TestInvalidInput(t *testing.T) {
	env := newEnv(t)
	for _, tl := range All() {
		t.Run(tl.Name(), func(t *testing.T) {
			res, err := tl.Run(context.Background(), env, json.RawMessage(`{"no_such_field": 1}`))
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.Contains(res.Content, "Invalid input") {
				t.Errorf("got %+v, want an Invalid input error", res)
			}
		})
	}
}

func TestSimilarName(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"Makefile": "", "main.go": "", "config.yaml": "", "x": ""})
	tests := []struct{ ask, want string }{
		{"makefile", "Makefile"},
		{"main.ts", "main.go"},
		{"mian.go", "main.go"},
		{"config.yml", "config.yaml"},
		{"totally-different.txt", ""},
		{"y", ""}, // one letter off, but too short for that to mean a typo
	}
	for _, tt := range tests {
		got := similarName(filepath.Join(dir, tt.ask))
		want := ""
		if tt.want != "" {
			want = filepath.Join(dir, tt.want)
		}
		if got != want {
			t.Errorf("similarName(%q) = %q, want %q", tt.ask, got, want)
		}
	}
}
