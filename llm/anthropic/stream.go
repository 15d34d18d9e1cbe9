package anthropic

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/novacode/nova/llm"
)

// errProtocol is the cause of an event sequence the Messages protocol does
// not allow.
var errProtocol = errors.New("anthropic: stream protocol violation")

// normalizer turns the Messages SSE events, already decoded by the SDK, into
// llm.StreamEvents. It reads the union's typed fields directly: AsAny and the
// As* accessors decode the raw JSON a second time, which would double the
// per-event cost for nothing.
type normalizer struct {
	started bool // an event arrived: failures now are mid-stream
	model   string
	stop    llm.StopReason
	usage   llm.Usage
	// tools holds the tool_use and server_tool_use blocks that are open, by
	// content-block index (and skippedBlock for open blocks that are
	// ignored). Blocks stream one after another, so it rarely holds more
	// than one.
	tools map[int]*toolCall
	// servers names the server tool calls by id, for their results.
	servers map[string]string
	// cites holds the citations of the open text block; they are emitted
	// when it ends, after the text they support.
	cites      []llm.StreamEvent
	citesIndex int
	// out holds the event of the latest handle call; it is reused.
	out []llm.StreamEvent
}

type toolCall struct {
	id, name string
	input    []byte // concatenated input_json_delta fragments
	deltas   bool   // at least one input_json_delta arrived
	// startInput is the input of content_block_start when it is not the
	// usual empty object: some Anthropic-compatible servers send the whole
	// input there and no deltas.
	startInput string
	server     bool // a server_tool_use block: the API runs the tool
}

// skippedBlock marks, in normalizer.tools, an open block of a kind this
// adapter does not surface, so that its deltas are not taken for a protocol
// violation.
var skippedBlock = &toolCall{}

// handle normalizes one event for wire.Pump: the events to yield (none or
// one), whether the message is complete, or a protocol error.
func (n *normalizer) handle(ev anthropic.MessageStreamEventUnion) ([]llm.StreamEvent, bool, error) {
	e, end, err := n.event(&ev)
	n.out = n.out[:0]
	if len(n.cites) > 0 && (end || ev.Type == "content_block_stop" && int(ev.Index) == n.citesIndex) {
		// The cited block's text has all come: its citations follow it.
		n.out = append(n.out, n.cites...)
		n.cites = n.cites[:0]
	}
	if e != nil {
		n.out = append(n.out, e)
	}
	return n.out, end, err
}

