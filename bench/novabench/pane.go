//go:build linux

package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/novacode/nova/llm/llmtest"
)

// pane is a detached 80x24 tmux pane on a private tmux server (-L socket),
// so that measurements never touch the user's tmux.
type pane struct {
	ctx    context.Context
	socket string
}

// startPane runs command (a shell command line) in a new pane.
func startPane(ctx context.Context, socket, command string) (*pane, error) {
	p := &pane{ctx: ctx, socket: socket}
	if _, err := p.tmux("new-session", "-d", "-x", "80", "-y", "24", command); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *pane) tmux(args ...string) (string, error) {
	out, err := exec.CommandContext(p.ctx, "tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", args[0], err, out)
	}
	return string(out), nil
}

// close ends the pane's tmux server and everything in it.
func (p *pane) close() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() }

// waitFor polls the screen every poll (0: as fast as tmux answers) until
// it shows want, for at most timeout.
func (p *pane) waitFor(want string, poll, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		scr, err := p.tmux("capture-pane", "-p")
		if err != nil {
			return "", err
		}
		if strings.Contains(scr, want) {
			return scr, nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("pane never showed %q in %v:\n%s", want, timeout, scr)
		}
		time.Sleep(poll)
	}
}

// pid returns the pid of the process running bin in the pane.
func (p *pane) pid(bin string) (int, error) {
	out, err := p.tmux("list-panes", "-F", "#{pane_pid}")
	if err != nil {
		return 0, err
	}
	panePID, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("pane pid %q: %v", out, err)
	}
	return findProc(panePID, bin)
}

// novaCommand is the shell command line that runs nova (an absolute path)
// in home against srv, with args.
func novaCommand(srv *llmtest.Server, home, nova string, args ...string) string {
	var sh strings.Builder
	fmt.Fprintf(&sh, "cd %s && exec env", shQuote(home))
	for _, kv := range novaEnv(srv, home) {
		sh.WriteString(" " + shQuote(kv))
	}
	sh.WriteString(" " + shQuote(nova))
	for _, a := range args {
		sh.WriteString(" " + shQuote(a))
	}
	return sh.String()
}

// absBin resolves a binary's path: the pane's shell runs elsewhere, and
// findProc matches argv[0] exactly.
func absBin(bin string) (string, error) { return filepath.Abs(bin) }
