// Package event is the contract between the agent loop and everything that
// consumes it (TUI, print mode, SDK callers). Events are plain
// structs; the set is closed and grows only by addition. Each encodes to one
// JSON object with a snake_case "type" field (see event.schema.json).
//
// Invariant: LoopComplete is always the last event of a run; nothing follows it.
package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Event is one thing that happened in a run.
type Event interface {
	// Type is the event's wire name, e.g. "stream_text".
	Type() string
}

// Type names.
const (
	TypeStreamText        = "stream_text"
	TypeThinkingText      = "thinking_text"
	TypeToolUse           = "tool_use"
	TypeToolResult        = "tool_result"
	TypePermissionRequest = "permission_request"
	TypeUsage             = "usage"
	TypeCompact           = "compact"
	TypeTurnComplete      = "turn_complete"
	TypeLoopComplete      = "loop_complete"
	TypeQuestion          = "question"
	TypeToolDone          = "tool_done"
	TypeTodo              = "todo"
	TypeWebSearch         = "web_search"
	TypeCitation          = "citation"
	TypeRetry             = "retry"
	TypeWarning           = "warning"
	TypeMailbox           = "mailbox"
)

// StreamText is a delta of the model's answer text.
type StreamText struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

// ThinkingText is a delta of the model's reasoning.
type ThinkingText struct {
	Turn int    `json:"turn"`
	Text string `json:"text"`
}

// ToolUse is a complete tool call, yielded as soon as its block is complete
// in the model's stream (the model may still be streaming).
type ToolUse struct {
	Turn int    `json:"turn"`
	ID   string `json:"id"`
	Name string `json:"name"`
	// Input is what the call runs with: the model's arguments, or those a
	// PreToolUse hook replaced them with.
	Input json.RawMessage `json:"input"`
	// ModelInput is the model's own arguments, set only when a hook
	// replaced them (the model's tool_use block in history keeps them).
	ModelInput json.RawMessage `json:"model_input,omitempty"`
}

// ToolDone says a tool call has finished running, or was settled without
// running (denied, unknown tool, bad arguments, cancelled). It comes as each
// call ends, in the order they end, after the call's ToolUse and before its
// ToolResult: results come together, in call order, once the whole batch is
// done (size control needs all of them), so a frontend learns from ToolDone
// when to stop showing a call as running.
type ToolDone struct {
	Turn       int    `json:"turn"`
	ID         string `json:"id"`
	Name       string `json:"name"`
	IsError    bool   `json:"is_error"`
	DurationMS int64  `json:"duration_ms"`
}