// event normalizes one event. It returns the event to yield (nil for none),
// whether the message is complete, or a protocol error.
func (n *normalizer) event(ev *anthropic.MessageStreamEventUnion) (llm.StreamEvent, bool, error) {
	n.started = true
	idx := int(ev.Index)
	switch ev.Type {
	case "message_start":
		n.model = ev.Message.Model
		u := &ev.Message.Usage
		n.usage = llm.Usage{
			InputTokens:      u.InputTokens,
			OutputTokens:     u.OutputTokens,
			CacheReadTokens:  u.CacheReadInputTokens,
			CacheWriteTokens: u.CacheCreationInputTokens,
		}

	case "content_block_start":
		cb := &ev.ContentBlock
		switch cb.Type {
		case "text":
			if cb.Text != "" {
				return llm.TextDelta{Index: idx, Text: cb.Text}, false, nil
			}
		case "thinking":
			if cb.Thinking != "" || cb.Signature != "" {
				return llm.ThinkingDelta{Origin: llm.OriginAnthropic, Index: idx, Text: cb.Thinking, Signature: cb.Signature}, false, nil
			}
		case "redacted_thinking":
			return llm.ThinkingDelta{Origin: llm.OriginAnthropic, Index: idx, Redacted: cb.Data}, false, nil
		case "tool_use":
			if n.tools == nil {
				n.tools = make(map[int]*toolCall, 2)
			}
			tc := &toolCall{id: cb.ID, name: cb.Name}
			if raw := cb.JSON.Input.Raw(); raw != "" && raw != "{}" && raw != "null" {
				tc.startInput = raw
			}
			n.tools[idx] = tc
			return llm.ToolCallStart{Index: idx, ID: cb.ID, Name: cb.Name}, false, nil
		case "server_tool_use":
			if cb.Name != "web_search" {
				// A server tool this adapter never offers.
				n.skip(idx)
				break
			}
			if n.tools == nil {
				n.tools = make(map[int]*toolCall, 2)
			}
			tc := &toolCall{id: cb.ID, name: cb.Name, server: true}
			if raw := cb.JSON.Input.Raw(); raw != "" && raw != "{}" && raw != "null" {
				tc.startInput = raw
			}
			n.tools[idx] = tc
		case "web_search_tool_result":
			return n.searchResult(idx, cb.RawJSON())
		default:
			// Other server tools' blocks (web_fetch_tool_result, …) are
			// never requested by this adapter, but a server may add them;
			// they are skipped, input_json_delta included.
			n.skip(idx)
		}

	case "content_block_delta":
		d := &ev.Delta
		switch d.Type {
		case "text_delta":
			if d.Text != "" {
				return llm.TextDelta{Index: idx, Text: d.Text}, false, nil
			}
		case "thinking_delta":
			if d.Thinking != "" {
				return llm.ThinkingDelta{Origin: llm.OriginAnthropic, Index: idx, Text: d.Thinking}, false, nil
			}
		case "signature_delta":
			if d.Signature != "" {
				return llm.ThinkingDelta{Origin: llm.OriginAnthropic, Index: idx, Signature: d.Signature}, false, nil
			}
		case "input_json_delta":
			tc := n.tools[idx]
			if tc == skippedBlock {
				return nil, false, nil
			}
			if tc == nil {
				return nil, false, &llm.Error{Kind: llm.ErrBrokenStream, Err: errProtocol,
					Message: fmt.Sprintf("input_json_delta for content block %d, which is not an open tool_use block", idx)}
			}
			tc.deltas = true
			if d.PartialJSON == "" {
				// The API opens every tool input with an empty fragment; it
				// carries nothing worth an event.
				return nil, false, nil
			}
			tc.input = append(tc.input, d.PartialJSON...)
			if tc.server {
				// A search's query is shown whole, with its call.
				return nil, false, nil
			}
			return llm.ToolCallDelta{Index: idx, ID: tc.id, PartialJSON: d.PartialJSON}, false, nil
		case "citations_delta":
			// Citations open a cited text block, before its text; they
			// are held until the block ends (handle), so that each comes
			// after the text it supports. Only web search results have a
			// URL to show; document citations are not requested here.
			if c := &d.Citation; c.URL != "" {
				if len(n.cites) > 0 && n.citesIndex != idx {
					n.cites = n.cites[:0]
				}
				n.citesIndex = idx
				n.cites = append(n.cites, llm.Citation{Index: idx, URL: c.URL, Title: c.Title, CitedText: c.CitedText})
			}
		}
		// Future delta kinds are ignored.

	case "content_block_stop":
		tc := n.tools[idx]
		if tc == nil {
			return nil, false, nil
		}
		delete(n.tools, idx)
		if tc == skippedBlock {
			return nil, false, nil
		}
		var input json.RawMessage
		switch {
		case len(tc.input) > 0:
			input = tc.input
		case !tc.deltas && tc.startInput != "":
			input = json.RawMessage(tc.startInput)
		default:
			// A tool without parameters streams no fragment; its input is
			// the empty object, which is what the API expects back.
			input = json.RawMessage("{}")
		}
		if tc.server {
			if n.servers == nil {
				n.servers = make(map[string]string, 2)
			}
			n.servers[tc.id] = tc.name
			return llm.ServerToolUse{Index: idx, ID: tc.id, Name: tc.name, Input: input, Origin: llm.OriginAnthropic}, false, nil
		}
		return llm.ToolCallComplete{Index: idx, ID: tc.id, Name: tc.name, Input: input}, false, nil

	case "message_delta":
		if ev.Delta.StopReason != "" {
			n.stop = stopReason(ev.Delta.StopReason)
		}
		// message_delta carries the final counts. Its input_tokens can be far
		// larger than message_start's (server tools, context editing), so each
		// figure it reports replaces the earlier one.
		u, f := &ev.Usage, &ev.Usage.JSON
		if f.InputTokens.Valid() {
			n.usage.InputTokens = u.InputTokens
		}
		if f.OutputTokens.Valid() {
			n.usage.OutputTokens = u.OutputTokens
		}
		if f.CacheReadInputTokens.Valid() {
			n.usage.CacheReadTokens = u.CacheReadInputTokens
		}
		if f.CacheCreationInputTokens.Valid() {
			n.usage.CacheWriteTokens = u.CacheCreationInputTokens
		}
		if u.ServerToolUse.JSON.WebSearchRequests.Valid() {
			n.usage.WebSearchRequests = u.ServerToolUse.WebSearchRequests
		}

	case "message_stop":
		return llm.StreamEnd{StopReason: n.stop, Usage: n.usage, Model: n.model}, true, nil
	}
	// ping is filtered by the SDK; unknown event types are ignored as the API
	// versioning policy asks.
	return nil, false, nil
}

