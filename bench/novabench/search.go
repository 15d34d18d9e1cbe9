//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The search benchmark (issue 19): the Grep, Glob and Read tools, each a
// call in a process of its own (bench/searchcall, with the path guard of a
// session), against ripgrep on the same tree and query in the same run:
// alternating, median of runs. Also ripgrep with its output re-checked by
// the guard (searchcall -recheck), the design not taken, and the peak
// resident size of calls on a 2 GB log.

// defaultSearchTree is where the generated tree goes: the user's cache
// directory, outside the module.
func defaultSearchTree() string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "novabench-search")
}

// searchQuery is one query, as a tool call and as ripgrep's command line.
type searchQuery struct {
	name  string
	tool  string
	input string
	rg    []string
	// recheck: ripgrep prints paths, which the -recheck variant re-checks.
	recheck bool
	// treeOnly: run on the generated tree only (too slow for the module
	// cache's 4 GB).
	treeOnly bool
}

var searchQueries = []searchQuery{
	{"literal `func NewServer`", "Grep", `{"pattern":"func NewServer"}`, []string{"-l", "func NewServer"}, true, false},
	{"regexp `func \\w+Server\\(`", "Grep", `{"pattern":"func \\w+Server\\("}`, []string{"-l", `func \w+Server\(`}, true, false},
	{"case-insensitive `newserver`", "Grep", `{"pattern":"newserver","-i":true}`, []string{"-l", "-i", "newserver"}, true, false},
	{"regexp, common literal `[A-Z]\\w+\\(ctx, \\d`", "Grep", `{"pattern":"[A-Z]\\w+\\(ctx, \\d"}`, []string{"-l", `[A-Z]\w+\(ctx, \d`}, true, false},
	{"regexp, one-byte literal `[0-9]{4}-[0-9]{2}-[0-9]{2}`", "Grep", `{"pattern":"[0-9]{4}-[0-9]{2}-[0-9]{2}"}`, []string{"-l", "[0-9]{4}-[0-9]{2}-[0-9]{2}"}, true, false},
	{"regexp without a literal `[A-Z]{6,}\\d`", "Grep", `{"pattern":"[A-Z]{6,}\\d"}`, []string{"-l", `[A-Z]{6,}\d`}, false, false},
	{"count mode, no literal `^\\s*$`", "Grep", `{"pattern":"^\\s*$","output_mode":"count"}`, []string{"-c", `^\s*$`}, false, false},
	{"glob `*.go`, literal `ServerConfig`", "Grep", `{"pattern":"ServerConfig","glob":"*.go"}`, []string{"-l", "-g", "*.go", "ServerConfig"}, true, false},
	{"count mode, literal `ServerConfig`", "Grep", `{"pattern":"ServerConfig","output_mode":"count"}`, []string{"-c", "ServerConfig"}, false, false},
	{"content mode, regexp `NewServer\\(ctx`", "Grep", `{"pattern":"NewServer\\(ctx","output_mode":"content"}`, []string{"-n", `NewServer\(ctx`}, false, false},
	{"Glob `**/server.go`", "Glob", `{"pattern":"**/server.go"}`, []string{"--files", "-g", "**/server.go"}, true, false},
}

