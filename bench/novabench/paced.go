//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

// pacedVariant is one form of the paced turn: a response whose three Bash
// calls complete 0.3, 0.6 and 0.9 s into the stream, each taking 1 s.
type pacedVariant struct {
	name string
	// command is call n's command line (n = 1, 2, 3). It prints
	// "start n <unix time>" and "end n <unix time>".
	command func(n int) string
	// args are nova's permission flags: none for reads, which need no
	// approval.
	args []string
	// serial: the calls touch one file, so they must run one after
	// another, in call order; the ideal is then the serial schedule.
	serial bool
}

var pacedVariants = []pacedVariant{
	{
		name: "three read-only commands (no permission flags)",
		command: func(n int) string {
			return fmt.Sprintf("echo start %d $(date +%%s.%%N); sleep 1; echo end %d $(date +%%s.%%N)", n, n)
		},
	},
	{
		name: "three commands, each writing then reading its own file",
		command: func(n int) string {
			return fmt.Sprintf("echo start %d $(date +%%s.%%N) > out%d.txt; sleep 1; echo end %d $(date +%%s.%%N) >> out%d.txt; cat out%d.txt", n, n, n, n, n)
		},
		args: []string{"--allowedTools", "Bash"},
	},
	{
		name: "three commands appending to one shared file",
		command: func(n int) string {
			return fmt.Sprintf("echo start %d $(date +%%s.%%N) | tee -a shared.txt; sleep 1; echo end %d $(date +%%s.%%N) | tee -a shared.txt", n, n)
		},
		args:   []string{"--allowedTools", "Bash"},
		serial: true,
	},
}

// pacedResult is one run of a variant.
type pacedResult struct {
	// lags, per call: its start − the moment it could start (its block's
	// completion; for the shared file, the later of that and the end of
	// the call before it).
	lags  []time.Duration
	next  time.Duration // the next request, from the first one's arrival
	ideal time.Duration // the same, had every call started the instant it could
	// inOrder: the calls ran one after another, in call order.
	inOrder bool
}

func (r pacedResult) ratio() float64 { return float64(r.next) / float64(r.ideal) }

var stampRe = regexp.MustCompile(`(start|end) ([123]) ([0-9]+)\.([0-9]{9})`)