// ToolResult is a tool call's outcome as it entered the history (after size
// control).
type ToolResult struct {
	Turn      int    `json:"turn"`
	ID        string `json:"id"`
	Name      string `json:"name"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
	Cancelled bool   `json:"cancelled,omitempty"`
	Denied    bool   `json:"denied,omitempty"`
	// Reason says why a denied call was denied: the permission chain's
	// reason, or that the person said no (and what they said).
	Reason string `json:"reason,omitempty"`
	// NeedsApproval marks a call denied only because nobody could approve
	// it (print mode). Suggest and SuggestMode then say what would have
	// allowed it: with the rules of Suggest allowed (--allowedTools) and in
	// SuggestMode when set (--permission-mode), a run would. Both are empty
	// when no rule or mode can (a hard check: only a person can approve).
	NeedsApproval bool     `json:"needs_approval,omitempty"`
	Suggest       []string `json:"suggest,omitempty"`
	SuggestMode   string   `json:"suggest_mode,omitempty"`
	DurationMS    int64    `json:"duration_ms"`
	// SpillPath is where the full output went when it was too large for the
	// batch budget; Content then holds a preview.
	SpillPath string `json:"spill_path,omitempty"`
	// Subagent is what a subagent's run cost, for a Task call that ran one
	// (its tokens and cost are in the parent's totals too).
	Subagent *SubagentRun `json:"subagent,omitempty"`
}

// SubagentRun is what one run of a subagent (the Task tool) did and cost.
type SubagentRun struct {
	AgentID   string      `json:"agent_id"`
	AgentType string      `json:"agent_type"`
	Turns     int         `json:"turns"`
	Usage     TokenCounts `json:"usage"`
	CostUSD   float64     `json:"cost_usd"`
	// Background marks a subagent started with run_in_background: the
	// call returned at once and the agent goes on (its cost comes with
	// its end).
	Background bool `json:"background,omitempty"`
	// Transcript is the file that keeps the subagent's conversation, when
	// the session is stored.
	Transcript string `json:"transcript,omitempty"`
}

// Decision answers a PermissionRequest.
type Decision struct {
	// Behavior is "allow" or "deny".
	Behavior string `json:"behavior"`
	// Always asks to remember the allowance: for the rest of the session,
	// and in the person's own settings file for this workspace.
	Always bool `json:"always,omitempty"`
	// Message is passed to the model with a denial (for a plan,
	// keep_planning: the person's feedback).
	Message string `json:"message,omitempty"`
	// Mode, with allow, is the permission mode to switch to before the
	// call runs: approving a plan (ExitPlanMode) is approve_accept_edits,
	// Mode "acceptEdits", or approve_default, Mode "default".
	Mode string `json:"mode,omitempty"`
}

// Decision behaviours.
const (
	Allow = "allow"
	Deny  = "deny"
)

// The choices a PermissionRequest offers: for a call, allow it once, allow
// it always (Decision.Always) or deny it; for a plan (ExitPlanMode),
// approve it and switch to acceptEdits or to default (Decision.Mode), or
// keep planning (a denial whose Message is the feedback for the model).
const (
	ChoiceAllowOnce          = "allow_once"
	ChoiceAllowAlways        = "allow_always"
	ChoiceDeny               = "deny"
	ChoiceApproveAcceptEdits = "approve_accept_edits"
	ChoiceApproveDefault     = "approve_default"
	ChoiceKeepPlanning       = "keep_planning"
)

// PlanChoices are the choices of a plan's PermissionRequest, in order.
var PlanChoices = []string{ChoiceApproveAcceptEdits, ChoiceApproveDefault, ChoiceKeepPlanning}

// DecisionFor is the Decision that answers a request with one of its
// choices; message is the note of a denial or the feedback of
// keep_planning.
func DecisionFor(choice, message string) Decision {
	switch choice {
	case ChoiceAllowOnce:
		return Decision{Behavior: Allow}
	case ChoiceAllowAlways:
		return Decision{Behavior: Allow, Always: true}
	case ChoiceApproveAcceptEdits:
		return Decision{Behavior: Allow, Mode: "acceptEdits"}
	case ChoiceApproveDefault:
		return Decision{Behavior: Allow, Mode: "default"}
	}
	return Decision{Behavior: Deny, Message: message}
}

// PermissionRequest asks whoever drives the loop whether a call may run. The
// loop waits until Respond is called or its context ends.
type PermissionRequest struct {
	Turn    int             `json:"turn"`
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Reason  string          `json:"reason"`
	Choices []string        `json:"choices"`
	// Suggest lists the rules "allow always" would remember.
	Suggest []string `json:"suggest,omitempty"`
	// Plan is the plan the model asks the person to approve (ExitPlanMode),
	// as Markdown; Choices are then PlanChoices.
	Plan string `json:"plan,omitempty"`
	// NeedsPerson says only a person may allow the call now: a hard check
	// (a dangerous command, a protected or secret path, a place outside
	// the workspace) or an ask rule asks, and no mode or hook's allow
	// lifts it (for a file tool's secret or outside path, a rule naming
	// the very path would, next time).
	NeedsPerson bool `json:"needs_person,omitempty"`

	reply *Reply
}

// Reply is the one-shot channel behind a PermissionRequest: the first
// Respond wins, later ones are ignored, so a confused frontend cannot answer
// twice.
type Reply struct {
	once sync.Once
	ch   chan Decision
}

// NewReply makes a reply slot.
func NewReply() *Reply { return &Reply{ch: make(chan Decision, 1)} }

// C delivers the decision.
func (r *Reply) C() <-chan Decision { return r.ch }

// NewPermissionRequest builds a request answered through reply.
func NewPermissionRequest(r PermissionRequest, reply *Reply) *PermissionRequest {
	r.reply = reply
	return &r
}

// Respond answers the request. Only the first call counts; it never blocks.
func (p *PermissionRequest) Respond(d Decision) {
	if p.reply == nil {
		return
	}
	p.reply.once.Do(func() { p.reply.ch <- d })
}

// Question is the model asking the person a question (the AskUserQuestion
// tool). The loop waits until Respond is called, its context ends, or the
// question times out.
type Question struct {
	Turn     int      `json:"turn"`
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Options  []string `json:"options"`

	reply *AnswerReply
}

// Answer answers a Question: one of its options, or free text, or both.
type Answer struct {
	Option string `json:"option,omitempty"`
	Text   string `json:"text,omitempty"`
}

// AnswerReply is the one-shot channel behind a Question; the first
// Respond wins.
type AnswerReply struct {
	once sync.Once
	ch   chan Answer
}

// NewAnswerReply makes a reply slot.
func NewAnswerReply() *AnswerReply { return &AnswerReply{ch: make(chan Answer, 1)} }

// C delivers the answer.
func (r *AnswerReply) C() <-chan Answer { return r.ch }

// NewQuestion builds a question answered through reply.
func NewQuestion(q Question, reply *AnswerReply) *Question {
	q.reply = reply
	return &q
}

// Respond answers the question. Only the first call counts; it never blocks.
func (q *Question) Respond(a Answer) {
	if q.reply == nil {
		return
	}
	q.reply.once.Do(func() { q.reply.ch <- a })
}

// Web search statuses.
const (
	SearchSearching   = "searching"
	SearchDone        = "done"
	SearchFailed      = "failed"
	SearchUnavailable = "unavailable"
)

// WebSearch is a search of the provider's own web search: the provider ran
// it, nothing ran here, and nobody is asked (the session allowed web search
// before the model could search). It comes once the query is known, Status
// "searching", and again with the same ID once the results are in, "done"
// (Results) or "failed" (Error). Status "unavailable" (no ID) says web
// search is off for the rest of the session, and Error why: the endpoint
// rejected it.
type WebSearch struct {
	Turn    int            `json:"turn"`
	ID      string         `json:"id"`
	Query   string         `json:"query"`
	Status  string         `json:"status"`
	Results []SearchResult `json:"results,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// SearchResult is a page a web search found.
type SearchResult struct {
	Title   string `json:"title,omitempty"`
	URL     string `json:"url"`
	PageAge string `json:"page_age,omitempty"`
}

// Citation says the answer text streamed before it is supported by a
// source, a page a web search found: a frontend marks the answer where it
// stands. CitedText, when the provider says, is the passage cited.
type Citation struct {
	Turn      int    `json:"turn"`
	URL       string `json:"url"`
	Title     string `json:"title,omitempty"`
	CitedText string `json:"cited_text,omitempty"`
}

// Usage reports one model call's tokens, the running totals and the cost.
type Usage struct {
	Turn  int         `json:"turn"`
	Model string      `json:"model"`
	Call  TokenCounts `json:"call"`
	Total TokenCounts `json:"total"`
	// CostUSD is the running total cost.
	CostUSD float64 `json:"cost_usd"`
	// ContextWindow is the model's window, to show how full it is.
	ContextWindow int `json:"context_window"`
}

// TokenCounts mirrors llm.Usage (event imports only the standard library).
type TokenCounts struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_input_tokens"`
	CacheWriteTokens int64 `json:"cache_creation_input_tokens"`
	// WebSearchRequests is how many searches the provider's web search
	// ran (billed per search, in CostUSD).
	WebSearchRequests int64 `json:"web_search_requests,omitempty"`
	Estimated         bool  `json:"estimated,omitempty"`
}

