package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/session"
)

// interactive is what the TUI needs from the run set up by runRoot.
type interactive struct {
	agent           *agent.Agent
	checker         *permission.Checker
	model           string
	firstPrompt     string
	newConversation func(ctx context.Context, prompt string) (*agent.Conversation, error)
	commandsDir     string
	dir             string
	passEnv         []string // credentials !cmd may see (settings' env.passthrough)
	sess            *openedSession
	sessionsDir     string
	system          string
	// notice is shown first: settings of the workspace that were left out.
	notice string
	// window is the context window known without asking the endpoint
	// (settings, else the catalog), for a resumed session's status line
	// before its first call says better.
	window int
	// cwdFlag is the workspace when --cwd named it, for the resume hint.
	cwdFlag string
	// models resolves a model as the CLI does at start (catalog, settings'
	// prices and output limit, the context window from settings, the
	// endpoint or the catalog), and lists the ones it knows, for /model.
	models *modelResolver
}

// modeCycle is the order Shift+Tab walks; bypassPermissions is only ever
// chosen on the command line or in settings.
var modeCycle = []permission.Mode{permission.ModeDefault, permission.ModeAcceptEdits, permission.ModePlan}

func runInteractive(ctx context.Context, opts *RootOptions, in interactive) error {
	cmds, err := tui.LoadCommands(in.commandsDir)
	if err != nil {
		return err
	}
	r := &tuiRunner{in: in}
	var resumed *tui.Past
	if st := in.sess.state; st != nil {
		// The conversation goes on from the transcript; the person sees
		// it, not an empty screen and $0.
		r.conv = stateConversation(in.sess.id, in.system, st)
		if r.conv != nil {
			resumed = pastOf(st, in.model, in.window)
		}
	}
	o := tui.Options{
		Runner: r, Model: in.model, Mode: string(in.checker.Mode()),
		ModeCycle: func() string {
			cur := in.checker.Mode()
			next := modeCycle[0]
			for i, m := range modeCycle {
				if m == cur {
					next = modeCycle[(i+1)%len(modeCycle)]
				}
			}
			in.checker.SetMode(next)
			return string(next)
		},
		SetMode: func(m string) string {
			if mode, err := permission.ParseMode(m); err == nil {
				in.checker.SetMode(mode)
			}
			return string(in.checker.Mode())
		},
		Dir:      in.dir,
		Commands: cmds,
		Compact:  r.compact,
		Session:  r.session,
		NoColor:  os.Getenv("NO_COLOR") != "",
		Dark:     os.Getenv("NOVA_THEME") != "light",
		// NOVA_THEME=light|dark overrides what the terminal reports.
		DetectTheme: os.Getenv("NOVA_THEME") == "" && os.Getenv("NO_COLOR") == "",
		FirstPrompt: in.firstPrompt,
		PassEnv:     in.passEnv,
		Notice:      in.notice,
		Resumed:     resumed,
		Models:      in.models.known,
		SetModel:    r.setModel,
	}
	err = tui.Run(ctx, o, opts.IO.In, opts.IO.Out)
	// The alternate screen is gone: what is printed now stays.
	if id, ok := r.resumable(); ok {
		printResumeHint(opts.IO.Out, in.sessionsDir, id, in.cwdFlag)
	}
	return err
}

// setModel is /model NAME: the agent sends to name from the next run on,
// with its limits, prices and context window. Under the runner's lock, so
// never while a run or a compaction uses the agent.
func (r *tuiRunner) setModel(ctx context.Context, name string) (tui.ModelInfo, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return tui.ModelInfo{}, fmt.Errorf("%q is not a model name", name)
	}
	info, window := r.in.models.resolve(ctx, name)
	r.mu.Lock()
	defer r.mu.Unlock()
	a := r.in.agent
	a.Model, a.ModelInfo = name, &info
	a.ContextWindow = func() int { return window }
	r.in.window = window
	return tui.ModelInfo{Name: name, ContextWindow: window, InputPrice: info.InputPrice, OutputPrice: info.OutputPrice}, nil
}

// resumable reports the session's id if it holds a conversation to come
// back to.
func (r *tuiRunner) resumable() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conv == nil || len(r.conv.Messages) == 0 {
		return "", false
	}
	return r.in.sess.id, true
}

