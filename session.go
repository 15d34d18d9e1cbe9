package nova

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/internal/contextinfo"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/sandbox"
	"github.com/novacode/nova/session"
	"github.com/novacode/nova/team"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// Session is one conversation with the runtime: the model client, tools,
// permission chain, sandbox and transcript set up as the CLI sets them up.
// Send runs one prompt at a time; the other methods may be called from any
// goroutine.
type Session struct {
	opts Options
	dir  string // the workspace
	data string // the data directory

	agent    *agent.Agent
	checker  *permission.Checker
	sandbox  *sandbox.Sandbox
	store    *openedSession // nil when InMemory
	client   llm.Client
	ep       endpoint
	settings config.Settings
	models   *modelResolver
	system   string
	passEnv  []string
	hooks    *hookRunner
	notice   strings.Builder
	history  *History // the resumed conversation, for a frontend to show
	id       string
	spill    string // a temporary spill directory to remove (InMemory)
	closers  []func()
	plan     *planState
	mcp      *mcpSession // nil without MCP servers
	mcpMode  string      // mcpToolSearch
	jobs     *tool.Jobs  // background commands
	team     *team.Team  // subagents; nil when turned off
	window0  int         // the context window known without asking the endpoint
	// savedResources counts the binary or long MCP resources saved, for
	// file names (guarded by mu).
	savedResources int

	// withheldHooks are the workspace's own hooks, left out until it is
	// trusted.
	withheldHooks []HookInfo

	// mu guards conv, result, cancel and the agent's model fields; a Send
	// holds running for its whole run, so two never overlap.
	mu      sync.Mutex
	running sync.Mutex
	conv    *agent.Conversation
	result  Result
	cancel  context.CancelFunc
	runCtx  context.Context
	closed  bool
}

