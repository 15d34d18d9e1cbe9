package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/novacode/nova/permission/cmdenv"
	"github.com/novacode/nova/permission/shell"
	"github.com/novacode/nova/tool"
)

// BashInput is the input of the Bash tool.
type BashInput struct {
	Command     string `json:"command" jsonschema:"The command to execute"`
	Timeout     int    `json:"timeout,omitempty" jsonschema:"Optional timeout in milliseconds (max 600000, default 120000)"`
	Description string `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words"`
}

const (
	bashDefaultTimeout = 120 * time.Second
	bashMaxTimeout     = 600 * time.Second
	// bashKillGrace is how long the command's processes get to exit after
	// SIGTERM before SIGKILL.
	bashKillGrace = 2 * time.Second
	// bashOutputGrace is how long to keep reading output after the shell
	// exits. A background child that inherited the output pipe keeps it open
	// indefinitely; waiting for it would hang the tool.
	bashOutputGrace = time.Second
)

// NewBash returns the Bash tool.
func NewBash() *tool.Typed[BashInput] {
	return tool.New("Bash", bashDesc, false, nil, runBash).WithEffects(bashEffects)
}

// bashEffects asks the shell analyser (the one the permission chain uses)
// what a command touches. Only a line the analyser fully understands is
// bounded; anything it is unsure about runs alone.
func bashEffects(env *tool.Env, in BashInput) tool.Effects {
	home, _ := os.UserHomeDir()
	a := shell.Analyze(in.Command, shell.Options{Workspace: env.Dir, Home: home})
	if !a.Effects.Bounded() || a.ParseError != "" || len(a.Unsafe) > 0 || len(a.Dangerous) > 0 || len(a.ProjectCode) > 0 {
		return tool.Exclusive()
	}
	fx := tool.Effects{Writes: a.Effects.Writes}
	for _, r := range a.Effects.Reads {
		fx.Reads = append(fx.Reads, r.GlobDir())
	}
	return fx
}

const bashDesc = `Executes a bash command and returns its combined stdout and stderr.

Usage:
- The command runs in the working directory, in a new shell each time: cd and exported variables do not carry over to the next call. Chain commands with && or ; when they depend on each other.
- Standard input is empty: do not run interactive commands (editors, pagers, prompts). Pass flags such as --yes or --no-pager.
- timeout is in milliseconds: default 120000 (2 minutes), at most 600000 (10 minutes). On timeout the command and every process it started are killed.
- Output beyond 30000 characters is cut in the middle; the start and the end are kept.
- A non-zero exit code is reported as an error with "Exit code: N".
- To leave a process running in the background, redirect its output (cmd > log 2>&1 &); otherwise output written after the command returns is lost.
- Prefer the Read, Glob, Grep and LS tools over cat, find, grep and ls: they are faster and their output is easier to use.
- Quote paths that contain spaces.
- Credentials in the environment (GITHUB_TOKEN, AWS_*, *_API_KEY, *_TOKEN, *_SECRET, *_PASSWORD and the like) are withheld from commands unless the user passes them through in their settings. If a command fails for want of one, say so to the user; do not search for it.`

