package llmtest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/novacode/nova/llm"
)

// Golden writes normalized stream events one per line, for the adapters'
// golden files. Consecutive deltas of the same kind, block and header are
// coalesced into one line with their count, so that a golden file reads
// like the message it describes. Adapters differ only in how they show
// thinking (signatures, origins, encrypted reasoning) and whether a tool
// delta names its call; those are the hooks.
type Golden struct {
	// Thinking writes a thinking delta with g.Delta or g.Line.
	Thinking func(g *Golden, e llm.ThinkingDelta)
	// ToolDeltaID adds the call's id to tool_delta lines.
	ToolDeltaID bool

	b      strings.Builder
	kind   string
	header string
	index  int
	n      int
	acc    strings.Builder
}

// Render writes events and returns the text.
func (g *Golden) Render(events []llm.StreamEvent) string {
	for _, ev := range events {
		switch e := ev.(type) {
		case llm.TextDelta:
			g.Delta("text", e.Index, "", e.Text)
		case llm.ThinkingDelta:
			g.Thinking(g, e)
		case llm.ToolCallDelta:
			h := ""
			if g.ToolDeltaID {
				h = " id=" + e.ID
			}
			g.Delta("tool_delta", e.Index, h, e.PartialJSON)
		case llm.ToolCallStart:
			g.Line("tool_start[%d] id=%s name=%s", e.Index, e.ID, e.Name)
		case llm.ToolCallComplete:
			g.Line("tool_complete[%d] id=%s name=%s input=%s", e.Index, e.ID, e.Name, e.Input)
		case llm.ServerToolUse:
			g.Line("server_tool_use[%d] id=%s name=%s input=%s", e.Index, e.ID, e.Name, e.Input)
		case llm.ServerToolResult:
			// Raw is opaque (encrypted page contents); what it must be is
			// checked where it is sent back, so its size stands for it.
			g.Line("server_tool_result[%d] id=%s name=%s results=%d error=%q raw=%d bytes", e.Index, e.ID, e.Name, len(e.Results), e.Error, len(e.Raw))
			for _, r := range e.Results {
				g.Line("  result title=%q url=%s page_age=%q", r.Title, r.URL, r.PageAge)
			}
		case llm.Citation:
			g.Line("citation[%d] url=%s title=%q cited=%q", e.Index, e.URL, e.Title, e.CitedText)
		case llm.StreamEnd:
			u := e.Usage
			search := ""
			if u.WebSearchRequests > 0 {
				search = fmt.Sprintf(" web_search:%d", u.WebSearchRequests)
			}
			g.Line("end stop=%s model=%s usage=in:%d out:%d cache_read:%d cache_write:%d%s",
				e.StopReason, e.Model, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, search)
		default:
			g.Line("unknown %#v", ev)
		}
	}
	g.flush()
	return g.b.String()
}

// Delta adds s to the coalesced line for kind, block index and header.
func (g *Golden) Delta(kind string, index int, header, s string) {
	if g.n > 0 && (kind != g.kind || index != g.index || header != g.header) {
		g.flush()
	}
	g.kind, g.index, g.header = kind, index, header
	g.n++
	g.acc.WriteString(s)
}

// Line ends any coalesced line and writes one of its own.
func (g *Golden) Line(format string, args ...any) {
	g.flush()
	fmt.Fprintf(&g.b, format+"\n", args...)
}

func (g *Golden) flush() {
	if g.n == 0 {
		return
	}
	fmt.Fprintf(&g.b, "%s[%d]%s x%d %s\n", g.kind, g.index, g.header, g.n, strconv.Quote(g.acc.String()))
	g.n = 0
	g.acc.Reset()
}
