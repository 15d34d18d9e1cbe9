package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func ptr[T any](v T) *T { return &v }

func TestLayersRefineFieldByField(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	paths := Paths(filepath.Join(dir, "home"), ws)
	write(t, paths[0], `{"provider":"anthropic","model":"claude-sonnet-4-5",
		"providers":{"anthropic":{"apiKey":"user-key"},"openai-chat":{"baseURL":"http://localhost:11434/v1"}},
		"timeouts":{"firstEvent":"30s","idle":"10s"},"prices":{"m1":{"input":1}},"autoMemory":"off"}`)
	write(t, paths[1], `{"autoMemory":"suggest","model":"claude-opus-4-5","providers":{"anthropic":{"baseURL":"https://proxy.example/anthropic"}},"timeouts":{"idle":5}}`)
	write(t, paths[2], `{"contextWindow":32768,"prices":{"m2":{"output":2}},"thinking":{"effort":"high"}}`)
	w, err := LoadWorkspace(filepath.Join(dir, "home"), ws)
	if err != nil {
		t.Fatal(err)
	}
	got, files := w.Resolve(true)
	if len(files) != 3 {
		t.Fatalf("loaded %d files", len(files))
	}
	want := Settings{
		Provider: ptr("anthropic"), Model: ptr("claude-opus-4-5"),
		Providers: map[string]Endpoint{
			"anthropic":   {APIKey: "user-key", BaseURL: "https://proxy.example/anthropic"},
			"openai-chat": {BaseURL: "http://localhost:11434/v1"},
		},
		ContextWindow: ptr(32768),
		Prices:        map[string]Price{"m1": {Input: 1}, "m2": {Output: 2}},
		Thinking:      &Thinking{Effort: "high"},
		Timeouts:      &Timeouts{FirstEvent: Duration{30 * time.Second}, Idle: Duration{5 * time.Second}},
		AutoMemory:    ptr("suggest"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("merged settings (-want +got):\n%s", diff)
	}
}

func TestBadSettingsSayWhereAndWhat(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"syntax", "{\n  \"model\": \"x\",\n  \"provider\" \"anthropic\"\n}", ".json:3:"},
		{"type", "{\"contextWindow\": \"big\"}", `"contextWindow" should be a number`},
		{"duration", `{"timeouts":{"idle":"soon"}}`, `invalid duration "soon"`},
	}
	for _, tc := range tests {
		// A broken project-level file stops the run too, trusted or not.
		for i, layer := range []string{"user", "project", "local"} {
			t.Run(tc.name+"/"+layer, func(t *testing.T) {
				dir := t.TempDir()
				p := write(t, Paths(filepath.Join(dir, "home"), dir)[i], tc.content)
				_, err := LoadWorkspace(filepath.Join(dir, "home"), dir)
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
					t.Fatalf("error = %v, want it to name %s and contain %q", err, p, tc.want)
				}
			})
		}
	}
}

func TestUnknownKeysAreReportedNotFatal(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, "settings.json"), `{"modle":"x","model":"y","permissions":{},"$schema":"s"}`)
	w, err := LoadWorkspace(home, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s, files := w.Resolve(false)
	if len(files) != 1 || *s.Model != "y" || !cmp.Equal(files[0].Unknown, []string{"modle"}) {
		t.Fatalf("model %v, files %+v", *s.Model, files)
	}
}

// TestEnvOnlyFromTheUsersFile: a project's files cannot pass credentials to
// commands; only the user's own settings can.
func TestEnvOnlyFromTheUsersFile(t *testing.T) {
	const user, project, local = 0, 1, 2
	tests := []struct {
		name  string
		files map[int]string
		want  *Env
	}{
		{"user", map[int]string{user: `{"env":{"passthrough":["GITHUB_TOKEN","AWS_*"]}}`},
			&Env{Passthrough: []string{"GITHUB_TOKEN", "AWS_*"}}},
		{"project", map[int]string{project: `{"env":{"passthrough":["GITHUB_TOKEN"]}}`}, nil},
		{"local", map[int]string{local: `{"env":{"passthrough":["GITHUB_TOKEN"]}}`}, nil},
		{"project and local beside the user's", map[int]string{
			user:    `{"env":{"passthrough":["GH_TOKEN"]}}`,
			project: `{"env":{"passthrough":["AWS_*"]}}`,
			local:   `{"env":{"passthrough":["*"]}}`,
		}, &Env{Passthrough: []string{"GH_TOKEN"}}},
		// An empty list in a project does not take the user's away
		// either: the project has no say.
		{"project empties it", map[int]string{
			user:    `{"env":{"passthrough":["GH_TOKEN"]}}`,
			project: `{"env":{"passthrough":[]}}`,
		}, &Env{Passthrough: []string{"GH_TOKEN"}}},
		{"none", map[int]string{user: `{"model":"m"}`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			data, wsDir := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
			paths := Paths(data, wsDir)
			for i, content := range tt.files {
				write(t, paths[i], content)
			}
			ws, err := LoadWorkspace(data, wsDir)
			if err != nil {
				t.Fatal(err)
			}
			// Trusted or not, a project has no say.
			for _, trusted := range []bool{false, true} {
				got, files := ws.Resolve(trusted)
				if diff := cmp.Diff(tt.want, got.Env); diff != "" {
					t.Errorf("trusted=%v: Env (-want +got):\n%s", trusted, diff)
				}
				for _, f := range files {
					if len(f.Unknown) > 0 {
						t.Errorf("%s: env reported unknown: %v", f.Path, f.Unknown)
					}
				}
			}
		})
	}
}
