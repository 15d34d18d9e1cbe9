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
	Turn  int             `json:"turn"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
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
}

// Decision answers a PermissionRequest.
type Decision struct {
	// Behavior is "allow" or "deny".
	Behavior string `json:"behavior"`
	// Always asks to remember the allowance: for the rest of the session,
	// and in the person's own settings file for this workspace.
	Always bool `json:"always,omitempty"`
	// Message is passed to the model with a denial.
	Message string `json:"message,omitempty"`
}

// Decision behaviours.
const (
	Allow = "allow"
	Deny  = "deny"
)

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
	Estimated        bool  `json:"estimated,omitempty"`
}

// Compact reports a compaction of the history.
type Compact struct {
	TokensBefore int64  `json:"tokens_before"`
	TokensAfter  int64  `json:"tokens_after"`
	Reason       string `json:"reason"`
	BoundaryID   string `json:"boundary_id"`
}

// TurnComplete closes a turn that ran tools; the loop goes on.
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

// LoopComplete is always the last event.
type LoopComplete struct {
	Reason     string        `json:"reason"`
	Error      string        `json:"error,omitempty"`
	Turns      int           `json:"turns"`
	FinalText  string        `json:"final_text"`
	Usage      TokenCounts   `json:"usage"`
	CostUSD    float64       `json:"cost_usd"`
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
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

// Marshal encodes e as one JSON object whose first field is "type".
func Marshal(e Event) ([]byte, error) {
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
