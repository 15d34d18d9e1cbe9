//go:build linux

package pathguard

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusCase is one `path` entry of the shared security corpus
// (/work/shared/fixtures/security/corpus.json), copied verbatim under
// "corpus", with how this package applies it on Linux: the input rewritten
// onto the fixture ($WS, $HOME, $EXTRA), a setup step, and what Inspect (or,
// for the TOCTOU case, Recheck) must report.
type corpusCase struct {
	Corpus struct {
		Kind  string `json:"kind"`
		Input string `json:"input"`
		Why   string `json:"why_dangerous"`
	} `json:"corpus"`
	Input   string `json:"input"`
	Setup   string `json:"setup"`
	Applied string `json:"applied"`
	Want    struct {
		Abs            string `json:"abs"`
		Resolved       string `json:"resolved"`
		Inside         bool   `json:"inside"`
		Protected      string `json:"protected"`
		Secret         string `json:"secret"`
		Special        string `json:"special"`
		Err            string `json:"err"`
		RecheckRefused string `json:"recheck_refused"`
	} `json:"want"`
}

func TestCorpusPaths(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "corpus_path.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 10 {
		t.Fatalf("%d corpus path cases, want the corpus's 10", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Corpus.Input, func(t *testing.T) {
			if c.Corpus.Kind != "path" || c.Applied == "" {
				t.Fatalf("malformed entry: %+v", c)
			}
			fx := newFixture(t)
			expand := strings.NewReplacer("$WS", fx.ws, "$HOME", fx.home, "$EXTRA", fx.extra).Replace
			in := expand(c.Input)
			switch c.Setup {
			case "":
			case "dangling":
				if err := os.Symlink(filepath.Join(fx.home, ".config/autostart/evil.desktop"), in); err != nil {
					t.Fatal(err)
				}
			case "chdir":
				t.Chdir(fx.ws)
			case "swap":
				checkSwap(t, fx, in, c.Want.RecheckRefused)
				return
			default:
				t.Fatalf("unknown setup %q", c.Setup)
			}
			got := fx.g.Inspect(in, "")
			w := c.Want
			want := Info{
				Input: in, Abs: expand(w.Abs), Resolved: expand(w.Resolved), Inside: w.Inside,
				Protected: expand(w.Protected), Secret: w.Secret, Special: w.Special, Err: expand(w.Err),
			}
			// Fields the entry leaves open are taken from got.
			if w.Abs == "" {
				want.Abs = got.Abs
			}
			if w.Resolved == "" {
				want.Resolved = got.Resolved
			}
			want.HardLinks = got.HardLinks
			if want.Inside {
				want.Root = fx.ws
			}
			if d := diffInfo(want, got); d != "" {
				t.Errorf("Inspect(%q) mismatch (-want +got):\n%s\nwhy: %s", in, d, c.Corpus.Why)
			}
		})
	}
}

// checkSwap: inspected as a regular file in the workspace, then swapped for
// a symlink to ~/.bashrc before the open.
func checkSwap(t *testing.T, fx *fixture, p, want string) {
	if info := fx.g.Inspect(p, ""); !info.Inside || info.Protected != "" {
		t.Fatalf("before the swap: %+v", info)
	}
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(fx.home, ".bashrc"), p); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	real, err := RealPath(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, write := range []bool{false, true} {
		if err := fx.g.Recheck(real, write, nil); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("Recheck(%q, write=%v) = %v, want a refusal containing %q", real, write, err, want)
		}
	}
}
