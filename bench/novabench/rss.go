//go:build linux

package main

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/novacode/nova/llm/llmtest"
)

// sized is one run's process size.
type sized struct {
	maxRSS  int64 // KiB, ru_maxrss from wait4 (the largest of the process tree)
	timeRSS int64 // KiB, /usr/bin/time -v's "Maximum resident set size"
	anon    int64 // KiB, peak sampled RssAnon of nova itself
	cpu     time.Duration
}

// Page-cache states of the binary under measurement. A binary's peak RSS is
// mostly its own file-backed pages, and how many of them a run maps depends on
// the folios the page cache holds them in: a kernel that keeps 2 MiB folios
// maps them whole (FilePmdMapped in smaps_rollup), so the same run can count
// 2 MiB where it touched 4 KiB.
const (
	cacheAsIs   = "as-is"  // however the binary sits now (bench/run.sh: just linked)
	cacheCold   = "cold"   // evicted; the runs page it in through their own faults
	cacheReread = "reread" // evicted, then read whole with read(2), as cat does
)

// rssReport measures, median of runs, the peak resident size of nova for a
// one-line answer, a 50-turn tool session and `nova --help` (start-up alone),
// against the baseline client, and the binary's size, as Markdown.
func rssReport(ctx context.Context, nova string, runs int, cache string) (string, error) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return "", fmt.Errorf("-only rss needs GNU time at /usr/bin/time (apt-get install time): %w", err)
	}
	states := []string{cache}
	if cache == "all" {
		states = []string{cacheAsIs, cacheCold, cacheReread}
	}
	abs, err := filepath.Abs(nova)
	if err != nil {
		return "", err
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s on %s, %d runs each, the median of each figure; nova and the baseline client alternate.\n\n", time.Now().UTC().Format("2006-01-02"), hostDesc(), runs)
	bin, err := binarySize(abs)
	if err != nil {
		return "", err
	}
	b.WriteString(bin)
	for _, state := range states {
		if err := setCacheState(abs, state); err != nil {
			return "", fmt.Errorf("page cache %s: %w", state, err)
		}
		table, err := rssTable(ctx, abs, self, runs, state)
		if err != nil {
			return "", err
		}
		b.WriteString(table)
	}
	return b.String(), nil
}

// binarySize describes the file: its size and its loaded sections as
// size(1) counts them (text includes rodata and pclntab).
func binarySize(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	f, err := elf.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var text, data, bss uint64
	named := map[string]uint64{}
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		named[s.Name] = s.Size
		switch {
		case s.Type == elf.SHT_NOBITS:
			bss += s.Size
		case s.Flags&elf.SHF_WRITE != 0:
			data += s.Size
		default:
			text += s.Size
		}
	}
	mb := func(n uint64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
	return fmt.Sprintf("Binary: %s on disk; size(1) text %s (.text %s, .rodata %s, .gopclntab %s), data %s, bss %s.\n\n",
		mb(uint64(st.Size())), mb(text), mb(named[".text"]), mb(named[".rodata"]), mb(named[".gopclntab"]), mb(data), mb(bss)), nil
}