// skip marks the block at idx as one this adapter does not surface.
func (n *normalizer) skip(idx int) {
	if n.tools == nil {
		n.tools = make(map[int]*toolCall, 2)
	}
	n.tools[idx] = skippedBlock
}

// searchResult normalizes a web_search_tool_result block, which arrives
// whole in its content_block_start: the pages found or the error code, and
// the block itself, which goes back to the API on the next call.
func (n *normalizer) searchResult(idx int, raw string) (llm.StreamEvent, bool, error) {
	var b anthropic.WebSearchToolResultBlock
	if err := b.UnmarshalJSON([]byte(raw)); err != nil {
		return nil, false, &llm.Error{Kind: llm.ErrBrokenStream, Err: err, Message: fmt.Sprintf("web_search_tool_result block %d: %v", idx, err)}
	}
	// The call is this message's, or, when the provider paused the turn
	// (pause_turn) while the search ran, the previous message's.
	name := cmp.Or(n.servers[b.ToolUseID], "web_search")
	delete(n.servers, b.ToolUseID)
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(raw)); err != nil {
		return nil, false, &llm.Error{Kind: llm.ErrBrokenStream, Err: err, Message: fmt.Sprintf("web_search_tool_result block %d: %v", idx, err)}
	}
	r := llm.ServerToolResult{Index: idx, ID: b.ToolUseID, Name: name, Raw: compact.Bytes(), Origin: llm.OriginAnthropic}
	if c := &b.Content; c.JSON.OfWebSearchResultBlockArray.Valid() {
		r.Results = make([]llm.SearchResult, len(c.OfWebSearchResultBlockArray))
		for i, x := range c.OfWebSearchResultBlockArray {
			r.Results[i] = llm.SearchResult{Title: x.Title, URL: x.URL, PageAge: x.PageAge}
		}
	} else {
		r.Error = cmp.Or(string(c.ErrorCode), "the search failed")
	}
	return r, false, nil
}

// stopReason maps the API's stop_reason onto llm.StopReason. Unknown values
// pass through unchanged so that a new reason is visible rather than lost.
func stopReason(r anthropic.StopReason) llm.StopReason {
	switch r {
	case anthropic.StopReasonEndTurn:
		return llm.StopEndTurn
	case anthropic.StopReasonToolUse:
		return llm.StopToolUse
	case anthropic.StopReasonMaxTokens:
		return llm.StopMaxTokens
	case anthropic.StopReasonStopSequence:
		return llm.StopSequence
	case anthropic.StopReasonRefusal:
		return llm.StopRefusal
	case anthropic.StopReasonPauseTurn:
		return llm.StopPauseTurn
	case anthropic.StopReasonModelContextWindowExceeded:
		return llm.StopContextLimit
	}
	return llm.StopReason(r)
}
