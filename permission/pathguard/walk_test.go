//go:build unix

package pathguard

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecheckWalk(t *testing.T) {
	fx := newFixture(t)
	ws, home, out := fx.ws, fx.home, fx.out
	j := filepath.Join
	fx.g.AddDataDir(j(ws, "nh"))
	type entry struct {
		rel   string
		isDir bool
		links uint64
		want  string // "" passes; otherwise a substring of the refusal
	}
	tests := []struct {
		name     string
		dir      string
		approved []string
		wantDir  string // the refusal of the directory itself
		entries  []entry
	}{
		{name: "workspace", dir: ws, entries: []entry{
			{rel: "src/main.go"},
			{rel: "src", isDir: true},
			{rel: ".env", want: "may hold secrets"},
			{rel: ".env.example"},
			{rel: "deep/er/.env.local", want: "may hold secrets"},
			{rel: "certs/server.pem", want: "may hold secrets"},
			{rel: "keys.pem", isDir: true, want: "may hold secrets"},
			{rel: `odd\.env`, want: "may hold secrets"},
			{rel: ".git/config"},
			{rel: "hard"},
			{rel: "hard", links: 2, want: "has 2 hard links"},
			{rel: "src", isDir: true, links: 3},
			{rel: "nh/settings.json", want: "NovaCode's user settings"},
			{rel: "nh/other.json"},
		}},
		{name: "hard link approved by its path", dir: ws, approved: []string{j(ws, "hard")}, entries: []entry{
			{rel: "hard", links: 2},
			{rel: "src/main.go", links: 2, want: "hard links"},
		}},
		{name: "hard link in an approved directory", dir: ws, approved: []string{ws}, entries: []entry{
			{rel: "hard", links: 2, want: "hard links"},
		}},
		{name: "outside", dir: out, wantDir: "outside the workspace"},
		{name: "outside approved", dir: out, approved: []string{out}, entries: []entry{
			{rel: "passwd"},
			{rel: "secret.key", want: "may hold secrets"},
		}},
		{name: "home approved", dir: home, approved: []string{home}, entries: []entry{
			{rel: "ws/src/main.go"},
			{rel: ".bashrc"},
			{rel: ".ssh", isDir: true, want: "credentials under ~/.ssh"},
			{rel: ".SSH", isDir: true, want: "credentials under ~/.ssh"},
			{rel: ".config", isDir: true},
			{rel: ".config/gcloud", isDir: true, want: "~/.config/gcloud"},
			{rel: ".config/gh/hosts.yml", want: "~/.config/gh/hosts.yml"},
			{rel: ".config/gh/other.yml"},
		}},
		{name: "secret directory", dir: j(home, ".ssh"), wantDir: "outside the workspace"},
		{name: "secret directory approved", dir: j(home, ".ssh"), approved: []string{j(home, ".ssh")}, entries: []entry{
			{rel: "id_ed25519"},
		}},
		{name: "approved directory above a secret one", dir: j(home, ".ssh"), approved: []string{home}, wantDir: "may hold secrets"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			judge, err := fx.g.RecheckWalk(tt.dir, tt.approved)
			if tt.wantDir != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantDir) {
					t.Fatalf("RecheckWalk(%s) = %v, want a refusal with %q", tt.dir, err, tt.wantDir)
				}
				return
			}
			if err != nil {
				t.Fatalf("RecheckWalk(%s): %v", tt.dir, err)
			}
			for _, e := range tt.entries {
				err := judge(e.rel, e.isDir, e.links)
				switch {
				case e.want == "" && err != nil:
					t.Errorf("%s: refused: %v", e.rel, err)
				case e.want != "" && (err == nil || !strings.Contains(err.Error(), e.want)):
					t.Errorf("%s: got %v, want a refusal with %q", e.rel, err, e.want)
				}
			}
		})
	}
}

// TestRecheckWalkAgrees walks the fixture the way a search does (no symbolic
// link followed) from several directories and checks that the judge agrees
// with Recheck on every entry the walk reaches: the judge only skips
// Recheck where Recheck cannot refuse.
func TestRecheckWalkAgrees(t *testing.T) {
	fx := newFixture(t)
	fx.g.AddDataDir(filepath.Join(fx.ws, ".novacode"))
	for _, tc := range []struct {
		dir      string
		approved []string
	}{
		{fx.ws, nil},
		{fx.home, []string{fx.home}},
		{fx.tmp, []string{fx.tmp}},
		{fx.extra, nil},
	} {
		judge, err := fx.g.RecheckWalk(tc.dir, tc.approved)
		if err != nil {
			t.Fatalf("RecheckWalk(%s): %v", tc.dir, err)
		}
		n := 0
		err = filepath.WalkDir(tc.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == tc.dir || d.Type()&fs.ModeSymlink != 0 {
				return err
			}
			rel, _ := filepath.Rel(tc.dir, p)
			got := judge(filepath.ToSlash(rel), d.IsDir(), 1)
			want := fx.g.Recheck(p, false, tc.approved)
			if (got == nil) != (want == nil) {
				t.Errorf("walk of %s: %s: judge says %v, Recheck says %v", tc.dir, rel, got, want)
			}
			n++
			if got != nil && d.IsDir() {
				return filepath.SkipDir // a walk does not enter it
			}
			return nil
		})
		if err != nil || n == 0 {
			t.Fatalf("walk of %s: %d entries, %v", tc.dir, n, err)
		}
	}
}
