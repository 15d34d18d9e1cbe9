package tui

import (
	"context"
	"fmt"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

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

	perm    *event.PermissionRequest
	ques    *event.Question // open question (AskUserQuestion)
	quesSel int             // the option picked in it
	permSel int

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
		tools: map[string]*block{},
		input: ta, mode: o.Mode, model: o.Model,
	}
	m.r, m.bg = newRenderer(o), newRenderer(o)
	m.resize()
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
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	model, cmd := m.update(msg)
	if len(m.finals) > 0 {
		cmd = tea.Batch(cmd, m.renderFinals())
	}
	return model, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case finalRender:
		m.applyFinal(msg)
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
	case compactMsg:
		if msg.err != nil {
			m.addText(kindError, "compact: "+msg.err.Error())
		} else {
			m.addText(kindInfo, fmt.Sprintf("Compacted: %d → %d tokens", msg.c.TokensBefore, msg.c.TokensAfter))
		}
		return m, nil
	case tea.PasteMsg:
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

// key handles one key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.ctrlCAt = time.Time{}
		if m.hint == "press ctrl+c again to exit" {
			m.hint = ""
		}
	}
	// The @path list, when shown, owns Tab, Up, Down and Esc.
	if m.perm == nil && m.ques == nil && m.completionKey(s) {
		return nil
	}
	switch s {
	case "ctrl+c":
		now := timeNow()
		if !m.ctrlCAt.IsZero() && now.Sub(m.ctrlCAt) <= quitWindow {
			return m.quit()
		}
		m.ctrlCAt = now
		m.hint = "press ctrl+c again to exit"
		return nil
	case "esc":
		if m.busy {
			m.cancel()
		}
		return nil
	case "ctrl+o":
		m.expanded = !m.expanded
		return nil
	case "pgup":
		m.scroll += max(1, m.timelineHeight()-1)
		return nil
	case "pgdown":
		m.scroll = max(0, m.scroll-max(1, m.timelineHeight()-1))
		return nil
	case "shift+tab":
		if m.o.ModeCycle != nil {
			m.mode = m.o.ModeCycle()
		}
		return nil
	}
	if m.perm != nil {
		if done, cmd := m.permKey(s); done {
			return cmd
		}
	}
	if m.ques != nil && m.questionKey(s) {
		if m.ques == nil {
			return m.startTicking() // answered: the run goes on
		}
		return nil
	}
	switch s {
	case "enter":
		text := m.input.Value()
		if strings.TrimSpace(text) == "" {
			return nil
		}
		m.input.Reset()
		m.updateCompletion()
		m.resize()
		return m.submit(text)
	case "up", "down":
		if m.browseHistory(s == "up") {
			m.updateCompletion()
			m.resize()
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	m.updateCompletion()
	m.resize()
	return cmd
}

// questionKey handles a key while a question is open: arrows or digits pick
// an option; Enter answers with the typed text if there is any, else with
// the picked option.
func (m *Model) questionKey(s string) bool {
	n := len(m.ques.Options)
	empty := m.input.Value() == ""
	switch {
	case s == "up" && n > 0:
		m.quesSel = (m.quesSel + n - 1) % n
	case (s == "down" || s == "tab") && n > 0:
		m.quesSel = (m.quesSel + 1) % n
	case empty && len(s) == 1 && s[0] >= '1' && int(s[0]-'1') < n:
		m.quesSel = int(s[0] - '1')
	case s == "enter":
		a := event.Answer{Text: strings.TrimSpace(m.input.Value())}
		if a.Text == "" && n > 0 {
			a.Option = m.ques.Options[m.quesSel]
		}
		m.input.Reset()
		m.addText(kindInfo, "Answered: "+firstNonEmpty(a.Text, a.Option))
		m.ques.Respond(a)
		m.answered(m.ques.ID, false)
		m.ques, m.quesSel = nil, 0
	default:
		return false
	}
	return true
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// questionView renders the open question.
func (m *Model) questionView() string {
	var b strings.Builder
	b.WriteString("? " + m.ques.Question)
	for i, o := range m.ques.Options {
		mark := "  "
		if i == m.quesSel {
			mark = "❯ "
		}
		fmt.Fprintf(&b, "\n%s%d. %s", mark, i+1, o)
	}
	b.WriteString("\n  (or type your own answer, then Enter)")
	return wrap(b.String(), m.width)
}

// permKey handles a key while the permission dialog is open; done reports
// whether the key was consumed.
func (m *Model) permKey(s string) (done bool, cmd tea.Cmd) {
	empty := m.input.Value() == ""
	switch {
	case s == "up":
		m.permSel = (m.permSel + 2) % 3
	case s == "down" || s == "tab":
		m.permSel = (m.permSel + 1) % 3
	case empty && (s == "1" || s == "2" || s == "3"):
		m.permSel = int(s[0] - '1')
	case s == "enter":
		d := event.Decision{Behavior: event.Allow}
		switch m.permSel {
		case 1:
			d.Always = true
		case 2:
			d = event.Decision{Behavior: event.Deny, Message: strings.TrimSpace(m.input.Value())}
			m.input.Reset()
		}
		m.perm.Respond(d)
		m.answered(m.perm.ID, d.Behavior == event.Allow)
		m.perm, m.permSel = nil, 0
		return true, m.startTicking() // an allowed call's clock runs again
	default:
		return false, nil
	}
	return true, nil
}

// browseHistory moves through earlier prompts while the input is empty or
// still shows a history entry; it reports whether it did.
func (m *Model) browseHistory(up bool) bool {
	v := m.input.Value()
	browsing := m.histPos < len(m.history) && v == m.history[m.histPos]
	if v != "" && !browsing {
		return false
	}
	switch {
	case up && m.histPos > 0:
		m.histPos--
	case !up && m.histPos < len(m.history):
		m.histPos++
	default:
		return true
	}
	if m.histPos == len(m.history) {
		m.input.Reset()
	} else {
		m.input.SetValue(m.history[m.histPos])
	}
	return true
}

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
	m.perm, m.ques = nil, nil
}

func (m *Model) finishRun() tea.Cmd {
	if m.cancelRun != nil {
		m.cancelRun()
	}
	m.busy, m.cancelRun, m.events, m.perm, m.ques = false, nil, nil, nil, nil
	m.endStream()
	for _, b := range m.tools {
		if b.running { // the run ended without a result for it
			b.running, b.cancelled, b.live, b.dirty = false, true, false, true
		}
	}
	if len(m.queued) > 0 {
		next := m.queued[0]
		m.queued = m.queued[1:]
		return m.start(next)
	}
	return releaseMemory
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

// awaiting marks the card of call id as waiting for the person: its clock
// stops, since nothing runs until they answer.
func (m *Model) awaiting(id string) {
	if b := m.tools[id]; b != nil {
		b.running, b.waiting, b.live, b.dirty = false, true, false, true
	}
}

// answered ends the wait on call id's card; an allowed call runs now, so
// its clock starts; a denied one only waits for its result.
func (m *Model) answered(id string, runs bool) {
	b := m.tools[id]
	if b == nil || !b.waiting {
		return
	}
	b.waiting, b.dirty = false, true
	if runs {
		b.running, b.live, b.start = true, true, timeNow()
	} else {
		b.pending = true // denied: its result is on the way
	}
}

// handleEvent folds one event into the timeline.
func (m *Model) handleEvent(ev event.Event) {
	switch e := ev.(type) {
	case event.StreamText:
		m.stream(kindText, e.Text)
	case event.ThinkingText:
		m.stream(kindThinking, e.Text)
	case event.ToolUse:
		m.endStream()
		b := &block{kind: kindTool, id: e.ID, name: e.Name, input: e.Input, start: timeNow(), running: true, live: true, dirty: true}
		m.tools[e.ID] = b
		m.add(b)
	case event.ToolDone:
		// Finished; its result comes with the batch's. Stop the clock now,
		// or a finished Read would keep spinning beside a permission dialog.
		// It always comes before the call's tool_result.
		if b := m.tools[e.ID]; b != nil {
			b.running, b.waiting, b.live, b.dirty, b.pending = false, false, false, true, true
			b.dur = time.Duration(e.DurationMS) * time.Millisecond
			b.isError = e.IsError
		}
	case event.ToolResult:
		b := m.tools[e.ID]
		if b == nil {
			b = &block{kind: kindTool, id: e.ID, name: e.Name}
			m.add(b)
		}
		b.running, b.waiting, b.live, b.dirty, b.pending = false, false, false, true, false
		b.dur = time.Duration(e.DurationMS) * time.Millisecond
		b.result, b.isError, b.denied, b.cancelled = e.Content, e.IsError, e.Denied, e.Cancelled
	case *event.PermissionRequest:
		m.endStream()
		m.awaiting(e.ID)
		m.perm, m.permSel = e, 0
		m.comp.matches = nil // the dialog owns the arrow keys now
	case *event.Question:
		m.endStream()
		m.awaiting(e.ID)
		m.ques, m.quesSel = e, 0
		m.comp.matches = nil
	case event.Usage:
		m.usage = e
		if e.Model != "" {
			m.model = e.Model
		}
	case event.Compact:
		m.addText(kindInfo, fmt.Sprintf("Context compacted: %d → %d tokens", e.TokensBefore, e.TokensAfter))
	case event.TurnComplete:
		m.endStream()
	case event.LoopComplete:
		m.endStream()
		switch e.Reason {
		case event.ReasonCancelled:
			m.addText(kindInfo, "Cancelled.")
		case event.ReasonError:
			m.addText(kindError, e.Error)
		case event.ReasonMaxTurns:
			m.addText(kindError, "stopped: turn limit reached")
		}
	}
}

// stream appends a delta to the current block of its kind. The block is only
// marked dirty: the frame tick re-renders it, so a burst of deltas costs one
// Markdown render per frame instead of one per delta.
func (m *Model) stream(kind blockKind, text string) {
	if m.current == nil || m.current.kind != kind {
		m.endStream()
		m.current = &block{kind: kind, live: true}
		m.add(m.current)
	}
	m.current.text.WriteString(text)
	m.current.dirty = true
}

func (m *Model) endStream() {
	b := m.current
	if b == nil {
		return
	}
	b.live, b.dirty, m.current = false, true, nil
	if b.kind == kindText && b.text.Len() > asyncRenderBytes && b.cacheW == m.width {
		// Rendering a long answer whole takes Glamour tens of
		// milliseconds, which would hold keys and frames. Show the live
		// rendering (prefix kept, tail rendered now: cheap) and render the
		// whole in the background; applyFinal swaps it in.
		b.cache = b.liveMarkdown(m.r, m.width)
		b.lines = strings.Count(b.cache, "\n") + 1
		b.dirty = false
		m.finals = append(m.finals, b)
	}
}

// asyncRenderBytes is the answer size above which the finished answer is
// rendered whole in the background (Glamour: ≈ 0.4 MB/s, so 8 KB ≈ 20 ms).
const asyncRenderBytes = 8 << 10

// finalRender is a long answer rendered whole off the UI goroutine.
type finalRender struct {
	b        *block
	n, width int // text length and width it was rendered for
	themeGen int
	out      string
}

// renderFinals starts the background renderings endStream asked for. Each
// runs in a command: Bubble Tea owns its goroutine, which ends when it
// returns the result.
func (m *Model) renderFinals() tea.Cmd {
	var cmds []tea.Cmd
	for _, b := range m.finals {
		src, width, gen, r := b.text.String(), m.width, m.themeGen, m.bg
		cmds = append(cmds, func() tea.Msg {
			return finalRender{b: b, n: len(src), width: width, themeGen: gen, out: r.Markdown(src, width)}
		})
	}
	m.finals = nil
	return tea.Batch(cmds...)
}

// applyFinal swaps a whole rendering in, unless the block changed since:
// another width or theme re-rendered it, or its cache was dropped.
func (m *Model) applyFinal(f finalRender) {
	b := f.b
	if b.live || b.cache == "" || b.cacheW != f.width || b.text.Len() != f.n || f.themeGen != m.themeGen {
		return
	}
	b.cache = f.out
	b.lines = strings.Count(f.out, "\n") + 1
	b.mdDone, b.mdDoneLen = "", 0 // the live rendering's prefix is no longer needed
}

func (m *Model) add(b *block) {
	b.dirty = true
	m.blocks = append(m.blocks, b)
}

func (m *Model) addText(kind blockKind, text string) {
	b := &block{kind: kind}
	b.text.WriteString(text)
	m.add(b)
}

// shell runs !cmd in the working directory with a timeout; the output
// becomes an info block. Closing the model kills it.
func (m *Model) shell(command string) tea.Cmd {
	if command == "" {
		return nil
	}
	ctx := m.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, shellTimeout)
		defer cancel()
		out, err := exec.CommandContext(ctx, "sh", "-c", command).CombinedOutput()
		return shellMsg{cmd: command, out: string(out), err: err}
	}
}

