package pathguard_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/novacode/nova/permission/pathguard"
)

func TestSecretBelow(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	for _, f := range []string{"clean/a.go", "clean/sub/b.go", "hidden/.env", "hidden/app.go", "deep/x/y/server.key", "dotdir/.cfg/id_rsa"} {
		p := filepath.Join(ws, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := pathguard.New(ws, nil, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir        string
		skipHidden bool
		limit      int
		want       string // a substring of the answer; "" for none
	}{
		{"clean", false, 100, ""},
		{"hidden", false, 100, ".env"},
		{"hidden", true, 100, ""}, // rg without --hidden skips .env
		{"deep", false, 100, "server.key"},
		{"dotdir", true, 100, ""}, // a hidden directory is skipped whole
		{"dotdir", false, 100, "id_rsa"},
		{"clean", false, 2, "more than 2 entries"},
		{"missing", false, 100, ""},
		{"hidden/.env", false, 100, ".env"}, // a file is checked on its own
	}
	for _, tc := range tests {
		got := g.SecretBelow(filepath.Join(ws, tc.dir), tc.skipHidden, tc.limit)
		if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("SecretBelow(%s, skipHidden=%v, %d) = %q, want %q", tc.dir, tc.skipHidden, tc.limit, got, tc.want)
		}
	}
}
