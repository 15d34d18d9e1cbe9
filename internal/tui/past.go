package tui

import "github.com/novacode/nova/event"

// Past is a conversation that happened before this TUI showed it (a session
// resumed with nova -c, --resume, /resume, or rewound with /rewind), for the
// timeline: the prompts the person typed and the events that showed the
// answers, in order, and the usage the status line shows.
type Past struct {
	Entries []Entry
	// Usage is the session's: Total and CostUSD its running totals, Call
	// its last model call (what fills the context window now).
	Usage event.Usage
}

// Entry is one item of a Past: a prompt (Event nil), or an event of the
// answer (stream_text, thinking_text, tool_use, tool_result, compact).
type Entry struct {
	Prompt string
	Event  event.Event
}

// showPast replaces the timeline with p, rendered as the live events would
// have rendered it, and takes its usage for the status line. A call whose
// result never came (the session was killed while it ran) shows as
// cancelled, as after an interrupted run.
func (m *Model) showPast(p *Past) {
	m.blocks, m.scroll, m.cachedFrom, m.current = nil, 0, 0, nil
	clear(m.tools)
	m.forgetAgents()
	for _, e := range p.Entries {
		if e.Event == nil {
			m.endStream()
			m.addText(kindUser, e.Prompt)
			continue
		}
		m.handleEvent(e.Event)
	}
	m.endStream()
	for _, b := range m.tools {
		if b.running || b.waiting || b.pending {
			b.running, b.waiting, b.pending, b.live, b.cancelled, b.dirty = false, false, false, false, true, true
		}
		if b.sub != nil {
			b.sub.stop()
		}
	}
	clear(m.tools)
	m.usage = p.Usage
	if p.Usage.Model != "" {
		m.model = p.Usage.Model
	}
}