// Open sets up a session: settings, model client, tools, permission chain
// and sandbox, transcript. Close it when done.
func Open(ctx context.Context, opts Options) (_ *Session, err error) {
	s := &Session{opts: opts}
	defer func() {
		if err != nil {
			s.release()
		}
	}()
	if s.dir, err = workspace(opts.Dir); err != nil {
		return nil, err
	}
	if s.data, err = dataDirOf(opts.DataDir); err != nil {
		return nil, err
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	ws, err := config.LoadWorkspaceLayers(s.data, s.dir, layersOf(opts.SettingSources))
	if err != nil {
		return nil, err
	}
	// Before anything reads the settings: the provider, its URL and key,
	// the permissions and the sandbox all depend on the answer.
	trusted, trustNotice, err := decideTrust(ctx, ws, trustChoice{Flag: opts.TrustWorkspace, Ask: trustAsker(opts.Trust)})
	if err != nil {
		return nil, err
	}
	s.notice.WriteString(prefixed(trustNotice))
	settings, files := ws.Resolve(trusted)
	s.settings = settings
	warnSettings(&s.notice, files)
	s.notice.WriteString(autoMemoryNotice(settings.AutoMemory))
	if settings.Env != nil {
		s.passEnv = settings.Env.Passthrough
	}

	var source llm.WindowSource
	if opts.Client != nil {
		if opts.Model == "" {
			return nil, errors.New("nova: Options.Model is required with Options.Client")
		}
		s.ep = endpoint{Provider: cmp.Or(opts.Provider, providerAnthropic), Model: opts.Model}
		s.client = opts.Client
		source, _ = opts.Client.(llm.WindowSource)
	} else {
		if s.ep, err = chooseEndpoint(opts.Provider, opts.Model, settings, getenv); err != nil {
			return nil, err
		}
		var a adapter
		s.client, a = newClient(s.ep, settings)
		source = a
	}
	info := modelInfo(s.ep.Model, settings)
	webSearch, askSearch, searchNotice := webSearchFor(opts.WebSearch, settings, s.ep.Provider)
	if searchNotice != "" {
		s.notice.WriteString(prefixed(searchNotice + "\n"))
	}
	windows := new(llm.WindowResolver)
	s.models = &modelResolver{settings: settings, windows: windows, source: source, sourceID: endpointID(s.ep), current: s.ep.Model}
	window := s.lookupWindow(windows, source, info)

	tools := opts.Tools
	if tools == nil {
		tools = builtin.All()
	}
	reg := tool.NewRegistry(tools...)
	reg.Remove(bareNames(opts.Deny)...)

	if !opts.InMemory {
		s.store, err = openSession(s.data, s.dir, opts.Continue, opts.Resume, opts.SessionID, s.ep, &s.notice)
		if err != nil {
			return nil, err
		}
		s.closers = append(s.closers, s.store.close)
		s.id = s.store.id
	} else {
		if opts.Resume != "" || opts.Continue {
			return nil, errors.New("nova: Resume and Continue need a stored session, not InMemory")
		}
		s.id = session.NewID()
		if s.spill, err = os.MkdirTemp("", "nova-"+s.id+"-"); err != nil {
			return nil, fmt.Errorf("create a temporary directory: %w", err)
		}
	}
	sideDir := s.sideDir()

	pin := permissionInputs{Mode: opts.PermissionMode, Allow: opts.Allow, Ask: opts.Ask, Deny: opts.Deny,
		Always: ws.Record.Allow, AlwaysFrom: ws.UserPath, DebugLog: opts.PermissionLog, DataDir: s.data}
	if opts.DebugPermissionsFile && pin.DebugLog == nil {
		if pin.DebugLog, err = s.debugFile(sideDir); err != nil {
			return nil, err
		}
	}
	pin.Sandbox = func(additional []string) (*sandbox.Sandbox, error) {
		if opts.Sandbox != "" {
			v := opts.Sandbox
			settings.Sandbox = &v
		}
		return newSandbox(settings, s.dir, additional, filepath.Join(sideDir, "tmp"), s.data)
	}
	s.checker, s.sandbox, err = buildChecker(pin, s.dir, files, &s.notice)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, func() { _ = s.sandbox.Close() })
	if n := s.sandbox.Notice(); n != "" {
		fmt.Fprintf(&s.notice, "nova: %s\n", n)
	}
	if pin.DebugLog != nil {
		// What confines commands decides what the rules can let through.
		fmt.Fprintf(pin.DebugLog, "nova: permission: %s\n", s.sandbox.Describe())
	}
	if n := sandboxLimits(ctx, s.sandbox); n != "" {
		fmt.Fprintf(&s.notice, "nova: %s\n", n)
	}

	s.hooks, err = newHookRunner(opts.Hooks, s.hookBase)
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, s.hooks.close)
	// Read once: a settings file changed during the session (by the model
	// or anyone) changes the hooks of the next session, not this one's.
	s.hooks.commandHooks(files, s.dir, &s.notice)
	if !trusted {
		s.withheldHooks = withheldHooks(ws)
	}
	env := &tool.Env{Dir: s.dir, Files: tool.NewFileState(), PassEnv: s.passEnv,
		Web: s.checker, Todos: new(tool.TodoList),
		AskModel: askModel(s.sideClient, smallModel(s.ep)),
		Editor:   opts.EditorFS,
	}
	if g := s.checker.Guard(); g != nil {
		env.Guard = g
	}
	if s.sandbox.Kind() != "none" {
		env.Sandbox = s.sandbox
	}
	var checker agent.PermissionChecker = s.checker
	if s.hooks.has(HookPreToolUse) {
		checker = hookChecker{inner: s.checker, hooks: s.hooks, ctx: s.currentCtx}
	}
	a := &agent.Agent{
		Client: s.client, Model: s.ep.Model, Tools: reg,
		Env:            env,
		Permissions:    checker,
		AllowAlways:    rememberAlways(s.checker, ws),
		NonInteractive: !opts.Interactive && opts.CanUseTool == nil,
		MaxTurns:       opts.MaxTurns,
		ModelInfo:      &info,
		ContextWindow:  window,
		Thinking:       thinkingConfig(settings, opts.Effort),
		WebSearch:      webSearch,
		AskWebSearch:   askSearch && (opts.Interactive || opts.CanUseTool != nil),
		SpillDir:       filepath.Join(sideDir, "tool-results"),
	}
	a.Hooks.TurnStart = append(a.Hooks.TurnStart, s.hooks.turnStart)
	a.Hooks.PreSend = append(a.Hooks.PreSend, s.hooks.preSend)
	s.setupPlan(a)
	a.Hooks.PreCompact = append(a.Hooks.PreCompact, s.hooks.preCompact)
	a.Hooks.PostCompact = append(a.Hooks.PostCompact, s.hooks.postCompact)
	if s.store != nil {
		a.Recorder = s.store.rec
		a.Snapshot = s.store.rec.Snapshotter(s.store.snaps)
	} else {
		a.SpillDir = s.spill
	}
	if !opts.NoContext {
		a.Preamble = func(ctx context.Context) (string, error) {
			return contextinfo.Preamble(ctx, s.data, s.dir, time.Now())
		}
	}
	if settings.MaxOutputTokens != nil {
		a.MaxTokens = *settings.MaxOutputTokens
	}
	if settings.CompactThreshold != nil {
		a.CompactThreshold = *settings.CompactThreshold
	}
	if opts.CompactThreshold != 0 {
		a.CompactThreshold = opts.CompactThreshold
	}
	s.agent = a
	s.system = cmp.Or(opts.SystemPrompt, contextinfo.SystemPrompt(s.dir, s.ep.Model, time.Now()))
	if opts.AppendSystemPrompt != "" {
		s.system += "\n\n" + opts.AppendSystemPrompt
	}
	s.setupTeam(reg, a, sideDir)
	// MCP servers start in the background; their tools are decided at the
	// first Send.
	if s.mcpMode, err = mcpToolSearchMode(opts.MCPToolSearch, settings); err != nil {
		if opts.MCPToolSearch != "" {
			return nil, fmt.Errorf("nova: Options.MCPToolSearch: %w", err)
		}
		fmt.Fprintf(&s.notice, "nova: warning: the settings' %v; using auto\n", err)
		s.mcpMode = "auto"
	}
	s.window0 = s.knownWindow(info)
	lookup := func(k string) (string, bool) { v := getenv(k); return v, v != "" }
	if err := s.loadMCP(ctx, ws, files, lookup, a.SpillDir); err != nil {
		return nil, err
	}
	if askSearch && !a.AskWebSearch {
		if n := printSearchNotice(webSearch, askSearch, s.checker); n != "" {
			s.notice.WriteString(prefixed(n + "\n"))
		}
	}
	if s.store != nil && s.store.state != nil {
		s.conv = stateConversation(s.id, s.system, s.store.state)
		if s.conv != nil {
			s.history = historyOf(s.store.state, s.ep.Model, s.knownWindow(info))
		}
	}
	source2 := "startup"
	if s.store != nil && s.store.resumed {
		source2 = "resume"
	}
	s.sessionStart(ctx, source2)
	for _, w := range s.hooks.takeWarnings() {
		fmt.Fprintf(&s.notice, "nova: warning: %s\n", w)
	}
	return s, nil
}

