//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm/llmtest"
)

// Credentials in nova's environment do not reach the commands the model
// runs, unless the user's own settings pass them through; a project's
// settings cannot.
func TestCommandsDoNotSeeCredentials(t *testing.T) {
	secrets := map[string]string{
		"GITHUB_TOKEN":          "ghp_e2eSecretValue",
		"AWS_SECRET_ACCESS_KEY": "awsE2eSecretValue",
		"NOVA_E2E_SETTING":      "not-a-secret",
	}
	tests := []struct {
		name     string
		user     string // ~/.novacode/settings.json
		project  string // .novacode/settings.json
		want     []string
		warnings []string
	}{
		{name: "withheld", want: []string{"NOVA_E2E_SETTING"}},
		{name: "withheld without the sandbox", user: `{"sandbox":"off"}`, want: []string{"NOVA_E2E_SETTING"}},
		{name: "passed through by the user", user: `{"env":{"passthrough":["GITHUB_TOKEN"]}}`,
			want: []string{"GITHUB_TOKEN", "NOVA_E2E_SETTING"}},
		{name: "a project cannot pass them", project: `{"env":{"passthrough":["*"]}}`,
			want: []string{"NOVA_E2E_SETTING"}, warnings: []string{`"env" can be set only in your own settings file (ignored)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			if tt.user != "" {
				writeFile(t, filepath.Join(home, "settings.json"), tt.user)
			}
			if tt.project != "" {
				writeFile(t, filepath.Join(ws, ".novacode", "settings.json"), tt.project)
			}
			srv := llmtest.NewServer(
				llmtest.Turn{Blocks: []llmtest.Block{bash("env", "env")}},
				llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}},
			)
			defer srv.Close()
			env := []string{"NOVA_HOME=" + home}
			for k, v := range secrets {
				env = append(env, k+"="+v)
			}
			r := runNovaEnv(t, srv, "anthropic", ws, env, "--allowedTools", "Bash", "show the environment")
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			results := r.byType("tool_result")
			if len(results) != 1 {
				t.Fatalf("%d tool results", len(results))
			}
			out := results[0]["content"].(string)
			var seen []string
			for line := range strings.Lines(out) {
				name, value, _ := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
				if v, ok := secrets[name]; ok && v == value {
					seen = append(seen, name)
				}
			}
			slices.Sort(seen)
			if d := cmp.Diff(tt.want, seen); d != "" {
				t.Errorf("variables env shows (-want +got):\n%s\noutput:\n%s", d, out)
			}
			// What the model was sent holds no more than env printed.
			reqs := modelCalls(srv)
			sent := string(reqs[len(reqs)-1].Body)
			for name, v := range secrets {
				if got, want := strings.Contains(sent, v), slices.Contains(tt.want, name); got != want {
					t.Errorf("%s's value reached the model: %v, want %v", name, got, want)
				}
			}
			if strings.Contains(sent, "test-key") {
				t.Errorf("the model provider's key reached a command")
			}
			for _, w := range tt.warnings {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.Stderr)
				}
			}
		})
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
