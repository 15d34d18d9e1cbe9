package openai

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// errProtocol is the cause of an event sequence the Responses protocol does
// not allow.
var errProtocol = errors.New("openai: stream protocol violation")

// Output item kinds the normalizer tracks.
const (
	itemMessage   = "message"
	itemReasoning = "reasoning"
	itemFunction  = "function_call"
	itemSearch    = "web_search_call"
)

// event is one Responses stream event: the members the normalizer reads of
// every event type, decoded from the raw JSON into these few structs. (The
// SDK's union of every event type decodes the same members by reflection,
// at several times the cost per event, and its types made up a tenth of the
// binary.) Members a server may send in another type than the API's are
// lenient (wire.Text, wire.Count): a stream does not fail over them.
type event struct {
	Type         string      `json:"type"`
	Response     *response   `json:"response"`
	Item         *outputItem `json:"item"`
	OutputIndex  int64       `json:"output_index"`
	ItemID       wire.Text   `json:"item_id"`
	Delta        wire.Text   `json:"delta"`
	SummaryIndex int64       `json:"summary_index"`
	Arguments    wire.Text   `json:"arguments"`
	// Annotation is output_text.annotation.added's (a url_citation).
	Annotation *annotation `json:"annotation"`
	// Code and Message are an error event's.
	Code    wire.Text `json:"code"`
	Message wire.Text `json:"message"`
	// Error is a top-level "error" member: not a Responses event at all,
	// but the error chunk Chat Completions and many proxies send.
	Error json.RawMessage `json:"error"`
}

// response is the response object of the lifecycle events.
type response struct {
	Model             wire.Text    `json:"model"`
	Output            []outputItem `json:"output"`
	Usage             *usage       `json:"usage"`
	IncompleteDetails struct {
		Reason wire.Text `json:"reason"`
	} `json:"incomplete_details"`
	// Error is response.failed's error object, kept raw: it is decoded
	// only when the response failed.
	Error json.RawMessage `json:"error"`
}

// outputItem is an output item: a message, a reasoning item, a function
// call or a web search (other built-in tool calls are ignored).
type outputItem struct {
	Type             string    `json:"type"`
	ID               wire.Text `json:"id"`
	Status           wire.Text `json:"status"`
	CallID           wire.Text `json:"call_id"`
	Name             wire.Text `json:"name"`
	Arguments        wire.Text `json:"arguments"`
	EncryptedContent wire.Text `json:"encrypted_content"`
	Summary          []struct {
		Text wire.Text `json:"text"`
	} `json:"summary"`
	Content []struct {
		Type        string       `json:"type"`
		Text        wire.Text    `json:"text"`
		Refusal     wire.Text    `json:"refusal"`
		Annotations []annotation `json:"annotations"`
	} `json:"content"`
	// Action is a web_search_call's: what it did (search, open_page,
	// find_in_page) and, when include[] asked, the sources it found.
	Action *searchAction `json:"action"`
}

type searchAction struct {
	Type    string      `json:"type"`
	Query   wire.Text   `json:"query"`
	Queries []wire.Text `json:"queries"`
	URL     wire.Text   `json:"url"`
	Pattern wire.Text   `json:"pattern"`
	Sources []struct {
		URL wire.Text `json:"url"`
	} `json:"sources"`
}

// annotation is an output_text annotation; only url_citation, a web
// search's source, is surfaced.
type annotation struct {
	Type  string    `json:"type"`
	URL   wire.Text `json:"url"`
	Title wire.Text `json:"title"`
}

type usage struct {
	InputTokens        wire.Count `json:"input_tokens"`
	OutputTokens       wire.Count `json:"output_tokens"`
	InputTokensDetails struct {
		CachedTokens     wire.Count `json:"cached_tokens"`
		CacheWriteTokens wire.Count `json:"cache_write_tokens"`
	} `json:"input_tokens_details"`
}

// doneMarker ends a Chat Completions stream; a Responses stream has no use
// for it, and a server that sends one has given up on the response.
var doneMarker = []byte("[DONE]")