// lookupWindow starts the context window lookup (settings → endpoint →
// catalog) beside the first model call instead of delaying it; the loop
// needs the answer only after that call. The session owns the goroutine
// and waits for it at Close.
func (s *Session) lookupWindow(windows *llm.WindowResolver, source llm.WindowSource, info llm.ModelInfo) func() int {
	lookupCtx, stop := context.WithTimeout(context.Background(), lookupTimeout)
	ch := make(chan int, 1)
	go func() {
		configured := 0
		if s.settings.ContextWindow != nil {
			configured = *s.settings.ContextWindow
		}
		w, _ := windows.Resolve(lookupCtx, configured, source, endpointID(s.ep), s.ep.Model)
		ch <- w
	}()
	window := sync.OnceValue(func() int { return <-ch })
	s.closers = append(s.closers, func() {
		stop()
		window()
	})
	return window
}

func (s *Session) sideClient() llm.Client {
	if s.opts.Client != nil {
		return s.opts.Client
	}
	c, _ := newClient(s.ep, s.settings)
	return c
}

// sideDir is where the session keeps its side files (spilled results,
// the sandbox's temp dir, the debug log).
func (s *Session) sideDir() string {
	if s.store != nil {
		return s.store.files()
	}
	return s.spill
}

func (s *Session) debugFile(dir string) (io.Writer, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("debug log: %w", err)
	}
	path := filepath.Join(dir, "debug.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("debug log: %w", err)
	}
	s.closers = append(s.closers, func() { _ = f.Close() })
	fmt.Fprintf(&s.notice, "nova: permission decisions are logged to %s\n", path)
	return f, nil
}

