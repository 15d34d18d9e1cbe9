package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/novacode/nova/third_party/bubbles/textarea"
	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

const (
	frameEvery   = time.Second / 30 // coalescing of deltas and duration ticks
	quitWindow   = 2 * time.Second  // second ctrl+c must come within this
	shellTimeout = 30 * time.Second // for !cmd
	maxInputRows = 6
)

// Messages.
type (
	eventMsg struct {
		ev  event.Event
		gen int
	}
	runDoneMsg struct{ gen int }
	frameMsg   struct{}
	shellMsg   struct {
		cmd, out string
		err      error
	}
	compactMsg struct {
		c   event.Compact
		err error
	}
	modelMsg struct {
		info ModelInfo
		err  error
	}
)

// Model is the TUI's tea.Model.
type Model struct {
	o Options
	r renderer
	// bg renders finished long answers off the UI goroutine (see
	// endStream); a renderer of its own, so the two never wait for each
	// other's lock. themeGen tells its results from an earlier theme's.
	bg       renderer
	themeGen int
	finals   []*block        // long answers that ended, waiting for their whole rendering
	ctx      context.Context // lives until Close: parent of every run
	stop     context.CancelFunc
	wg       sync.WaitGroup // goroutines owning a Runner iterator

	width, height int
	blocks        []*block
	// cachedFrom: blocks below this index hold no rendered cache (evict).
	cachedFrom int
	expanded   bool
	scroll     int // lines scrolled up from the bottom

	// The active run.
	busy      bool
	gen       int // run generation: messages of an older run are dropped
	cancelRun context.CancelFunc
	events    chan event.Event
	current   *block // the answer or thinking block being streamed
	tools     map[string]*block
	ticking   bool
	queued    []string
	runStart  time.Time // when the active run started, for the working clock

	// agents are the cards of subagents (Task calls) by call id: those of
	// the active run, and those still running in the background, whose
	// events may come in a later run. bgAgents are the latter by agent
	// id, which the Mailbox names when one ends.
	agents   map[string]*block
	bgAgents map[string]*block

	todos   todoPanel // the model's task list, above the input while a task is open
	perm    *event.PermissionRequest
	ques    *event.Question // open question (AskUserQuestion)
	quesSel int             // the option picked in it
	permSel int
	askCard *block // the card of the subagent whose dialog is open; nil for the run's own
	asks    []ask  // dialogs waiting behind the open one

	input   textarea.Model
	comp    completion
	history []string
	histPos int      // len(history) when not browsing
	pastes  []string // large pastes; placeholder #n stands for pastes[n-1]

	mode    string
	model   string
	usage   event.Usage
	hint    string
	ctrlCAt time.Time

	memory memoryState // a suggestion of facts to remember, when a run has ended
}

// New builds the model. Call Close when the program has ended (Run does).
func New(o Options) *Model {
	ctx, stop := context.WithCancel(context.Background())
	ta := textarea.New()
	st := textarea.DefaultStyles(o.Dark)
	// A blinking cursor would wake the program twice a second forever.
	st.Cursor.Blink = false
	ta.SetStyles(st)
	ta.ShowLineNumbers = false
	ta.Prompt = "> "
	ta.Placeholder = "Type a prompt, /help for commands"
	ta.KeyMap.InsertNewline.SetKeys("shift+enter", "alt+enter", "ctrl+j")
	ta.SetHeight(1)
	ta.Focus()
	m := &Model{
		o: o, r: plainRenderer{}, ctx: ctx, stop: stop,
		width: 80, height: 24,
		tools: map[string]*block{}, agents: map[string]*block{}, bgAgents: map[string]*block{},
		input: ta, mode: o.Mode, model: o.Model,
	}
	m.r, m.bg = newRenderer(o), newRenderer(o)
	m.resize()
	if o.Resumed != nil {
		m.showPast(o.Resumed)
	}
	if n := strings.TrimRight(o.Notice, "\n"); n != "" {
		m.addText(kindInfo, n)
	}
	return m
}

// Close cancels any run and waits until the goroutines the model started
// have exited. Safe to call more than once.
func (m *Model) Close() {
	m.stop()
	m.wg.Wait()
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	var cmds []tea.Cmd
	if m.o.DetectTheme {
		cmds = append(cmds, tea.RequestBackgroundColor)
	}
	if m.o.FirstPrompt != "" {
		cmds = append(cmds, m.submit(m.o.FirstPrompt))
	}
	return tea.Batch(cmds...)
}

// setTheme switches between the light and dark theme: everything rendered
// so far is dropped and renders again, in the new colours, when shown.
func (m *Model) setTheme(dark bool) {
	if dark == m.o.Dark {
		return
	}
	m.o.Dark = dark
	m.r, m.bg = newRenderer(m.o), newRenderer(m.o)
	m.themeGen++
	st := textarea.DefaultStyles(dark)
	st.Cursor.Blink = false
	m.input.SetStyles(st)
	for _, b := range m.blocks {
		b.drop()
	}
	m.todos.stale = true
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	// Work that must not hold the UI goroutine, asked for while handling
	// msg, runs as commands.
	if len(m.finals) > 0 {
		cmd = tea.Batch(cmd, m.renderFinals())
	}
	if m.comp.needList {
		cmd = tea.Batch(cmd, m.listInBackground())
	}
	if m.comp.needMCP {
		cmd = tea.Batch(cmd, m.askMCP())
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case finalRender:
		m.applyFinal(msg)
		return m, nil
	case pathsMsg:
		m.applyPaths(msg)
		m.resize()
		return m, nil
	case mcpMsg:
		m.applyMCP(msg)
		m.resize()
		return m, nil
	case tea.BackgroundColorMsg:
		if m.o.DetectTheme {
			m.setTheme(msg.IsDark())
		}
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.resize()
		return m, nil
	case eventMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		m.handleEvent(msg.ev)
		return m, m.next()
	case runDoneMsg:
		if msg.gen != m.gen {
			return m, nil
		}
		return m, m.finishRun()
	case frameMsg:
		return m, m.frame()
	case shellMsg:
		out := strings.TrimRight(msg.out, "\n")
		if msg.err != nil {
			out = strings.TrimSpace(out + "\n" + msg.err.Error())
		}
		m.addText(kindInfo, "! "+msg.cmd+"\n"+out)
		return m, nil
	case modelMsg:
		if msg.err != nil {
			m.addText(kindError, "/model: "+msg.err.Error())
			return m, nil
		}
		m.model = msg.info.Name
		// The status line measures the context the conversation fills
		// against the new window until the next call reports.
		m.usage.ContextWindow = msg.info.ContextWindow
		m.addText(kindInfo, "Model: "+describeModel(msg.info)+" — from the next prompt on")
		return m, nil
	case bashKillMsg:
		m.bashKilled(msg)
		return m, nil
	case memoryMsg:
		m.applyMemory(msg)
		return m, nil
	case compactMsg:
		if msg.err != nil {
			m.addText(kindError, "compact: "+msg.err.Error())
		} else {
			m.addText(kindInfo, fmt.Sprintf("Compacted: %d → %d tokens", msg.c.TokensBefore, msg.c.TokensAfter))
		}
		return m, nil
	case tea.PasteMsg:
		msg.Content = normalisePaste(msg.Content)
		if largePaste(msg.Content) && m.perm == nil && m.ques == nil {
			m.input.InsertString(m.addPaste(msg.Content))
			m.updateCompletion()
			m.resize()
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.updateCompletion()
		m.resize()
		return m, cmd
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}