// searchReport runs the benchmark and returns its Markdown.
func searchReport(ctx context.Context, searchcall, treeDir string, runs int, withModCache bool) (string, error) {
	ws, outside := filepath.Join(treeDir, "ws"), filepath.Join(treeDir, "outside")
	if err := ensureTree(ws, outside); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, ripgrep %s; median of %d runs, Grep/Glob and rg alternating; wall time, and CPU (user+system) beside it.\n\n",
		time.Now().UTC().Format("2006-01-02"), hostDesc(), rgVersion(), runs)
	corpora := []struct{ name, dir string }{{"generated tree", ws}}
	if withModCache {
		if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
			if d := strings.TrimSpace(string(out)); d != "" {
				if _, err := os.Stat(d); err == nil {
					corpora = append(corpora, struct{ name, dir string }{"Go module cache", d})
				}
			}
		}
	}
	for _, c := range corpora {
		files, bytes := treeSize(c.dir)
		fmt.Fprintf(&b, "#### %s (%s: %d files, %.2f GB)\n\n", c.name, c.dir, files, float64(bytes)/1e9)
		b.WriteString("| query | Grep/Glob | rg | ratio | CPU ratio | rg + guard re-check | ratio | files found (tool / rg) |\n|---|---|---|---|---|---|---|---|\n")
		for _, q := range searchQueries {
			if q.treeOnly && c.dir != ws {
				continue
			}
			row, err := searchRow(ctx, searchcall, c.dir, q, runs)
			if err != nil {
				return "", fmt.Errorf("%s, %s: %w", c.name, q.name, err)
			}
			b.WriteString(row)
		}
		b.WriteString("\n")
	}
	mem, err := memoryReport(ctx, searchcall, treeDir, runs)
	if err != nil {
		return "", err
	}
	b.WriteString(mem)
	return b.String(), nil
}

func rgVersion() string {
	out, err := exec.Command("rg", "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimPrefix(strings.SplitN(string(out), "\n", 2)[0], "ripgrep ")
}

// proc is one timed process.
type proc struct {
	wall, cpu time.Duration
	maxRSS    int64 // KiB
	out       []byte
}

// timeProc runs a command in dir and measures it; its output is kept. Its
// peak resident size is what it reports itself (searchcall -hwm), or what
// /usr/bin/time -f %M reports when the command is wrapped in it: the
// ru_maxrss of a child of this process also counts this process's pages,
// which the child had until its exec.
func timeProc(ctx context.Context, dir string, name string, args ...string) (proc, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out strings.Builder
	cmd.Stdout = &out
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	p := proc{wall: time.Since(start), out: []byte(out.String())}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &p.maxRSS)
		} else if v, ok := strings.CutPrefix(l, "maxrss="); ok {
			fmt.Sscanf(v, "%d", &p.maxRSS)
		}
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && (name == "rg" || len(args) > 2 && args[2] == "rg") {
		err = nil // no match
	}
	if err != nil {
		return p, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, stderr.String())
	}
	return p, nil
}

func searchRow(ctx context.Context, searchcall, dir string, q searchQuery, runs int) (string, error) {
	call := []string{"-dir", dir, "-tool", q.tool, "-input", q.input}
	rg := append([]string{"--no-config"}, q.rg...)
	recheck := append([]string{"-dir", dir, "-recheck", "rg"}, rg...)
	// Warm the page cache (and check that both work).
	first, err := timeProc(ctx, dir, searchcall, call...)
	if err != nil {
		return "", err
	}
	rgFirst, err := timeProc(ctx, dir, "rg", rg...)
	if err != nil {
		return "", err
	}
	var nova, base, rc []proc
	for i := range runs {
		order := []int{0, 1, 2}
		if i%2 == 1 {
			order = []int{1, 0, 2}
		}
		for _, k := range order {
			switch {
			case k == 0:
				p, err := timeProc(ctx, dir, searchcall, call...)
				if err != nil {
					return "", err
				}
				nova = append(nova, p)
			case k == 1:
				p, err := timeProc(ctx, dir, "rg", rg...)
				if err != nil {
					return "", err
				}
				base = append(base, p)
			case q.recheck:
				p, err := timeProc(ctx, dir, searchcall, recheck...)
				if err != nil {
					return "", err
				}
				rc = append(rc, p)
			}
		}
	}
	nw, bw := medianWall(nova), medianWall(base)
	nc, bc := medianCPU(nova), medianCPU(base)
	rcCell, rcRatio := "—", "—"
	if q.recheck {
		rw := medianWall(rc)
		rcCell, rcRatio = secs(rw), fmt.Sprintf("%.2f", ratio(rw, bw))
	}
	return fmt.Sprintf("| %s | %s | %s | **%.2f** | %.2f | %s | %s | %s |\n", q.name, secs(nw), secs(bw), ratio(nw, bw), ratio(nc, bc), rcCell, rcRatio,
		foundCell(q, first.out, rgFirst.out)), nil
}

