// Package agent is NovaCode's loop: it sends the conversation to a model,
// streams the answer out as events, runs the tools the model asks for while
// the model is still talking, appends the results and goes round again until
// the model stops asking for tools.
//
// The whole public surface is Agent.Run, which returns a pull iterator of
// events: a consumer that stops iterating stops the loop, cancels its tools
// and still leaves a valid history.
package agent

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission/verdict"
	"github.com/novacode/nova/tool"
)

// Conversation is the history the loop extends. Messages are append-only:
// once a message has been sent to the model its bytes never change, so the
// provider's prompt-cache prefix stays valid across turns.
type Conversation struct {
	ID       string
	System   string
	Messages []llm.Message
	// Persisted is how many of Messages the Recorder already holds (a
	// resumed session's history); the loop records the rest.
	Persisted int
	// Turns is how many model calls the session has made before this run;
	// turn numbers continue from it.
	Turns int
	// Usage and CostUSD are the session's totals before this run; the
	// loop's running totals continue from them.
	Usage   llm.Usage
	CostUSD float64

	// webSearch is the session's answer about the provider's web search
	// (Agent.WebSearch), asked once.
	webSearch searchState
	// relay carries the events of subagents to the conversation's runs
	// (one at a time).
	relay *relay
}

// NewConversation starts a conversation with one user prompt.
func NewConversation(id, system, prompt string) *Conversation {
	c := &Conversation{ID: id, System: system}
	c.AddUser(prompt)
	return c
}

// AddUser appends a user message with text.
func (c *Conversation) AddUser(text string) {
	c.Messages = append(c.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: text}}})
}

// PermissionChecker decides whether a call may run without asking.
type PermissionChecker interface {
	Check(verdict.Call) verdict.Decision
}

// AllowAll is a PermissionChecker that allows every call, the provider's
// web search included, without asking anyone. It is for tests and for
// fully trusted sandboxes (a throwaway container the model may wreck):
// anywhere else it lets the model run any command and change any file.
var AllowAll PermissionChecker = allowAll{}

type allowAll struct{}

func (allowAll) Check(verdict.Call) verdict.Decision {
	return verdict.Decision{Behavior: verdict.Allow, Reason: "every call is allowed (agent.AllowAll)"}
}

// noChecker is why a call is asked when Agent.Permissions is nil.
const noChecker = "no permission checker is set, so every call that may change something needs a person's approval"

// check decides a call: Permissions' answer or, with none set, the safe
// default: read-only tools run and everything else is asked (denied when
// the run is NonInteractive). Forgetting the checker must not run commands
// unconfined.
func (a *Agent) check(c verdict.Call) verdict.Decision {
	c.OnlyReads, c.Agent = a.ReadOnly, a.AgentID
	if a.Permissions != nil {
		return a.Permissions.Check(c)
	}
	if c.ReadOnly {
		return verdict.Decision{Behavior: verdict.Allow, Reason: "a read-only tool (no permission checker is set)"}
	}
	if c.OnlyReads {
		return verdict.Decision{Behavior: verdict.Deny, Reason: "this agent is read-only and no permission checker is set to prove the call changes nothing"}
	}
	return verdict.Decision{Behavior: verdict.Ask, Reason: noChecker, NeedsPerson: true}
}