// normalizer turns Responses stream events into llm.StreamEvents.
//
// The Index of every event is the item's output_index, so each output item
// (a message, a reasoning item, a function call) is one block to the loop.
type normalizer struct {
	started bool // an event arrived: failures now are mid-stream
	model   string
	// items are the output items seen so far, in arrival order. A response
	// has a handful, so a slice searched linearly beats a map.
	items    []trackedItem
	calls    int   // function calls announced
	searches int64 // web searches that ran
	refusal  bool  // the model refused (refusal content part)
	// out holds the events of the latest handle call; it is reused from one
	// event to the next, since most events yield exactly one.
	out []llm.StreamEvent
}

// trackedItem is the state of one output item.
type trackedItem struct {
	index int64  // output_index
	id    string // item id: msg_…, rs_…, fc_…
	kind  string
	// Function calls.
	callID, name string
	args         []byte // concatenated argument deltas
	// streamed is set once a text, summary or argument delta of the item was
	// emitted, so that the item's final form is not emitted again.
	streamed bool
	done     bool  // finished: ToolCallComplete or the encrypted content emitted
	summary  int64 // summary_index of the latest summary delta
	// cited: a citation of the message came as an annotation event, so
	// the annotations of its final form are not emitted again.
	cited bool
}

// handle normalizes one server-sent event for wire.Pump: the events to
// yield, whether the response is complete (StreamEnd is then the last event)
// and a protocol or API error that ends the stream after the events.
func (n *normalizer) handle(sse wire.Event) ([]llm.StreamEvent, bool, error) {
	n.started = true
	n.out = n.out[:0]
	if bytes.HasPrefix(sse.Data, doneMarker) {
		return nil, false, wire.Unfinished("response.completed")
	}
	var ev event
	if err := json.Unmarshal(sse.Data, &ev); err != nil {
		return nil, false, wire.Transport(err, true)
	}
	if ev.Error != nil {
		return nil, false, fromErrorChunk(sse, ev.Error)
	}
	end, err := n.event(&ev, sse.Data)
	return n.out, end, err
}