// foundCell says how many files (content mode: lines) each found. The
// tool's output shows at most what fits in 30,000 characters; its totals
// are in its last lines.
func foundCell(q searchQuery, tool, rg []byte) string {
	lines := func(b []byte) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if l != "" && !strings.HasPrefix(l, "(") {
				out = append(out, l)
			}
		}
		return out
	}
	t, r := lines(tool), lines(rg)
	var n int
	switch {
	case q.tool == "Glob":
		n = len(t)
	case strings.Contains(q.input, `"count"`):
		for _, l := range t {
			fmt.Sscanf(l[strings.Index(l, " across ")+1:], "across %d", &n)
		}
	case strings.Contains(q.input, `"content"`):
		n = len(t)
		if i := strings.Index(string(tool), "(Showing "); i >= 0 {
			var shown int
			fmt.Sscanf(string(tool[i:]), "(Showing %d of %d", &shown, &n)
		}
		return fmt.Sprintf("%d / %d lines", n, len(r))
	default:
		if len(t) > 0 {
			fmt.Sscanf(t[0], "Found %d", &n)
		}
	}
	return fmt.Sprintf("%d / %d", n, len(r))
}

func medianWall(p []proc) time.Duration {
	d := make([]time.Duration, len(p))
	for i := range p {
		d[i] = p[i].wall
	}
	return median(d)
}

func medianCPU(p []proc) time.Duration {
	d := make([]time.Duration, len(p))
	for i := range p {
		d[i] = p[i].cpu
	}
	return median(d)
}

func medianRSS(p []proc) int64 {
	s := make([]int64, len(p))
	for i := range p {
		s[i] = p[i].maxRSS
	}
	slices.Sort(s)
	return s[len(s)/2]
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

// treeSize counts the regular files under dir and their bytes.
func treeSize(dir string) (int, int64) {
	n, size := 0, int64(0)
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n++
				size += fi.Size()
			}
		}
		return nil
	})
	return n, size
}

// memoryReport measures the peak resident size of Grep and Read calls on a
// 2 GB log against the idle process (searchcall -tool none).
func memoryReport(ctx context.Context, searchcall, treeDir string, runs int) (string, error) {
	dir := filepath.Join(treeDir, "log")
	log := filepath.Join(dir, "big.log")
	lines, err := ensureLog(log, 2_000_000_000)
	if err != nil {
		return "", err
	}
	calls := []struct{ name, tool, input string }{
		{"Grep content (`ERROR upstream`)", "Grep", `{"pattern":"ERROR upstream","output_mode":"content"}`},
		{"Grep count (`ERROR upstream`)", "Grep", `{"pattern":"ERROR upstream","output_mode":"count"}`},
		{"Grep files_with_matches (`needle at the end`)", "Grep", `{"pattern":"needle at the end"}`},
		{"Read, offset near the end", "Read", fmt.Sprintf(`{"file_path":%q,"offset":%d,"limit":20}`, log, lines-10)},
		{"Read, no offset (first 2000 lines and a note)", "Read", fmt.Sprintf(`{"file_path":%q}`, log)},
	}
	var idle []proc
	for range runs {
		p, err := timeProc(ctx, dir, searchcall, "-hwm", "-tool", "none", "-dir", dir)
		if err != nil {
			return "", err
		}
		idle = append(idle, p)
	}
	idleRSS := medianRSS(idle)
	var b strings.Builder
	fmt.Fprintf(&b, "#### Peak resident size on a 2 GB log (%d lines)\n\n", lines)
	fmt.Fprintf(&b, "Idle process (searchcall -tool none): %.1f MiB peak RSS. Goal: ≤ 64 MiB above it for any file.\n\n", mib(idleRSS))
	b.WriteString("| call | peak RSS | above idle | wall |\n|---|---|---|---|\n")
	for _, c := range calls {
		var ps []proc
		for range runs {
			p, err := timeProc(ctx, dir, searchcall, "-hwm", "-dir", dir, "-tool", c.tool, "-input", c.input)
			if err != nil {
				return "", err
			}
			ps = append(ps, p)
		}
		rss := medianRSS(ps)
		fmt.Fprintf(&b, "| %s | %.1f MiB | **%.1f MiB** | %s |\n", c.name, mib(rss), mib(rss-idleRSS), secs(medianWall(ps)))
	}
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		var rg []proc
		for range runs {
			p, err := timeProc(ctx, dir, "/usr/bin/time", "-f", "maxrss=%M", "rg", "--no-config", "-c", "ERROR upstream")
			if err != nil {
				return "", err
			}
			rg = append(rg, p)
		}
		fmt.Fprintf(&b, "| (rg -c `ERROR upstream`, for comparison) | %.1f MiB | | %s |\n", mib(medianRSS(rg)), secs(medianWall(rg)))
	}
	b.WriteString("\n")
	return b.String(), nil
}

