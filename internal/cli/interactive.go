package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui"
)

// modeCycle is the order Shift+Tab walks; bypassPermissions is only ever
// chosen on the command line or in settings.
var modeCycle = []string{nova.ModeDefault, nova.ModeAcceptEdits, nova.ModePlan}

// runInteractive runs the TUI on the session s, with firstPrompt sent first
// if given.
func runInteractive(ctx context.Context, opts *RootOptions, s *nova.Session, firstPrompt string) error {
	cmds, err := tui.LoadCommands(filepath.Join(s.Dir(), ".novacode", "commands"))
	if err != nil {
		return err
	}
	r := &tuiRunner{s: s}
	o := tui.Options{
		Runner: r, Model: s.Model(), Mode: s.Mode(),
		ModeCycle: func() string {
			cur := s.Mode()
			next := modeCycle[0]
			for i, m := range modeCycle {
				if m == cur {
					next = modeCycle[(i+1)%len(modeCycle)]
				}
			}
			_ = s.SetMode(next)
			return next
		},
		SetMode: func(m string) string {
			_ = s.SetMode(m)
			return s.Mode()
		},
		Dir:      s.Dir(),
		Commands: cmds,
		Compact: func(ctx context.Context, focus string) (event.Compact, error) {
			return s.Compact(ctx, focus)
		},
		Session: r.session,
		NoColor: os.Getenv("NO_COLOR") != "",
		Dark:    os.Getenv("NOVA_THEME") != "light",
		// NOVA_THEME=light|dark overrides what the terminal reports.
		DetectTheme: os.Getenv("NOVA_THEME") == "" && os.Getenv("NO_COLOR") == "",
		FirstPrompt: firstPrompt,
		PassEnv:     s.PassEnv(),
		Notice:      startNotice("", s.Notice()),
		// The conversation goes on from the transcript; the person sees
		// it, not an empty screen and $0.
		Resumed: pastOf(s.History()),
		Models:  func() []tui.ModelInfo { return tuiModels(s.Models()) },
		Hooks:   func() string { return hooksText(s.Hooks(), s.Dir()) },
		SetModel: func(ctx context.Context, name string) (tui.ModelInfo, error) {
			m, err := s.SetModel(ctx, name)
			return tui.ModelInfo(m), err
		},
		MCPServers:   func() []tui.MCPServer { return tuiMCPServers(s) },
		MCPResources: func(ctx context.Context) ([]tui.MCPResource, error) { return tuiMCPResources(ctx, s) },
		MCPPrompts:   func(ctx context.Context) ([]tui.MCPPrompt, error) { return tuiMCPPrompts(ctx, s) },
		WriteMemory:  s.WriteMemory,
		Memory:       func() (tui.MemoryInfo, error) { return memoryInfo(s) },
		Bashes:       func() []tui.BashInfo { return tuiBashes(s.Shells()) },
		KillBash:     s.KillShell,
	}
	if s.AutoMemory() == nova.AutoMemorySuggest {
		o.ProposeMemory = func(ctx context.Context) (tui.MemoryProposal, error) {
			p, err := s.ProposeMemory(ctx, nil)
			if errors.Is(err, nova.ErrRunning) {
				// The person has moved on to the next prompt.
				return tui.MemoryProposal{}, nil
			}
			return tui.MemoryProposal(p), err
		}
	}
	err = tui.Run(ctx, o, opts.IO.In, opts.IO.Out)
	// The alternate screen is gone: what is printed now stays.
	if s.Resumable() {
		printResumeHint(opts.IO.Out, s, cwdFlag(opts.Cwd, s.Dir()))
	}
	return err
}

// memoryInfo is what /memory shows.
func memoryInfo(s *nova.Session) (tui.MemoryInfo, error) {
	files, err := s.MemoryFiles()
	if err != nil {
		return tui.MemoryInfo{}, err
	}
	info := tui.MemoryInfo{}
	info.Project, info.User = s.MemoryPaths()
	for _, f := range files {
		info.Files = append(info.Files, tui.MemoryFile(f))
	}
	return info, nil
}

