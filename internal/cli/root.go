package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/iostreams"
	"github.com/novacode/nova/internal/printmode"
)

// RootOptions are the flags and inputs of `nova`.
type RootOptions struct {
	IO *iostreams.IOStreams

	Print           bool
	Prompt          string
	OutputFormat    string
	Provider        string
	Model           string
	MaxTurns        int
	PermissionMode  string
	AllowedTools    []string
	DisallowedTools []string
	Cwd             string
	Effort          string
	Debug           []string
	Continue        bool
	Resume          string
	ExtractMemory   bool
	// TrustWorkspace applies the workspace's settings that need trust for
	// this run, without asking or remembering.
	TrustWorkspace bool
	// WebSearch is --web-search: nil when not given.
	WebSearch *bool
	// MCPConfig are the --mcp-config files; StrictMCPConfig starts only
	// their servers.
	MCPConfig       []string
	StrictMCPConfig bool

	// Suggest are the subcommands a one-word prompt may be a typo of.
	Suggest []string
}

// NewCmdRoot builds the root command. runF replaces the behaviour in tests of
// flag parsing; nil means runRoot.
func NewCmdRoot(ios *iostreams.IOStreams, runF func(context.Context, *RootOptions) error) *cobra.Command {
	opts := &RootOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "nova [prompt]",
		Short: "NovaCode: a coding agent for the terminal",
		Long: `NovaCode streams a model's answer, runs the tools it asks for (read, edit,
search, run commands) and loops until the task is done.

  nova -p "fix the failing test"                 print mode: answer, then exit
  nova -p --output-format stream-json "task"     one JSON event per line

The model endpoint comes from ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, or
OPENAI_API_KEY / OPENAI_BASE_URL (OpenAI, or any OpenAI-compatible server),
or ~/.novacode/settings.json and .novacode/settings.json. A workspace's own
settings that widen what nova may do, or choose the endpoint, apply only once
you trust the workspace (the interactive UI asks; see nova trust).`,
		Version:       versionLine(Version, Commit, Date, buildInfo()),
		SilenceUsage:  true,
		SilenceErrors: true,
		// cobra's own default, which SuggestionsFor (below) does not apply.
		SuggestionsMinimumDistance: 2,
		Args:                       cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Prompt = strings.Join(args, " ")
			if len(args) == 1 {
				// "nova sesions" is a prompt to cobra; said when it
				// cannot start the TUI, it was likely a subcommand.
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					opts.Suggest = s
				}
			}
			if _, err := printmode.ParseFormat(opts.OutputFormat); err != nil {
				return err
			}
			if err := checkSessionFlags(cmd, opts); err != nil {
				return err
			}
			for _, d := range opts.Debug {
				if d != "permissions" {
					return fmt.Errorf("unknown --debug topic %q (available: permissions)", d)
				}
			}
			if opts.Continue && opts.Resume != "" {
				return errors.New("--continue and --resume cannot be used together")
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRoot(cmd.Context(), opts)
		},
	}
	// cobra's default version line is "nova version X" already. A template
	// of our own would link text/template's executor, which keeps every
	// exported method of every reachable type in the binary
	// (internal/archtest.TestLinkerDropsUnusedMethods).
	cmd.AddCommand(newCmdPermission(ios, nil), newCmdSessions(ios, nil), newCmdRewind(ios, nil), newCmdTrust(ios, nil), newCmdMCP(ios), newCmdServe(ios, nil), newCmdACP(ios, nil), newCmdBatch(ios, nil), newCmdWorker(ios, nil))
	f := cmd.Flags()
	f.BoolVarP(&opts.Print, "print", "p", false, "Print mode: run the prompt non-interactively and exit")
	f.StringVar(&opts.OutputFormat, "output-format", "text", "Print-mode output: text, json or stream-json")
	addSessionFlags(f, opts)
	f.StringSliceVar(&opts.Debug, "debug", nil, "Log details to standard error: permissions")
	f.BoolVarP(&opts.Continue, "continue", "c", false, "Continue the latest session of this workspace")
	f.StringVarP(&opts.Resume, "resume", "r", "", "Resume the session with this id (see nova sessions)")
	f.BoolVar(&opts.ExtractMemory, "extract-memory", false, "After a successful run, propose durable facts for the project's NOVA.md and add them")
	return cmd
}

