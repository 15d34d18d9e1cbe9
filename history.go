package nova

import (
	"fmt"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// History is a stored conversation as its live runs showed it: the prompts
// and events in order, and the session's usage.
type History struct {
	Entries []HistoryEntry
	// Usage is the session's totals and its last call, for a status line.
	Usage event.Usage
}

// HistoryEntry is a prompt the person sent, or an event of the loop.
type HistoryEntry struct {
	Prompt string
	Event  event.Event
}

// historyOf is a loaded session as its History: every message still in
// the conversation (rewound ones are gone; those before a compaction stay,
// behind its notice). window is the context window to measure the last
// call's prompt against.
func historyOf(st *session.State, model string, window int) *History {
	p := &History{Usage: event.Usage{
		Turn: max(st.Turns, 1), Model: model,
		Call: counts(st.LastCall), Total: counts(st.Usage), CostUSD: st.CostUSD, ContextWindow: window,
	}}
	names := map[string]string{} // tool_use id → tool name, for the results
	add := func(e event.Event) { p.Entries = append(p.Entries, HistoryEntry{Event: e}) }
	for _, r := range st.Live {
		switch r.Type {
		case session.TypeBoundary:
			add(event.Compact{TokensBefore: r.TokensBefore, TokensAfter: r.TokensAfter, Reason: r.Reason, BoundaryID: r.BoundaryID})
		case session.TypeMessage:
			m := r.Message
			if m.Role == llm.RoleUser {
				if prompt := session.PromptText(*m); prompt != "" {
					p.Entries = append(p.Entries, HistoryEntry{Prompt: prompt})
				}
			}
			for _, b := range m.Content {
				switch b.Type {
				case llm.BlockText:
					if m.Role == llm.RoleAssistant {
						add(event.StreamText{Turn: r.Turn, Text: b.Text})
					}
				case llm.BlockThinking:
					add(event.ThinkingText{Turn: r.Turn, Text: b.Text})
				case llm.BlockToolUse:
					names[b.ToolUseID] = b.ToolName
					add(event.ToolUse{Turn: r.Turn, ID: b.ToolUseID, Name: b.ToolName, Input: b.Input})
				case llm.BlockToolResult:
					add(event.ToolResult{Turn: r.Turn, ID: b.ToolUseID, Name: names[b.ToolUseID], Content: b.Content, IsError: b.IsError})
				}
			}
			if m.Role == llm.RoleAssistant {
				// One answer's blocks stream as one; the next message's
				// text is another block, as it was live.
				add(event.TurnComplete{Turn: r.Turn})
			}
		}
	}
	return p
}

func counts(u llm.Usage) event.TokenCounts {
	return event.TokenCounts{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens, Estimated: u.Estimated}
}

// StoredHistory is the session's conversation as its transcript holds it
// now, for a frontend that must show it afresh (a client of nova serve that
// attaches late). It may be called while a Send runs, from any goroutine:
// the transcript then holds what the run has recorded so far (the prompt and
// each message once complete). Nil before the first prompt.
func (s *Session) StoredHistory() (*History, error) {
	s.mu.Lock()
	if s.store == nil {
		s.mu.Unlock()
		return nil, errInMemory
	}
	rec, model, id := s.store.rec, s.agent.Model, s.id
	s.mu.Unlock()
	if !rec.Exists() {
		return nil, nil
	}
	st, err := session.Load(rec.Path())
	if err != nil {
		return nil, fmt.Errorf("read session %s: %w", id, err)
	}
	return historyOf(st, model, s.windowNow()), nil
}