func (s *Session) knownWindow(info llm.ModelInfo) int {
	if s.settings.ContextWindow != nil && *s.settings.ContextWindow > 0 {
		return *s.settings.ContextWindow
	}
	return info.ContextWindow
}

func (s *Session) hookBase() HookInput {
	in := HookInput{SessionID: s.id, Cwd: s.dir, PermissionMode: string(s.checker.Mode())}
	if s.store != nil {
		in.TranscriptPath = s.store.rec.Path()
	}
	return in
}

// sessionStart runs the SessionStart hooks; their context goes to the
// model with the next request.
func (s *Session) sessionStart(ctx context.Context, source string) {
	in := s.hookBase()
	in.Source = source
	out := s.hooks.fire(ctx, HookSessionStart, source, in)
	s.hooks.addContext(out.AdditionalContext)
}

func (s *Session) currentCtx() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.runCtx != nil {
		return s.runCtx
	}
	return context.Background()
}

// ID is the session's id (nova --resume ID continues it).
func (s *Session) ID() string { return s.id }

// Dir is the workspace.
func (s *Session) Dir() string { return s.dir }

// DataDir is the data directory in use.
func (s *Session) DataDir() string { return s.data }

// Notice is what the person should know before the first prompt, one
// "nova: " line each (list items indented): settings left out until the
// workspace is trusted or not understood, rules that did not parse, what
// the sandbox cannot do, web search that is off. Empty when all is well.
func (s *Session) Notice() string { return s.notice.String() }

// History is the conversation a resumed session continues, as the events
// its live runs showed; nil for a new session.
func (s *Session) History() *History { return s.history }

// PassEnv lists the environment variables the settings let commands see
// although they look like credentials.
func (s *Session) PassEnv() []string { return slices.Clone(s.passEnv) }

// Mode is the current permission mode.
func (s *Session) Mode() string { return string(s.checker.Mode()) }

// SetMode changes the permission mode from the next decision on.
func (s *Session) SetMode(mode string) error {
	m, err := permission.ParseMode(mode)
	if err != nil {
		return err
	}
	s.checker.SetMode(m)
	return nil
}

// Model is the model the next Send uses.
func (s *Session) Model() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.agent.Model
}

// Send adds prompt to the conversation and runs the loop until the model
// is done, yielding its events. The last event is loop_complete; if the
// run failed, a final pair carries its error. Stopping the iteration
// cancels the run (tools stop) and leaves a valid history. One Send runs
// at a time: a second waits for the first to end.
//
// A prompt that begins with an MCP prompt's command,
// /mcp__<server>__<prompt> args, is that prompt as the server fills it in
// (MCPPrompts; an error, with nothing sent, when it cannot be); each
// @server:uri it mentions attaches that MCP resource after the prompt (a
// warning when it cannot be, and the prompt goes without it).
func (s *Session) Send(ctx context.Context, prompt string) iter.Seq2[event.Event, error] {
	return s.send(ctx, &prompt, nil)
}

// Image is a picture that goes to the model with a prompt (SendWith).
type Image struct {
	// MediaType is "image/png", "image/jpeg", "image/gif" or "image/webp",
	// the types every provider takes.
	MediaType string
	Data      []byte
}

// imageTypes are the media types of Image.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// SendWith is Send with images after the prompt's text, in the same
// message (an editor's pasted screenshot). An image of another type ends
// the Send with an error before anything is sent.
func (s *Session) SendWith(ctx context.Context, prompt string, images []Image) iter.Seq2[event.Event, error] {
	return s.send(ctx, &prompt, images)
}

// Continue runs the loop on the conversation as it stands, without a new
// prompt: a resumed session whose last turn was cut short (its tool
// results, or its prompt, not yet answered by the model) goes on from
// there, and one that ended with the model's answer ends at once. With
// Options.MaxTurns 1 each Continue is one model call and its tool batch:
// what a durable engine runs as one step (fleet's Temporal engine). It is
// an error before the session holds a conversation.
func (s *Session) Continue(ctx context.Context) iter.Seq2[event.Event, error] {
	return s.send(ctx, nil, nil)
}