// event normalizes one event into n.out. It reports whether the response
// is complete (StreamEnd is then the last event of n.out) or a protocol or
// API error that ends the stream; events in n.out come before the error.
// raw is the event's JSON.
func (n *normalizer) event(ev *event, raw []byte) (bool, error) {
	// A member the event lacks reads as empty, as the API's zero values.
	r, item := ev.Response, ev.Item
	if r == nil {
		r = &response{}
	}
	if item == nil {
		item = &outputItem{}
	}
	delta := string(ev.Delta)
	switch ev.Type {
	case "response.created", "response.in_progress", "response.queued":
		if r.Model != "" {
			n.model = string(r.Model)
		}

	case "response.output_item.added":
		it := item
		switch it.Type {
		case itemFunction:
			if n.item(ev.OutputIndex, itemFunction, string(it.ID)) != nil {
				// Announced already: a call starts once.
				break
			}
			// Without a call id the result could not be paired; the item id
			// is unique too, and is what the call is known by here.
			callID := cmp.Or(string(it.CallID), string(it.ID))
			n.items = append(n.items, trackedItem{index: ev.OutputIndex, id: string(it.ID), kind: itemFunction, callID: callID, name: string(it.Name)})
			n.calls++
			n.emit(llm.ToolCallStart{Index: int(ev.OutputIndex), ID: callID, Name: string(it.Name)})
		case itemMessage, itemReasoning, itemSearch:
			n.items = append(n.items, trackedItem{index: ev.OutputIndex, id: string(it.ID), kind: it.Type})
		}
		// Other built-in tool calls (file search, …) are never requested
		// by this adapter; a server that adds them anyway is ignored. A
		// search is reported once done, with its query (the
		// web_search_call.* progress events carry nothing more).

	case "response.output_text.annotation.added":
		if a := ev.Annotation; a != nil && a.Type == "url_citation" && a.URL != "" {
			// It comes after the text it spans.
			n.track(ev.OutputIndex, itemMessage, string(ev.ItemID)).cited = true
			n.emit(llm.Citation{Index: int(ev.OutputIndex), URL: string(a.URL), Title: string(a.Title)})
		}

	case "response.output_text.delta":
		if delta != "" {
			n.track(ev.OutputIndex, itemMessage, string(ev.ItemID)).streamed = true
			n.emit(llm.TextDelta{Index: int(ev.OutputIndex), Text: delta})
		}

	case "response.refusal.delta":
		// A refusal is what the model says instead of an answer: the user
		// sees it as text, and the stop reason tells the loop.
		n.refusal = true
		if delta != "" {
			n.track(ev.OutputIndex, itemMessage, string(ev.ItemID)).streamed = true
			n.emit(llm.TextDelta{Index: int(ev.OutputIndex), Text: delta})
		}

	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		if delta == "" {
			break
		}
		text := delta
		it := n.track(ev.OutputIndex, itemReasoning, string(ev.ItemID))
		// A summary comes in parts (one per reasoning step). The loop joins
		// the deltas of a block into one text, so a part after the first
		// starts a new paragraph there.
		if ev.Type == "response.reasoning_summary_text.delta" {
			if it.streamed && ev.SummaryIndex != it.summary {
				text = "\n\n" + text
			}
			it.summary = ev.SummaryIndex
		}
		it.streamed = true
		n.emit(llm.ThinkingDelta{Index: int(ev.OutputIndex), Text: text, ItemID: it.id, Origin: llm.OriginOpenAIResponses})

	case "response.function_call_arguments.delta":
		it := n.item(ev.OutputIndex, itemFunction, string(ev.ItemID))
		if it == nil || it.done {
			return false, &llm.Error{Kind: llm.ErrBrokenStream, Err: errProtocol,
				Message: fmt.Sprintf("function_call_arguments.delta for output item %d, which is not an open function call", ev.OutputIndex)}
		}
		if delta != "" {
			it.streamed = true
			it.args = append(it.args, delta...)
			n.emit(llm.ToolCallDelta{Index: int(ev.OutputIndex), ID: it.callID, PartialJSON: delta})
		}

	case "response.function_call_arguments.done":
		it := n.item(ev.OutputIndex, itemFunction, string(ev.ItemID))
		if it == nil {
			return false, &llm.Error{Kind: llm.ErrBrokenStream, Err: errProtocol,
				Message: fmt.Sprintf("function_call_arguments.done for output item %d, which is not a function call", ev.OutputIndex)}
		}
		n.completeCall(it, string(ev.Arguments))

	case "response.output_item.done":
		n.itemDone(ev.OutputIndex, item, func() json.RawMessage { return rawMember(raw, "item") })

	case "response.completed":
		n.finish(r, raw)
		stop := llm.StopEndTurn
		switch {
		case n.calls > 0:
			stop = llm.StopToolUse
		case n.refusal:
			stop = llm.StopRefusal
		}
		n.emit(llm.StreamEnd{StopReason: stop, Usage: n.usage(r), Model: n.model})
		return true, nil

	case "response.incomplete":
		// The response stopped early but what it produced is valid: it ends
		// like a completed one, with the reason as its stop reason.
		n.finish(r, raw)
		n.emit(llm.StreamEnd{StopReason: incompleteReason(string(r.IncompleteDetails.Reason)), Usage: n.usage(r), Model: n.model})
		return true, nil

	case "response.failed":
		var e struct {
			Code    wire.Text `json:"code"`
			Message wire.Text `json:"message"`
		}
		// An error of an unexpected shape still fails the response; its
		// raw JSON then says what there is to say.
		_ = json.Unmarshal(r.Error, &e)
		return false, streamError(ev.Type, string(e.Code), "", string(e.Message), string(r.Error))

	case "error":
		// An error event of the Responses protocol: code and message at the
		// top level.
		return false, streamError(ev.Type, string(ev.Code), "", string(ev.Message), string(bytes.TrimSpace(raw)))
	}
	// Lifecycle events (content_part.*, *.done of text and summaries) and
	// unknown event types carry nothing new and are ignored, as the API's
	// versioning policy asks.
	return false, nil
}

func (n *normalizer) emit(ev llm.StreamEvent) { n.out = append(n.out, ev) }

// item returns the tracked output item of the given kind that id names,
// or, when either side has no id (some compatible servers omit them), the
// one at index. Ids come first because an index is only a position: a final
// response whose output left an item out would shift them, and a call
// matched by position could be started twice.
func (n *normalizer) item(index int64, kind, id string) *trackedItem {
	for i := len(n.items) - 1; i >= 0; i-- {
		it := &n.items[i]
		if it.kind != kind {
			continue
		}
		if id != "" && it.id != "" {
			if it.id == id {
				return it
			}
			continue
		}
		if it.index == index {
			return it
		}
	}
	return nil
}

