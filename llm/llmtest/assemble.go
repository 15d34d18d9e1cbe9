package llmtest

import "github.com/novacode/nova/llm"

// Assistant is the assistant message the loop (agent) assembles from a
// stream's events, for tests of what goes back to the model: a change of
// block index or kind starts a block; the deltas of a text or thinking block
// are joined; tool calls and server tool blocks are taken whole; citations
// are not kept (the text goes back plain).
func Assistant(events []llm.StreamEvent) llm.Message {
	m := llm.Message{Role: llm.RoleAssistant}
	last, lastIdx := llm.BlockType(""), -1
	open := func(t llm.BlockType, idx int) *llm.Block {
		if last != t || lastIdx != idx {
			m.Content = append(m.Content, llm.Block{Type: t})
			last, lastIdx = t, idx
		}
		return &m.Content[len(m.Content)-1]
	}
	for _, ev := range events {
		switch e := ev.(type) {
		case llm.TextDelta:
			open(llm.BlockText, e.Index).Text += e.Text
		case llm.ThinkingDelta:
			if e.Redacted != "" {
				b := open(llm.BlockRedactedThinking, e.Index)
				b.Data, b.Origin = e.Redacted, e.Origin
				continue
			}
			b := open(llm.BlockThinking, e.Index)
			b.Text += e.Text
			b.Signature += e.Signature
			b.Origin = e.Origin
			if e.ItemID != "" {
				b.ItemID = e.ItemID
			}
		case llm.ToolCallComplete:
			*open(llm.BlockToolUse, e.Index) = llm.Block{Type: llm.BlockToolUse, ToolUseID: e.ID, ToolName: e.Name, Input: e.Input}
		case llm.ServerToolUse:
			*open(llm.BlockServerToolUse, e.Index) = llm.Block{Type: llm.BlockServerToolUse, ToolUseID: e.ID, ToolName: e.Name, Input: e.Input, Origin: e.Origin}
		case llm.ServerToolResult:
			b := llm.Block{Type: llm.BlockServerToolResult, ToolUseID: e.ID, ToolName: e.Name, Results: e.Results, Raw: e.Raw, Origin: e.Origin}
			if e.Error != "" {
				b.Content, b.IsError = e.Error, true
			}
			*open(llm.BlockServerToolResult, e.Index) = b
		}
	}
	return m
}