// send is Send (or SendWith) with a prompt, Continue without.
func (s *Session) send(ctx context.Context, promptp *string, images []Image) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		s.running.Lock()
		defer s.running.Unlock()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			yield(nil, errors.New("nova: the session is closed"))
			return
		}
		s.cancel, s.runCtx = cancel, ctx
		s.result = Result{SessionID: s.id}
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.cancel, s.runCtx = nil, nil
			s.mu.Unlock()
		}()
		col := &collector{res: &s.result}
		carried := 0 // model calls of runs a Stop hook continued
		emit := func(e event.Event) bool {
			s.mu.Lock()
			col.add(e)
			if _, ok := e.(event.LoopComplete); ok {
				s.result.Turns += carried
			}
			s.mu.Unlock()
			return yield(e, nil)
		}
		// flush reports what hooks said for the person.
		flush := func(turn int) bool {
			for _, w := range s.hooks.takeWarnings() {
				if !emit(event.Warning{Turn: max(turn, 1), Message: w}) {
					return false
				}
			}
			return true
		}
		// fail ends the Send before the loop runs.
		fail := func(err error) {
			if flush(s.turns() + 1) {
				emit(event.LoopComplete{Reason: event.ReasonError, Error: err.Error()})
				yield(nil, err)
			}
		}
		var pictures []llm.Block
		for i, im := range images {
			if !slices.Contains(imageTypes, im.MediaType) {
				fail(fmt.Errorf("image %d is %q; the model takes %s", i+1, im.MediaType, strings.Join(imageTypes, ", ")))
				return
			}
			pictures = append(pictures, llm.Block{Type: llm.BlockImage, MediaType: im.MediaType, Data: base64.StdEncoding.EncodeToString(im.Data)})
		}
		if why, ok := s.hooks.takeStop(); ok {
			fail(errors.New(why)) // a hook stopped the session before this prompt
			return
		}
		if promptp == nil {
			s.mu.Lock()
			conv := s.conv
			s.mu.Unlock()
			if conv == nil {
				fail(errors.New("nova: nothing to continue: the session holds no conversation yet"))
				return
			}
			if text, ok := answered(conv); ok {
				// Sent again, the model would be asked to go on after its
				// own answer: a step an engine retries after its first
				// attempt finished must cost nothing and change nothing.
				emit(event.LoopComplete{Reason: event.ReasonDone, FinalText: text,
					Usage: tokenCounts(conv.Usage), CostUSD: conv.CostUSD})
				return
			}
			s.freezeMCP()
		}
		prompt := ""
		if promptp != nil {
			prompt = *promptp
		}
		if promptp != nil && s.hooks.has(HookUserPromptSubmit) {
			in := s.hookBase()
			in.Prompt = prompt
			out := s.hooks.fire(ctx, HookUserPromptSubmit, "", in)
			if why, ok := s.hooks.takeStop(); ok {
				fail(errors.New(why))
				return
			}
			if out.Block {
				fail(fmt.Errorf("a UserPromptSubmit hook refused the prompt: %s", cmp.Or(out.Reason, "no reason given")))
				return
			}
			s.hooks.addContext(out.AdditionalContext)
		}
		// An MCP prompt command, filled in by its server, and the resources
		// mentioned: before the tools are decided, so that a server this
		// waited for has its tools listed.
		var in mcpInput
		var err error
		if promptp != nil {
			in, err = s.prepareMCP(ctx, prompt)
		}
		if err != nil {
			if ctx.Err() != nil {
				emit(event.LoopComplete{Reason: event.ReasonCancelled})
				return
			}
			emit(event.LoopComplete{Reason: event.ReasonError, Error: err.Error()})
			yield(nil, err)
			return
		}
		if promptp != nil {
			s.freezeMCP()
		}
		if s.mcp != nil {
			for _, w := range s.mcp.failures() {
				if !emit(event.Warning{Turn: s.turns() + 1, Message: w}) {
					return
				}
			}
		}
		for _, w := range in.warnings {
			if !emit(event.Warning{Turn: s.turns() + 1, Message: w}) {
				return
			}
		}
		if promptp != nil {
			if err := s.addPrompt(ctx, in.text, append(in.attached, pictures...)); err != nil {
				fail(err)
				return
			}
		}
		stopActive, lastStop := false, ""
		inputs := map[string][]byte{} // each call's input as it ran, for PostToolUse
		for {
			var done *event.LoopComplete
			for e := range s.agent.Run(ctx, s.conv) {
				if lc, ok := e.(event.LoopComplete); ok {
					done = &lc // always the last event
					continue
				}
				show := s.answer(ctx, e)
				if !flush(s.conv.Turns) {
					return
				}
				if !show {
					continue // answered here; the consumer never sees it
				}
				if !emit(e) {
					return
				}
				switch e := e.(type) {
				case event.ToolUse:
					inputs[e.ID] = e.Input
				case event.ToolResult:
					s.postToolUse(ctx, e, inputs[e.ID])
				}
			}
			if done == nil {
				return // cancelled before the end: the loop yields nothing more
			}
			if done.Reason == event.ReasonDone {
				// Stop hooks: the model finished; a hook may have it go
				// on, or have stopped the run meanwhile.
				out := HookOutput{}
				if _, pending := s.hooks.peekStop(); !pending && s.hooks.has(HookStop) {
					in := s.hookBase()
					in.StopHookActive = stopActive
					out = s.hooks.fire(ctx, HookStop, "", in)
				}
				if why, ok := s.hooks.takeStop(); ok {
					done.Reason, done.Error = event.ReasonError, why
				} else if out.Block && !(stopActive && out.Reason == lastStop) {
					stopActive, lastStop = true, out.Reason
					carried += done.Turns
					s.conv.AddUser(cmp.Or(out.Reason, "Continue."))
					if !flush(s.conv.Turns) {
						return
					}
					continue
				}
			} else {
				s.hooks.takeStop() // the run ended anyway: a stop asked for is done
			}
			if !flush(s.conv.Turns) {
				return
			}
			if !emit(*done) {
				return
			}
			if done.Reason == event.ReasonError {
				yield(nil, errors.New(done.Error))
			}
			return
		}
	}
}

