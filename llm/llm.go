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
)

// Block is one piece of message content. Only the fields of its Type are set.
// A flat struct (rather than an interface per kind) keeps history cheap to
// copy and trivially JSON-encodable for transcripts.
type Block struct {
	Type BlockType `json:"type"`

	// Text for BlockText; the thinking text for BlockThinking.
	Text string `json:"text,omitempty"`
	// Signature authenticates a thinking block; it must be sent back verbatim.
	Signature string `json:"signature,omitempty"`
	// Data is the opaque payload of BlockRedactedThinking, or the base64 image
	// bytes of BlockImage.
	Data string `json:"data,omitempty"`
	// MediaType of BlockImage ("image/png", …).
	MediaType string `json:"media_type,omitempty"`

	// ToolUseID links a BlockToolUse to its BlockToolResult.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// ToolName and Input describe a BlockToolUse.
	ToolName string          `json:"name,omitempty"`
	Input    json.RawMessage `json:"input,omitempty"`
	// Content and IsError describe a BlockToolResult.
	Content string `json:"content,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
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

// Thinking configures extended thinking. A nil *Thinking leaves it off.
type Thinking struct {
	// BudgetTokens is an explicit budget; 0 lets adaptive models choose.
	BudgetTokens int `json:"budget_tokens,omitempty"`
}

// Request is one model call. The loop builds it; adapters translate it.
type Request struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	Thinking  *Thinking
}
