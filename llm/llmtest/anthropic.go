package llmtest

// This file renders turns in the Anthropic Messages wire format, modelled on
// recordings of the real API (llm/testdata/providers/anthropic/*.sse). A
// streamed turn is, event by event:
//
//	message_start                     usage: input and cache figures
//	for each block:
//	  content_block_start             after the block's Delay
//	  ping                            once, after the first block's start
//	  content_block_delta …           ChunkDelay apart
//	  content_block_stop
//	message_delta, message_stop       stop reason and final usage
//	  or error                        if the turn has a StreamError
//
// Deltas per block: text and thinking text in 16–32 byte pieces, then a
// thinking block's signature as one signature_delta; a tool call's input as
// an empty input_json_delta followed by Fragments pieces, as the real API
// sends it; none for redacted_thinking. A turn without blocks sends the ping
// right after message_start.

import (
	"encoding/json"
	"net/http"
)

// anthropicMessages answers POST /v1/messages.
func (s *Server) anthropicMessages(x *exchange) {
	var head struct {
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(x.req.Body, &head); err != nil {
		// Not consuming a turn: a client that sends garbage should fail
		// loudly here, not shift the rest of the script by one.
		writeAPIError(x.w, http.StatusBadRequest, "", "invalid_request_error",
			"llmtest: request body is not a JSON object: "+err.Error())
		return
	}
	t, ok := s.next(x.req)
	if !ok {
		writeAPIError(x.w, http.StatusInternalServerError, "", "api_error", "llmtest: script exhausted")
		return
	}
	if err := t.Validate(); err != nil {
		writeAPIError(x.w, http.StatusInternalServerError, "", "api_error", "llmtest: invalid turn: "+err.Error())
		return
	}
	if t.Hang {
		x.hang()
		return
	}
	if t.Status != 0 && t.Status != http.StatusOK {
		typ, msg := anthropicErrorDefaults(t.Status)
		if t.ErrorType != "" {
			typ = t.ErrorType
		}
		if t.ErrorMessage != "" {
			msg = t.ErrorMessage
		}
		writeAPIError(x.w, t.Status, t.RetryAfter, typ, msg)
		return
	}
	t = s.resolve(t)
	id := s.nextMessageID()
	if !head.Stream {
		anthropicMessage(x, t, id)
		return
	}
	x.play(anthropicEvents(t, id), t.CutAfter, t.StallAfter)
}

// anthropicErrorDefaults gives the error type and message the real API uses
// for status.
func anthropicErrorDefaults(status int) (typ, msg string) {
	switch status {
	case 400:
		return "invalid_request_error", "Invalid request"
	case 401:
		return "authentication_error", "invalid x-api-key"
	case 403:
		return "permission_error", "Permission denied"
	case 404:
		return "not_found_error", "Not found"
	case 413:
		return "request_too_large", "Request exceeds the maximum allowed number of bytes."
	case 429:
		return "rate_limit_error", "Number of request tokens has exceeded your rate limit"
	case 529:
		return "overloaded_error", "Overloaded"
	}
	if status < 500 {
		return "invalid_request_error", http.StatusText(status)
	}
	return "api_error", "Internal server error"
}

// AnthropicEventTypes lists the event types, in order, of t's Anthropic
// stream when nothing cuts it short; CutAfter and StallAfter count these.
func AnthropicEventTypes(t Turn) []string {
	evs := anthropicEvents(t.resolved(func() string { return "toolu_0" }), "msg_0")
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Name
	}
	return out
}