// Agent holds what stays the same across runs. The zero value is not usable:
// Client and Tools are required.
type Agent struct {
	Client llm.Client
	Model  string
	Tools  *tool.Registry
	// Env is handed to every tool call.
	Env *tool.Env

	// Permissions decides each call. nil is the safe default, not
	// "anything goes": calls of ReadOnly tools run, every other call (and
	// the provider's web search) is asked, so a NonInteractive run denies
	// them. AllowAll allows everything, for tests and trusted sandboxes.
	Permissions PermissionChecker
	// AllowAlways is called when a person answers "always allow", with the
	// decision that asked (its Suggest lists the rules to remember). An
	// error (the rules could not be kept for next time) becomes a warning
	// event; the call runs all the same.
	AllowAlways func(call ToolCall, d verdict.Decision) error
	// SetMode switches the permission mode when a person's answer asks for
	// it (event.Decision.Mode: approving a plan switches to acceptEdits or
	// default), before the call runs. An error becomes a warning event.
	// nil: such answers switch nothing.
	SetMode func(mode string) error
	// NonInteractive turns every "ask" into a denial at once (print mode:
	// nobody is there to answer), and every question into a result saying
	// nobody can answer. A plan the chain would put to a person
	// (tool.PlanApprover: ExitPlanMode in plan mode) ends the run instead,
	// with the plan as its final text.
	NonInteractive bool
	// ReadOnly denies every call that is not read-only (verdict.Call's
	// OnlyReads): an Explore subagent. With a permission checker, a Bash
	// command passes when the shell analyser proves it read-only.
	ReadOnly bool
	// AgentID names the subagent this agent is ("" for a session's own);
	// the permission checker and hooks see it on every call.
	AgentID string
	// WaitBackground keeps the loop going while background work the model
	// started (commands, subagents: Env.Mailbox's outstanding work) has
	// not reported its end: when the model finishes, the loop waits for
	// the next delivery and goes on with a turn that delivers it. For runs
	// nobody watches (print mode, subagents); MaxTurns and ctx still end
	// the run. Interactive runs leave it off: deliveries wait for the next
	// prompt.
	WaitBackground bool
	// QuestionTimeout is how long a question (AskUserQuestion) waits for an
	// answer; 0 means five minutes.
	QuestionTimeout time.Duration

	// MaxTurns ends the loop after that many model calls; 0 means no limit.
	MaxTurns int
	// ModelInfo overrides the catalog's entry for Model (limits, prices);
	// nil means llm.LookupModel.
	ModelInfo *llm.ModelInfo
	// ContextWindow, if set, reports the resolved context window (it may
	// wait for a lookup started elsewhere); nil means ModelInfo's.
	ContextWindow func() int

	// MaxTokens is the output limit per call; 0 picks one from the catalog.
	MaxTokens int
	Thinking  *llm.Thinking
	// WebSearch offers the provider's own web search to the model
	// (llm.Request.WebSearch). The provider runs the searches, so a
	// conversation decides once, before its first request, whether to
	// offer it: Permissions.Check of the WebSearch tool (with Permissions
	// nil: ask); allow offers it,
	// deny does not, and ask puts one permission_request to the person
	// when AskWebSearch is set (and the run is not NonInteractive), else
	// leaves it off. Searches and citations come out as web_search and
	// citation events. nil offers none.
	WebSearch    *llm.WebSearch
	AskWebSearch bool

	Hooks Hooks

	// ResultCap is the size in characters a single result is cut to (head
	// and tail kept); 0 means DefaultResultCap.
	ResultCap int
	// BatchBudget is the size in characters of one turn's results together;
	// over it the longest are spilled to SpillDir. 0 means DefaultBatchBudget.
	BatchBudget int
	// SpillDir receives spilled results; empty means os.TempDir().
	SpillDir string

	// Recorder, if set, keeps a durable record of the run (a session
	// transcript): every message before any event about it is yielded, and
	// a sync at every turn end.
	Recorder Recorder
	// Snapshot, if set, is called right before a tool that changes files
	// runs, with the resolved paths it may change, so their prior content
	// can be kept for rewinding. It runs on the tool's goroutine; mutating
	// tools run one at a time. An error (some content could not be kept)
	// becomes a warning event before the call's tool_done; the tool runs
	// all the same.
	Snapshot func(turn int, paths []string) error

	// Preamble, if set, returns the context (environment, memory files)
	// that opens the conversation; compaction puts it back in front of the
	// summary.
	Preamble func(ctx context.Context) (string, error)
	// CompactThreshold is the prompt size in tokens at which the history is
	// compacted before the next call; 0 derives it from the context window
	// and the output limit, negative turns automatic compaction off.
	CompactThreshold int

	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Recorder is a durable record of a run; *session.Transcript is one. Its
// methods take llm values and plain fields only, so that a store need not
// import agent or event. They are called from the loop's goroutine, except
// that Snapshot (via Agent.Snapshot) may be recorded from a tool's
// goroutine: implementations must be safe for that.
type Recorder interface {
	// Message records m, appended to the history during turn.
	Message(turn int, m llm.Message) error
	// Usage records the running totals after a model call.
	Usage(turn int, total llm.Usage, costUSD float64) error
	// Boundary records a compaction: the history is now msgs. id, reason
	// and the token estimates before and after are those of the compact
	// event the loop yields next (event.Compact).
	Boundary(turn int, id, reason string, tokensBefore, tokensAfter int64, msgs []llm.Message) error
	// TurnEnd makes everything recorded so far durable.
	TurnEnd(turn int) error
	// End records that the loop ended, and why.
	End(turn int, reason string) error
}

// Size-control defaults.
const (
	DefaultResultCap   = 40_000
	DefaultBatchBudget = 50_000
	// spillPreview is how much of a spilled result stays in history.
	spillPreview = 2_000
)

// Run drives the conversation until the model is done, the turn limit is
// reached, ctx is cancelled or the consumer stops iterating. The last event
// is always an event.LoopComplete (unless the consumer stopped first), and
// conv holds a valid history afterwards in every case: each tool call has a
// result.
func (a *Agent) Run(ctx context.Context, conv *Conversation) iter.Seq[event.Event] {
	return func(yield func(event.Event) bool) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		newRun(a, conv, yield, cancel).loop(ctx)
	}
}

func (a *Agent) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// ToolCall is one tool call of the model, as hooks and checkers see it.
type ToolCall struct {
	ID    string
	Name  string
	Input json.RawMessage
}
