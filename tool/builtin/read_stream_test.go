package builtin

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/novacode/nova/tool"
)

// streamNote is the note only a streamed Read adds (the file's size).
var streamNote = regexp.MustCompile(`(?m)^\(\S+ is [0-9.]+ (bytes|MiB|GiB), \d+ lines?: read it in parts.*\)\n`)

// TestReadStreamSameAsWhole reads files both ways, whole and streamed (a
// small readWholeMax), and wants the same output and the same record for
// Edit, but for the size note the stream adds.
func TestReadStreamSameAsWhole(t *testing.T) {
	long := strings.Repeat("é", lineMax) // a cut inside a rune
	var many strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&many, "line %d\n", i)
	}
	// Lines across the stream's buffer boundaries, and one longer than it.
	var wide strings.Builder
	for i := 0; wide.Len() < 3*readStreamBuf; i++ {
		fmt.Fprintf(&wide, "%d %s\n", i, strings.Repeat("w", i%3000))
	}
	wide.WriteString(strings.Repeat("z", readStreamBuf+10) + "\r\nend")
	files := map[string]string{
		"a.go":     "package a\n\n\tfunc A() {}\n",
		"ten.txt":  "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
		"nonl.txt": "one\ntwo",
		"crlf.txt": "one\r\ntwo\r\n",
		"long.txt": long + "\n" + strings.Repeat("x", lineMax) + "\r\n" + strings.Repeat("y", lineMax+1) + "\n",
		"many.txt": many.String(),
		"wide.txt": wide.String(),
		"empty":    "",
		"nul.txt":  "text\x00more\n",
		"blank":    "\n\n\n",
	}
	inputs := []ReadInput{
		{FilePath: "a.go"}, {FilePath: "ten.txt", Offset: 3, Limit: 4}, {FilePath: "ten.txt", Offset: 10},
		{FilePath: "ten.txt", Offset: 11}, {FilePath: "ten.txt", Limit: 1}, {FilePath: "nonl.txt"}, {FilePath: "nonl.txt", Offset: 2},
		{FilePath: "crlf.txt"}, {FilePath: "long.txt"}, {FilePath: "many.txt"}, {FilePath: "many.txt", Offset: 2999},
		{FilePath: "many.txt", Offset: 1500, Limit: 3}, {FilePath: "wide.txt"}, {FilePath: "wide.txt", Offset: 2990, Limit: 20},
		{FilePath: "wide.txt", Offset: 3000}, {FilePath: "empty"}, {FilePath: "nul.txt"}, {FilePath: "blank"}, {FilePath: "blank", Offset: 3},
	}
	env := newEnv(t)
	writeFiles(t, env.Dir, files)
	whole := readWholeMax
	defer func() { readWholeMax = whole }()
	for _, in := range inputs {
		t.Run(fmt.Sprintf("%s@%d+%d", in.FilePath, in.Offset, in.Limit), func(t *testing.T) {
			readWholeMax = whole
			envW := newEnvAt(env.Dir)
			want := run(t, NewRead(), envW, in)
			readWholeMax = -1
			envS := newEnvAt(env.Dir)
			got := run(t, NewRead(), envS, in)
			got.Content = streamNote.ReplaceAllString(got.Content, "")
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("streamed Read differs (-whole +streamed):\n%s", abbreviate(d))
			}
			p := filepath.Join(env.Dir, in.FilePath)
			sw, okW := envW.Files.Lookup(p)
			ss, okS := envS.Files.Lookup(p)
			if okW != okS || sw.Sum != ss.Sum || sw.Size != ss.Size {
				t.Errorf("recorded %v %+v whole, %v %+v streamed", okW, sw, okS, ss)
			}
		})
	}
}

// TestReadStreamNote: a large file read without offset gets its first lines
// and a note on how to read on.
func TestReadStreamNote(t *testing.T) {
	env := newEnv(t)
	writeFiles(t, env.Dir, map[string]string{"log.txt": strings.Repeat("a log line\n", 5000)})
	whole := readWholeMax
	defer func() { readWholeMax = whole }()
	readWholeMax = 1000
	res := run(t, NewRead(), env, ReadInput{FilePath: "log.txt"})
	check(t, res, env.Dir, false, "  2000\ta log line\n… 3000 more lines; use offset=2001 to read further.\n($DIR/log.txt is 55000 bytes, 5000 lines: read it in parts with offset and limit, or find lines with Grep.)\n")
	res = run(t, NewRead(), env, ReadInput{FilePath: "log.txt", Offset: 4999})
	check(t, res, env.Dir, false, "  4999\ta log line\n  5000\ta log line\n")
}

// TestReadStreamMemory checks the stream's memory by structure: reading
// 48 MiB, at an offset near the end, allocates about its buffer, not the
// file. (The peak resident size of a 2 GB file's Read is measured by the
// benchmark, BENCHMARKS.md.)
func TestReadStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 48 MiB")
	}
	env := newEnv(t)
	p := filepath.Join(env.Dir, "big.log")
	line := "2026-12-01T10:00:00Z INFO request served in 12ms path=/api/v1/items\n"
	n := (48 << 20) / len(line)
	if err := os.WriteFile(p, []byte(strings.Repeat(line, n)), 0o644); err != nil {
		t.Fatal(err)
	}
	env.Files = nil // no hash: the stream alone
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := run(t, NewRead(), env, ReadInput{FilePath: p, Offset: n - 5})
	runtime.ReadMemStats(&after)
	check(t, res, env.Dir, false, fmt.Sprintf("%6d\t%s", n, strings.TrimSuffix(line, "\n")))
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading 48 MiB allocated %d bytes; the stream's buffer is %d", alloc, readStreamBuf)
	}
}

// newEnvAt is a fresh session in an existing directory.
func newEnvAt(dir string) *tool.Env { return &tool.Env{Dir: dir, Files: tool.NewFileState()} }

// TestGrepMemory checks Grep's memory by structure, as TestReadStreamMemory
// does Read's: searching a 48 MiB file in each mode allocates about a
// scanner's buffer and what the output can show, not the file.
func TestGrepMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 48 MiB")
	}
	env := newEnv(t)
	var b strings.Builder
	for i := 0; b.Len() < 48<<20; i++ {
		fmt.Fprintf(&b, "2026-12-01T10:00:%02dZ INFO request %d served in 12ms\n", i%60, i)
		if i%1000 == 0 {
			b.WriteString("2026-12-01T10:00:00Z ERROR upstream timeout\n")
		}
	}
	writeFiles(t, env.Dir, map[string]string{"big.log": b.String()})
	for _, mode := range []string{modeContent, modeCount, modeFiles} {
		t.Run(mode, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res := run(t, NewGrep(), env, GrepInput{Pattern: "ERROR upstream", OutputMode: mode})
			runtime.ReadMemStats(&after)
			if res.IsError || res.Content == "No matches found" {
				t.Fatalf("Grep: %s", abbreviate(res.Content))
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
				t.Errorf("searching 48 MiB allocated %d bytes", alloc)
			}
		})
	}
}
