package cli

import (
	"context"
	"iter"
	"os"
	"sync"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui"
	"github.com/novacode/nova/permission"
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
		Dir:         in.dir,
		Commands:    cmds,
		Compact:     r.compact,
		NoColor:     os.Getenv("NO_COLOR") != "",
		Dark:        os.Getenv("NOVA_THEME") != "light",
		FirstPrompt: in.firstPrompt,
	}
	return tui.Run(ctx, o, opts.IO.In, opts.IO.Out)
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
