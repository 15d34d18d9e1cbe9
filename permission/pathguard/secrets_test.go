package pathguard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHomeSecrets checks the credential files of other tools under home,
// NovaCode's own user settings (in ~/.novacode or $NOVA_HOME), and their
// neighbours that hold no secret.
func TestHomeSecrets(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(t.TempDir(), "nova-data")
	t.Setenv("NOVA_HOME", data)
	ws := filepath.Join(home, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	g, err := New(ws, nil, home)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		secret bool
	}{
		{"~/.novacode/settings.json", true},
		{filepath.Join(data, "settings.json"), true},
		{filepath.Join(data, "projects", "x.jsonl"), false},
		{"~/.novacode/projects/ws/s.jsonl", false},
		{"~/.config/gh/hosts.yml", true},
		{"~/.config/gh/config.yml", false},
		{"~/.config/hub", true},
		{"~/.config/glab-cli/config.yml", true},
		{"~/.git-credentials", true},
		{"~/.config/git/credentials", true},
		{"~/.config/git/ignore", false},
		{"~/.cargo/credentials", true},
		{"~/.cargo/credentials.toml", true},
		{"~/.cargo/config.toml", false},
		{"~/.config/gcloud/application_default_credentials.json", true},
		{"~/.azure/msal_token_cache.json", true},
		{"~/.terraform.d/credentials.tfrc.json", true},
		{"~/.terraform.d/plugins/x", false},
		{"~/.pgpass", true},
		{"~/.vault-token", true},
		{"~/.docker/config.json", true},
		{"~/.docker/contexts/meta.json", false},
		{"~/.gem/credentials", true},
		{"~/.m2/settings.xml", true},
		{"~/.m2/repository/x.jar", false},
		{"~/.kube/config", true},
		{"~/.PGPASS", true}, // case-insensitive filesystems
		{"ws/.pgpass", false},
	}
	want, got := map[string]bool{}, map[string]bool{}
	for _, tt := range tests {
		want[tt.path] = tt.secret
		got[tt.path] = g.Inspect(tt.path, home).Secret != ""
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("secret (-want +got):\n%s", d)
	}
}

// $NOVA_HOME is NovaCode's own, as ~/.novacode is: writing anything in it
// is protected, even where it lies inside the workspace (its settings hold
// the person's hooks and trust answers).
//
// A data directory an embedding program chose (nova.Options.DataDir) is
// protected the same way, through AddDataDir, with no $NOVA_HOME.
func TestDataDirIsProtected(t *testing.T) {
	for _, how := range []string{"NOVA_HOME", "AddDataDir"} {
		t.Run(how, func(t *testing.T) { testDataDirIsProtected(t, how) })
	}
}

func testDataDirIsProtected(t *testing.T, how string) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(ws, "nova-home")
	if how == "NOVA_HOME" {
		t.Setenv("NOVA_HOME", data)
	} else {
		t.Setenv("NOVA_HOME", "")
	}
	g, err := New(ws, nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if how == "AddDataDir" {
		if g.Inspect("nova-home/settings.json", ws).Protected != "" {
			t.Fatal("protected before AddDataDir: the test cannot fail")
		}
		g.AddDataDir(data)
	}
	for path, want := range map[string]bool{
		filepath.Join(data, "settings.json"):            true,
		"nova-home/settings.json":                       true,
		"nova-home/projects/x/s.jsonl":                  true,
		"./nova-home/../nova-home/settings.json":        true,
		"nova-homes/settings.json":                      false,
		filepath.Join(ws, "src", "nova-home", "x.json"): false,
	} {
		if got := g.Inspect(path, ws).Protected != ""; got != want {
			t.Errorf("%s: protected %v, want %v", path, got, want)
		}
	}
}