// Compact reports a compaction of the history.
type Compact struct {
	TokensBefore int64  `json:"tokens_before"`
	TokensAfter  int64  `json:"tokens_after"`
	Reason       string `json:"reason"`
	BoundaryID   string `json:"boundary_id"`
}

// TurnComplete closes a turn that ran tools (or recovered from an output
// limit, or that the provider paused: stop reason pause_turn); the loop goes
// on.
type TurnComplete struct {
	Turn       int    `json:"turn"`
	StopReason string `json:"stop_reason"`
}

// Loop end reasons.
const (
	ReasonDone      = "done"
	ReasonMaxTurns  = "max_turns"
	ReasonCancelled = "cancelled"
	ReasonError     = "error"
)

// Retry says a model call failed before anything of it was shown and will
// be sent again after a wait (the retry layer's backoff or the server's
// Retry-After). Nothing of the failed call was yielded, so a frontend shows
// it as a notice ("overloaded — retrying in 1.1 s (2/4)") and keeps what
// it shows of the turn as it is.
type Retry struct {
	Turn int `json:"turn"`
	// Kind is the failure's class: rate_limit, overloaded, server,
	// timeout, broken_stream, or another llm.ErrorKind.
	Kind       string `json:"kind"`
	StatusCode int    `json:"status_code,omitempty"`
	// Error is the failure as the model call reported it.
	Error string `json:"error"`
	// Retry counts the retries of this call (1 for the first) out of
	// MaxRetries.
	Retry      int   `json:"retry"`
	MaxRetries int   `json:"max_retries"`
	WaitMS     int64 `json:"wait_ms"`
}