// track returns the output item of the given kind (see item), tracking it
// first if its output_item.added never came, so that its done event does
// not emit its content a second time.
func (n *normalizer) track(index int64, kind, id string) *trackedItem {
	if it := n.item(index, kind, id); it != nil {
		if it.id == "" {
			it.id = id
		}
		return it
	}
	n.items = append(n.items, trackedItem{index: index, id: id, kind: kind})
	return &n.items[len(n.items)-1]
}

// completeCall emits the ToolCallComplete of a function call, once. args is
// the complete argument string the server reported, which wins over the
// concatenated deltas (they are the same on OpenAI; a server that sent no
// deltas at all gets one synthesized, so that the deltas of every call add up
// to its input).
func (n *normalizer) completeCall(it *trackedItem, args string) {
	if it.done {
		return
	}
	it.done = true
	var input json.RawMessage
	switch {
	case args != "":
		if !it.streamed {
			n.emit(llm.ToolCallDelta{Index: int(it.index), ID: it.callID, PartialJSON: args})
		}
		input = json.RawMessage(args)
	case len(it.args) > 0:
		input = it.args
	default:
		// A function without parameters; {} is also what the API expects
		// back as its arguments.
		input = json.RawMessage("{}")
	}
	n.emit(llm.ToolCallComplete{Index: int(it.index), ID: it.callID, Name: it.name, Input: input})
}

// itemDone handles a finished output item (output_item.done, or an item of
// the final response). It completes function calls not yet completed, emits
// the encrypted content of reasoning, reports web searches, and emits the
// text (and citations) of items whose deltas never came (some compatible
// servers send only finished items). raw returns the item's JSON.
func (n *normalizer) itemDone(index int64, item *outputItem, raw func() json.RawMessage) {
	switch item.Type {
	case itemSearch:
		it := n.track(index, itemSearch, string(item.ID))
		if it.done {
			return
		}
		it.done = true
		n.search(index, item, raw())

	case itemFunction:
		it := n.item(index, itemFunction, string(item.ID))
		if it == nil && item.CallID != "" {
			for i := range n.items {
				if n.items[i].kind == itemFunction && n.items[i].callID == string(item.CallID) {
					it = &n.items[i]
				}
			}
		}
		if it == nil {
			callID := cmp.Or(string(item.CallID), string(item.ID))
			n.items = append(n.items, trackedItem{index: index, id: string(item.ID), kind: itemFunction, callID: callID, name: string(item.Name)})
			n.calls++
			it = &n.items[len(n.items)-1]
			n.emit(llm.ToolCallStart{Index: int(index), ID: callID, Name: string(item.Name)})
		}
		n.completeCall(it, string(item.Arguments))

	case itemReasoning:
		it := n.track(index, itemReasoning, string(item.ID))
		if it.done {
			return
		}
		it.done = true
		var text string
		if !it.streamed {
			for i, s := range item.Summary {
				if i > 0 && text != "" {
					text += "\n\n"
				}
				text += string(s.Text)
			}
		}
		// The encrypted content of output_item.done is the one to send back:
		// output_item.added's may be incomplete. Without it the item cannot
		// be sent back (store is false), so a reasoning item with neither
		// text nor encrypted content yields nothing.
		if text != "" || item.EncryptedContent != "" {
			id := cmp.Or(string(item.ID), it.id)
			n.emit(llm.ThinkingDelta{Index: int(index), Text: text, Signature: string(item.EncryptedContent), ItemID: id, Origin: llm.OriginOpenAIResponses})
		}

	case itemMessage:
		it := n.track(index, itemMessage, string(item.ID))
		if !it.streamed {
			it.streamed = true
			for i := range item.Content {
				c := &item.Content[i]
				text := string(c.Text)
				if c.Type == "refusal" {
					n.refusal = true
					text = string(c.Refusal)
				}
				if text != "" {
					n.emit(llm.TextDelta{Index: int(index), Text: text})
				}
			}
		}
		if it.cited {
			return
		}
		it.cited = true
		for i := range item.Content {
			for _, a := range item.Content[i].Annotations {
				if a.Type == "url_citation" && a.URL != "" {
					n.emit(llm.Citation{Index: int(index), URL: string(a.URL), Title: string(a.Title)})
				}
			}
		}
	}
}