// resize lays out the input box for the current size and content.
func (m *Model) resize() {
	m.input.SetWidth(max(10, m.width))
	m.input.SetHeight(min(maxInputRows, max(1, m.input.LineCount())))
}

// timelineHeight is what is left for the timeline below the fixed parts.
func (m *Model) timelineHeight() int {
	return max(1, m.height-1-m.bottomHeight())
}

func (m *Model) bottomHeight() int {
	if n := len(m.comp.matches); n > 0 {
		return n + m.input.Height()
	}
	if m.perm != nil {
		return strings.Count(m.dialog(), "\n") + 1 + m.input.Height()
	}
	if m.ques != nil {
		return strings.Count(m.questionView(), "\n") + 1 + m.input.Height()
	}
	return m.input.Height()
}

// dialog renders the permission dialog.
func (m *Model) dialog() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Allow %s(%s)?", m.perm.Name, keyArg(m.perm.Input))
	if m.perm.Reason != "" {
		b.WriteString(" " + m.perm.Reason)
	}
	for i, c := range []string{"Allow once", "Allow always", "Deny (type a note, then Enter)"} {
		mark := "  "
		if i == m.permSel {
			mark = "❯ "
		}
		fmt.Fprintf(&b, "\n%s%d. %s", mark, i+1, c)
	}
	return wrap(b.String(), m.width)
}