// Notice is the retry as one line for a person: what failed, the wait and
// the count, e.g. "overloaded — retrying in 1.1 s (2/4)". Every frontend
// says it in these words.
func (r Retry) Notice() string {
	what := strings.ReplaceAll(r.Kind, "_", " ")
	switch r.Kind {
	case "rate_limit":
		what = "rate limited"
	case "server":
		what = "server error"
	case "timeout":
		what = "no answer"
	case "broken_stream":
		what = "connection lost"
	case "", "other":
		what = "failed"
	}
	if r.StatusCode != 0 {
		what += fmt.Sprintf(" (HTTP %d)", r.StatusCode)
	}
	wait := fmt.Sprintf("%.1f s", float64(r.WaitMS)/1000)
	// Whole seconds from 10 s on ("9.96" would round to "10.0").
	if r.WaitMS >= 9_950 {
		wait = fmt.Sprintf("%d s", (r.WaitMS+500)/1000)
	}
	return fmt.Sprintf("%s — retrying in %s (%d/%d)", what, wait, r.Retry, r.MaxRetries)
}

// Warning is something the person should know that does not stop the run:
// an "allow always" rule that could not be saved for next time, a file whose
// content could not be kept for rewinding. Frontends show it as it comes;
// none of it goes to the model.
type Warning struct {
	Turn    int    `json:"turn"`
	Message string `json:"message"`
}

// Mailbox is what the loop delivered to the model at the start of a turn
// (in a <system-reminder>, never by editing history): the ends of
// background commands and subagents, and messages from other agents
// (SendMessage), in the order they arrived.
type Mailbox struct {
	Turn  int        `json:"turn"`
	Items []MailItem `json:"items"`
}

// MailItem is one delivery of a Mailbox.
type MailItem struct {
	// Kind is "command" (a background command ended), "agent" (a
	// background subagent ended), "message" (SendMessage) or "hook" (a
	// PostToolUse hook's words on a subagent's call, for that subagent).
	Kind string `json:"kind"`
	// From is the agent that sent a message, or the id of the command or
	// subagent that ended.
	From string `json:"from"`
	Text string `json:"text"`
}

// Child is an event of a subagent's run, as it reaches the consumers of
// the run that started it: ParentToolUseID is the id of the Task call
// that started the subagent, AgentID the subagent's id. Its Type is the
// inner event's, and it encodes as the inner event with
// "parent_tool_use_id" and "agent_id" added, so a consumer that handles
// only its own run's events can skip every Child. A subagent's
// LoopComplete comes as a Child too: it ends the subagent, not the run.
// A permission request or question of a subagent is a Child whose Event
// is the *PermissionRequest or *Question to answer.
type Child struct {
	ParentToolUseID string
	AgentID         string
	Event           Event
}

