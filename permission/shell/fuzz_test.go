package shell_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/permission/shell"
)

// FuzzAnalyze checks that Analyze never panics or hangs and that its
// output keeps its invariants, whatever the input.
func FuzzAnalyze(f *testing.F) {
	for _, c := range loadCorpus(f) {
		if c.Kind != "path" {
			f.Add(c.Input)
		}
	}
	for _, file := range loadCases(f) {
		for _, c := range file.Cases {
			f.Add(c.Cmd)
		}
	}
	for _, c := range safeCases {
		f.Add(c.cmd)
	}
	for _, s := range []string{
		"", " ", "\n", ";", "&", "|", "a\\", "$'\\x", "$'\\u{'", "$'\\c'", "~", "~/", "${", "$((", "<<", "x=$(",
		"cat <<EOF\n$(a\nEOF", "f(){ f|f& };f", "sed -i", "sed -e", "awk -f", "find -exec", "git -c",
		"sudo -u", "env -u", "xargs -I", "kill -s", "rm -rf", "cd -", "cd ~x", "for x in; do :; done",
		"case a in *) ;; esac", "[[ -v a[1] ]]", "echo ${a[$(b)]} ${a:$(b):1} ${a/$(b)/$(c)} ${!a} ${a@P}",
		"declare -A m=([k]=$(a))", "let 'x=$(a)'", "((x=1)); echo $[x]", "coproc x { a; }", "time -p a",
		"exec {fd}>x", "echo >&$(a)", "a 2>&- 3<&0 4<>x", "echo $\"x\" $'y'", "echo @(a|b) !(x)",
		"sh -c \"sh -c 'sh -c \\\"sh -c x\\\"'\"", "watch -n1 'a; b'", "trap 'a' EXIT", "eval \"a; b\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Analyze must finish: a hang is reported as a failure with its
		// input rather than stalling the fuzzer. (On that failure the
		// goroutine is left behind; the worker exits anyway.)
		done := make(chan *shell.Analysis, 1)
		go func() { done <- shell.Analyze(src, opt) }()
		var a *shell.Analysis
		select {
		case a = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("Analyze(%q) did not finish in 5s", src)
		}
		checkInvariants(t, src, a)
		if d := cmp.Diff(a, shell.Analyze(src, opt)); d != "" {
			t.Errorf("Analyze is not deterministic (-first +second):\n%s", d)
		}
	})
}

func checkInvariants(t *testing.T, src string, a *shell.Analysis) {
	t.Helper()
	if a == nil {
		t.Fatalf("%q: nil analysis", src)
	}
	for _, u := range a.Unsafe {
		if strings.HasPrefix(u, "internal error") {
			t.Fatalf("%q: %s", src, u)
		}
	}
	if a.ParseError != "" {
		if len(a.Commands)+len(a.Writes)+len(a.Unsafe)+len(a.Dangerous)+len(a.ProjectCode) > 0 {
			t.Errorf("%q: parse error with findings: %s", src, dump(a))
		}
		return
	}
	for i, c := range a.Commands {
		if len(c.Args) == 0 || len(c.Args) != len(c.Dynamic) {
			t.Errorf("%q: command %d has %d args and %d dynamic flags", src, i, len(c.Args), len(c.Dynamic))
		}
	}
	for _, w := range a.Writes {
		if w.Path == "" && !w.Dynamic {
			t.Errorf("%q: fixed write with an empty path", src)
		}
	}
	for _, list := range [][]string{a.Unsafe, a.Dangerous, a.ProjectCode} {
		seen := map[string]bool{}
		for _, r := range list {
			if r == "" || seen[r] {
				t.Errorf("%q: empty or repeated reason %q", src, r)
			}
			seen[r] = true
		}
	}
}

// BenchmarkAnalyze measures a typical three-command pipeline.
func BenchmarkAnalyze(b *testing.B) {
	const src = "git log --oneline -n 50 | grep -i fix | head -20"
	b.ReportAllocs()
	for b.Loop() {
		a := shell.Analyze(src, opt)
		if len(a.Commands) != 3 {
			b.Fatalf("got %d commands", len(a.Commands))
		}
	}
}
