package openaichat

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// chunk is one chat.completion.chunk, with the non-standard fields
// compatible servers add. Fields that can be null decode to their zero value.
type chunk struct {
	Object  wire.Text `json:"object"`
	Model   wire.Text `json:"model"`
	Choices []choice  `json:"choices"`
	Usage   *usage    `json:"usage"`
	Error   wire.Raw  `json:"error"`
}

type choice struct {
	Index        int       `json:"index"`
	Delta        delta     `json:"delta"`
	FinishReason wire.Text `json:"finish_reason"`
	// Moonshot's own API reports usage inside the final choice.
	Usage *usage `json:"usage"`
}

type delta struct {
	Content content   `json:"content"`
	Refusal wire.Text `json:"refusal"`
	// ReasoningContent is the reasoning of Z.ai, Kimi, DeepSeek, xAI and
	// llama.cpp; Reasoning that of OpenRouter and some vLLM builds.
	ReasoningContent wire.Text `json:"reasoning_content"`
	Reasoning        wire.Text `json:"reasoning"`
	// ReasoningDetails is OpenRouter's structured copy of Reasoning; some
	// routers send it beside reasoning_content too, so it is only read when
	// neither of the others carries the text.
	ReasoningDetails []reasoningDetail `json:"reasoning_details"`
	ToolCalls        []toolCallDelta   `json:"tool_calls"`
}

type reasoningDetail struct {
	Type    wire.Text `json:"type"`
	Text    wire.Text `json:"text"`
	Summary wire.Text `json:"summary"`
}

type toolCallDelta struct {
	// Index is nil on servers that leave it out; see normalizer.toolCall.
	Index    *int      `json:"index"`
	ID       wire.Text `json:"id"`
	Function struct {
		Name wire.Text `json:"name"`
		// Arguments is a string of JSON; a server that sends the
		// object itself gets its raw JSON taken (see wire.Text).
		Arguments wire.Text `json:"arguments"`
	} `json:"function"`
}

// usage holds the token counts of every dialect; see llmUsage.
type usage struct {
	PromptTokens        wire.Count `json:"prompt_tokens"`
	CompletionTokens    wire.Count `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     wire.Count `json:"cached_tokens"`
		CacheWriteTokens wire.Count `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CachedTokens         wire.Count `json:"cached_tokens"`           // Moonshot
	PromptCacheHitTokens wire.Count `json:"prompt_cache_hit_tokens"` // DeepSeek
}

// llmUsage normalizes u. The prompt count includes the cached tokens in
// every dialect, so InputTokens is what remains of it; the cached count is
// prompt_tokens_details.cached_tokens, else Moonshot's top-level
// cached_tokens, else DeepSeek's prompt_cache_hit_tokens.
func (u *usage) llmUsage() llm.Usage {
	out := llm.Usage{OutputTokens: int64(u.CompletionTokens)}
	if d := u.PromptTokensDetails; d != nil {
		out.CacheReadTokens, out.CacheWriteTokens = int64(d.CachedTokens), int64(d.CacheWriteTokens)
	}
	if out.CacheReadTokens == 0 {
		out.CacheReadTokens = int64(max(u.CachedTokens, u.PromptCacheHitTokens))
	}
	// A server that reports more cached tokens than prompt tokens is wrong
	// somewhere; a negative input count would only spread the error.
	out.InputTokens = max(0, int64(u.PromptTokens)-out.CacheReadTokens-out.CacheWriteTokens)
	return out
}

// content is delta.content: a string, or (Mistral's reasoning models) an
// array of parts, whose "thinking" parts are reasoning.
type content struct {
	text     string
	thinking string
}

