package llm

import (
	"encoding/json"
	"time"
)

// StreamEvent is one normalized event of a model stream. The set is closed:
// TextDelta, ThinkingDelta, ToolCallStart, ToolCallDelta, ToolCallComplete,
// ServerToolUse, ServerToolResult, Citation and StreamEnd from the adapters,
// and Retrying from WithRetry.
type StreamEvent interface{ isStreamEvent() }

// TextDelta is a piece of answer text. Index is the provider's content-block
// index: a change of Index starts a new block.
type TextDelta struct {
	Index int
	Text  string
}

// ThinkingDelta is a piece of reasoning. Signature (Anthropic's signature,
// or a Responses reasoning item's encrypted content) arrives once, usually at
// the end of its block; Redacted carries a redacted_thinking block's opaque
// data, which must be sent back verbatim. ItemID is the provider's item id
// (Responses "rs_…"); Origin is the protocol (llm.Origin…), set on every
// delta so the loop can label the block it assembles.
type ThinkingDelta struct {
	Index     int
	Text      string
	Signature string
	Redacted  string
	ItemID    string
	Origin    string
}

// ToolCallStart announces a tool call whose arguments are about to stream.
type ToolCallStart struct {
	Index int
	ID    string
	Name  string
}

// ToolCallDelta is a fragment of a tool call's argument JSON.
type ToolCallDelta struct {
	Index       int
	ID          string
	PartialJSON string
}

// ToolCallComplete is a tool call whose block is finished. Input is the
// complete argument JSON exactly as the model produced it; it may be invalid
// JSON, which the caller reports back to the model.
type ToolCallComplete struct {
	Index int
	ID    string
	Name  string
	Input json.RawMessage
}

// ServerToolUse is a call of a tool the provider runs itself (its web
// search, Name "web_search"): the loop runs nothing, but keeps it in history
// and shows it. It comes once per call, when its Input (the complete argument
// JSON, {"query": …} for a search) is known; its ServerToolResult follows.
// Origin is the protocol (llm.Origin…).
type ServerToolUse struct {
	Index  int
	ID     string
	Name   string
	Input  json.RawMessage
	Origin string
}

// ServerToolResult is the outcome of the server tool call ID: for a web
// search the pages found, or Error, why it failed. Raw is the provider's own
// encoding of the result, which must go back verbatim on the next call of
// the protocol named by Origin, and to no other (llm.Block.Raw). It may share
// its call's Index (Responses: one item holds both).
type ServerToolResult struct {
	Index   int
	ID      string
	Name    string
	Results []SearchResult
	Error   string
	Raw     json.RawMessage
	Origin  string
}

// Citation says that the answer text streamed before it (in text block
// Index) is supported by a source: a page a web search found. It comes after
// the text it supports, so a frontend can put a footnote mark where the
// answer stands when it arrives. CitedText, when the provider says, is the
// passage of the source.
type Citation struct {
	Index     int
	URL       string
	Title     string
	CitedText string
}

// StreamEnd closes a successful stream.
type StreamEnd struct {
	StopReason StopReason
	Usage      Usage
	Model      string
}

// Retrying says that the call failed before anything of it arrived and will
// be sent again after Wait. Only WithRetry yields it, never an adapter, and
// only before the first event of the attempt that answers: it carries
// nothing of the answer, and a consumer that assembles one skips it.
type Retrying struct {
	// Attempt counts the retries: 1 for the first.
	Attempt int
	// MaxRetries is how many retries the policy allows in all.
	MaxRetries int
	Wait       time.Duration
	// Err is why the last attempt failed (normally an *Error, whose Kind
	// says what happened).
	Err error
}

func (TextDelta) isStreamEvent()        {}
func (ThinkingDelta) isStreamEvent()    {}
func (ToolCallStart) isStreamEvent()    {}
func (ToolCallDelta) isStreamEvent()    {}
func (ToolCallComplete) isStreamEvent() {}
func (ServerToolUse) isStreamEvent()    {}
func (ServerToolResult) isStreamEvent() {}
func (Citation) isStreamEvent()         {}
func (StreamEnd) isStreamEvent()        {}
func (Retrying) isStreamEvent()         {}

// StopReason is why the model stopped, normalized across protocols.
type StopReason string

const (
	StopEndTurn      StopReason = "end_turn"
	StopToolUse      StopReason = "tool_use"
	StopMaxTokens    StopReason = "max_tokens"
	StopSequence     StopReason = "stop_sequence"
	StopRefusal      StopReason = "refusal"
	StopPauseTurn    StopReason = "pause_turn"
	StopContextLimit StopReason = "model_context_window_exceeded"
)

// Usage is token accounting for one call (or a running total). InputTokens +
// CacheReadTokens + CacheWriteTokens is always the whole prompt, whatever the
// protocol counts.
type Usage struct {
	InputTokens      int64 `json:"input_tokens"`
	OutputTokens     int64 `json:"output_tokens"`
	CacheReadTokens  int64 `json:"cache_read_input_tokens"`
	CacheWriteTokens int64 `json:"cache_creation_input_tokens"`
	// WebSearchRequests is how many searches the provider's web search ran,
	// which it bills per search (Anthropic reports the count; for Responses
	// it is the web_search_call items that searched).
	WebSearchRequests int64 `json:"web_search_requests,omitempty"`
	// Estimated is set when the provider reported no usage and the figures
	// were estimated from sizes.
	Estimated bool `json:"estimated,omitempty"`
}

// Add returns u+v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + v.InputTokens,
		OutputTokens:     u.OutputTokens + v.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + v.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + v.CacheWriteTokens,

		WebSearchRequests: u.WebSearchRequests + v.WebSearchRequests,
		Estimated:         u.Estimated || v.Estimated,
	}
}

// PromptTokens is the whole prompt size of the call.
func (u Usage) PromptTokens() int64 {
	return u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens
}
