package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoModInstallable: `go install github.com/novacode/nova/cmd/nova@latest`
// refuses a module whose go.mod has replace or exclude directives, so our
// patched copies of upstream modules are packages of this module
// (third_party/*, imports rewritten; scripts/check-forks), not replacements.
// And the upstream module of a copy is not required at all: something would
// link a second copy whose types do not mix with ours.
// scripts/check-install proves the install itself.
func TestGoModInstallable(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	copies := map[string]string{} // upstream module -> our copy
	manifests, _ := filepath.Glob("../../third_party/*/novacode.upstream")
	if len(manifests) == 0 {
		t.Fatal("no third_party/*/novacode.upstream found")
	}
	for _, m := range manifests {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
				copies[f[1]] = filepath.Base(filepath.Dir(m))
			}
		}
	}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "replace", "exclude":
			t.Errorf("go.mod:%d: %s directive: go install …/cmd/nova@version refuses the module", i+1, f[0])
			continue
		case "require":
			f = f[1:]
		}
		if len(f) > 0 && copies[f[0]] != "" {
			t.Errorf("go.mod:%d requires %s, whose copy third_party/%s we link instead: import the copy", i+1, f[0], copies[f[0]])
		}
	}
}