// answered reports whether conv ends with the model's answer (an assistant
// message that calls no tool), and its text: the loop ended there with
// reason done, so continuing has nothing to do.
func answered(conv *agent.Conversation) (string, bool) {
	if len(conv.Messages) == 0 {
		return "", false
	}
	m := conv.Messages[len(conv.Messages)-1]
	if m.Role != llm.RoleAssistant {
		return "", false
	}
	for _, b := range m.Content {
		if b.Type == llm.BlockToolUse {
			return "", false
		}
	}
	return m.Text(), true
}

// tokenCounts is u as events report it.
func tokenCounts(u llm.Usage) event.TokenCounts {
	return event.TokenCounts{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
		WebSearchRequests: u.WebSearchRequests, Estimated: u.Estimated}
}

// answer answers a permission request with the PermissionRequest hooks
// or Options.CanUseTool, and questions when nobody can; it reports whether
// the consumer should see e. Notification hooks learn that a person is
// asked.
func (s *Session) answer(ctx context.Context, e event.Event) bool {
	// A subagent's requests are answered like the session's own.
	e, _ = event.Inner(e)
	switch e := e.(type) {
	case *event.PermissionRequest:
		if !s.opts.Interactive && s.opts.CanUseTool == nil {
			return true
		}
		if d, ok := s.permissionRequestHooks(ctx, e); ok {
			e.Respond(d)
			return false
		}
		if s.opts.Interactive {
			s.hooks.notify("permission_prompt", "NovaCode needs your permission to use "+e.Name)
			return true
		}
		d := s.opts.CanUseTool(ctx, PermissionRequest{ID: e.ID, Tool: e.Name, Input: e.Input, Reason: e.Reason, Suggest: e.Suggest, Plan: e.Plan})
		if d.Behavior != event.Allow {
			d.Behavior = event.Deny
		}
		e.Respond(d)
		return false
	case *event.Question:
		if s.opts.Interactive {
			s.hooks.notify("question", e.Question)
			return true
		}
		e.Respond(event.Answer{Text: "(Nobody can answer questions in this session. Continue with your best judgement and say what you assumed.)"})
		return false
	}
	return true
}