// View implements tea.Model. It renders blocks from the bottom up only until
// the screen (plus the scroll offset) is full, so a frame costs the same
// with 20 blocks or 20,000.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Screen())
	v.AltScreen = true
	return v
}

// Screen is the frame as a string (View's content).
func (m *Model) Screen() string {
	h := m.timelineHeight()
	now := timeNow()
	need := h + m.scroll
	var parts []string // bottom-up
	lines := 0
	top := len(m.blocks)
	for top > 0 && lines < need {
		top--
		s := m.blocks[top].view(m.r, m.width, m.expanded, now, false)
		parts = append(parts, s)
		lines += m.blocks[top].lines + 1 // one blank line between blocks
	}
	m.evict(top, h)
	all := make([]string, 0, lines)
	for i := len(parts) - 1; i >= 0; i-- {
		all = append(all, strings.Split(parts[i], "\n")...)
		if i > 0 {
			all = append(all, "")
		}
	}
	// Clamp scrolling to the top of the timeline.
	if maxScroll := max(0, len(all)-h); m.scroll > maxScroll && len(parts) == len(m.blocks) {
		m.scroll = maxScroll
	}
	end := max(0, len(all)-m.scroll)
	start := max(0, end-h)
	view := all[start:end]
	for len(view) < h {
		view = append(view, "")
	}
	var b strings.Builder
	for _, l := range view {
		b.WriteString(ansi.Truncate(l, m.width, ""))
		b.WriteByte('\n')
	}
	if m.perm != nil {
		b.WriteString(m.dialog())
		b.WriteByte('\n')
	}
	if m.ques != nil {
		b.WriteString(m.questionView())
		b.WriteByte('\n')
	}
	if len(m.comp.matches) > 0 {
		b.WriteString(m.completionView())
		b.WriteByte('\n')
	}
	b.WriteString(m.input.View())
	b.WriteByte('\n')
	b.WriteString(m.r.Status(m.width, m.status()))
	return b.String()
}

