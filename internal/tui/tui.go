// Package tui is NovaCode's interactive terminal UI: a Bubble Tea v2
// program that drives the agent through a Runner and renders its event
// stream as one timeline (prompts, streamed Markdown answers, thinking, tool
// cards, errors), with a permission dialog, an input box and a status line.
//
// It is a consumer of the event stream only. Calm by construction: finished
// blocks are rendered once per width and cached, a frame renders only the
// blocks that fit on screen, streamed deltas are coalesced to at most ~30
// re-renders a second by a tick that runs only while a run is active, and the
// cursor does not blink, so an idle TUI wakes up only for input.
//
// The program uses the alternate screen: the TUI owns the whole window and
// scrolls its own timeline (PgUp/PgDn), so the terminal's scrollback is left
// as it was when nova exits.
package tui

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	tea "github.com/novacode/nova/third_party/bubbletea"

	"github.com/novacode/nova/event"
)

// Runner runs one prompt: the CLI appends it to the conversation and runs
// the agent, yielding its events.
type Runner interface {
	Run(ctx context.Context, prompt string) iter.Seq[event.Event]
}

// Options configures the TUI.
type Options struct {
	Runner Runner
	// Model and Mode are shown in the status line until events say otherwise.
	Model, Mode string
	// ModeCycle switches to the next permission mode (Shift-Tab) and returns
	// its name. Optional.
	ModeCycle func() string
	// SetMode switches to the named permission mode and returns the mode now
	// in force (the CLI may refuse). Optional: without it /plan says it is
	// unavailable.
	SetMode func(mode string) string
	// Dir is the working directory @path completion lists; "" means ".".
	Dir string
	// Commands are the user's slash commands: name -> prompt template, in
	// which $ARGUMENTS stands for the text after the command (LoadCommands).
	Commands map[string]string
	// Compact compacts the conversation (/compact [focus]). Optional.
	Compact func(ctx context.Context, focus string) (event.Compact, error)
	// Clear forgets the conversation (/clear). Optional: without it /clear
	// only clears the screen.
	Clear func()
	// Session runs the session commands /resume and /rewind (name without
	// the slash, and its arguments) and returns what to show; a non-nil
	// Past (the session switched to, the conversation rewound) replaces
	// the timeline. Optional.
	Session func(ctx context.Context, name, args string) (string, *Past, error)
	// Models lists the models /model offers (the CLI's catalog and
	// settings). Optional.
	Models func() []ModelInfo
	// SetModel switches the model for the rest of the session (/model
	// NAME): the next run sends to it and prices it with its prices. It
	// may ask the endpoint for the context window, so the TUI calls it off
	// its goroutine. Optional: without it /model only shows the model.
	SetModel func(ctx context.Context, name string) (ModelInfo, error)
	// Hooks describes the hooks in effect and the file of each (/hooks).
	// Optional.
	Hooks func() string
	// Resumed, if set, is the conversation this session continues (nova -c,
	// --resume): shown first, with its cost and tokens in the status line.
	Resumed *Past
	// NoColor and Dark choose the theme.
	NoColor, Dark bool
	// DetectTheme asks the terminal for its background colour at start and
	// switches to the light or dark theme it implies (Dark is used until the
	// answer arrives, and for good if the terminal never answers).
	DetectTheme bool
	// FirstPrompt, if set, is submitted at start.
	FirstPrompt string
	// PassEnv names the credentials !cmd may see, as the Bash tool's
	// (permission/cmdenv); every other one is withheld.
	PassEnv []string
	// Notice, if set, is shown first in the timeline (after Resumed): what
	// the CLI wants the person to know before anything runs (settings of an
	// untrusted workspace that were left out).
	Notice string
	// ProposeMemory proposes durable facts from the conversation; the TUI
	// calls it off its goroutine when a run the model finished has ended,
	// and shows what it proposes as a suggestion. Nil: no suggestions
	// (autoMemory off).
	ProposeMemory func(ctx context.Context) (MemoryProposal, error)
	// WriteMemory writes the facts the person accepted to path, the
	// proposal's Project or User file. Required with ProposeMemory.
	WriteMemory func(path string, facts []string) error
	// Memory is what /memory shows. Optional.
	Memory func() (MemoryInfo, error)
	// MCPServers lists the session's MCP servers for /mcp. Optional:
	// without it /mcp says there are none.
	MCPServers func() []MCPServer
	// MCPResources lists the MCP servers' resources, which @ completes
	// besides paths (@server:uri). It may wait for servers still
	// starting: the TUI calls it off its goroutine. Optional.
	MCPResources func(ctx context.Context) ([]MCPResource, error)
	// MCPPrompts lists the MCP servers' prompts, which / completes besides
	// the commands; a prompt's command is sent as the prompt, and the
	// Runner fills it in. Called as MCPResources is. Optional.
	MCPPrompts func(ctx context.Context) ([]MCPPrompt, error)
	// Bashes lists the session's background commands (Bash with
	// run_in_background), oldest first, for /bashes. Optional: without it
	// /bashes says it is unavailable.
	Bashes func() []BashInfo
	// KillBash stops a background command and what it started (/bashes
	// kill ID). The TUI calls it off its goroutine. Optional.
	KillBash func(id string) error
}

// BashInfo is one background command for /bashes (nova.Shell).
type BashInfo struct {
	ID, Command, Description string
	// Agent is the subagent that started it, "" for the session's own.
	Agent           string
	Running, Killed bool
	ExitCode        int
	// Duration is how long it ran, or has run so far.
	Duration time.Duration
	// Output is the file that holds its whole output.
	Output string
}

// MCPServer is one MCP server for /mcp.
type MCPServer struct {
	Name string
	// Scope is where it is defined (project, user, local, workspace, flag,
	// sdk) and Source the file.
	Scope, Source string
	// Transport is stdio, http or sse; Describe its command line or URL.
	Transport, Describe string
	// State is connecting, connected, failed or disabled; Error says why
	// it failed or is disabled, Warning what went wrong without stopping
	// it.
	State, Error, Warning string
	// Tools are its tools' names.
	Tools []string
}

// MCPResource is a resource @ completes, as @Server:URI.
type MCPResource struct {
	Server, URI, Name string
}

// MCPPrompt is an MCP prompt / completes: Name is its command without the
// slash, Usage its command line, Args whether it takes arguments.
type MCPPrompt struct {
	Name, Usage, Description string
	Args                     bool
}

// ModelInfo describes a model for /model.
type ModelInfo struct {
	Name string
	// ContextWindow is in tokens; 0 when unknown.
	ContextWindow int
	// InputPrice and OutputPrice are USD per million tokens; both 0 when
	// unknown (or free).
	InputPrice, OutputPrice float64
}

// Run runs the TUI on in/out until the user quits or ctx ends. It returns
// only after every goroutine it started has exited.
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	m := New(o)
	defer m.Close()
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithFPS(frameRate))
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// timeNow is swapped by tests that need a fixed clock.
var timeNow = time.Now

// frameRate caps how often Bubble Tea's renderer flushes a frame. Our
// patched Bubble Tea (third_party/bubbletea/NOVACODE.md) flushes on demand,
// so the rate costs nothing when idle; it bounds the work while an answer
// streams, and a key typed after a quiet moment is drawn at once
// (BENCHMARKS.md: keystroke to screen).
const frameRate = 60
