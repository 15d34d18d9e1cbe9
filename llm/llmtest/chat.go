package llmtest

// This file renders turns in the OpenAI Chat Completions wire format,
// modelled on recordings of the real API
// (llm/testdata/providers/openai-chat/TestOpenAICommon__openai-gpt-4o*).
// The stream is data-only server-sent events, one chunk each, ending with
// "data: [DONE]"; every data line is one event for CutAfter and StallAfter:
//
//	role chunk                        delta {role, content "", refusal null}
//	for each block:
//	  text:      content chunks       the first after the block's Delay,
//	  thinking:  reasoning_content    the rest ChunkDelay apart
//	  tool call: a tool_calls chunk with index, id, type, name and empty
//	             arguments, then one with index and arguments per fragment
//	finish chunk                      empty delta, finish_reason
//	usage chunk                       choices [], only with include_usage
//	[DONE]
//	  or, in place of the finish: an {"error": …} chunk (StreamError)
//
// Chat has no place for signatures or redacted thinking, so they are not
// sent; thinking text travels in the non-standard delta field
// reasoning_content, as DeepSeek, xAI, Z.ai and others send it.

import (
	"encoding/json"
	"fmt"
	"time"
)

// chatCompletions answers POST /v1/chat/completions.
func (s *Server) chatCompletions(x *exchange) {
	var head openaiHead
	t, ok := s.takeTurn(x, &head)
	if !ok {
		return
	}
	t = s.resolve(t, "call_", head.model())
	c := chatCall{t: t, head: head, id: fmt.Sprintf("chatcmpl-llmtest%04d", s.nextResponseNumber()), created: x.req.Received.Unix()}
	if !head.Stream {
		if x.unstreamed(t) {
			x.writeJSON(c.completion())
		}
		return
	}
	evs, _ := c.events()
	x.play(evs, t.CutAfter, t.StallAfter)
}

// ChatEventTypes lists the data lines, in order, of t's OpenAI Chat
// Completions stream when nothing cuts it short; CutAfter and StallAfter
// count these. includeUsage is the request's stream_options.include_usage.
// Chat chunks have no type, so each is labelled by what it carries: "role",
// "content", "reasoning_content", "tool_call" (a call's first chunk),
// "tool_arguments", "finish", "usage", "error" or "[DONE]".
func ChatEventTypes(t Turn, includeUsage bool) []string {
	var head openaiHead
	head.StreamOptions.IncludeUsage = includeUsage
	c := chatCall{t: t.resolved(func() string { return "call_0" }, DefaultOpenAIModel), head: head}
	_, labels := c.events()
	return labels
}

// chatCall renders one resolved turn.
type chatCall struct {
	t       Turn
	head    openaiHead
	id      string
	created int64 // Unix seconds
}

// finishReason maps the script's stop reason (Anthropic vocabulary) to
// Chat's; other values are sent verbatim.
func (c chatCall) finishReason() string {
	switch r := c.t.StopReason; r {
	case "end_turn", "stop_sequence":
		return "stop"
	case "tool_use":
		return "tool_calls"
	case "max_tokens":
		return "length"
	case "refusal":
		return "content_filter"
	default:
		return r
	}
}

func (c chatCall) usage() *cUsage {
	if c.t.OmitUsage {
		return nil
	}
	return &cUsage{
		PromptTokens:            inputTokens(c.t),
		CompletionTokens:        c.t.Usage.OutputTokens,
		TotalTokens:             inputTokens(c.t) + c.t.Usage.OutputTokens,
		PromptTokensDetails:     cPromptDetails{CachedTokens: c.t.Usage.CacheReadTokens},
		CompletionTokensDetails: cCompletionDetails{ReasoningTokens: reasoningTokens(c.t)},
	}
}

// chunk is a chunk of this call with the given choices.
func (c chatCall) chunk(text string, choices ...cChoice) cChunk {
	ch := cChunk{
		ID:                c.id,
		Object:            "chat.completion.chunk",
		Created:           c.created,
		Model:             c.t.Model,
		ServiceTier:       "default",
		SystemFingerprint: "fp_llmtest",
		Choices:           choices,
	}
	if choices == nil {
		ch.Choices = []cChoice{}
	}
	if c.head.StreamOptions.IncludeUsage {
		// With include_usage every chunk says "usage": null until the
		// last one; without it the field is absent.
		ch.Usage = json.RawMessage("null")
	}
	if c.head.obfuscate() {
		p := padding(text)
		ch.Obfuscation = &p
	}
	return ch
}

func delta(d any) cChoice { return cChoice{Delta: d} }