// Inner returns the event a Child carries, however deeply nested, and the
// id of the outermost Task call that led to it ("" for an event that is
// not a Child).
func Inner(e Event) (Event, string) {
	parent := ""
	for {
		c, ok := e.(Child)
		if !ok {
			return e, parent
		}
		if parent == "" {
			parent = c.ParentToolUseID
		}
		e = c.Event
	}
}

// LoopComplete is always the last event.
type LoopComplete struct {
	Reason string `json:"reason"`
	Error  string `json:"error,omitempty"`
	// StopReason is why the last model call stopped, where that says more
	// than Reason: "refusal" (Reason done: the model declined) or
	// "max_tokens" (Reason error: the output limit was hit again after the
	// recoveries). Empty otherwise.
	StopReason string        `json:"stop_reason,omitempty"`
	Turns      int           `json:"turns"`
	FinalText  string        `json:"final_text"`
	Usage      TokenCounts   `json:"usage"`
	CostUSD    float64       `json:"cost_usd"`
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
}

// Todo is the model's task list after a TodoWrite call changed it: the
// whole list, in the model's order. It comes after that call's ToolDone.
type Todo struct {
	Turn  int        `json:"turn"`
	Todos []TodoItem `json:"todos"`
}

// TodoItem is one task of a Todo.
type TodoItem struct {
	Content string `json:"content"`
	// Status is "pending", "in_progress" or "completed".
	Status string `json:"status"`
	// ActiveForm is the task as an action in progress ("Running the
	// tests"), for showing while it is in progress.
	ActiveForm string `json:"active_form"`
}

func (StreamText) Type() string         { return TypeStreamText }
func (ThinkingText) Type() string       { return TypeThinkingText }
func (ToolUse) Type() string            { return TypeToolUse }
func (ToolResult) Type() string         { return TypeToolResult }
func (ToolDone) Type() string           { return TypeToolDone }
func (*PermissionRequest) Type() string { return TypePermissionRequest }
func (Usage) Type() string              { return TypeUsage }
func (Compact) Type() string            { return TypeCompact }
func (TurnComplete) Type() string       { return TypeTurnComplete }
func (LoopComplete) Type() string       { return TypeLoopComplete }
func (*Question) Type() string          { return TypeQuestion }
func (Todo) Type() string               { return TypeTodo }
func (WebSearch) Type() string          { return TypeWebSearch }
func (Citation) Type() string           { return TypeCitation }
func (Retry) Type() string              { return TypeRetry }
func (Warning) Type() string            { return TypeWarning }
func (Mailbox) Type() string            { return TypeMailbox }
func (c Child) Type() string            { return c.Event.Type() }

// MarshalJSON encodes the inner event (with its "type") plus
// "parent_tool_use_id" and "agent_id". Nested children keep the innermost
// parent: the Task call whose subagent produced the event.
func (c Child) MarshalJSON() ([]byte, error) {
	inner, err := Marshal(c.Event)
	if err != nil {
		return nil, err
	}
	if _, nested := c.Event.(Child); nested {
		return inner, nil
	}
	extra, err := json.Marshal(struct {
		Parent string `json:"parent_tool_use_id"`
		Agent  string `json:"agent_id,omitempty"`
	}{c.ParentToolUseID, c.AgentID})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(inner) + len(extra))
	b.Write(inner[:len(inner)-1])
	b.WriteByte(',')
	b.Write(extra[1:])
	return b.Bytes(), nil
}

// Marshal encodes e as one JSON object whose first field is "type".
func Marshal(e Event) ([]byte, error) {
	if c, ok := e.(Child); ok {
		return c.MarshalJSON()
	}
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return withType(e.Type(), body), nil
}

// withType splices "type" into an encoded object; cheaper than a map round-trip.
func withType(typ string, body []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(body) + len(typ) + 12)
	b.WriteString(`{"type":"`)
	b.WriteString(typ)
	b.WriteByte('"')
	if len(body) > 2 {
		b.WriteByte(',')
		b.Write(body[1:])
	} else {
		b.WriteByte('}')
	}
	return b.Bytes()
}