// tuiRunner runs one prompt at a time on the session's conversation. The
// TUI starts a run only when the previous one has ended.
type tuiRunner struct {
	in   interactive
	mu   sync.Mutex
	conv *agent.Conversation
}

func (r *tuiRunner) Run(ctx context.Context, prompt string) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.conv == nil {
			conv, err := r.in.newConversation(ctx, prompt)
			if err != nil {
				yield(event.LoopComplete{Reason: event.ReasonError, Error: err.Error()})
				return
			}
			r.conv = conv
		} else {
			r.conv.AddUser(prompt)
		}
		for e := range r.in.agent.Run(ctx, r.conv) {
			if !yield(e) {
				return
			}
		}
	}
}

func (r *tuiRunner) compact(ctx context.Context, focus string) (event.Compact, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.conv == nil {
		return event.Compact{}, errNothingToCompact
	}
	return r.in.agent.Compact(ctx, r.conv, focus)
}

var errNothingToCompact = errorString("nothing to compact yet")

type errorString string

func (e errorString) Error() string { return string(e) }

// session runs /resume and /rewind. The conversation switched to, or
// rewound, replaces the timeline.
func (r *tuiRunner) session(ctx context.Context, name, args string) (string, *tui.Past, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.in.sess
	switch {
	case name == "resume" && args == "":
		list, err := session.List(r.in.sessionsDir)
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
		t, st, err := session.Open(r.in.sessionsDir, args)
		if err != nil {
			return "", nil, err
		}
		_ = s.rec.Close()
		s.id, s.state, s.resumed = args, st, true
		s.rec = t
		s.snaps = session.NewSnapshots(r.in.sessionsDir, args)
		s.snaps.Seen(st.Snapshots)
		r.in.agent.Recorder, r.in.agent.Snapshot = t, t.Snapshotter(s.snaps)
		r.conv = stateConversation(args, r.in.system, st)
		return fmt.Sprintf("Resumed session %s (%d turns). Its earlier messages are in the model's context.", args, st.Turns),
			pastOf(st, r.in.agent.Model, r.in.window), nil
	case name == "rewind":
		st, err := session.Load(s.rec.Path())
		if errors.Is(err, fs.ErrNotExist) && !s.rec.Exists() {
			return "Nothing to rewind yet: no prompt has been sent.", nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		prompts := session.Prompts(st)
		if args == "" {
			if len(prompts) == 0 {
				return "Nothing to rewind yet: no prompt has been sent.", nil, nil
			}
			var b strings.Builder
			b.WriteString("Turns, one per prompt (/rewind N goes back to before turn N):\n")
			writePrompts(&b, prompts, r.in.dir, "  ")
			return strings.TrimRight(b.String(), "\n"), nil, nil
		}
		n, err := strconv.Atoi(args)
		if err != nil {
			return "", nil, fmt.Errorf("/rewind takes a turn number, not %q (/rewind alone lists them)", args)
		}
		p, err := promptNumber(prompts, n)
		if err != nil {
			return "", nil, err
		}
		plan := session.RewindPlan(st.Snapshots, p.Turn)
		if err := s.snaps.Apply(plan); err != nil {
			return "", nil, fmt.Errorf("restore files: %w", err)
		}
		if err := s.rec.Append(session.Record{Type: session.TypeRewind, Turn: p.Turn}); err != nil {
			return "", nil, err
		}
		if st, err = session.Load(s.rec.Path()); err != nil {
			return "", nil, err
		}
		r.conv = stateConversation(s.id, r.in.system, st)
		return fmt.Sprintf("Rewound to before turn %d (%s): %d files restored; the conversation continues from there.", n, oneLine(p.Label(), 40), len(plan)),
			pastOf(st, r.in.agent.Model, r.in.window), nil
	}
	return "", nil, fmt.Errorf("unknown session command %q", name)
}

// stateConversation is the conversation a loaded session continues.
func stateConversation(id, system string, st *session.State) *agent.Conversation {
	if len(st.Messages) == 0 {
		return nil // starts afresh (with the preamble) on the next prompt
	}
	return &agent.Conversation{ID: id, System: system, Messages: st.Messages,
		Persisted: len(st.Messages), Turns: st.Turns, Usage: st.Usage, CostUSD: st.CostUSD}
}