// treeVersion names the generator: a tree made by another is made anew.
const treeVersion = "1"

// ensureTree generates the benchmark tree at ws (and the files outside it
// that its links lead to at outside), unless a tree of this generator's
// version is there.
func ensureTree(ws, outside string) error {
	marker := filepath.Join(filepath.Dir(ws), "generated-"+treeVersion)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	fmt.Fprintf(os.Stderr, "novabench: generating the search tree in %s (once)…\n", filepath.Dir(ws))
	if err := os.RemoveAll(filepath.Dir(ws)); err != nil {
		return err
	}
	if err := genTree(ws, outside); err != nil {
		return err
	}
	return os.WriteFile(marker, nil, 0o644)
}

// genTree writes a tree shaped like a large monorepo: ≥ 50,000 files and
// ≥ 1 GB that ripgrep searches, nested .gitignore files with negations, an
// .ignore file, ignored directories (node_modules, dist), hidden files and
// directories, binary files, large data files, symbolic links into the tree
// and out of it, a .env and a hard link to a key outside. Deterministic.
func genTree(ws, outside string) error {
	r := rand.New(rand.NewPCG(19, 2026))
	w := &treeWriter{}
	w.file(filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	w.file(filepath.Join(ws, ".git", "info", "exclude"), "*.local\n")
	w.file(filepath.Join(ws, ".gitignore"), "node_modules/\ndist/\n*.log\nbuild/\n!keep.log\n.cache/\n")
	w.file(filepath.Join(ws, ".ignore"), "testdata/golden/\n")
	w.file(filepath.Join(ws, "keep.log"), "func NewServer(ctx context.Context) // kept log\n")
	w.file(filepath.Join(ws, "debug.log"), "func NewServer(ctx context.Context) // ignored log\n")
	lines := sourceLines(r)
	exts := []string{".go", ".go", ".go", ".ts", ".py", ".md"}
	for s := range 40 {
		svc := filepath.Join(ws, "services", fmt.Sprintf("svc%02d", s))
		w.file(filepath.Join(svc, ".gitignore"), "*.gen.go\n!keep.gen.go\nlocal/\n")
		w.file(filepath.Join(svc, ".eslintrc"), "{\"extends\": \"NewServer\"}\n")
		w.file(filepath.Join(svc, ".config", "settings.yml"), "server: NewServer\n")
		for _, area := range []string{"internal", "pkg", "cmd", "api"} {
			for sub := range 10 {
				d := filepath.Join(svc, area, fmt.Sprintf("sub%02d", sub))
				for f := range 35 {
					name := fmt.Sprintf("file%03d%s", f, exts[(s+f)%len(exts)])
					if f == 7 && sub%3 == 0 {
						name = "server.go"
					}
					w.source(filepath.Join(d, name), r, lines, 8<<10+r.IntN(16<<10))
				}
				if sub == 0 {
					w.source(filepath.Join(d, "api.gen.go"), r, lines, 4<<10)
					w.source(filepath.Join(d, "keep.gen.go"), r, lines, 4<<10)
					w.source(filepath.Join(d, "local", "scratch.go"), r, lines, 4<<10)
				}
			}
		}
		w.binary(filepath.Join(svc, "assets", "logo.png"), r, 64<<10)
		w.binary(filepath.Join(svc, "bin", "tool"), r, 256<<10)
		w.source(filepath.Join(svc, ".hidden", "notes.go"), r, lines, 8<<10)
		w.source(filepath.Join(svc, "testdata", "golden", "out.txt"), r, lines, 8<<10)
	}
	for i := range 20 {
		w.data(filepath.Join(ws, "data", fmt.Sprintf("events%02d.jsonl", i)), r, 10<<20)
	}
	for i := range 3000 {
		w.source(filepath.Join(ws, "node_modules", fmt.Sprintf("pkg%03d", i/10), fmt.Sprintf("index%d.js", i%10)), r, lines, 2<<10)
	}
	for i := range 500 {
		w.source(filepath.Join(ws, "dist", fmt.Sprintf("bundle%03d.js", i)), r, lines, 4<<10)
	}
	// Outside the tree: what links lead to, and a key.
	w.file(filepath.Join(outside, "lib", "server.go"), "package lib\n\nfunc NewServer() {} // outside\n")
	w.file(filepath.Join(outside, "id_rsa"), "-----BEGIN KEY----- func NewServer\n")
	w.file(filepath.Join(ws, "config", ".env"), "TOKEN=secret # func NewServer\n")
	if w.err != nil {
		return w.err
	}
	for _, l := range [][2]string{
		{filepath.Join(outside, "lib"), filepath.Join(ws, "vendor-ext")},
		{filepath.Join(outside, "lib", "server.go"), filepath.Join(ws, "ext-server.go")},
		{"internal", filepath.Join(ws, "services", "svc00", "current")},
		{filepath.Join("internal", "sub00", "server.go"), filepath.Join(ws, "services", "svc00", "server-link.go")},
	} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(ws, "notes"), 0o755); err != nil {
		return err
	}
	return os.Link(filepath.Join(outside, "id_rsa"), filepath.Join(ws, "notes", "keys.txt"))
}