// permissionRequestHooks asks the PermissionRequest hooks about what the
// chain would ask a person; ok is false when none answered for it.
func (s *Session) permissionRequestHooks(ctx context.Context, e *event.PermissionRequest) (d Decision, ok bool) {
	if len(s.hooks.matching(HookPermissionRequest, e.Name)) == 0 {
		return Decision{}, false
	}
	in := s.hookBase()
	in.ToolName, in.ToolInput = e.Name, e.Input
	if e.ID != "web_search" {
		in.ToolUseID = e.ID
	}
	out := s.hooks.fire(ctx, HookPermissionRequest, e.Name, in)
	reason := cmp.Or(out.PermissionDecisionReason, out.Reason)
	switch {
	case out.Block || out.PermissionDecision == "deny":
		return Deny("a PermissionRequest hook denied it" + prefixedReason(reason)), true
	case out.stopped():
		return Deny("a PermissionRequest hook stopped the run" + prefixedReason(out.StopReason)), true
	case out.PermissionDecision == "allow" && out.UpdatedInput != nil:
		s.hooks.warnf("a PermissionRequest hook allowed %s with an updated input, which NovaCode takes only from PreToolUse hooks; you are asked instead", e.Name)
	case out.PermissionDecision == "allow" && e.NeedsPerson:
		s.hooks.warnf("a PermissionRequest hook allowed %s, but only a person may allow this call (%s); you are asked instead", e.Name, e.Reason)
	case out.PermissionDecision == "allow":
		return Allow(), true
	}
	return Decision{}, false
}

// postToolUse runs the PostToolUse hooks for a call that ran and
// succeeded, PostToolUseFailure for one that ran and failed; input is
// what it ran with. What they say reaches the model with the next request.
func (s *Session) postToolUse(ctx context.Context, r event.ToolResult, input []byte) {
	s.hooks.addContext(s.postToolUseHooks(ctx, r, input)...)
}

// subagentPostToolUse is postToolUse for a subagent's call (team's
// AfterCall): what the hooks say is for that subagent's next request.
func (s *Session) subagentPostToolUse(ctx context.Context, _ string, r event.ToolResult, input []byte) string {
	var texts []string
	for _, t := range s.postToolUseHooks(ctx, r, input) {
		if t != "" {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n\n")
}

// subagentStop runs the SubagentStop hooks when a subagent's model has
// finished (team's Stop).
func (s *Session) subagentStop(ctx context.Context, _, _ string, active bool) (bool, string) {
	if !s.hooks.has(HookSubagentStop) {
		return false, ""
	}
	in := s.hookBase()
	in.StopHookActive = active
	out := s.hooks.fire(ctx, HookSubagentStop, "", in)
	return out.Block, out.Reason
}

// postToolUseHooks runs the hooks postToolUse runs and returns what they
// said for the model.
func (s *Session) postToolUseHooks(ctx context.Context, r event.ToolResult, input []byte) []string {
	if r.Denied || ctx.Err() != nil {
		return nil
	}
	name := HookPostToolUse
	in := s.hookBase()
	in.ToolName, in.ToolUseID, in.ToolInput = r.Name, r.ID, input
	if r.IsError {
		name = HookPostToolUseFailure
		in.Error, in.IsInterrupt = r.Content, r.Cancelled
	} else {
		in.ToolResponse = &ToolResponse{Content: r.Content}
	}
	if len(s.hooks.matching(name, r.Name)) == 0 {
		return nil
	}
	out := s.hooks.fire(ctx, name, r.Name, in)
	var said []string
	if out.Block {
		said = append(said, fmt.Sprintf("A %s hook reported on the %s call %s: %s", name, r.Name, r.ID, cmp.Or(out.Reason, "(no reason given)")))
	}
	return append(said, out.AdditionalContext)
}

// turns is the number of model calls so far.
func (s *Session) turns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conv == nil {
		return 0
	}
	return s.conv.Turns
}

// freezeMCP decides the MCP tools once, before the first request, and
// adds the instructions of the servers connected by then to the system
// prompt.
func (s *Session) freezeMCP() {
	if s.mcp == nil {
		return
	}
	instructions := s.mcp.freeze(s.window0, s.mcpMode)
	if instructions == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.system += "\n\n" + instructions
	if s.conv != nil {
		s.conv.System = s.system // a resumed conversation, not yet sent in this session
	}
}

// addPrompt starts the conversation with prompt (after the environment and
// memory files) or adds it to the one going on; attached (MCP resources)
// follow the prompt in its message.
func (s *Session) addPrompt(ctx context.Context, prompt string, attached []llm.Block) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.conv != nil:
		s.conv.AddUser(prompt)
	case s.store != nil:
		conv, err := s.store.conversation(ctx, s.data, s.dir, s.system, prompt, !s.opts.NoContext)
		if err != nil {
			return err
		}
		s.conv = conv
	default:
		conv, err := newConversation(ctx, s.id, s.data, s.dir, s.system, prompt, !s.opts.NoContext)
		if err != nil {
			return err
		}
		s.conv = conv
	}
	if len(attached) > 0 {
		last := &s.conv.Messages[len(s.conv.Messages)-1]
		last.Content = append(last.Content, attached...)
	}
	return nil
}