// addSessionFlags adds the flags that set up a session, shared by nova and
// nova serve (whose sessions open as nova's would).
func addSessionFlags(f *pflag.FlagSet, opts *RootOptions) {
	f.StringVar(&opts.Provider, "provider", "", "Model protocol: anthropic, openai (Responses) or openai-chat (Chat Completions); default: whichever key is set")
	f.StringVar(&opts.Model, "model", "", "Model name (default $ANTHROPIC_MODEL / $OPENAI_MODEL, settings, or the provider's default)")
	f.StringVar(&opts.Effort, "effort", "", "Turn on reasoning with this effort: low, medium or high")
	f.IntVar(&opts.MaxTurns, "max-turns", 0, "Stop after this many model calls (0: no limit)")
	f.StringVar(&opts.PermissionMode, "permission-mode", "", "default, acceptEdits, plan or bypassPermissions (default: settings' defaultMode, else default)")
	f.StringArrayVar(&opts.AllowedTools, "allowedTools", nil, "Rules allowed without asking, e.g. \"Bash(npm run test:*),Edit(src/**)\"")
	f.StringArrayVar(&opts.DisallowedTools, "disallowedTools", nil, "Rules denied; bare tool names also hide the tool from the model")
	f.StringVar(&opts.Cwd, "cwd", "", "Workspace directory (default: current directory)")
	f.BoolVar(&opts.TrustWorkspace, "trust-workspace", false, "Apply the workspace's own settings that need trust (see nova trust) for this run")
	f.StringArrayVar(&opts.MCPConfig, "mcp-config", nil, "Start the MCP servers of this file (.mcp.json's format, {\"mcpServers\": {...}}) for this run; repeatable")
	f.BoolVar(&opts.StrictMCPConfig, "strict-mcp-config", false, "Start only the MCP servers of --mcp-config files, none from the settings or .mcp.json")
	f.Bool("web-search", false, "Offer the provider's own web search (Anthropic, OpenAI Responses), asking once per session unless a WebSearch rule allows it; without the flag it is offered only where a rule allows it")
}

// checkSessionFlags checks the flags of addSessionFlags and sets what
// only cmd knows (whether --web-search was given).
func checkSessionFlags(cmd *cobra.Command, opts *RootOptions) error {
	if err := checkRunFlags(opts.PermissionMode, opts.Effort, opts.MaxTurns); err != nil {
		return err
	}
	if cmd.Flags().Changed("web-search") {
		on, _ := cmd.Flags().GetBool("web-search")
		opts.WebSearch = &on
	}
	return nil
}

// checkRunFlags checks --permission-mode, --effort and --max-turns, which
// nova, nova serve, nova acp and nova batch share.
func checkRunFlags(mode, effort string, maxTurns int) error {
	if err := nova.ValidMode(mode); err != nil {
		return err
	}
	switch effort {
	case "", "low", "medium", "high":
	default:
		return fmt.Errorf("--effort must be low, medium or high, got %q", effort)
	}
	if maxTurns < 0 {
		return fmt.Errorf("--max-turns must be 0 (no limit) or more, got %d", maxTurns)
	}
	return nil
}

// sessionOptions are the options of a session in the workspace dir, from
// the flags: the runs of nova and the sessions of nova serve alike.
func (opts *RootOptions) sessionOptions(dir string) nova.Options {
	return nova.Options{
		Dir: dir, Provider: opts.Provider, Model: opts.Model, Effort: opts.Effort,
		MaxTurns: opts.MaxTurns, PermissionMode: opts.PermissionMode,
		Allow: slices.Clone(opts.AllowedTools), Deny: slices.Clone(opts.DisallowedTools),
		Continue: opts.Continue, Resume: opts.Resume,
		TrustWorkspace: opts.TrustWorkspace, WebSearch: opts.WebSearch,
		MCPConfigFiles: slices.Clone(opts.MCPConfig), StrictMCPConfig: opts.StrictMCPConfig,
	}
}

func runRoot(ctx context.Context, opts *RootOptions) error {
	prompt := opts.Prompt
	if !opts.Print && (!opts.IO.StdinIsTTY || !opts.IO.StdoutIsTTY) {
		// Before anything else: the TUI would fail deep inside Bubble Tea
		// ("could not create cancelable reader") or draw into a pipe.
		return noTerminal(opts)
	}
	if opts.Print && !opts.IO.StdinIsTTY {
		// Piped input is part of the prompt, as in `git diff | nova -p "review"`.
		piped, err := readPiped(opts.IO.In, prompt != "", stdinGrace)
		if err != nil {
			return err
		}
		if s := strings.TrimSpace(piped); s != "" {
			prompt = strings.TrimSpace(prompt + "\n\n" + s)
		}
	}
	if opts.Print && strings.TrimSpace(prompt) == "" {
		return errors.New("no prompt given; pass one as an argument (nova -p \"your task\") or on standard input")
	}

	dir, err := workspace(opts.Cwd)
	if err != nil {
		return err
	}
	o := opts.sessionOptions(dir)
	// The interactive UI answers permission requests and questions;
	// print mode has nobody to ask.
	o.Interactive = !opts.Print
	if !opts.Print {
		o.Trust = askTrust(opts.IO)
		o.ApproveMCPServers = askMCPServers(opts.IO)
	}
	if slices.Contains(opts.Debug, "permissions") {
		if opts.Print {
			o.PermissionLog = opts.IO.ErrOut
		} else {
			// A line on standard error would tear the TUI's screen.
			o.DebugPermissionsFile = true
		}
	}
	s, err := nova.Open(ctx, o)
	if err != nil {
		return err
	}
	defer s.Close()
	if !opts.Print {
		return runInteractive(ctx, opts, s, prompt)
	}
	fmt.Fprint(opts.IO.ErrOut, s.Notice())
	format, _ := printmode.ParseFormat(opts.OutputFormat)
	p := printmode.New(opts.IO.Out, opts.IO.ErrOut, format, s.ID())
	for e := range s.Send(ctx, prompt) {
		if e == nil {
			continue // the run's error, which loop_complete carries too
		}
		if err := p.Handle(e); err != nil {
			// Nobody is reading (closed pipe): stop the loop, it cleans up.
			fmt.Fprintf(opts.IO.ErrOut, "nova: %v\n", err)
			return exitError{printmode.ExitError}
		}
	}
	code := p.Finish()
	if opts.ExtractMemory && code == 0 {
		extractMemory(ctx, s, opts.IO.ErrOut)
	}
	if code != 0 {
		return exitError{code}
	}
	return nil
}

