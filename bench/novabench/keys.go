//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
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
	abs, err := absBin(nova)
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
	// One turn for nova, one for nova on upstream Bubble Tea.
	turn := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(long)}, ChunkDelay: 15 * time.Millisecond}
	srv := llmtest.NewServer(turn, turn)
	defer srv.Close()

	measure := func(socket, command, ready string, keys []string) ([]time.Duration, error) {
		p, err := startPane(ctx, socket, command)
		if err != nil {
			return nil, err
		}
		defer p.close()
		if _, err := p.waitFor(ready, 0, 30*time.Second); err != nil {
			return nil, err
		}
		var out []time.Duration
		typed := ""
		for _, k := range keys {
			// A fast typist's pace (12 keys a second), not back to back: a
			// key sent the moment the last one showed would always land
			// inside the frame interval and measure the 60 fps cap.
			time.Sleep(typingGap)
			typed += k
			start := time.Now()
			if _, err := p.tmux("send-keys", "-l", k); err != nil {
				return nil, err
			}
			// Polled as fast as tmux answers: the poll is the resolution.
			if _, err := p.waitFor(typed, 0, 30*time.Second); err != nil {
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
	got, err := measure("novabench-keys-nova", novaCommand(srv, home, abs, "write a long text"), "Streaming words", keys)
	if err != nil {
		return "", fmt.Errorf("nova: %w", err)
	}
	// The same binary on upstream Bubble Tea, whose renderer flushes on a
	// free-running 60 Hz ticker: a key waits for the next tick.
	var upstream []time.Duration
	if *novaUpstream != "" {
		absUp, err := absBin(*novaUpstream)
		if err != nil {
			return "", err
		}
		upCmd := novaCommand(srv, home, absUp, "write a long text")
		if upstream, err = measure("novabench-keys-up", upCmd, "Streaming words", keys); err != nil {
			return "", fmt.Errorf("nova on upstream Bubble Tea: %w", err)
		}
	}
	// The same with nothing streaming: the frame is drawn on demand, so a
	// key after a quiet moment is drawn at once.
	idle, err := measure("novabench-keys-idle", novaCommand(srv, home, abs), "default", keys)
	if err != nil {
		return "", fmt.Errorf("nova idle: %w", err)
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("| measure | nova | baseline (`cat`) | nova / baseline |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| median of %d keys, answer streaming | %s | %s | %.2f |\n", samples, ms(median(got)), ms(median(base)), ratio(median(got), median(base)))
	fmt.Fprintf(&b, "| slowest key, answer streaming | %s | %s | |\n", ms(maxDur(got)), ms(maxDur(base)))
	fmt.Fprintf(&b, "| median of %d keys, idle | %s | %s | %.2f |\n", samples, ms(median(idle)), ms(median(base)), ratio(median(idle), median(base)))
	if upstream != nil {
		fmt.Fprintf(&b, "| median of %d keys, answer streaming, nova built on upstream Bubble Tea | %s | %s | %.2f |\n", samples, ms(median(upstream)), ms(median(base)), ratio(median(upstream), median(base)))
	}
	fmt.Fprintf(&b, "\nKeys are typed %v apart (a fast typist); the pane is polled with capture-pane until the key shows.\n\n", typingGap)
	return b.String(), nil
}

// typingGap is the pause before each measured key.
const typingGap = 80 * time.Millisecond

func maxDur(d []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range d {
		m = max(m, x)
	}
	return m
}