// Interrupt cancels the Send running, if any: tools stop, and the run
// ends with loop_complete reason "cancelled".
func (s *Session) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// Result is the outcome of the last Send.
func (s *Session) Result() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.result
	r.ToolCalls = slices.Clone(r.ToolCalls)
	r.SubagentDenials = slices.Clone(r.SubagentDenials)
	r.Subagents = slices.Clone(r.Subagents)
	r.Sources = slices.Clone(r.Sources)
	return r
}

// Compact summarises the conversation now (the TUI's /compact), focusing
// on focus if given.
func (s *Session) Compact(ctx context.Context, focus string) (event.Compact, error) {
	s.running.Lock()
	defer s.running.Unlock()
	if s.conv == nil {
		return event.Compact{}, ErrNothingToCompact
	}
	return s.agent.Compact(ctx, s.conv, focus)
}

// ErrNothingToCompact is Compact's error before the first prompt.
var ErrNothingToCompact = errors.New("nothing to compact yet")

// Resumable reports whether the session holds a conversation to come back
// to (nova --resume ID).
func (s *Session) Resumable() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.store != nil && s.conv != nil && len(s.conv.Messages) > 0
}

// Close ends the session: SessionEnd hooks (Notification hooks still
// running get five seconds to end), then the transcript, sandbox,
// MCP servers (each has half a second to exit once its input is closed,
// then its process group is killed) and background lookups are released.
// A Send still running is cancelled first.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	s.running.Lock()
	defer s.running.Unlock()
	if s.hooks != nil && s.hooks.has(HookSessionEnd) {
		in := s.hookBase()
		in.Reason = "other"
		s.hooks.fire(context.Background(), HookSessionEnd, "other", in)
	}
	s.release()
	return nil
}

func (s *Session) release() {
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	s.closers = nil
	if s.spill != "" {
		_ = os.RemoveAll(s.spill)
	}
}

// layersOf turns SettingSources into settings layers; nil is all.
func layersOf(srcs []SettingSource) []config.Layer {
	if srcs == nil {
		return []config.Layer{config.LayerUser, config.LayerProject, config.LayerLocal}
	}
	out := []config.Layer{}
	for _, s := range srcs {
		out = append(out, config.Layer(s))
	}
	return out
}

func trustAsker(f func(context.Context, TrustQuestion) (bool, error)) func(context.Context, *config.Workspace) (bool, error) {
	if f == nil {
		return nil
	}
	return func(ctx context.Context, ws *config.Workspace) (bool, error) {
		q := TrustQuestion{Dir: ws.Key, Changed: ws.Changed()}
		for _, x := range ws.Widening {
			q.Settings = append(q.Settings, TrustSetting{File: relFile(ws, x.File), Setting: x.Setting, Value: x.Value, Says: x.Says})
		}
		return f(ctx, q)
	}
}

// InitProcess prepares the process for running commands under the OS
// sandbox: call it first in main, before anything opens a file, so that
// nothing the process inherited reaches the commands it starts.
func InitProcess() { sandbox.InitProcess() }