// extractMemory proposes durable facts from the run and adds them to the
// project's NOVA.md (--extract-memory is the consent), saying what it
// added.
func extractMemory(ctx context.Context, s *nova.Session, errOut io.Writer) {
	p, err := s.ProposeMemory(ctx, func(re event.Retry) {
		fmt.Fprintf(errOut, "nova: memory extraction: %s: %s\n", re.Notice(), re.Error)
	})
	if err != nil {
		fmt.Fprintf(errOut, "nova: %v\n", err)
		return
	}
	if len(p.Facts) == 0 {
		return
	}
	if err := s.WriteMemory(p.Project, p.Facts); err != nil {
		fmt.Fprintf(errOut, "nova: %v\n", err)
		return
	}
	fmt.Fprintf(errOut, "nova: added to %s:\n", p.Project)
	for _, f := range p.Facts {
		fmt.Fprintf(errOut, "  - %s\n", f)
	}
}

// cwdFlag is the --cwd a command must repeat to reach this workspace's
// sessions: the absolute workspace when --cwd was given.
func cwdFlag(flag, dir string) string {
	if flag == "" {
		return ""
	}
	return dir
}

// startNotice is what the TUI shows first: the trust notice and the notes
// print mode would have written to standard error, without its "nova: "
// prefixes (the timeline is nova's own).
func startNotice(trust, notes string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(trust+notes, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "nova: "))
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// noTerminal is the error of an interactive run without a terminal: which
// stream is not one, the subcommand a one-word prompt may have meant, and
// print mode.
func noTerminal(opts *RootOptions) error {
	which := "standard input"
	if opts.IO.StdinIsTTY {
		which = "standard output"
	}
	msg := fmt.Sprintf("the interactive UI needs a terminal, and %s is not one", which)
	if len(opts.Suggest) > 0 {
		msg += fmt.Sprintf("; did you mean nova %s?", opts.Suggest[0])
	}
	task := "your task"
	if opts.Prompt != "" {
		task = opts.Prompt
	}
	return fmt.Errorf("%s; for scripts and pipes use print mode: nova -p %s", msg, shellQuote(task))
}

// stdinGrace is how long a run that already has a prompt waits for piped
// input to start: a caller that leaves an idle pipe as standard input (some
// CI runners and editors do) must not hang the run.
const stdinGrace = 2 * time.Second

// readPiped reads piped standard input (at most 10 MiB). When optional is
// set and nothing, not even end-of-file, arrives within grace, it gives up
// and returns "". The reading goroutine then stays blocked on the idle pipe
// until the process exits; nothing else can unblock a read on it.
func readPiped(in io.Reader, optional bool, grace time.Duration) (string, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	first := make(chan struct{})
	go func() {
		var buf strings.Builder
		one := make([]byte, 1)
		n, err := in.Read(one)
		close(first)
		buf.Write(one[:n])
		if err == nil {
			var rest []byte
			rest, err = io.ReadAll(io.LimitReader(in, 10<<20))
			buf.Write(rest)
		}
		if err == io.EOF {
			err = nil
		}
		done <- result{[]byte(buf.String()), err}
	}()
	if optional {
		select {
		case <-first:
		case <-time.After(grace):
			return "", nil
		}
	}
	r := <-done
	if r.err != nil {
		return "", fmt.Errorf("read prompt from standard input: %w", r.err)
	}
	return string(r.b), nil
}

func workspace(cwd string) (string, error) {
	if cwd == "" {
		d, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("find the working directory: %w", err)
		}
		return d, nil
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", fmt.Errorf("--cwd %s: %w", cwd, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("--cwd %s is not a directory", cwd)
	}
	return abs, nil
}
