package archtest

import (
	"bufio"
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLinkerDropsUnusedMethods links cmd/nova and checks that nothing
// reachable calls reflect's Method or MethodByName with a name known only at
// run time (the linker marks such functions <ReflectMethod>). One such call
// anywhere — text/template's executor is the usual one: a cobra
// Set*Template, a template.Execute — makes the linker keep every exported
// method of every reachable type, and the binary nearly doubles (111 MB
// against 60 MB; BENCHMARKS.md, Process size). The failure names the call
// chain from main. go test caches a pass without knowing the files the
// build read: run it with -count=1 (CI does).
func TestLinkerDropsUnusedMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("links the whole binary")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-ldflags=-dumpdep", "-o", filepath.Join(t.TempDir(), "nova"), "./cmd/nova")
	cmd.Dir = root
	out, err := cmd.CombinedOutput() // the linker's dump comes on standard error
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	parent := map[string]string{} // symbol -> the symbol that first reached it
	var flagged []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		from, to, ok := strings.Cut(sc.Text(), " -> ")
		if !ok {
			continue
		}
		from, _, _ = strings.Cut(from, " <")
		to, flags, _ := strings.Cut(to, " <")
		if _, seen := parent[to]; !seen {
			parent[to] = from
		}
		if strings.Contains(flags, "ReflectMethod") && !slices.Contains(flagged, to) {
			flagged = append(flagged, to)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(parent) < 1000 {
		t.Fatalf("the linker's dependency dump has %d symbols; did -dumpdep change?", len(parent))
	}
	for _, sym := range flagged {
		chain := []string{sym}
		for s := parent[sym]; s != "" && s != "_" && len(chain) < 40; s = parent[s] {
			chain = append(chain, s)
		}
		t.Errorf("%s calls reflect's Method/MethodByName with a computed name, which keeps every exported method in the binary; reached by\n\t%s",
			sym, strings.Join(chain, "\n\t<- "))
	}
}