func (c *content) UnmarshalJSON(b []byte) error {
	switch {
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &c.text)
	case len(b) > 0 && b[0] == '[':
		var parts []struct {
			Type     string          `json:"type"`
			Text     string          `json:"text"`
			Thinking json.RawMessage `json:"thinking"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		for _, p := range parts {
			switch p.Type {
			case "text":
				c.text += p.Text
			case "thinking":
				c.thinking += thinkingText(p.Thinking)
			}
		}
	}
	// null, or a shape nobody sends: nothing to show.
	return nil
}

// thinkingText reads a thinking part's payload: a string or text parts.
func thinkingText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	for _, p := range parts {
		s += p.Text
	}
	return s
}

// blockKind is the kind of the block the normalizer last emitted into.
type blockKind uint8

const (
	blockNone blockKind = iota
	blockText
	blockThinking
	blockTool
)

// normalizer turns chunks into llm.StreamEvents. Chat Completions has no
// content blocks, so it derives them: every run of text, every run of
// reasoning and every tool call gets the next block index, in order of
// appearance. Text that resumes after a tool call (Kimi sends a lone " "
// between two calls) is therefore a new block, as it is in the message.
type normalizer struct {
	started  bool // a chunk arrived: failures now are mid-stream
	finished bool // a finish_reason arrived
	model    string
	reason   string // the last finish_reason
	refusal  bool
	usage    llm.Usage // from the last usage object seen

	next    int       // the next block index
	open    blockKind // the block text or reasoning would continue
	openIdx int
	calls   []*toolCall // in order of appearance
	// newID makes an id for a call that arrives without one.
	newID func(wireIndex int) string

	// out holds the events of the latest chunk; it is reused.
	out []llm.StreamEvent
}

type toolCall struct {
	wire     int // the tool_calls index on the wire
	index    int // the block index
	id, name string
	serverID bool // id came from the server, not newID
	args     []byte
	started  bool // ToolCallStart was emitted
	done     bool // ToolCallComplete was emitted
}

var doneMarker = []byte("[DONE]")

// handle normalizes one server-sent event for wire.Pump: the events to
// yield, whether the stream is complete (StreamEnd is then the last event)
// and the provider's or a protocol error, which follows the events.
func (n *normalizer) handle(ev wire.Event) ([]llm.StreamEvent, bool, error) {
	end, err := n.event(ev.Type, ev.Data)
	return n.out, end, err
}

// event normalizes one server-sent event into n.out. It reports whether the
// stream is complete (StreamEnd is then the last event in n.out), or the
// provider's or a protocol error, which follows whatever n.out holds.
func (n *normalizer) event(eventType string, data []byte) (bool, error) {
	n.out = n.out[:0]
	n.started = true
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, doneMarker) {
		n.finish()
		return true, nil
	}
	if eventType == "error" {
		e, _ := parseErrorBody(data)
		return false, fromStreamError(e, data)
	}
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		return false, &llm.Error{Kind: llm.ErrBrokenStream,
			Message: fmt.Sprintf("malformed chunk: %v: %s", err, wire.Truncate(string(data), 200)), Err: err}
	}
	// Errors come as a top-level "error" member (OpenAI, OpenRouter, newer
	// vLLM) or as a bare error object (older vLLM). OpenRouter also puts
	// choices with finish_reason "error" beside it, which add nothing.
	if c.Error.Present() || c.Object == "error" {
		e, _ := parseErrorBody(data)
		return false, fromStreamError(e, data)
	}
	if n.model == "" {
		n.model = string(c.Model)
	}
	if c.Usage != nil {
		// The last usage object wins: Groq and Hugging Face repeat the
		// same one in two chunks, and summing would double it.
		n.usage = c.Usage.llmUsage()
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			// Only one choice is ever requested (n is not sent).
			continue
		}
		if ch.Usage != nil {
			n.usage = ch.Usage.llmUsage()
		}
		d := &ch.Delta
		if t := reasoningText(d); t != "" {
			n.emitThinking(t)
		}
		if d.Content.thinking != "" {
			n.emitThinking(d.Content.thinking)
		}
		if d.Content.text != "" {
			n.emitText(d.Content.text)
		}
		if d.Refusal != "" {
			n.refusal = true
			n.emitText(string(d.Refusal))
		}
		for j := range d.ToolCalls {
			n.toolCall(&d.ToolCalls[j])
		}
		if ch.FinishReason != "" {
			if ch.FinishReason == "error" {
				// OpenRouter's marker of an upstream failure, when it
				// came without an error object.
				return false, &llm.Error{Kind: llm.ErrServer, Err: errStreamError,
					Message: `the provider ended the response with finish_reason "error"`}
			}
			// Every call is complete once the choice is: the loop may
			// start the tools now, before the usage chunk and [DONE].
			n.reason, n.finished = string(ch.FinishReason), true
			n.completeCalls()
		}
	}
	return false, nil
}

// reasoningText is the reasoning a delta carries, taken from one field only
// (servers that send two send the same text twice).
func reasoningText(d *delta) string {
	if d.ReasoningContent != "" {
		return string(d.ReasoningContent)
	}
	if d.Reasoning != "" {
		return string(d.Reasoning)
	}
	var s string
	for _, r := range d.ReasoningDetails {
		switch r.Type {
		case "reasoning.text":
			s += string(r.Text)
		case "reasoning.summary":
			s += string(r.Summary)
		}
		// reasoning.encrypted is opaque and never sent back here.
	}
	return s
}

func (n *normalizer) emitText(s string) {
	if n.open != blockText {
		n.open, n.openIdx = blockText, n.next
		n.next++
	}
	n.out = append(n.out, llm.TextDelta{Index: n.openIdx, Text: s})
}

func (n *normalizer) emitThinking(s string) {
	if n.open != blockThinking {
		n.open, n.openIdx = blockThinking, n.next
		n.next++
	}
	n.out = append(n.out, llm.ThinkingDelta{Index: n.openIdx, Text: s, Origin: llm.OriginOpenAIChat})
}

// toolCall handles one tool_calls fragment. A call is identified by its wire
// index; servers that omit the index get one derived from the id (a new id
// is a new call, no id continues the last one). The id and name arrive with
// the first fragment on every known server, but some repeat them on every
// fragment, so repeats are ignored rather than taken for new calls. A call
// whose name is still unknown is not announced yet: its argument fragments
// are held back until the name arrives.
func (n *normalizer) toolCall(d *toolCallDelta) {
	id, name, args := string(d.ID), string(d.Function.Name), string(d.Function.Arguments)
	var tc *toolCall
	if d.Index != nil {
		tc = n.call(*d.Index)
		if tc != nil && tc.serverID && id != "" && id != tc.id {
			// The same index with another id: a server that numbers
			// every call 0. It is a new call all the same.
			tc = nil
		}
	} else if len(n.calls) > 0 {
		last := n.calls[len(n.calls)-1]
		if id == "" || id == last.id {
			tc = last
		}
	}
	if tc == nil {
		wire := 0
		if d.Index != nil {
			wire = *d.Index
		} else if len(n.calls) > 0 {
			wire = n.calls[len(n.calls)-1].wire + 1
		}
		// A new call index means the previous calls are complete: tell
		// the loop now so it can start them while this one streams.
		n.completeCalls()
		tc = &toolCall{wire: wire, index: n.next, id: id, serverID: id != "", name: name}
		n.next++
		n.calls = append(n.calls, tc)
	} else {
		if tc.id == "" && !tc.started && id != "" {
			tc.id, tc.serverID = id, true
		}
		if tc.name == "" {
			tc.name = name
		}
	}
	n.open = blockTool
	if tc.done {
		// A fragment after the call was complete (after finish_reason):
		// its ToolCallComplete is out, so the fragment cannot count.
		return
	}
	if !tc.started {
		tc.args = append(tc.args, args...)
		if tc.name != "" {
			n.startCall(tc)
		}
		return
	}
	if args != "" {
		tc.args = append(tc.args, args...)
		n.out = append(n.out, llm.ToolCallDelta{Index: tc.index, ID: tc.id, PartialJSON: args})
	}
}

// call returns the latest call with the given wire index.
func (n *normalizer) call(wire int) *toolCall {
	for i := len(n.calls) - 1; i >= 0; i-- {
		if n.calls[i].wire == wire {
			return n.calls[i]
		}
	}
	return nil
}

// startCall announces tc, with the arguments held back so far.
func (n *normalizer) startCall(tc *toolCall) {
	if tc.id == "" {
		// Some local servers send no id (or an empty one); results are
		// paired by id in the next request, so it needs one.
		tc.id = n.newID(tc.wire)
	}
	tc.started = true
	n.out = append(n.out, llm.ToolCallStart{Index: tc.index, ID: tc.id, Name: tc.name})
	if len(tc.args) > 0 {
		n.out = append(n.out, llm.ToolCallDelta{Index: tc.index, ID: tc.id, PartialJSON: string(tc.args)})
	}
}

// completeCalls emits ToolCallComplete for every call not yet complete.
func (n *normalizer) completeCalls() {
	for _, tc := range n.calls {
		if tc.done {
			continue
		}
		if !tc.started {
			// The name never came; the loop will report the unknown tool
			// to the model, which is better than losing the call.
			n.startCall(tc)
		}
		tc.done = true
		input := json.RawMessage("{}")
		if len(tc.args) > 0 {
			// A tool without parameters may stream no fragment at all;
			// otherwise the input is passed on exactly as produced, valid
			// JSON or not.
			input = json.RawMessage(tc.args)
		}
		n.out = append(n.out, llm.ToolCallComplete{Index: tc.index, ID: tc.id, Name: tc.name, Input: input})
	}
}

// finish appends what ends the stream: the completion of calls still open
// (a stream without finish_reason) and StreamEnd.
func (n *normalizer) finish() {
	n.completeCalls()
	n.out = append(n.out, llm.StreamEnd{StopReason: n.stopReason(), Usage: n.usage, Model: n.model})
}

// stopReason maps the finish_reason onto llm.StopReason. A response that
// made tool calls stopped to use them, whatever it says: some local servers
// (older Ollama, llama.cpp templates) report "stop" there. Unknown reasons
// pass through unchanged so that a new one is visible rather than lost.
func (n *normalizer) stopReason() llm.StopReason {
	switch n.reason {
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	if len(n.calls) > 0 {
		return llm.StopToolUse
	}
	switch n.reason {
	case "stop", "":
		if n.refusal {
			return llm.StopRefusal
		}
		return llm.StopEndTurn
	case "tool_calls", "function_call":
		// Claimed, but no call arrived.
		return llm.StopEndTurn
	}
	return llm.StopReason(n.reason)
}
