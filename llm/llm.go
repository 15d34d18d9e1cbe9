// Package llm is the provider-neutral model client contract: the request the
// loop sends, the normalized stream events every adapter produces, usage and
// the model catalog. Provider wire formats live in the adapter sub-packages
// (llm/anthropic, …) and never leak past this package's types.
package llm

import (
	"context"
	"encoding/json"
	"iter"
)

// Client streams one model call. Implementations must stop producing as soon
// as yield returns false or ctx is done, and must release every resource
// (HTTP body, goroutines) before the iterator returns.
//
// An error is yielded at most once, as the last element. A stream that ends
// without a StreamEnd event and without an error is a protocol violation; the
// caller treats it as a broken stream.
type Client interface {
	Stream(ctx context.Context, req *Request) iter.Seq2[StreamEvent, error]
}

// Role is who authored a message.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType names the kind of a content Block.
type BlockType string

const (
	BlockText             BlockType = "text"
	BlockThinking         BlockType = "thinking"
	BlockRedactedThinking BlockType = "redacted_thinking"
	BlockToolUse          BlockType = "tool_use"
	BlockToolResult       BlockType = "tool_result"
	BlockImage            BlockType = "image"
	// BlockServerToolUse and BlockServerToolResult are a call of a tool the
	// provider runs itself (its web search) and what it found. The loop runs
	// nothing for them; they stay in history because the provider wants them
	// back (see Block.Raw) and frontends show them.
	BlockServerToolUse    BlockType = "server_tool_use"
	BlockServerToolResult BlockType = "server_tool_result"
)

// Block is one piece of message content. Only the fields of its Type are set.
// A flat struct (rather than an interface per kind) keeps history cheap to
// copy and trivially JSON-encodable for transcripts.
type Block struct {
	Type BlockType `json:"type"`

	// Text for BlockText; the thinking text for BlockThinking.
	Text string `json:"text,omitempty"`
	// Signature authenticates a thinking block (Anthropic) or carries a
	// reasoning item's encrypted content (OpenAI Responses); it must be sent
	// back verbatim, and only to the protocol named by Origin.
	Signature string `json:"signature,omitempty"`
	// Origin names the protocol that produced a thinking or server tool block
	// ("anthropic", "openai-responses", "openai-chat"). Signatures, encrypted
	// reasoning and server tool blocks are only valid there: an adapter sends
	// a foreign thinking block as plain context or drops it, and drops a
	// foreign server tool block, so a conversation can switch provider.
	Origin string `json:"origin,omitempty"`
	// ItemID is the provider's id for the item (a Responses reasoning item's
	// "rs_…"), needed to send it back.
	ItemID string `json:"item_id,omitempty"`
	// Data is the opaque payload of BlockRedactedThinking, or the base64 image
	// bytes of BlockImage.
	Data string `json:"data,omitempty"`
	// MediaType of BlockImage ("image/png", …).
	MediaType string `json:"media_type,omitempty"`

	// ToolUseID links a BlockToolUse to its BlockToolResult (and a
	// BlockServerToolUse to its BlockServerToolResult).
	ToolUseID string `json:"tool_use_id,omitempty"`
	// ToolName and Input describe a BlockToolUse or BlockServerToolUse
	// (ToolName also names a BlockServerToolResult's tool).
	ToolName string          `json:"name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	// Content and IsError describe a BlockToolResult; for a
	// BlockServerToolResult, Content is why the provider's tool failed.
	Content string `json:"content,omitempty"`
	IsError bool   `json:"is_error,omitempty"`

	// Results are what a BlockServerToolResult of web_search found, for
	// frontends and transcripts; the provider reads Raw instead.
	Results []SearchResult `json:"results,omitempty"`
	// Raw is a BlockServerToolResult in the provider's own encoding
	// (Anthropic: the web_search_tool_result block, encrypted_content
	// included; Responses: the web_search_call item). The adapter of Origin
	// sends it back as it came; the provider needs it on the next call.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// SearchResult is one page a web search found.
type SearchResult struct {
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
	// PageAge is how old the page is, as the provider says it ("6 days
	// ago"), when it says.
	PageAge string `json:"page_age,omitempty"`
}

// Message is one turn of the conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// Text returns the concatenated text blocks of m.
func (m *Message) Text() string {
	var n int
	for i := range m.Content {
		if m.Content[i].Type == BlockText {
			n += len(m.Content[i].Text)
		}
	}
	b := make([]byte, 0, n)
	for i := range m.Content {
		if m.Content[i].Type == BlockText {
			b = append(b, m.Content[i].Text...)
		}
	}
	return string(b)
}

// ToolCalls returns the tool_use blocks of m in order.
func (m *Message) ToolCalls() []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == BlockToolUse {
			out = append(out, b)
		}
	}
	return out
}

// ToolSpec describes one tool to the model. InputSchema is a JSON Schema
// object; adapters wrap it in their protocol's dialect.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Thinking configures extended thinking / reasoning. A nil *Thinking leaves
// it off (or at the provider's default for models that always reason).
type Thinking struct {
	// BudgetTokens is an explicit budget for models that take one; 0 lets
	// models that choose their own (ModelInfo.AdaptiveThinking) do so, and
	// gives the others a default budget. Adapters keep it at or above the
	// API minimum and below the output limit.
	BudgetTokens int `json:"budget_tokens,omitempty"`
	// Effort is "low", "medium" or "high" ("" = provider default): OpenAI's
	// reasoning effort, Anthropic's effort for adaptive models.
	Effort string `json:"effort,omitempty"`
}

// Protocol origins for Block.Origin and ThinkingDelta.Origin.
const (
	OriginAnthropic       = "anthropic"
	OriginOpenAIResponses = "openai-responses"
	OriginOpenAIChat      = "openai-chat"
)

// Request is one model call. The loop builds it; adapters translate it.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	Thinking  *Thinking
	// WebSearch offers the provider's own web search, a tool the provider
	// runs itself: the stream reports each search as a ServerToolUse and a
	// ServerToolResult, and the answer's sources as Citations. Nil offers
	// none. Protocols without one (Chat Completions) ignore it; the caller
	// says so (HasWebSearch).
	WebSearch *WebSearch
}

// WebSearch configures the provider's web search.
type WebSearch struct {
	// MaxUses caps the searches of one model call where the protocol takes
	// a cap (Anthropic's max_uses); 0 leaves the provider's default.
	MaxUses int
}

// HasWebSearch reports whether the protocol named by origin (llm.Origin…)
// has a web search of its own: Anthropic's web search tool and the
// Responses API's web_search do; Chat Completions has none.
func HasWebSearch(origin string) bool {
	return origin == OriginAnthropic || origin == OriginOpenAIResponses
}