// treeWriter writes files, keeping the first error.
type treeWriter struct{ err error }

func (w *treeWriter) create(p string) (*os.File, *bufio.Writer) {
	if w.err != nil {
		return nil, nil
	}
	if w.err = os.MkdirAll(filepath.Dir(p), 0o755); w.err != nil {
		return nil, nil
	}
	f, err := os.Create(p)
	if err != nil {
		w.err = err
		return nil, nil
	}
	return f, bufio.NewWriterSize(f, 64<<10)
}

func (w *treeWriter) finish(f *os.File, bw *bufio.Writer) {
	if err := bw.Flush(); err != nil && w.err == nil {
		w.err = err
	}
	if err := f.Close(); err != nil && w.err == nil {
		w.err = err
	}
}

func (w *treeWriter) file(p, content string) {
	if f, bw := w.create(p); f != nil {
		bw.WriteString(content)
		w.finish(f, bw)
	}
}

// source writes about size bytes of source-like lines; one file in 400
// defines a NewServer, one in 25 mentions ServerConfig.
func (w *treeWriter) source(p string, r *rand.Rand, lines []string, size int) {
	f, bw := w.create(p)
	if f == nil {
		return
	}
	n := 0
	if r.IntN(400) == 0 {
		n += must(bw.WriteString("func NewServer(ctx context.Context, cfg *ServerConfig) *Server {\n\treturn NewServer(ctx, cfg)\n}\n"))
	}
	if r.IntN(25) == 0 {
		n += must(bw.WriteString("\tcfg := ServerConfig{Addr: addr}\n"))
	}
	if r.IntN(300) == 0 {
		n += must(bw.WriteString("func newServerWithDefaults() *Server { return nil } // NEWSERVER\n"))
	}
	for n < size {
		n += must(bw.WriteString(lines[r.IntN(len(lines))]))
	}
	w.finish(f, bw)
}

