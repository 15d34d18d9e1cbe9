package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

// keystrokeLatency measures keystroke-to-screen time in a real terminal
// (tmux): a key is sent with send-keys and the pane is polled until it shows
// it. The same measurement against `cat` in the same kind of pane is the
// baseline (tmux's own send/capture cost); nova is measured while an answer
// streams in.
func keystrokeLatency(ctx context.Context, nova string, samples int) (string, error) {
	const head = "### Keystroke to screen while an answer streams (real terminal: tmux, 80x24)\n\n"
	if _, err := exec.LookPath("tmux"); err != nil {
		return head + "Skipped: tmux is not installed.\n\n", nil
	}
	abs, err := filepath.Abs(nova)
	if err != nil {
		return "", err
	}
	home, err := os.MkdirTemp("", "novabench-keys")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	// A long answer streamed slowly: it is still arriving while we type.
	long := strings.Repeat("Streaming words keep arriving while you type. ", 400)
	srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(long)}, ChunkDelay: 15 * time.Millisecond})
	defer srv.Close()

	measure := func(socket, command, ready string, keys []string) ([]time.Duration, error) {
		tmux := func(args ...string) (string, error) {
			out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
			if err != nil {
				return string(out), fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
			}
			return string(out), nil
		}
		if _, err := tmux("new-session", "-d", "-x", "80", "-y", "24", command); err != nil {
			return nil, err
		}
		defer exec.Command("tmux", "-L", socket, "kill-server").Run()
		waitFor := func(want string) error {
			deadline := time.Now().Add(30 * time.Second)
			for {
				scr, err := tmux("capture-pane", "-p")
				if err != nil {
					return err
				}
				if strings.Contains(scr, want) {
					return nil
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("pane never showed %q:\n%s", want, scr)
				}
			}
		}
		if err := waitFor(ready); err != nil {
			return nil, err
		}
		var out []time.Duration
		typed := ""
		for _, k := range keys {
			typed += k
			start := time.Now()
			if _, err := tmux("send-keys", "-l", k); err != nil {
				return nil, err
			}
			if err := waitFor(typed); err != nil {
				return nil, err
			}
			out = append(out, time.Since(start))
		}
		return out, nil
	}
	var keys []string
	for i := range samples {
		keys = append(keys, string(rune('a'+i%26)))
	}
	base, err := measure("novabench-keys-cat", "cat", "", keys)
	if err != nil {
		return "", fmt.Errorf("baseline: %w", err)
	}
	var sh strings.Builder
	fmt.Fprintf(&sh, "cd %s && exec env", shQuote(home))
	for _, kv := range novaEnv(srv, home) {
		sh.WriteString(" " + shQuote(kv))
	}
	sh.WriteString(" " + shQuote(abs) + " " + shQuote("write a long text"))
	got, err := measure("novabench-keys-nova", sh.String(), "Streaming words", keys)
	if err != nil {
		return "", fmt.Errorf("nova: %w", err)
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("| measure | nova | baseline (`cat`) | nova / baseline |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| median of %d keys | %s | %s | %.2f |\n", samples, ms(median(got)), ms(median(base)), ratio(median(got), median(base)))
	fmt.Fprintf(&b, "| slowest key | %s | %s | |\n\n", ms(maxDur(got)), ms(maxDur(base)))
	return b.String(), nil
}

func maxDur(d []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range d {
		m = max(m, x)
	}
	return m
}