// pacedRun runs one paced turn of v against nova. allowAll gives the build
// --allowedTools Bash whatever the variant says (earlier builds asked even
// for reads).
func pacedRun(ctx context.Context, nova string, v pacedVariant, allowAll bool) (pacedResult, error) {
	var zero pacedResult
	ws, err := os.MkdirTemp("", "novabench-ws-")
	if err != nil {
		return zero, err
	}
	defer os.RemoveAll(ws)
	home, err := os.MkdirTemp("", "novabench-home-")
	if err != nil {
		return zero, err
	}
	defer os.RemoveAll(home)
	blocks := []llmtest.Block{llmtest.Text("Running three commands.")}
	for n := 1; n <= 3; n++ {
		blk := bashCall(fmt.Sprintf("c%d", n), v.command(n))
		blk.Delay = 300 * time.Millisecond // complete at 0.3, 0.6, 0.9 s
		blocks = append(blocks, blk)
	}
	srv := llmtest.NewServer(llmtest.Turn{Blocks: blocks}, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("done")}})
	defer srv.Close()
	args := append([]string{"-p", "--cwd", ws, "--output-format", "json"}, v.args...)
	if allowAll && len(v.args) == 0 {
		args = append(args, "--allowedTools", "Bash")
	}
	_, out, err := runProc(ctx, novaEnv(srv, home), nova, append(args, "go")...)
	if err != nil {
		return zero, fmt.Errorf("%w: %s", err, out)
	}
	var reqs []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" { // leave out the context-window lookup
			reqs = append(reqs, r)
		}
	}
	if len(reqs) != 2 {
		return zero, fmt.Errorf("%d requests, want 2", len(reqs))
	}
	// The tool results travel in the second request; each holds its
	// command's start and end stamps.
	var starts, ends [3]time.Time
	for _, m := range stampRe.FindAllStringSubmatch(string(reqs[1].Body), -1) {
		n, _ := strconv.Atoi(m[2])
		sec, _ := strconv.ParseInt(m[3], 10, 64)
		nsec, _ := strconv.ParseInt(m[4], 10, 64)
		if m[1] == "start" {
			starts[n-1] = time.Unix(sec, nsec)
		} else {
			ends[n-1] = time.Unix(sec, nsec)
		}
	}
	stops := reqs[0].BlockStops[1:] // the text block is first
	if len(stops) != 3 {
		return zero, fmt.Errorf("%d tool blocks, want 3", len(stops))
	}
	var r pacedResult
	r.inOrder = true
	var idealEnd time.Time
	for i := range 3 {
		if starts[i].IsZero() || ends[i].IsZero() {
			return zero, fmt.Errorf("call %d printed no stamps; was it denied? %s", i+1, out)
		}
		could := stops[i]
		if v.serial && i > 0 && ends[i-1].After(could) {
			could = ends[i-1]
		}
		r.lags = append(r.lags, starts[i].Sub(could))
		start := stops[i]
		if v.serial && idealEnd.After(start) {
			start = idealEnd // it waits for the call before it
		}
		end := start.Add(ends[i].Sub(starts[i]))
		if end.After(idealEnd) {
			idealEnd = end
		}
		if i > 0 && starts[i].Before(ends[i-1]) {
			r.inOrder = false
		}
	}
	ideal := reqs[0].Done
	if idealEnd.After(ideal) {
		ideal = idealEnd
	}
	t0 := reqs[0].Received
	r.next, r.ideal = reqs[1].Received.Sub(t0), ideal.Sub(t0)
	return r, nil
}

// pacedReport runs every variant runs times against nova (and, when set,
// against old, an earlier build, alternating) and prints a table.
func pacedReport(ctx context.Context, nova, old string, runs int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "### Paced three-call turn (blocks complete at 0.3 / 0.6 / 0.9 s, each call takes 1 s)\n\n")
	fmt.Fprintf(&b, "Median of %d runs; \"ideal\" is the next request had every call started the instant its block completed", runs)
	fmt.Fprintf(&b, " (for the shared file: the instant the call before it ended).\n\n")
	fmt.Fprintf(&b, "| variant | build | next request | ideal | next / ideal | start lag, median | start lag, max | one after another, in call order |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|\n")
	bins := []struct{ name, path string }{{"this build", nova}}
	if old != "" {
		bins = append(bins, struct{ name, path string }{"before (" + oldLabel + "; reads allowed with --allowedTools Bash)", old})
	}
	for _, v := range pacedVariants {
		results := make([][]pacedResult, len(bins))
		for range runs {
			for i, bin := range bins {
				r, err := pacedRun(ctx, bin.path, v, i > 0)
				if err != nil {
					return "", fmt.Errorf("%s, %s: %w", v.name, bin.name, err)
				}
				results[i] = append(results[i], r)
			}
		}
		for i, bin := range bins {
			rs := results[i]
			var lags, next, ideal []time.Duration
			var ratios []float64
			ordered := 0
			for _, r := range rs {
				lags = append(lags, r.lags...)
				next = append(next, r.next)
				ideal = append(ideal, r.ideal)
				ratios = append(ratios, r.ratio())
				if r.inOrder {
					ordered++
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %.2f s | %.2f s | %.3f | %s | %s | %d of %d runs |\n", v.name, bin.name,
				median(next).Seconds(), median(ideal).Seconds(), medianF(ratios), ms(median(lags)), ms(slices.Max(lags)), ordered, len(rs))
		}
	}
	b.WriteString("\n")
	return b.String(), nil
}

// oldLabel names the earlier build in the table (set by -nova-old-label).
var oldLabel = "earlier build"