// events plans the stream and labels each event (see [ChatEventTypes]).
func (c chatCall) events() ([]sseEvent, []string) {
	var (
		evs    []sseEvent
		labels []string
		// A block without chunks (redacted thinking, empty text) passes
		// its delay and its stop on to the next event.
		pendingDelay time.Duration
		pendingStops int
	)
	add := func(delay time.Duration, label string, data []byte) {
		evs = append(evs, sseEvent{Delay: pendingDelay + delay, Data: data, BlockStops: pendingStops})
		labels = append(labels, label)
		pendingDelay, pendingStops = 0, 0
	}
	add(0, "role", marshal(c.chunk("", delta(cRoleDelta{Role: "assistant"}))))

	tool := 0 // index of the next tool call among the turn's tool calls
	for _, b := range c.t.Blocks {
		pendingDelay += b.Delay
		before := len(evs)
		k := 0
		// pace is the pause before the block's k-th chunk.
		pace := func() time.Duration {
			k++
			if k == 1 {
				return 0
			}
			return c.t.ChunkDelay
		}
		switch b.Kind {
		case KindText:
			for _, s := range textChunks(b.Text) {
				add(pace(), "content", marshal(c.chunk(s, delta(cContentDelta{Content: s}))))
			}
		case KindThinking:
			for _, s := range textChunks(b.Text) {
				add(pace(), "reasoning_content", marshal(c.chunk(s, delta(cReasoningDelta{ReasoningContent: s}))))
			}
		case KindToolUse:
			name, empty := b.Name, ""
			head := cToolCall{Index: tool, ID: b.ID, Type: "function", Function: cFunction{Name: &name, Arguments: &empty}}
			add(pace(), "tool_call", marshal(c.chunk(b.Name, delta(cToolDelta{ToolCalls: []cToolCall{head}}))))
			for _, f := range fragments(b.Input, b.Fragments) {
				part := cToolCall{Index: tool, Function: cFunction{Arguments: &f}}
				add(pace(), "tool_arguments", marshal(c.chunk(f, delta(cToolDelta{ToolCalls: []cToolCall{part}}))))
			}
			tool++
		}
		if len(evs) > before {
			evs[len(evs)-1].BlockStops++
		} else {
			pendingStops++
		}
	}

	if se := c.t.StreamError; se != nil {
		// The connection ends after the error, without [DONE].
		e := apiError{msg: se.Message}
		e.typ, e.code = openaiKind(se.Type)
		add(0, "error", marshal(struct {
			Error oError `json:"error"`
		}{newOError(e)}))
		return evs, labels
	}
	reason := c.finishReason()
	add(0, "finish", marshal(c.chunk("", cChoice{Delta: struct{}{}, FinishReason: &reason})))
	if c.head.StreamOptions.IncludeUsage {
		if u := c.usage(); u != nil {
			ch := c.chunk("")
			ch.Usage = marshal(u)
			add(0, "usage", marshal(ch))
		}
	}
	add(0, "[DONE]", []byte("[DONE]"))
	return evs, labels
}

// completion is the answer to a non-streaming call.
func (c chatCall) completion() cCompletion {
	msg := cMessage{Role: "assistant", Annotations: []any{}}
	var text, thinking string
	hasText, hasThinking := false, false
	for _, b := range c.t.Blocks {
		switch b.Kind {
		case KindText:
			text += b.Text
			hasText = true
		case KindThinking:
			thinking += b.Text
			hasThinking = true
		case KindToolUse:
			msg.ToolCalls = append(msg.ToolCalls, cFinalToolCall{ID: b.ID, Type: "function",
				Function: cFinalFunction{Name: b.Name, Arguments: b.Input}})
		}
	}
	if hasText {
		msg.Content = &text
	}
	if hasThinking {
		msg.ReasoningContent = &thinking
	}
	return cCompletion{
		ID:      c.id,
		Object:  "chat.completion",
		Created: c.created,
		Model:   c.t.Model,
		Choices: []cFinalChoice{{
			Message:      msg,
			FinishReason: c.finishReason(),
		}},
		Usage:             c.usage(),
		ServiceTier:       "default",
		SystemFingerprint: "fp_llmtest",
	}
}

// Wire structs, in the real API's field order.

type cChunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	ServiceTier       string          `json:"service_tier"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []cChoice       `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
	Obfuscation       *string         `json:"obfuscation,omitempty"`
}

type cChoice struct {
	Index        int       `json:"index"`
	Delta        any       `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type cRoleDelta struct {
	Role    string    `json:"role"`
	Content string    `json:"content"`
	Refusal *struct{} `json:"refusal"`
}

type cContentDelta struct {
	Content string `json:"content"`
}

type cReasoningDelta struct {
	ReasoningContent string `json:"reasoning_content"`
}

type cToolDelta struct {
	ToolCalls []cToolCall `json:"tool_calls"`
}

type cToolCall struct {
	Index    int       `json:"index"`
	ID       string    `json:"id,omitempty"`
	Type     string    `json:"type,omitempty"`
	Function cFunction `json:"function"`
}

type cFunction struct {
	Name      *string `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

type cUsage struct {
	PromptTokens            int64              `json:"prompt_tokens"`
	CompletionTokens        int64              `json:"completion_tokens"`
	TotalTokens             int64              `json:"total_tokens"`
	PromptTokensDetails     cPromptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails cCompletionDetails `json:"completion_tokens_details"`
}

type cPromptDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
	AudioTokens  int64 `json:"audio_tokens"`
}

type cCompletionDetails struct {
	ReasoningTokens          int64 `json:"reasoning_tokens"`
	AudioTokens              int64 `json:"audio_tokens"`
	AcceptedPredictionTokens int64 `json:"accepted_prediction_tokens"`
	RejectedPredictionTokens int64 `json:"rejected_prediction_tokens"`
}

type cCompletion struct {
	ID                string         `json:"id"`
	Object            string         `json:"object"`
	Created           int64          `json:"created"`
	Model             string         `json:"model"`
	Choices           []cFinalChoice `json:"choices"`
	Usage             *cUsage        `json:"usage,omitempty"` // nil only for OmitUsage
	ServiceTier       string         `json:"service_tier"`
	SystemFingerprint string         `json:"system_fingerprint"`
}

type cFinalChoice struct {
	Index        int       `json:"index"`
	Message      cMessage  `json:"message"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason string    `json:"finish_reason"`
}

type cMessage struct {
	Role             string           `json:"role"`
	Content          *string          `json:"content"`
	ReasoningContent *string          `json:"reasoning_content,omitempty"`
	ToolCalls        []cFinalToolCall `json:"tool_calls,omitempty"`
	Refusal          *struct{}        `json:"refusal"`
	Annotations      []any            `json:"annotations"`
}

type cFinalToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function cFinalFunction `json:"function"`
}

type cFinalFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
