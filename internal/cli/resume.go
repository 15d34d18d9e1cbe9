package cli

import (
	"fmt"
	"io"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/session"
)

// pastOf is a loaded session for the TUI's timeline: every message still in
// the conversation (rewound ones are gone; those before a compaction stay,
// behind its notice) as the prompts and events the live run showed, and the
// session's usage for the status line. window is the context window to
// measure the last call's prompt against.
func pastOf(st *session.State, model string, window int) *tui.Past {
	p := &tui.Past{Usage: event.Usage{
		Turn: max(st.Turns, 1), Model: model,
		Call: counts(st.LastCall), Total: counts(st.Usage), CostUSD: st.CostUSD, ContextWindow: window,
	}}
	names := map[string]string{} // tool_use id → tool name, for the results
	add := func(e event.Event) { p.Entries = append(p.Entries, tui.Entry{Event: e}) }
	for _, r := range st.Live {
		switch r.Type {
		case session.TypeBoundary:
			add(event.Compact{TokensBefore: r.TokensBefore, TokensAfter: r.TokensAfter, Reason: r.Reason, BoundaryID: r.BoundaryID})
		case session.TypeMessage:
			m := r.Message
			if m.Role == llm.RoleUser {
				if prompt := session.PromptText(*m); prompt != "" {
					p.Entries = append(p.Entries, tui.Entry{Prompt: prompt})
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

// printResumeHint says, once the TUI has left the terminal, how to come back
// to the session: nova -c while it is the workspace's latest, else its id.
// A session without a conversation has nothing to come back to.
func printResumeHint(w io.Writer, sessionsDir, id, cwdFlag string) {
	cmd := "nova -c"
	if latest, err := session.Latest(sessionsDir); err != nil || latest.ID != id {
		cmd = "nova --resume " + id
	}
	if cwdFlag != "" {
		cmd += " --cwd " + shellQuote(cwdFlag)
	}
	fmt.Fprintf(w, "Resume this session with: %s\n", cmd)
}
