package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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
	Command         string `json:"command" jsonschema:"The command to execute"`
	Timeout         int    `json:"timeout,omitempty" jsonschema:"Optional timeout in milliseconds (max 600000, default 120000; with run_in_background max 86400000, default 1800000)"`
	Description     string `json:"description,omitempty" jsonschema:"Clear, concise description of what this command does in 5-10 words"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Set to true to run this command in the background. Use BashOutput to read the output later."`
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
	// A background command's time limit: the default is long enough for a
	// build or a test run, short enough that a forgotten server does not
	// run all day; a timeout the model gives may run up to a day.
	bashBackgroundTimeout    = 30 * time.Minute
	bashBackgroundMaxTimeout = 24 * time.Hour
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
- timeout is in milliseconds: default 120000 (2 minutes), at most 600000 (10 minutes); for run_in_background see below. On timeout the command and every process it started are killed.
- Output beyond 30000 characters is cut in the middle; the start and the end are kept.
- A non-zero exit code is reported as an error with "Exit code: N".
- To run a long command (a dev server, a watcher, a long build or test run) while you go on working, set run_in_background: the call returns at once with the command's ID. BashOutput reads what it wrote since you last looked, KillShell stops it with every process it started, and when it ends you are told (exit code, duration, the end of its output). Its time limit is timeout (at most 86400000, 24 hours), by default 30 minutes. Do not end such a command with &: once its shell exits, what it left running is stopped. Without run_in_background, a process left running with & loses what it writes after the command returns unless you redirect it (cmd > log 2>&1 &).
- Prefer the Read, Glob, Grep and LS tools over cat, find, grep and ls: they are faster and their output is easier to use.
- Quote paths that contain spaces.
- Credentials in the environment (GITHUB_TOKEN, AWS_*, *_API_KEY, *_TOKEN, *_SECRET, *_PASSWORD and the like) are withheld from commands unless the user passes them through in their settings. If a command fails for want of one, say so to the user; do not search for it.`

func runBash(ctx context.Context, env *tool.Env, in BashInput) (tool.Result, error) {
	if strings.TrimSpace(in.Command) == "" {
		return tool.Errorf("command is empty. Give the shell command to run."), nil
	}
	if in.RunInBackground {
		return runBackground(env, in), nil
	}
	timeout := bashDefaultTimeout
	if in.Timeout > 0 {
		// Clamp before converting: a huge value would overflow Duration.
		timeout = time.Duration(min(in.Timeout, int(bashMaxTimeout.Milliseconds()))) * time.Millisecond
	}

	out := newHeadTail(maxToolOutput)
	cmd, shell := bashCommand(env, in.Command)
	// One writer for both streams: exec then gives the child a single pipe
	// for stdout and stderr, which keeps their interleaving.
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = bashOutputGrace
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

// runBackground starts in's command as one of the session's jobs and
// returns at once. The job tells the agent that started it when it ends
// on its own (a Mail with jobNotice), and nobody when it was stopped: the
// model that stopped it knows, and a closing session or a subagent that
// ended has nobody left to tell.
func runBackground(env *tool.Env, in BashInput) tool.Result {
	if env.Jobs == nil || env.Mailbox == nil {
		return tool.Errorf("Background commands are not available here. Run the command without run_in_background.")
	}
	timeout := bashBackgroundTimeout
	if in.Timeout > 0 {
		timeout = time.Duration(min(in.Timeout, int(bashBackgroundMaxTimeout.Milliseconds()))) * time.Millisecond
	}
	cmd, shell := bashCommand(env, in.Command)
	done := env.Mailbox.Expect()
	spec := tool.JobSpec{
		Command: in.Command, Description: in.Description, Owner: env.AgentID,
		Cmd: cmd, Timeout: timeout, WaitFn: waitJob, StopFn: killGroup,
		Ended: func(info tool.JobInfo) {
			if info.Killed {
				done(nil)
				return
			}
			done(&tool.Mail{Kind: tool.MailCommand, From: info.ID, Text: jobNotice(info)})
		},
	}
	if sb := env.Sandbox; sb != nil {
		// As in the foreground: the process the sandbox starts leads the
		// group, and Finish ends what the command left and undoes what it
		// could not stop, once the job is over however it ended.
		spec.StartFn = func(cmd *exec.Cmd) error {
			if err := sb.Start(cmd); err != nil {
				return fmt.Errorf("the sandbox (%s) could not start, so the command was not run: %w", sb.Describe(), err)
			}
			return nil
		}
		spec.FinishFn = func(cmd *exec.Cmd) string { return sb.Finish(context.Background(), cmd) }
	}
	info, err := env.Jobs.Start(spec)
	if err != nil {
		done(nil)
		if errors.Is(err, tool.ErrJobsClosed) {
			return tool.Errorf("Background commands have been shut down in this session; the command was not run.")
		}
		return tool.Errorf("Cannot run %s in the background: %v", shell, err)
	}
	return tool.Result{Content: fmt.Sprintf("Command running in background with ID: %s\n"+
		"Read its new output with BashOutput (bash_id %q), stop it with KillShell (shell_id %q). "+
		"You will be told when it ends. It is stopped if it runs longer than %s. Its whole output goes to %s.",
		info.ID, info.ID, info.ID, formatDuration(timeout), info.OutputPath)}
}

// Size of the output's end that a background command's notice carries.
const (
	noticeLines = 40
	noticeBytes = 4000
	// noticeCommand is how much of the command line the notice repeats.
	noticeCommand = 500
)

// jobNotice is the message the model gets when a background command has
// ended on its own: self-contained, since it arrives turns later, among
// other news.
func jobNotice(info tool.JobInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Background command %s %s.\n", info.ID, jobStatus(info))
	if info.Description != "" {
		fmt.Fprintf(&b, "Description: %s\n", info.Description)
	}
	fmt.Fprintf(&b, "Command: %s\n", cutLine(info.Command, noticeCommand))
	if info.Note != "" {
		b.WriteString(strings.TrimRight(info.Note, "\n") + "\n")
	}
	tail, lines, left, err := outputTail(info.OutputPath, noticeLines, noticeBytes)
	switch {
	case err != nil:
		fmt.Fprintf(&b, "Its output could not be read (%v); it is in %s.\n", err, info.OutputPath)
	case tail == "" && left == 0:
		b.WriteString("It wrote no output.\n")
	case left > 0:
		fmt.Fprintf(&b, "The last %s of its output follow; %d characters before them are left out (BashOutput with bash_id %q returns what you have not read, the file %s has everything):\n%s",
			plural(lines, "line"), left, info.ID, info.OutputPath, tail)
	default:
		fmt.Fprintf(&b, "Output:\n%s", tail)
	}
	return strings.TrimRight(b.String(), "\n")
}

// jobStatus says how a job stands, as "exited with code 0 after 1.2s".
func jobStatus(info tool.JobInfo) string {
	if info.Running {
		return "is running (for " + formatDuration(time.Since(info.Started)) + ")"
	}
	ran := formatDuration(info.Ended.Sub(info.Started))
	switch {
	case info.TimedOut:
		return fmt.Sprintf("timed out: it ran into its time limit of %s and was stopped, with every process it started", formatDuration(info.Timeout))
	case info.Killed:
		return "was killed after " + ran
	case info.ExitCode >= 0:
		return fmt.Sprintf("exited with code %d after %s", info.ExitCode, ran)
	case info.Signal != "":
		return fmt.Sprintf("was ended by a signal (%s) after %s", info.Signal, ran)
	}
	return "ended after " + ran
}

// formatDuration rounds d for people: tenths of a second under a minute,
// whole seconds above.
func formatDuration(d time.Duration) string {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// outputTail returns the end of the file at path: its last maxLines
// lines, within its last maxBytes bytes (a line cut there loses its
// start), the number of lines that is, and how many bytes come before.
// Only the end is read.
func outputTail(path string, maxLines, maxBytes int) (tail string, lines int, left int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, 0, err
	}
	size := fi.Size()
	from := max(size-int64(maxBytes), 0)
	buf := make([]byte, size-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return "", 0, 0, err
	}
	if from > 0 {
		// Start on a character, and on a line when there is more than one.
		for len(buf) > 0 && !utf8.RuneStart(buf[0]) {
			buf, from = buf[1:], from+1
		}
		if i := bytes.IndexByte(buf, '\n'); i >= 0 && i < len(buf)-1 {
			buf, from = buf[i+1:], from+int64(i+1)
		}
	}
	body := bytes.TrimSuffix(buf, []byte("\n"))
	if n := bytes.Count(body, []byte("\n")) + 1; n > maxLines {
		skip := 0
		for range n - maxLines {
			skip += bytes.IndexByte(buf[skip:], '\n') + 1
		}
		buf, from = buf[skip:], from+int64(skip)
	}
	lines = bytes.Count(bytes.TrimSuffix(buf, []byte("\n")), []byte("\n")) + 1
	if len(buf) == 0 {
		lines = 0
	}
	return strings.ToValidUTF8(string(buf), "\uFFFD"), lines, from, nil
}

// bashCommand returns the command that runs line, in the workspace, with
// the environment commands get, in a process group of its own and with
// standard input empty; and the shell's name.
func bashCommand(env *tool.Env, line string) (*exec.Cmd, string) {
	shell := "bash"
	if _, err := exec.LookPath(shell); err != nil {
		shell = "sh"
	}
	cmd := exec.Command(shell, "-c", line)
	cmd.Dir = env.Dir
	// Credentials stay out of the command's environment unless the user
	// passes them through: a prompt-injected `env` or curl would otherwise
	// send them anywhere, sandbox or not. Git would otherwise try to prompt
	// for credentials on a terminal the command does not have.
	cmd.Env = append(cmdenv.Environ(os.Environ(), env.PassEnv), "GIT_TERMINAL_PROMPT=0")
	setProcessGroup(cmd) // Stdin stays nil, which exec connects to /dev/null.
	return cmd, shell
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
