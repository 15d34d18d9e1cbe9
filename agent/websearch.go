package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission/verdict"
)

// WebSearchTool is the name the permission chain knows the provider's web
// search by: rules say WebSearch, as for a tool.
const WebSearchTool = "WebSearch"

// webSearchAsk is the id of the permission request about web search; it
// answers no call.
const webSearchAsk = "web_search"

// searchState is a conversation's answer about web search.
type searchState int8

const (
	searchUndecided searchState = iota
	searchOn
	searchOff
)

// searchFor returns the web search the run's requests offer: a.WebSearch
// once the conversation allowed it, else nil. It decides first if the
// conversation has not: the provider runs the searches, so no call can be
// asked about one by one; the whole session is asked once, before its first
// request offers the tool (and the tools array stays the same afterwards,
// as prompt caching wants). The chain decides the WebSearch tool: allow
// offers it, deny does not, ask puts a permission_request (ID "web_search")
// to the person if AskWebSearch says to (not in a NonInteractive run), and
// otherwise leaves it off.
func (r *run) searchFor(ctx context.Context) *llm.WebSearch {
	a := r.a
	if a.WebSearch == nil {
		return nil
	}
	if r.conv.webSearch == searchUndecided {
		r.conv.webSearch = r.decideSearch(ctx)
	}
	if r.conv.webSearch != searchOn {
		return nil
	}
	return a.WebSearch
}

func (r *run) decideSearch(ctx context.Context) searchState {
	a := r.a
	call := ToolCall{ID: webSearchAsk, Name: WebSearchTool, Input: json.RawMessage("{}")}
	dec := a.check(verdict.Call{Tool: WebSearchTool, Input: call.Input})
	switch {
	case dec.Behavior == verdict.Allow:
		return searchOn
	case dec.Behavior == verdict.Deny || a.NonInteractive || !a.AskWebSearch:
		return searchOff
	}
	reply := event.NewReply()
	reason := cmp.Or(dec.Reason, "the model may search the web at the model provider for the rest of this session; the provider bills each search")
	if !r.emit(event.NewPermissionRequest(event.PermissionRequest{
		Turn: r.turn, ID: call.ID, Name: call.Name, Input: call.Input,
		Reason: reason, Suggest: dec.Suggest, NeedsPerson: dec.NeedsPerson || dec.Hard,
		Choices: []string{"allow_once", "allow_always", "deny"},
	}, reply)) {
		return searchUndecided
	}
	select {
	case d := <-reply.C():
		if d.Behavior != event.Allow {
			return searchOff
		}
		if d.Always && a.AllowAlways != nil {
			if err := a.AllowAlways(call, dec); err != nil {
				r.emit(event.Warning{Turn: r.turn, Message: err.Error()})
			}
		}
		return searchOn
	case <-ctx.Done():
		// Cancelled before an answer: asked again next time.
		return searchUndecided
	}
}

// searchRejected turns web search off for the rest of the conversation when
// the endpoint refused a request over it before anything streamed
// (llm.WebSearchRejected: an Anthropic-compatible gateway without the
// server tool), and says so with a web_search event of status unavailable.
// It reports whether the turn should be sent again without it.
func (r *run) searchRejected(req *llm.Request, s streamed) bool {
	if req.WebSearch == nil || len(s.msg.Content) > 0 || !llm.WebSearchRejected(s.err) {
		return false
	}
	r.conv.webSearch, r.search, req.WebSearch = searchOff, nil, nil
	r.emit(event.WebSearch{Turn: r.turn, Status: event.SearchUnavailable,
		Error: fmt.Sprintf("the endpoint does not take web search, so the session goes on without it (%v)", s.err)})
	return true
}

// searchEvent is the web_search event of a server tool call: "searching"
// until its result comes.
func searchEvent(turn int, id string, input json.RawMessage) event.WebSearch {
	var in struct {
		Query string `json:"query"`
		URL   string `json:"url"`
	}
	_ = json.Unmarshal(input, &in)
	q := in.Query
	if q == "" {
		q = in.URL // a page the search opened (Responses' open_page)
	}
	return event.WebSearch{Turn: turn, ID: id, Query: q, Status: event.SearchSearching}
}

// searchDone is the web_search event of a server tool result; start is the
// event of its call.
func searchDone(start event.WebSearch, e llm.ServerToolResult) event.WebSearch {
	start.Status = event.SearchDone
	if e.Error != "" {
		start.Status, start.Error = event.SearchFailed, e.Error
	}
	for _, x := range e.Results {
		start.Results = append(start.Results, event.SearchResult{Title: x.Title, URL: x.URL, PageAge: x.PageAge})
	}
	return start
}

// answeredSearches returns m without the server tool calls that have no
// result in it: a stream cut between a search and its result (or an answer
// cut by the output limit) would leave one, and the provider rejects a
// call sent back alone, in every later request of the session. A turn the
// provider paused keeps its call: the provider finishes it.
func answeredSearches(m llm.Message) llm.Message {
	answered := map[string]bool{}
	orphans := false
	for _, b := range m.Content {
		if b.Type == llm.BlockServerToolResult {
			answered[b.ToolUseID] = true
		}
	}
	for _, b := range m.Content {
		if b.Type == llm.BlockServerToolUse && !answered[b.ToolUseID] {
			orphans = true
		}
	}
	if !orphans {
		return m
	}
	out := llm.Message{Role: m.Role, Content: make([]llm.Block, 0, len(m.Content))}
	for _, b := range m.Content {
		if b.Type != llm.BlockServerToolUse || answered[b.ToolUseID] {
			out.Content = append(out.Content, b)
		}
	}
	return out
}