// tuiBashes is the session's background commands for /bashes.
func tuiBashes(shells []nova.Shell) []tui.BashInfo {
	out := make([]tui.BashInfo, len(shells))
	for i, sh := range shells {
		out[i] = tui.BashInfo{ID: sh.ID, Command: sh.Command, Description: sh.Description, Agent: sh.Agent,
			Running: sh.Running, Killed: sh.Killed, ExitCode: sh.ExitCode, Duration: sh.Duration, Output: sh.Output}
	}
	return out
}

func tuiModels(ms []nova.ModelInfo) []tui.ModelInfo {
	out := make([]tui.ModelInfo, len(ms))
	for i, m := range ms {
		out[i] = tui.ModelInfo(m)
	}
	return out
}

// pastOf is a stored conversation for the TUI's timeline.
func pastOf(h *nova.History) *tui.Past {
	if h == nil {
		return nil
	}
	p := &tui.Past{Usage: h.Usage}
	for _, e := range h.Entries {
		p.Entries = append(p.Entries, tui.Entry{Prompt: e.Prompt, Event: e.Event})
	}
	return p
}

// printResumeHint says, once the TUI has left the terminal, how to come back
// to the session: nova -c while it is the workspace's latest, else its id.
func printResumeHint(w io.Writer, s interface {
	ID() string
	Latest() bool
}, cwdFlag string) {
	cmd := "nova -c"
	if !s.Latest() {
		cmd = "nova --resume " + s.ID()
	}
	if cwdFlag != "" {
		cmd += " --cwd " + shellQuote(cwdFlag)
	}
	fmt.Fprintf(w, "Resume this session with: %s\n", cmd)
}

// tuiRunner runs one prompt at a time on the session. The TUI starts a run
// only when the previous one has ended.
type tuiRunner struct {
	s *nova.Session
}

func (r *tuiRunner) Run(ctx context.Context, prompt string) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) {
		for e := range r.s.Send(ctx, prompt) {
			if e == nil {
				continue // the run's error, which loop_complete carries too
			}
			if !yield(e) {
				return
			}
		}
	}
}

// session runs /resume and /rewind. The conversation switched to, or
// rewound, replaces the timeline.
func (r *tuiRunner) session(ctx context.Context, name, args string) (string, *tui.Past, error) {
	s := r.s
	switch {
	case name == "resume" && args == "":
		list, err := s.Sessions()
		if err != nil {
			return "", nil, err
		}
		var b strings.Builder
		b.WriteString("Sessions (newest first; /resume ID to switch):")
		for i, info := range list {
			if i == 10 {
				break
			}
			fmt.Fprintf(&b, "\n  %s  %s  %d turns  %s", info.ID, info.Updated.Local().Format("2006-01-02 15:04"), info.Turns, oneLine(info.FirstPrompt, 40))
		}
		return b.String(), nil, nil
	case name == "resume":
		h, err := s.Resume(args)
		if err != nil {
			return "", nil, err
		}
		turns := 0
		if h != nil {
			turns = h.Usage.Turn
		}
		return fmt.Sprintf("Resumed session %s (%d turns). Its earlier messages are in the model's context.", args, turns), pastOf(h), nil
	case name == "rewind":
		prompts, err := s.Prompts()
		if err != nil {
			return "", nil, err
		}
		if args == "" {
			if len(prompts) == 0 {
				return "Nothing to rewind yet: no prompt has been sent.", nil, nil
			}
			var b strings.Builder
			b.WriteString("Turns, one per prompt (/rewind N goes back to before turn N):\n")
			writePrompts(&b, prompts, s.Dir(), "  ")
			return strings.TrimRight(b.String(), "\n"), nil, nil
		}
		n, err := strconv.Atoi(args)
		if err != nil {
			return "", nil, fmt.Errorf("/rewind takes a turn number, not %q (/rewind alone lists them)", args)
		}
		rep, h, err := s.Rewind(n)
		if err != nil {
			return "", nil, err
		}
		return fmt.Sprintf("Rewound to before turn %d (%s): %d files restored; the conversation continues from there.", n, oneLine(rep.Prompt.Label, 40), len(rep.Files)),
			pastOf(h), nil
	}
	return "", nil, fmt.Errorf("unknown session command %q", name)
}
