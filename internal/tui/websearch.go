package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/novacode/nova/event"
)

// searchTool is the name a web search's card shows, as the permission rule
// names it.
const searchTool = "WebSearch"

// source is a page an answer cites, with its footnote number.
type source struct {
	n          int
	url, title string
}

// webSearch shows a search of the provider's own web search as a card like
// a tool's: the query while it runs, then the results (folded) or why it
// failed. Web search that went off for the session is a line of its own.
func (m *Model) webSearch(e event.WebSearch) {
	if e.Status == event.SearchUnavailable {
		m.endStream()
		m.addText(kindInfo, e.Error)
		return
	}
	b := m.tools[e.ID]
	if b == nil {
		m.endStream()
		in, _ := json.Marshal(map[string]string{"query": e.Query})
		b = &block{kind: kindTool, id: e.ID, name: searchTool, input: in, start: timeNow(), running: true, live: true}
		m.tools[e.ID] = b
		m.add(b)
	}
	if e.Status == event.SearchSearching {
		return
	}
	b.running, b.live, b.dirty = false, false, true
	b.dur = timeNow().Sub(b.start).Truncate(time.Millisecond)
	if e.Status == event.SearchFailed {
		b.result, b.isError = e.Error, true
		return
	}
	lines := make([]string, 0, len(e.Results))
	for _, r := range e.Results {
		lines = append(lines, sourceText(r.Title, r.URL))
	}
	if len(lines) == 0 {
		lines = append(lines, "no results")
	}
	b.result = strings.Join(lines, "\n")
}

// cite puts a footnote mark where the answer stands: the text streamed so
// far is what the source supports. The sources are listed when the answer
// ends (endStream). A mark goes before trailing spaces and line breaks, so
// that it stays on the line it belongs to.
func (m *Model) cite(e event.Citation) {
	b := m.current
	if b == nil || b.kind != kindText {
		return
	}
	n := 0
	for _, s := range b.sources {
		if s.url == e.URL {
			n = s.n
		}
	}
	if n == 0 {
		n = len(b.sources) + 1
		b.sources = append(b.sources, source{n: n, url: e.URL, title: e.Title})
	}
	text := b.text.String()
	body := strings.TrimRight(text, " \t\n")
	b.text.Reset()
	b.text.WriteString(body + fmt.Sprintf("[%d]", n) + text[len(body):])
	if len(body) < b.mdDoneLen {
		// The mark went into the part already rendered for good.
		b.mdDone, b.mdDoneLen = "", 0
	}
	b.dirty = true
}

// sourcesOf is the list that follows an answer which cited sources, "" for
// none.
func sourcesOf(b *block) string {
	if b.kind != kindText || len(b.sources) == 0 {
		return ""
	}
	var s strings.Builder
	s.WriteString("Sources:")
	for _, x := range b.sources {
		fmt.Fprintf(&s, "\n  [%d] %s", x.n, sourceText(x.title, x.url))
	}
	return s.String()
}

func sourceText(title, url string) string {
	if title == "" {
		return url
	}
	return title + " — " + url
}