// anthropicEvents plans the stream of the resolved turn t.
func anthropicEvents(t Turn, msgID string) []sseEvent {
	evs := []sseEvent{{
		Name: "message_start",
		Data: marshal(aMessageStart{Type: "message_start", Message: newAMessage(t, msgID, true)}),
	}}
	ping := sseEvent{Name: "ping", Data: []byte(`{"type": "ping"}`)} // sic: the real API's spacing
	if len(t.Blocks) == 0 {
		evs = append(evs, ping)
	}
	for i, b := range t.Blocks {
		evs = append(evs, sseEvent{
			Delay: b.Delay,
			Name:  "content_block_start",
			Data:  marshal(aBlockStart{Type: "content_block_start", Index: i, ContentBlock: aStartBlock(b)}),
		})
		if i == 0 {
			evs = append(evs, ping)
		}
		for k, d := range aDeltas(b) {
			ev := sseEvent{
				Name: "content_block_delta",
				Data: marshal(aBlockDelta{Type: "content_block_delta", Index: i, Delta: d}),
			}
			if k > 0 {
				ev.Delay = t.ChunkDelay
			}
			evs = append(evs, ev)
		}
		evs = append(evs, sseEvent{
			Name:      "content_block_stop",
			Data:      marshal(aBlockStop{Type: "content_block_stop", Index: i}),
			BlockStop: true,
		})
	}
	if se := t.StreamError; se != nil {
		return append(evs, sseEvent{
			Name: "error",
			Data: marshal(errorBody{Type: "error", Error: errorDetail{Type: se.Type, Message: se.Message}}),
		})
	}
	return append(evs,
		sseEvent{
			Name: "message_delta",
			Data: marshal(aMessageDelta{
				Type:  "message_delta",
				Delta: aStop{StopReason: &t.StopReason, StopSequence: stopSequence(t)},
				Usage: aDeltaUsage{
					InputTokens:              t.Usage.InputTokens,
					CacheCreationInputTokens: t.Usage.CacheWriteTokens,
					CacheReadInputTokens:     t.Usage.CacheReadTokens,
					OutputTokens:             t.Usage.OutputTokens,
				},
			}),
		},
		sseEvent{Name: "message_stop", Data: []byte(`{"type":"message_stop"}`)},
	)
}

// aStartBlock is the empty shell of b that content_block_start announces.
func aStartBlock(b Block) any {
	switch b.Kind {
	case KindThinking:
		return aThinking{Type: KindThinking}
	case KindRedactedThinking:
		// Redacted thinking arrives whole: it has no deltas.
		return aRedacted{Type: KindRedactedThinking, Data: b.Data}
	case KindToolUse:
		return aToolUse{Type: KindToolUse, ID: b.ID, Name: b.Name, Input: json.RawMessage(`{}`), Caller: &aCaller{Type: "direct"}}
	}
	return aText{Type: KindText}
}

// aDeltas are the delta objects that fill in b.
func aDeltas(b Block) []any {
	var out []any
	switch b.Kind {
	case KindText:
		for _, c := range textChunks(b.Text) {
			out = append(out, aTextDelta{Type: "text_delta", Text: c})
		}
	case KindThinking:
		for _, c := range textChunks(b.Text) {
			out = append(out, aThinkingDelta{Type: "thinking_delta", Thinking: c})
		}
		if b.Signature != "" {
			out = append(out, aSignatureDelta{Type: "signature_delta", Signature: b.Signature})
		}
	case KindToolUse:
		out = append(out, aInputDelta{Type: "input_json_delta"})
		for _, c := range fragments(b.Input, b.Fragments) {
			out = append(out, aInputDelta{Type: "input_json_delta", PartialJSON: c})
		}
	}
	return out
}

// anthropicMessage answers a non-streaming call with the whole message.
// There is no stream to fault, so the turn's faults map onto the response:
// block delays add up before it, CutAfter drops the connection instead of
// answering, StallAfter hangs and a StreamError becomes an error status.
func anthropicMessage(x *exchange, t Turn, id string) {
	for _, b := range t.Blocks {
		if x.pause(b.Delay) != nil {
			return
		}
	}
	switch {
	case t.CutAfter > 0:
		x.abort()
		return
	case t.StallAfter > 0:
		x.hang()
		return
	case t.StreamError != nil:
		status := http.StatusInternalServerError
		if t.StreamError.Type == "overloaded_error" {
			status = 529
		}
		writeAPIError(x.w, status, "", t.StreamError.Type, t.StreamError.Message)
		return
	}
	x.w.Header().Set("Content-Type", "application/json")
	x.w.WriteHeader(http.StatusOK)
	_, _ = x.w.Write(marshal(newAMessage(t, id, false)))
}

