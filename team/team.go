package team

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/tool"
)

// Config is what a Team makes its subagents from.
type Config struct {
	// Parent is the session's own agent: subagents take its client,
	// tools, environment, permission checker and limits. The team reads it
	// when a subagent starts, so a model switched in between is followed.
	Parent *agent.Agent
	// System is the session's system prompt, which the built-in types
	// use; a definition's body replaces it.
	System string
	// Defs are the agent types Task offers (Builtins plus Load's).
	Defs []Definition
	// MaxDepth is how deep subagents may nest: 1 (the default) lets the
	// session's agent start subagents and none of them start more.
	MaxDepth int
	// MaxTurns limits each subagent's run: 0 takes the parent's limit
	// (Parent.MaxTurns), a negative value means none. A session stepped
	// one model call at a time (a durable engine's) limits its own agent
	// to one call per run, not its subagents.
	MaxTurns int
	// Preamble, if set, opens every subagent's conversation (the
	// environment and memory files), before its prompt.
	Preamble func(ctx context.Context) (string, error)
	// Recorder, if set, opens the transcript of a subagent; nil values
	// mean it is not kept.
	Recorder func(agentID, agentType, description, model string) (agent.Recorder, string, error)
	// Model resolves a model a definition or a call names (an alias such
	// as "sonnet" included) to the model to call and its limits; nil
	// takes the name as it is, with the catalog's limits.
	Model func(name string) (string, *llm.ModelInfo, error)
	// AfterCall, if set, runs after each call a subagent made has ran
	// (the session's PostToolUse hooks), input being what it ran with;
	// what it returns is delivered to that subagent at its next turn.
	AfterCall func(ctx context.Context, agentID string, r event.ToolResult, input []byte) string
	// Stop, if set, runs when a subagent's model has finished (the
	// session's SubagentStop hooks): block has the subagent go on with
	// reason as its next instruction; active says that this end is of
	// such a continuation. Blocking twice with the same reason ends it.
	Stop func(ctx context.Context, agentID, agentType string, active bool) (block bool, reason string)
}

// Team is a session's subagents: it starts them (Task), keeps those that
// run in the background, and carries messages between agents
// (SendMessage, TaskOutput). Safe for concurrent use.
type Team struct {
	cfg Config

	// ctx is the background subagents' context: Close cancels it.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // background subagents

	mu      sync.Mutex
	seq     int
	members map[string]*member
	closed  bool
}

// member is one subagent, from its start on (kept after its end, for
// TaskOutput).
type member struct {
	id, typ, description string
	depth                int
	parent               string // the agent that started it ("" for the main one)
	parentBox            *tool.Mailbox
	mailbox              *tool.Mailbox
	background           bool
	callID               string
	started              time.Time
	done                 chan struct{} // closed when the subagent's run ended

	mu       sync.Mutex
	turns    int
	lastTool string
	// Set before done is closed.
	final      string
	reason     string
	errText    string
	spent      tool.Spent
	transcript string
}

// mainAgent is how the session's own agent is named in messages.
const mainAgent = "main"

// New returns a team.
func New(cfg Config) *Team {
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = 1
	}
	if cfg.Defs == nil {
		cfg.Defs = Builtins()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Team{cfg: cfg, ctx: ctx, cancel: cancel, members: map[string]*member{}}
}

// Tools returns the tools the session's agent gets: Task, TaskOutput and
// SendMessage.
func (t *Team) Tools() []tool.Tool {
	return []tool.Tool{t.taskTool(), t.taskOutputTool(), t.sendMessageTool()}
}

// Close stops the background subagents and waits for them.
func (t *Team) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	t.cancel()
	t.wg.Wait()
}

// Defs returns the agent types Task offers.
func (t *Team) Defs() []Definition { return slices.Clone(t.cfg.Defs) }

func (t *Team) def(name string) (Definition, bool) {
	for _, d := range t.cfg.Defs {
		if strings.EqualFold(d.Name, name) {
			return d, true
		}
	}
	return Definition{}, false
}

// depthOf is how deep the agent named id runs: 0 for the main agent.
func (t *Team) depthOf(id string) int {
	if id == "" {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if m := t.members[id]; m != nil {
		return m.depth
	}
	return 0
}

func (t *Team) member(id string) *member {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.members[id]
}

// add registers a new subagent and returns it with its id.
func (t *Team) add(m *member) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return fmt.Errorf("the session is ending")
	}
	t.seq++
	m.id = fmt.Sprintf("agent_%d", t.seq)
	t.members[m.id] = m
	return nil
}

// forget drops a subagent that did not start.
func (t *Team) forget(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.members, id)
}

// note follows a subagent's progress for TaskOutput and status lines.
func (m *member) note(e event.Event) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch e := e.(type) {
	case event.ToolUse:
		m.lastTool = e.Name
	case event.Usage:
		m.turns = max(m.turns, e.Turn)
	}
}

func (m *member) ended() bool {
	select {
	case <-m.done:
		return true
	default:
		return false
	}
}

// status describes the subagent for TaskOutput.
func (m *member) status() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	head := fmt.Sprintf("%s (%s: %s)", m.id, m.typ, m.description)
	if !m.ended() {
		s := fmt.Sprintf("%s is still running after %s: %d model calls so far", head, time.Since(m.started).Round(100*time.Millisecond), m.turns)
		if m.lastTool != "" {
			s += ", last tool " + m.lastTool
		}
		return s + "."
	}
	return m.report(head)
}

// report is what the subagent's end says; m.mu is held or m has ended.
func (m *member) report(head string) string {
	var b strings.Builder
	switch m.reason {
	case event.ReasonDone:
		fmt.Fprintf(&b, "%s finished after %d model calls.", head, m.spent.Turns)
	case event.ReasonMaxTurns:
		fmt.Fprintf(&b, "%s stopped at its turn limit after %d model calls, before it was done.", head, m.spent.Turns)
	case event.ReasonCancelled:
		fmt.Fprintf(&b, "%s was cancelled after %d model calls.", head, m.spent.Turns)
	default:
		fmt.Fprintf(&b, "%s failed after %d model calls: %s", head, m.spent.Turns, m.errText)
	}
	if m.final != "" {
		b.WriteString(" Its final answer:\n\n")
		b.WriteString(m.final)
	}
	return b.String()
}