func runBash(ctx context.Context, env *tool.Env, in BashInput) (tool.Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return tool.Errorf("command is empty. Give the shell command to run."), nil
	}
	timeout := bashDefaultTimeout
	if in.Timeout > 0 {
		// Clamp before converting: a huge value would overflow Duration.
		timeout = time.Duration(min(in.Timeout, int(bashMaxTimeout.Milliseconds()))) * time.Millisecond
	}

	shell := "bash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	out := newHeadTail(maxToolOutput)
	cmd := exec.Command(shell, "-c", in.Command)
	cmd.Dir = env.Dir
	// Credentials stay out of the command's environment unless the user
	// passes them through: a prompt-injected `env` or curl would otherwise
	// send them anywhere, sandbox or not. Git would otherwise try to prompt
	// for credentials on a terminal the command does not have.
	cmd.Env = append(cmdenv.Environ(os.Environ(), env.PassEnv), "GIT_TERMINAL_PROMPT=0")
	// One writer for both streams: exec then gives the child a single pipe
	// for stdout and stderr, which keeps their interleaving.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = bashOutputGrace
	setProcessGroup(cmd) // Stdin stays nil, which exec connects to /dev/null.
	if env.Sandbox != nil {
		// The process the sandbox starts (bwrap, or the shell itself under
		// Landlock) leads the process group, so killGroup still reaches
		// the whole command.
		if err := env.Sandbox.Start(cmd); err != nil {
			return tool.Errorf("The sandbox (%s) could not start, so the command was not run: %v", env.Sandbox.Describe(), err), nil
		}
	} else if err := cmd.Start(); err != nil {
		return tool.Errorf("Cannot start %s: %v", shell, err), nil
	}

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	var stopped string
	select {
	case waitErr = <-done:
	case <-timer.C:
		stopped = fmt.Sprintf("Command timed out after %d ms; it and every process it started were killed.", timeout.Milliseconds())
		waitErr = killGroup(cmd, done)
	case <-ctx.Done():
		stopped = "Command was cancelled; it and every process it started were killed."
		waitErr = killGroup(cmd, done)
	}

	sandboxNote := ""
	if env.Sandbox != nil {
		// Processes the command left behind die here, and what it did
		// to git metadata that no bind could stop is undone; the model
		// is told.
		sandboxNote = env.Sandbox.Finish(context.WithoutCancel(ctx), cmd)
	}

	var b strings.Builder
	b.WriteString(out.String())
	note := func(s string) {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if sandboxNote != "" {
		note(sandboxNote + "\n")
	}
	if errors.Is(waitErr, exec.ErrWaitDelay) && stopped == "" {
		note("(A background process kept the output open after the command finished; its later output is not shown. Redirect it, e.g. cmd > log 2>&1 &.)\n")
	}
	code := cmd.ProcessState.ExitCode()
	switch {
	case stopped != "":
		note(stopped)
		return tool.Result{Content: b.String(), IsError: true}, nil
	case code != 0:
		if code < 0 {
			note("Command was killed by a signal: " + cmd.ProcessState.String())
		} else {
			note(fmt.Sprintf("Exit code: %d", code))
		}
		return tool.Result{Content: b.String(), IsError: true}, nil
	case b.Len() == 0:
		return tool.Result{Content: "(no output)"}, nil
	}
	return tool.Result{Content: b.String()}, nil
}

// headTail is an io.Writer that keeps the first and the last max/2 bytes
// written to it and counts the rest, so a command printing gigabytes costs
// bounded memory while the model still sees how it started and ended.
type headTail struct {
	mu      sync.Mutex
	half    int
	head    []byte
	tail    []byte // ring buffer once full
	tailPos int
	total   int64
}

func newHeadTail(max int) *headTail { return &headTail{half: max / 2} }

func (h *headTail) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	h.total += int64(n)
	if room := h.half - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(h.tail) < h.half {
			k := min(h.half-len(h.tail), len(p))
			h.tail = append(h.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(h.tail[h.tailPos:], p)
		h.tailPos = (h.tailPos + k) % h.half
		p = p[k:]
	}
	return n, nil
}

// String returns everything written, or its head and tail with a marker in
// the place of what was dropped. Invalid UTF-8 (binary output, or a rune
// cut in two) becomes U+FFFD, as it would in the JSON sent to the model.
func (h *headTail) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	tail := append(append([]byte(nil), h.tail[h.tailPos:]...), h.tail[:h.tailPos]...)
	kept := int64(len(h.head) + len(tail))
	if h.total == kept {
		return strings.ToValidUTF8(string(h.head)+string(tail), "\uFFFD")
	}
	// Cut on rune boundaries so no character is mangled at the seams.
	head := h.head
	for i := 0; i < utf8.UTFMax-1 && len(head) > 0; i++ {
		if r, size := utf8.DecodeLastRune(head); r != utf8.RuneError || size > 1 {
			break
		}
		head = head[:len(head)-1]
	}
	for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
	}
	dropped := h.total - int64(len(head)) - int64(len(tail))
	return strings.ToValidUTF8(string(head), "\uFFFD") +
		fmt.Sprintf("\n\n[... %d characters truncated ...]\n\n", dropped) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}