// newAMessage is the message object of t: empty with the opening usage for
// message_start, complete for a non-streaming answer.
func newAMessage(t Turn, id string, streaming bool) aMessage {
	m := aMessage{
		Model:   t.Model,
		ID:      id,
		Type:    "message",
		Role:    "assistant",
		Content: []any{},
		Usage: aUsage{
			InputTokens:              t.Usage.InputTokens,
			CacheCreationInputTokens: t.Usage.CacheWriteTokens,
			CacheReadInputTokens:     t.Usage.CacheReadTokens,
			CacheCreation:            aCacheCreation{Ephemeral5m: t.Usage.CacheWriteTokens},
			OutputTokens:             t.Usage.OutputTokens,
			ServiceTier:              "standard",
			InferenceGeo:             "not_available",
		},
	}
	if streaming {
		// The real API opens with the output count so far, a token or
		// so, and reports the total in message_delta.
		m.Usage.OutputTokens = min(t.Usage.OutputTokens, 1)
		return m
	}
	m.StopReason = &t.StopReason
	m.StopSequence = stopSequence(t)
	for _, b := range t.Blocks {
		switch b.Kind {
		case KindText:
			m.Content = append(m.Content, aText{Type: KindText, Text: b.Text})
		case KindThinking:
			m.Content = append(m.Content, aThinking{Type: KindThinking, Thinking: b.Text, Signature: b.Signature})
		case KindRedactedThinking:
			m.Content = append(m.Content, aRedacted{Type: KindRedactedThinking, Data: b.Data})
		case KindToolUse:
			// A whole-body JSON cannot carry malformed arguments raw, so
			// they travel as a JSON string, which clients also reject.
			in := json.RawMessage(b.Input)
			if !json.Valid(in) {
				in = marshal(b.Input)
			}
			m.Content = append(m.Content, aToolUse{Type: KindToolUse, ID: b.ID, Name: b.Name, Input: in})
		}
	}
	return m
}

func stopSequence(t Turn) *string {
	if t.StopSequence == "" {
		return nil
	}
	return &t.StopSequence
}

// anthropicCountTokens answers POST /v1/messages/count_tokens with a rough
// estimate (four bytes a token); it consumes no turn.
func (s *Server) anthropicCountTokens(x *exchange) {
	x.w.Header().Set("Content-Type", "application/json")
	_, _ = x.w.Write(marshal(struct {
		InputTokens int `json:"input_tokens"`
	}{max(1, len(x.req.Body)/4)}))
}

// anthropicModels answers GET /v1/models with a short fixed list.
func (s *Server) anthropicModels(x *exchange) {
	type model struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	}
	models := []model{
		{"model", "claude-sonnet-4-5", "Claude Sonnet 4.5", "2025-09-29T00:00:00Z"},
		{"model", "claude-opus-4-5", "Claude Opus 4.5", "2025-11-24T00:00:00Z"},
		{"model", "claude-haiku-4-5", "Claude Haiku 4.5", "2025-10-15T00:00:00Z"},
	}
	x.w.Header().Set("Content-Type", "application/json")
	_, _ = x.w.Write(marshal(struct {
		Data    []model `json:"data"`
		HasMore bool    `json:"has_more"`
		FirstID string  `json:"first_id"`
		LastID  string  `json:"last_id"`
	}{models, false, models[0].ID, models[len(models)-1].ID}))
}

// Wire structs. Field order is the real API's, since encoding/json keeps
// declaration order and byte-level fidelity is the point.

type aMessageStart struct {
	Type    string   `json:"type"`
	Message aMessage `json:"message"`
}

type aMessage struct {
	Model        string  `json:"model"`
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Content      []any   `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        aUsage  `json:"usage"`
}

type aUsage struct {
	InputTokens              int64          `json:"input_tokens"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens"`
	CacheCreation            aCacheCreation `json:"cache_creation"`
	OutputTokens             int64          `json:"output_tokens"`
	ServiceTier              string         `json:"service_tier"`
	InferenceGeo             string         `json:"inference_geo"`
}

type aCacheCreation struct {
	Ephemeral5m int64 `json:"ephemeral_5m_input_tokens"`
	Ephemeral1h int64 `json:"ephemeral_1h_input_tokens"`
}

type aBlockStart struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock any    `json:"content_block"`
}

type aBlockDelta struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
	Delta any    `json:"delta"`
}

type aBlockStop struct {
	Type  string `json:"type"`
	Index int    `json:"index"`
}

type aMessageDelta struct {
	Type  string      `json:"type"`
	Delta aStop       `json:"delta"`
	Usage aDeltaUsage `json:"usage"`
}

type aStop struct {
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type aDeltaUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
}

type aText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type aThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type aRedacted struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type aToolUse struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Caller *aCaller        `json:"caller,omitempty"`
}

type aCaller struct {
	Type string `json:"type"`
}

type aTextDelta struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type aThinkingDelta struct {
	Type     string `json:"type"`
	Thinking string `json:"thinking"`
}

type aSignatureDelta struct {
	Type      string `json:"type"`
	Signature string `json:"signature"`
}

type aInputDelta struct {
	Type        string `json:"type"`
	PartialJSON string `json:"partial_json"`
}
