package tui

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/novacode/nova/internal/tui/render"
)

type blockKind int

const (
	kindUser blockKind = iota
	kindText
	kindThinking
	kindTool
	kindError
	kindInfo
	kindRetry   // a model call being retried (event.Retry)
	kindWarning // event.Warning
	kindMail    // event.Mailbox: one line an item
)

// block is one entry of the timeline. Its rendering is cached per width and
// expansion state, so a frame re-renders nothing that has not changed; the
// model drops the cache of blocks far above the viewport (Model.evict), so
// memory does not grow with every rendering the session has ever shown.
type block struct {
	kind blockKind
	text strings.Builder // prompt, answer, thinking, error or info text

	// Tool card fields.
	id        string
	name      string
	input     json.RawMessage
	start     time.Time
	running   bool
	dur       time.Duration
	result    string
	isError   bool
	denied    bool
	cancelled bool
	pending   bool // finished (tool_done), result not yet arrived
	waiting   bool // a permission request or question about it is open
	// sub is the subagent a Task call started (agents.go); such a card
	// renders as the subagent's.
	sub *subagent

	// sources an answer cites, by footnote number (websearch.go).
	sources []source

	// live marks a block still changing (streaming text, running tool); its
	// cache is refreshed by the frame tick, not on every delta.
	live bool
	// dirty: the content changed since the cache was made.
	dirty bool

	cache    string
	cacheW   int
	cacheExp bool
	lines    int // line count of cache

	// A streaming answer's rendering of its stable prefix (render.StableCut):
	// the first mdDoneLen bytes of text, rendered at width mdDoneW. Each
	// frame renders only what follows, so a long answer costs a frame the
	// same as a short one; the finished answer is rendered whole once.
	mdDone    string
	mdDoneLen int
	mdDoneW   int
}

func (b *block) render(r renderer, width int, expanded bool, now time.Time) string {
	switch b.kind {
	case kindUser:
		return r.Prompt(width, b.text.String())
	case kindText:
		if b.live {
			return b.liveMarkdown(r, width)
		}
		b.mdDone, b.mdDoneLen = "", 0
		return r.Markdown(b.text.String(), width)
	case kindThinking:
		return r.Thinking(width, b.text.String(), expanded)
	case kindTool:
		d := b.dur
		if b.running {
			d = now.Sub(b.start).Truncate(100 * time.Millisecond)
		}
		if b.sub != nil {
			a := b.agentView(expanded)
			a.Duration = d
			return r.AgentCard(width, a)
		}
		return r.ToolCard(width, card{ID: b.id, Name: b.name, Input: b.input, Running: b.running, Duration: d,
			Result: b.result, IsError: b.isError, Denied: b.denied, Cancelled: b.cancelled, Expanded: expanded,
			Pending: b.pending, Waiting: b.waiting})
	case kindError:
		return r.Error(width, b.text.String())
	case kindRetry, kindWarning:
		return r.Notice(width, b.text.String(), b.kind == kindWarning)
	case kindMail:
		return r.Mail(width, strings.Split(b.text.String(), "\n"))
	default:
		return wrap(b.text.String(), width)
	}
}

// view returns the block's cached rendering, refreshing it when the width or
// expansion changed, or when it is dirty and refresh is set (the frame tick
// for live blocks; always for finished ones).
func (b *block) view(r renderer, width int, expanded bool, now time.Time, refresh bool) string {
	stale := b.cacheW != width || b.cacheExp != expanded
	if stale || (b.dirty && (refresh || !b.live)) {
		b.setCache(b.render(r, width, expanded, now), width, expanded)
	}
	return b.cache
}

// setCache keeps out as the rendering at width and expansion state.
func (b *block) setCache(out string, width int, expanded bool) {
	b.cache, b.cacheW, b.cacheExp, b.dirty = out, width, expanded, false
	b.lines = strings.Count(out, "\n") + 1
}

// drop forgets the rendering; the next view renders again. lines is kept:
// it still estimates the block's height for scrolling arithmetic.
func (b *block) drop() {
	b.cache, b.cacheW = "", 0
	b.mdDone, b.mdDoneLen = "", 0
}

// liveMarkdown renders a streaming answer: the part before the stable cut
// is rendered once and kept, the rest on every call. The cut only moves
// forward as text arrives (render.StableCut), so the kept part stays valid.
func (b *block) liveMarkdown(r renderer, width int) string {
	src := b.text.String()
	if b.mdDoneW != width {
		b.mdDone, b.mdDoneLen, b.mdDoneW = "", 0, width
	}
	if cut := render.StableCut(src); cut > b.mdDoneLen {
		b.mdDone = joinBlocks(b.mdDone, r.Markdown(src[b.mdDoneLen:cut], width))
		b.mdDoneLen = cut
	}
	return joinBlocks(b.mdDone, r.Markdown(src[b.mdDoneLen:], width))
}

// joinBlocks puts one blank line between two rendered runs of blocks, as
// the renderers do between blocks of one document.
func joinBlocks(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
