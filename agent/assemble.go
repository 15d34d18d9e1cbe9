package agent

import (
	"encoding/json"

	"github.com/novacode/nova/llm"
)

// assembler turns one model call's stream into the assistant message. A
// change of block index (or kind) starts a new block; deltas of the same
// block are joined.
type assembler struct {
	msg      llm.Message
	lastKind llm.BlockType
	lastIdx  int
}

func newAssembler() *assembler {
	return &assembler{msg: llm.Message{Role: llm.RoleAssistant}, lastIdx: -1}
}

func (m *assembler) text(e llm.TextDelta) {
	if m.lastKind == llm.BlockText && m.lastIdx == e.Index {
		m.msg.Content[len(m.msg.Content)-1].Text += e.Text
		return
	}
	m.msg.Content = append(m.msg.Content, llm.Block{Type: llm.BlockText, Text: e.Text})
	m.lastKind, m.lastIdx = llm.BlockText, e.Index
}

func (m *assembler) thinking(e llm.ThinkingDelta) {
	switch {
	case e.Redacted != "":
		m.msg.Content = append(m.msg.Content, llm.Block{Type: llm.BlockRedactedThinking, Data: e.Redacted, Origin: e.Origin})
		m.lastKind, m.lastIdx = llm.BlockRedactedThinking, e.Index
	case m.lastKind == llm.BlockThinking && m.lastIdx == e.Index:
		b := &m.msg.Content[len(m.msg.Content)-1]
		b.Text += e.Text
		b.Signature += e.Signature
		if e.ItemID != "" {
			b.ItemID = e.ItemID
		}
	default:
		m.msg.Content = append(m.msg.Content, llm.Block{Type: llm.BlockThinking, Text: e.Text, Signature: e.Signature, ItemID: e.ItemID, Origin: e.Origin})
		m.lastKind, m.lastIdx = llm.BlockThinking, e.Index
	}
}

// toolUse adds a completed call and returns it with its input as it is kept
// in history (broken JSON becomes a JSON string, so history stays encodable).
func (m *assembler) toolUse(e llm.ToolCallComplete) (ToolCall, json.RawMessage) {
	input := validJSON(e.Input)
	m.msg.Content = append(m.msg.Content, llm.Block{Type: llm.BlockToolUse, ToolUseID: e.ID, ToolName: e.Name, Input: input})
	m.lastKind, m.lastIdx = llm.BlockToolUse, e.Index
	return ToolCall{ID: e.ID, Name: e.Name, Input: e.Input}, input
}

// serverToolUse adds a call of the provider's own tool (a web search). Its
// block goes back to the provider as it came, so nothing is repaired.
func (m *assembler) serverToolUse(e llm.ServerToolUse) {
	m.msg.Content = append(m.msg.Content, llm.Block{Type: llm.BlockServerToolUse, ToolUseID: e.ID, ToolName: e.Name, Input: e.Input, Origin: e.Origin})
	m.lastKind, m.lastIdx = llm.BlockServerToolUse, e.Index
}

// serverToolResult adds what the provider's tool found, with the
// provider's own block (Raw), which the provider wants back.
func (m *assembler) serverToolResult(e llm.ServerToolResult) {
	b := llm.Block{Type: llm.BlockServerToolResult, ToolUseID: e.ID, ToolName: e.Name, Results: e.Results, Raw: e.Raw, Origin: e.Origin}
	if e.Error != "" {
		b.Content, b.IsError = e.Error, true
	}
	m.msg.Content = append(m.msg.Content, b)
	m.lastKind, m.lastIdx = llm.BlockServerToolResult, e.Index
}

// validJSON returns in if it is valid JSON, else in as a JSON string: a
// model's broken arguments are kept verbatim, yet history and events stay
// encodable.
func validJSON(in json.RawMessage) json.RawMessage {
	if json.Valid(in) {
		return in
	}
	b, _ := json.Marshal(string(in))
	return b
}