// setCacheState puts the binary's pages in the page cache into state.
func setCacheState(path, state string) error {
	switch state {
	case cacheAsIs:
		return nil
	case cacheCold, cacheReread:
	default:
		return fmt.Errorf("unknown page-cache state %q (as-is, cold, reread or all)", state)
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	// Dirty pages cannot be dropped: write them out first.
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync: %w", err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("evict: %w", err)
	}
	if state == cacheReread {
		if _, err := io.Copy(io.Discard, f); err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
	return nil
}

// rssTable runs the three scenarios and formats them.
func rssTable(ctx context.Context, nova, self string, runs int, state string) (string, error) {
	type scenario struct {
		name      string
		newServer func() *llmtest.Server
		nova      func(srv *llmtest.Server) []string
		baseline  func(srv *llmtest.Server) []string
	}
	scenarios := []scenario{
		{"one-line answer", oneLineServer,
			func(*llmtest.Server) []string { return []string{"-p", "say hello"} },
			func(srv *llmtest.Server) []string { return []string{"-baseline-client", srv.URL, "-turns", "1"} }},
		{"50-turn tool session", echoServer,
			func(*llmtest.Server) []string {
				return []string{"-p", "--allowedTools", "Bash", "--output-format", "json", "run echo 50 times"}
			},
			func(srv *llmtest.Server) []string {
				return []string{"-baseline-client", srv.URL, "-turns", strconv.Itoa(echoTurns + 1), "-spawn"}
			}},
		{"`nova --help` (start-up)", nil,
			func(*llmtest.Server) []string { return []string{"--help"} },
			nil},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#### Page cache: %s\n\n", cacheDesc(state))
	b.WriteString("| scenario | peak RSS (ru_maxrss) | peak RSS (`/usr/bin/time -v`) | peak RssAnon (sampled) | CPU | baseline: ru_maxrss | baseline: RssAnon | baseline: CPU |\n|---|---|---|---|---|---|---|---|\n")
	for _, sc := range scenarios {
		var ns, bs []sized
		for range runs {
			var srv *llmtest.Server
			if sc.newServer != nil {
				srv = sc.newServer()
			}
			home, err := os.MkdirTemp("", "novabench-rss-")
			if err != nil {
				return "", err
			}
			env := []string{"NOVA_HOME=" + home}
			if srv != nil {
				env = novaEnv(srv, home)
			}
			m, err := runSized(ctx, env, nova, sc.nova(srv)...)
			os.RemoveAll(home)
			if srv != nil {
				srv.Close()
			}
			if err != nil {
				return "", fmt.Errorf("%s: %w", sc.name, err)
			}
			ns = append(ns, m)
			if sc.baseline == nil {
				continue
			}
			srv = sc.newServer()
			m, err = runSized(ctx, nil, self, sc.baseline(srv)...)
			srv.Close()
			if err != nil {
				return "", fmt.Errorf("%s, baseline: %w", sc.name, err)
			}
			bs = append(bs, m)
		}
		n := medianSized(ns)
		base := "| – | – | –"
		if len(bs) > 0 {
			m := medianSized(bs)
			base = fmt.Sprintf("| %.1f MiB | %.1f MiB | %s", mib(m.maxRSS), mib(m.anon), ms(m.cpu))
		}
		fmt.Fprintf(&b, "| %s | %.1f MiB | %.1f MiB | %.1f MiB | %s %s |\n", sc.name, mib(n.maxRSS), mib(n.timeRSS), mib(n.anon), ms(n.cpu), base)
	}
	b.WriteString("\n")
	return b.String(), nil
}

func cacheDesc(state string) string {
	switch state {
	case cacheCold:
		return "cold (the binary evicted first; the runs page it in through their own faults)"
	case cacheReread:
		return "re-read (the binary evicted, then read whole with read(2), as `cat nova > /dev/null` does)"
	}
	return "as-is (bench/run.sh: as the linker left it)"
}

// medianSized takes the median of each field on its own.
func medianSized(s []sized) sized {
	field := func(f func(sized) int64) int64 {
		v := make([]int64, len(s))
		for i, m := range s {
			v[i] = f(m)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	return sized{
		maxRSS:  field(func(m sized) int64 { return m.maxRSS }),
		timeRSS: field(func(m sized) int64 { return m.timeRSS }),
		anon:    field(func(m sized) int64 { return m.anon }),
		cpu:     time.Duration(field(func(m sized) int64 { return int64(m.cpu) })),
	}
}

var timeMaxRSS = regexp.MustCompile(`Maximum resident set size \(kbytes\): (\d+)`)

// runSized runs name under /usr/bin/time -v, sampling the anonymous memory
// of name itself (time's child) while it runs.
func runSized(ctx context.Context, env []string, name string, args ...string) (sized, error) {
	report, err := os.CreateTemp("", "novabench-time-")
	if err != nil {
		return sized{}, err
	}
	report.Close()
	defer os.Remove(report.Name())
	cmd := exec.CommandContext(ctx, "/usr/bin/time", append([]string{"-v", "-o", report.Name(), name}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	var out strings.Builder
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		return sized{}, err
	}
	stop := make(chan struct{})
	sampled := make(chan int64, 1)
	go func() {
		var peak int64
		child := 0
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if child == 0 {
				child = firstChild(cmd.Process.Pid)
			}
			if child != 0 {
				peak = max(peak, rssAnon(child))
			}
			select {
			case <-stop:
				sampled <- peak
				return
			case <-t.C:
			}
		}
	}()
	err = cmd.Wait()
	close(stop)
	m := sized{anon: <-sampled}
	if err != nil {
		return m, fmt.Errorf("%w: %s", err, out.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		m.maxRSS = ru.Maxrss
	}
	rep, err := os.ReadFile(report.Name())
	if err != nil {
		return m, err
	}
	match := timeMaxRSS.FindSubmatch(rep)
	if match == nil {
		return m, errors.New("no maximum resident set size in /usr/bin/time's report")
	}
	m.timeRSS, _ = strconv.ParseInt(string(match[1]), 10, 64)
	return m, nil
}

// firstChild returns the pid of pid's first child, 0 if it has none yet.
func firstChild(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(f[0])
	return n
}