// search reports a finished web_search_call: the call (its query, or the
// page it opened) and its result (the sources' URLs, which come only when
// include[] asks for them), with the item, which goes back on the next
// call. A search that did not fail counts as one the API bills.
func (n *normalizer) search(index int64, item *outputItem, raw json.RawMessage) {
	var compact bytes.Buffer
	if json.Compact(&compact, raw) != nil {
		return // no item to send back: nothing to report either
	}
	id := cmp.Or(string(item.ID), fmt.Sprintf("ws_%d", index))
	a := item.Action
	if a == nil {
		a = &searchAction{}
	}
	var input any
	switch a.Type {
	case "open_page":
		input = struct {
			URL string `json:"url"`
		}{string(a.URL)}
	case "find_in_page":
		input = struct {
			URL     string `json:"url"`
			Pattern string `json:"pattern"`
		}{string(a.URL), string(a.Pattern)}
	default:
		q := string(a.Query)
		if q == "" && len(a.Queries) > 0 {
			q = string(a.Queries[0])
		}
		input = struct {
			Query string `json:"query"`
		}{q}
	}
	in, _ := json.Marshal(input)
	res := llm.ServerToolResult{Index: int(index), ID: id, Name: "web_search", Raw: compact.Bytes(), Origin: llm.OriginOpenAIResponses}
	for _, s := range a.Sources {
		if s.URL != "" {
			res.Results = append(res.Results, llm.SearchResult{URL: string(s.URL)})
		}
	}
	switch st := string(item.Status); st {
	case "completed", "":
		n.searches++
	case "failed":
		res.Error = "the search failed"
	default:
		res.Error = "the search did not finish (" + st + ")"
	}
	n.emit(llm.ServerToolUse{Index: int(index), ID: id, Name: "web_search", Input: in, Origin: llm.OriginOpenAIResponses})
	n.emit(res)
}

// rawMember returns the JSON of member key of the JSON object raw.
func rawMember(raw []byte, key string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m[key]
}

// finish closes what the final response leaves open: items whose
// output_item.done never came are taken from the response's output, and
// function calls still open after that are completed with what streamed.
func (n *normalizer) finish(r *response, raw []byte) {
	if r.Model != "" {
		n.model = string(r.Model)
	}
	for i := range r.Output {
		n.itemDone(int64(i), &r.Output[i], func() json.RawMessage {
			var out []json.RawMessage
			_ = json.Unmarshal(rawMember(rawMember(raw, "response"), "output"), &out)
			if i < len(out) {
				return out[i]
			}
			return nil
		})
	}
	for i := range n.items {
		if it := &n.items[i]; it.kind == itemFunction && !it.done {
			n.completeCall(it, "")
		}
	}
}

// usage is the response's usage with the searches that ran.
func (n *normalizer) usage(r *response) llm.Usage {
	u := r.usage()
	u.WebSearchRequests = n.searches
	return u
}

// usage normalizes the response's token counts. input_tokens includes the
// cached tokens (and those written to the cache), so InputTokens is only the
// uncached rest. A response without usage gives zero figures: the caller
// estimates them.
func (r *response) usage() llm.Usage {
	u := r.Usage
	if u == nil {
		return llm.Usage{}
	}
	cached := int64(u.InputTokensDetails.CachedTokens)
	written := int64(u.InputTokensDetails.CacheWriteTokens)
	return llm.Usage{
		InputTokens:      max(0, int64(u.InputTokens)-cached-written),
		OutputTokens:     int64(u.OutputTokens), // reasoning tokens included
		CacheReadTokens:  cached,
		CacheWriteTokens: written,
	}
}

// incompleteReason maps incomplete_details.reason onto llm.StopReason.
// Unknown reasons pass through unchanged so that they are visible rather
// than lost.
func incompleteReason(reason string) llm.StopReason {
	switch reason {
	case "max_output_tokens":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	case "":
		return llm.StopReason("incomplete")
	}
	return llm.StopReason(reason)
}