// evictScreens is how many screens of rendered blocks above the viewport
// keep their cache, so scrolling back a little does not re-render.
const evictScreens = 3

// evict drops the rendered cache of blocks more than evictScreens screens
// above top, the highest block on screen: without it every block ever shown
// keeps its rendering (a few KB of styled text each) for the whole session.
// They re-render on demand when scrolled back to. Amortised O(1) a frame:
// only blocks between cachedFrom and the margin are visited.
func (m *Model) evict(top, h int) {
	m.cachedFrom = min(m.cachedFrom, top)
	keep, lines := top, 0
	for keep > m.cachedFrom && lines < evictScreens*h {
		keep--
		lines += m.blocks[keep].lines + 1
	}
	for _, b := range m.blocks[m.cachedFrom:keep] {
		b.drop()
	}
	m.cachedFrom = keep
}

func (m *Model) status() status {
	u := m.usage
	s := status{
		Model: m.model, Mode: m.mode, Busy: m.busy, Hint: m.hint,
		// The latest call's prompt is what currently fills the window.
		ContextUsed:   u.Call.InputTokens + u.Call.CacheReadTokens + u.Call.CacheWriteTokens,
		ContextWindow: int64(u.ContextWindow),
		// Uncached input (fresh + cache writes); render adds the cache reads
		// to get the whole prompt and the cache hit share.
		InputTokens:     u.Total.InputTokens + u.Total.CacheWriteTokens,
		OutputTokens:    u.Total.OutputTokens,
		CacheReadTokens: u.Total.CacheReadTokens,
		CostUSD:         u.CostUSD,
	}
	if s.Hint == "" && m.busy {
		s.Hint = "esc to interrupt"
		if m.waitingForModel() {
			// A spinner and the run's age: a slow model must not look
			// like a frozen screen.
			d := timeNow().Sub(m.runStart)
			frame := spinnerFrames[int(d/spinnerEvery)%len(spinnerFrames)]
			s.Hint = fmt.Sprintf("%s working %ds · esc to interrupt", frame, int(d.Seconds()))
		}
	}
	return s
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