// binary writes size random bytes starting with a NUL.
func (w *treeWriter) binary(p string, r *rand.Rand, size int) {
	f, bw := w.create(p)
	if f == nil {
		return
	}
	bw.WriteByte(0)
	for i := 1; i < size; i += 8 {
		var b [8]byte
		v := r.Uint64()
		for j := range b {
			b[j] = byte(v >> (8 * j))
		}
		bw.Write(b[:])
	}
	w.finish(f, bw)
}

// data writes size bytes of JSON lines.
func (w *treeWriter) data(p string, r *rand.Rand, size int) {
	f, bw := w.create(p)
	if f == nil {
		return
	}
	for n := 0; n < size; {
		n += must(fmt.Fprintf(bw, "{\"id\":%d,\"user\":\"u%d\",\"event\":\"page_view\",\"path\":\"/items/%d\",\"ms\":%d}\n", r.Int64N(1e12), r.IntN(1e6), r.IntN(1e5), r.IntN(900)))
	}
	w.finish(f, bw)
}

func must(n int, _ error) int { return n }

// sourceLines makes a pool of plausible source lines.
func sourceLines(r *rand.Rand) []string {
	words := strings.Fields("ctx err cfg server client request response handler store cache user item order index value key name path status count total buffer reader writer conn pool queue event span trace metric log config option result")
	types := strings.Fields("Server Client Handler Store Cache Request Response Config Options Item Order Pool Queue Event Span Metric")
	tmpl := []string{
		"\t%s, err := %s.Get%s(ctx, %s)\n",
		"\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%s %s: %%w\", err)\n\t}\n",
		"func (s *%s) %s(ctx context.Context, %s string) error {\n",
		"\t// %s keeps the %s of each %s until the %s is done.\n",
		"\treturn %s.%s(%s)\n",
		"type %s%s struct {\n\t%s %s\n\t%s int\n}\n",
		"\tfor _, %s := range %s.%s {\n",
		"\t\t%s[%s] = append(%s[%s], %s)\n",
		"import { %s } from './%s';\n",
		"    def %s(self, %s):\n        return self.%s.%s(%s)\n",
		"## %s %s\n\nThe %s of the %s is %s.\n",
		"\t}\n",
		"}\n\n",
	}
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var out []string
	for range 4000 {
		t := pick(tmpl)
		args := make([]any, strings.Count(t, "%s"))
		for i := range args {
			if r.IntN(3) == 0 {
				args[i] = pick(types)
			} else {
				args[i] = pick(words)
			}
		}
		out = append(out, fmt.Sprintf(t, args...))
	}
	return out
}

// ensureLog writes a log of about size bytes at p unless one is there, and
// returns its number of lines. An ERROR line every 10,000 lines, and one
// line near the end holding "needle at the end".
func ensureLog(p string, size int64) (int, error) {
	if fi, err := os.Stat(p); err == nil && fi.Size() >= size {
		return countLines(p)
	}
	fmt.Fprintf(os.Stderr, "novabench: writing a %.1f GB log at %s (once)…\n", float64(size)/1e9, p)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(p)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var n int64
	lines := 0
	for ; n < size; lines++ {
		var k int
		switch {
		case lines%10000 == 0:
			k = must(fmt.Fprintf(bw, "2026-12-01T10:%02d:%02d.%03dZ ERROR upstream timeout svc=api req=%d\n", lines/60000%60, lines/1000%60, lines%1000, lines))
		case n > size-1000 && n < size-500:
			k = must(fmt.Fprintf(bw, "2026-12-01T23:59:59.999Z WARN needle at the end req=%d\n", lines))
		default:
			k = must(fmt.Fprintf(bw, "2026-12-01T10:%02d:%02d.%03dZ INFO request served svc=api req=%d path=/v1/items status=200 dur=%dms\n", lines/60000%60, lines/1000%60, lines%1000, lines, lines%97))
		}
		n += int64(k)
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	return lines, f.Close()
}

func countLines(p string) (int, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n := 0
	for {
		k, err := f.Read(buf)
		n += strings.Count(string(buf[:k]), "\n")
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}
