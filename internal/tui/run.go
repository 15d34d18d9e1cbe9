package tui

import (
	"context"
	"maps"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"

	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/permission/cmdenv"
)

// submit handles entered text: a shell command, a slash command or a prompt.
func (m *Model) submit(text string) tea.Cmd {
	// History and the timeline keep the placeholders of large pastes; what
	// runs gets the pasted text.
	if len(m.history) == 0 || m.history[len(m.history)-1] != text {
		m.history = append(m.history, text)
	}
	m.histPos = len(m.history)
	m.scroll = 0
	full := m.expandPastes(text)
	switch {
	case strings.HasPrefix(full, "!"):
		return m.shell(strings.TrimSpace(full[1:]))
	case strings.HasPrefix(full, "/"):
		return m.slash(full)
	}
	return m.prompt(text, full)
}

// prompt shows shown and starts a run with full (the same text with large
// pastes in place), or queues it behind the active run.
func (m *Model) prompt(shown, full string) tea.Cmd {
	m.addText(kindUser, shown)
	if m.busy {
		m.queued = append(m.queued, full)
		return nil
	}
	return m.start(full)
}

// start runs the agent in a goroutine that owns the iterator and hands the
// events over an unbuffered channel, one per read: the loop never runs ahead
// of the screen, and the goroutine exits when the iterator ends or the
// model is closed.
func (m *Model) start(text string) tea.Cmd {
	if m.o.Runner == nil {
		m.addText(kindError, "no runner configured")
		return nil
	}
	m.gen++
	m.runStart = timeNow()
	ctx, cancel := context.WithCancel(m.ctx)
	ch := make(chan event.Event)
	m.busy, m.cancelRun, m.events, m.current = true, cancel, ch, nil
	clear(m.tools)
	// Only subagents running in the background outlive their run.
	maps.DeleteFunc(m.agents, func(_ string, b *block) bool { return !b.sub.background || b.sub.bgDone })
	runner := m.o.Runner
	closed := m.ctx
	m.wg.Go(func() {
		defer close(ch)
		for ev := range runner.Run(ctx, text) {
			select {
			case ch <- ev:
			case <-closed.Done():
				return
			}
		}
	})
	return tea.Batch(m.next(), m.startTicking())
}

// next reads the active run's next event.
func (m *Model) next() tea.Cmd {
	ch, gen := m.events, m.gen
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return runDoneMsg{gen}
		}
		return eventMsg{ev, gen}
	}
}

func (m *Model) startTicking() tea.Cmd { return m.tickIn(frameEvery) }

// tickIn schedules the next frame tick after d, unless one is pending.
func (m *Model) tickIn(d time.Duration) tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tea.Tick(d, func(time.Time) tea.Msg { return frameMsg{} })
}

// spinnerEvery paces the working indicator while the model has not
// answered yet: slower than frames, fast enough to look alive.
const spinnerEvery = 100 * time.Millisecond

// waitingForModel reports whether the run waits for the model (busy, no
// dialog open): the status line then shows the working indicator.
func (m *Model) waitingForModel() bool {
	return m.busy && m.perm == nil && m.ques == nil
}

// frame refreshes the live blocks (a streaming answer, a running tool's
// clock) at 30 fps; with none, while the run waits for the model, it only
// moves the working indicator at 10 fps. It stops between runs and while a
// dialog waits for the person, so the TUI gets no messages then; the next
// event or an answer starts it again.
func (m *Model) frame() tea.Cmd {
	m.ticking = false
	live := false
	for _, b := range m.blocks {
		if b.live {
			live = true
			if b.kind == kindTool {
				b.dirty = true
			}
			b.view(m.r, m.width, m.expanded, timeNow(), true)
		}
	}
	switch {
	case live:
		return m.startTicking()
	case m.waitingForModel():
		return m.tickIn(spinnerEvery) // only the working indicator moves
	}
	return nil
}

func (m *Model) cancel() {
	if m.cancelRun != nil {
		m.cancelRun()
	}
	m.queued = nil
	m.dropAsks()
}

func (m *Model) finishRun() tea.Cmd {
	if m.cancelRun != nil {
		m.cancelRun()
	}
	m.busy, m.cancelRun, m.events = false, nil, nil
	m.dropAsks()
	m.endStream()
	for _, b := range m.tools {
		if b.running || b.waiting { // the run ended without a result for it
			b.running, b.waiting, b.cancelled, b.live, b.dirty = false, false, true, false, true
			if b.sub != nil {
				b.sub.stop()
			}
		}
	}
	if len(m.queued) > 0 {
		next := m.queued[0]
		m.queued = m.queued[1:]
		return m.start(next)
	}
	return tea.Batch(releaseMemory, m.proposeMemory())
}

// releaseMemory runs when a run ends and the TUI waits for the user: the
// garbage of the run (response bodies, encodings, renderings) is collected
// and its pages handed back to the OS now, so the resident size between
// prompts is what the session holds, not the high-water mark of its last
// turn. It costs one collection per prompt, off the UI goroutine.
func releaseMemory() tea.Msg {
	debug.FreeOSMemory()
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.cancel()
	m.stop()
	return tea.Quit
}

// shell runs !cmd in the working directory with a timeout; the output
// becomes an info block. Closing the model kills it. It gets the
// environment the Bash tool's commands get, credentials withheld unless the
// user's settings pass them through: one rule for every command NovaCode
// starts, so a command behaves alike whoever types it.
func (m *Model) shell(command string) tea.Cmd {
	if command == "" {
		return nil
	}
	ctx := m.ctx
	env := cmdenv.Environ(os.Environ(), m.o.PassEnv)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, shellTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", command)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return shellMsg{cmd: command, out: string(out), err: err}
	}
}
