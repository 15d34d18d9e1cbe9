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
// sends it; none for redacted_thinking. A text block with citations has a
// citations_delta for each before its text. A web_search block is two
// content blocks: a server_tool_use whose input streams like a tool call's,
// then, after the turn's ChunkDelay (the search), a web_search_tool_result
// that arrives whole. A turn without blocks sends the ping right after
// message_start.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// anthropicMessages answers POST /v1/messages.
func (s *Server) anthropicMessages(x *exchange) {
	var head struct {
		Stream bool `json:"stream"`
	}
	t, ok := s.takeTurn(x, &head)
	if !ok {
		return
	}
	t = s.resolve(t, "toolu_", DefaultModel)
	id := fmt.Sprintf("msg_llmtest_%04d", s.nextResponseNumber())
	if !head.Stream {
		if x.unstreamed(t) {
			x.writeJSON(newAMessage(t, id, false))
		}
		return
	}
	x.play(anthropicEvents(t, id), t.CutAfter, t.StallAfter)
}

// anthropicStatusError is the error response for t's error Status.
func anthropicStatusError(t Turn) apiError {
	typ, msg := anthropicErrorDefaults(t.Status)
	if t.ErrorType != "" {
		typ = t.ErrorType
	}
	if t.ErrorMessage != "" {
		msg = t.ErrorMessage
	}
	return apiError{status: t.Status, retryAfter: t.RetryAfter, typ: typ, msg: msg}
}

// anthropicStreamErrorStatus is the error status that stands in for se when
// the answer is not streamed.
func anthropicStreamErrorStatus(se StreamError) apiError {
	status := http.StatusInternalServerError
	if se.Type == "overloaded_error" {
		status = 529
	}
	return apiError{status: status, typ: se.Type, msg: se.Message}
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
	evs := anthropicEvents(t.resolved(func() string { return "toolu_0" }, DefaultModel), "msg_0")
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
	// k is the content block index: a web_search block is two of them.
	k := 0
	start := func(delay time.Duration, block any) {
		evs = append(evs, sseEvent{
			Delay: delay,
			Name:  "content_block_start",
			Data:  marshal(aBlockStart{Type: "content_block_start", Index: k, ContentBlock: block}),
		})
		if k == 0 {
			evs = append(evs, ping)
		}
	}
	deltas := func(ds []any) {
		for j, d := range ds {
			ev := sseEvent{
				Name: "content_block_delta",
				Data: marshal(aBlockDelta{Type: "content_block_delta", Index: k, Delta: d}),
			}
			if j > 0 {
				ev.Delay = t.ChunkDelay
			}
			evs = append(evs, ev)
		}
	}
	stop := func(blockStops int) {
		evs = append(evs, sseEvent{
			Name:       "content_block_stop",
			Data:       marshal(aBlockStop{Type: "content_block_stop", Index: k}),
			BlockStops: blockStops,
		})
		k++
	}
	for i, b := range t.Blocks {
		if b.Kind == KindWebSearch {
			// The model's call, then what the search found once it ran;
			// together they are the script's one block.
			id := aSearchID(b, msgID, i)
			start(b.Delay, aServerToolUse{Type: "server_tool_use", ID: id, Name: "web_search", Input: json.RawMessage(`{}`), Caller: &aCaller{Type: "direct"}})
			deltas(aDeltas(b))
			stop(0)
			start(t.ChunkDelay, aSearchResult(b, id))
			stop(1)
			continue
		}
		start(b.Delay, aStartBlock(b))
		deltas(aDeltas(b))
		stop(1)
	}
	if se := t.StreamError; se != nil {
		return append(evs, sseEvent{
			Name: "error",
			Data: marshal(errorBody{Type: "error", Error: errorDetail{Type: se.Type, Message: se.Message}}),
		})
	}
	delta := aMessageDelta{
		Type:  "message_delta",
		Delta: aStop{StopReason: &t.StopReason, StopSequence: stopSequence(t)},
	}
	if !t.OmitUsage {
		delta.Usage = &aDeltaUsage{
			InputTokens:              t.Usage.InputTokens,
			CacheCreationInputTokens: t.Usage.CacheWriteTokens,
			CacheReadInputTokens:     t.Usage.CacheReadTokens,
			OutputTokens:             t.Usage.OutputTokens,
			ServerToolUse:            aServerUsage(t),
		}
	}
	return append(evs,
		sseEvent{Name: "message_delta", Data: marshal(delta)},
		sseEvent{Name: "message_stop", Data: []byte(`{"type":"message_stop"}`)},
	)
}

// aSearchID is the id of web_search block i of message msgID.
func aSearchID(b Block, msgID string, i int) string {
	if b.ID != "" {
		return b.ID
	}
	return fmt.Sprintf("srvtoolu_%s_%d", strings.TrimPrefix(msgID, "msg_"), i)
}

// aSearchResult is the web_search_tool_result block of search b, call id.
func aSearchResult(b Block, id string) aToolResult {
	r := aToolResult{Type: "web_search_tool_result", ToolUseID: id, Caller: &aCaller{Type: "direct"}}
	if b.SearchError != "" {
		r.Content = aSearchError{Type: "web_search_tool_result_error", ErrorCode: b.SearchError}
		return r
	}
	results := make([]aSearchHit, len(b.Results))
	for j, x := range b.Results {
		results[j] = aSearchHit{Type: "web_search_result", Title: x.Title, URL: x.URL, EncryptedContent: encryptedContent(x)}
		if x.PageAge != "" {
			results[j].PageAge = &x.PageAge
		}
	}
	r.Content = results
	return r
}

// aServerUsage is the usage's count of server tool calls: only turns that
// searched report it, as the real API does.
func aServerUsage(t Turn) *aServerToolUsage {
	if !hasSearch(t) {
		return nil
	}
	return &aServerToolUsage{WebSearchRequests: searches(t)}
}

// aCitations are the citations of a text block, in the final message.
func aCitations(b Block) []aCitation {
	out := make([]aCitation, len(b.Citations))
	for j, c := range b.Citations {
		out[j] = aCitation{Type: "web_search_result_location", CitedText: c.CitedText, URL: c.URL, Title: c.Title,
			EncryptedIndex: base64.StdEncoding.EncodeToString([]byte("llmtest cite " + c.URL))}
	}
	return out
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
	if len(b.Citations) > 0 {
		return aCitedText{Citations: []aCitation{}, Type: KindText}
	}
	return aText{Type: KindText}
}

// aDeltas are the delta objects that fill in b.
func aDeltas(b Block) []any {
	var out []any
	switch b.Kind {
	case KindText:
		// Citations come first: the text that follows is what they
		// support.
		for _, c := range aCitations(b) {
			out = append(out, aCitationsDelta{Type: "citations_delta", Citation: c})
		}
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
	case KindToolUse, KindWebSearch:
		in := b.Input
		if b.Kind == KindWebSearch {
			in = searchInput(b)
		}
		out = append(out, aInputDelta{Type: "input_json_delta"})
		for _, c := range fragments(in, b.Fragments) {
			out = append(out, aInputDelta{Type: "input_json_delta", PartialJSON: c})
		}
	}
	return out
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
	}
	if !t.OmitUsage {
		m.Usage = &aUsage{
			InputTokens:              t.Usage.InputTokens,
			CacheCreationInputTokens: t.Usage.CacheWriteTokens,
			CacheReadInputTokens:     t.Usage.CacheReadTokens,
			CacheCreation:            aCacheCreation{Ephemeral5m: t.Usage.CacheWriteTokens},
			OutputTokens:             t.Usage.OutputTokens,
			ServiceTier:              "standard",
			InferenceGeo:             "not_available",
		}
	}
	if streaming {
		if m.Usage != nil {
			// The real API opens with the output count so far, a token
			// or so, and reports the total in message_delta.
			m.Usage.OutputTokens = min(t.Usage.OutputTokens, 1)
		}
		return m
	}
	m.StopReason = &t.StopReason
	m.StopSequence = stopSequence(t)
	if m.Usage != nil {
		m.Usage.ServerToolUse = aServerUsage(t)
	}
	for i, b := range t.Blocks {
		switch b.Kind {
		case KindText:
			if len(b.Citations) > 0 {
				m.Content = append(m.Content, aCitedText{Citations: aCitations(b), Type: KindText, Text: b.Text})
				continue
			}
			m.Content = append(m.Content, aText{Type: KindText, Text: b.Text})
		case KindWebSearch:
			sid := aSearchID(b, id, i)
			m.Content = append(m.Content,
				aServerToolUse{Type: "server_tool_use", ID: sid, Name: "web_search", Input: json.RawMessage(searchInput(b)), Caller: &aCaller{Type: "direct"}},
				aSearchResult(b, sid))
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

// anthropicModels answers GET /v1/models with the server's model list and
// GET /v1/models/{id} with one of its models.
func (s *Server) anthropicModels(x *exchange) {
	models := s.Models()
	if id, ok := modelIDFromPath(x.r); ok {
		m, found := findModel(models, id)
		if !found {
			x.writeError(apiError{status: http.StatusNotFound, typ: "not_found_error", msg: "model: " + id})
			return
		}
		x.writeJSON(newAModelInfo(m))
		return
	}
	page := aModelPage{Data: make([]aModelInfo, len(models))}
	for i, m := range models {
		page.Data[i] = newAModelInfo(m)
	}
	if len(models) > 0 {
		page.FirstID, page.LastID = &models[0].ID, &models[len(models)-1].ID
	}
	x.writeJSON(page)
}

func newAModelInfo(m Model) aModelInfo {
	f := factsOf(m.ID)
	var line *string
	for _, l := range []string{"haiku", "sonnet", "opus"} {
		if strings.Contains(m.ID, "-"+l) {
			line = &l
			break
		}
	}
	yes, no := aSupport{true}, aSupport{false}
	return aModelInfo{
		Type:           "model",
		ID:             m.ID,
		DisplayName:    f.display,
		CreatedAt:      f.created.Format(time.RFC3339),
		MaxInputTokens: m.ContextWindow,
		MaxTokens:      m.MaxOutput,
		// Every key is always present in the real answer; the values are
		// those of a current Claude model.
		Capabilities: aCapabilities{
			Batch:             yes,
			Citations:         yes,
			CodeExecution:     yes,
			ContextManagement: aContextManagement{ClearThinking: yes, ClearToolUses: yes, Compact: no, Supported: true},
			Effort:            aEffort{High: yes, Low: yes, Max: no, Medium: yes, Supported: true, Xhigh: no},
			ImageInput:        yes,
			PDFInput:          yes,
			ServerTools:       aServerTools{CodeExecution: yes, Supported: true, WebSearch: yes},
			StructuredOutputs: yes,
			Thinking:          aThinkingCap{Supported: true, Types: aThinkingTypes{Adaptive: yes, BetweenTools: no, Disabled: yes, Enabled: yes}},
		},
		Lifecycle: "active",
		Line:      line,
	}
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
	Usage        *aUsage `json:"usage,omitempty"` // nil only for OmitUsage
}

type aUsage struct {
	InputTokens              int64          `json:"input_tokens"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens"`
	CacheCreation            aCacheCreation `json:"cache_creation"`
	OutputTokens             int64          `json:"output_tokens"`
	ServiceTier              string         `json:"service_tier"`
	InferenceGeo             string         `json:"inference_geo"`
	// ServerToolUse counts the searches of a turn that searched (the
	// final message only; message_start has none).
	ServerToolUse *aServerToolUsage `json:"server_tool_use,omitempty"`
}

type aServerToolUsage struct {
	WebSearchRequests int64 `json:"web_search_requests"`
	WebFetchRequests  int64 `json:"web_fetch_requests"`
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
	Type  string       `json:"type"`
	Delta aStop        `json:"delta"`
	Usage *aDeltaUsage `json:"usage,omitempty"` // nil only for OmitUsage
}

type aStop struct {
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

type aDeltaUsage struct {
	InputTokens              int64             `json:"input_tokens"`
	CacheCreationInputTokens int64             `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64             `json:"cache_read_input_tokens"`
	OutputTokens             int64             `json:"output_tokens"`
	ServerToolUse            *aServerToolUsage `json:"server_tool_use,omitempty"`
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

// aCitedText is a text block with citations: "citations" comes first, as
// the real API writes it.
type aCitedText struct {
	Citations []aCitation `json:"citations"`
	Type      string      `json:"type"`
	Text      string      `json:"text"`
}

type aCitation struct {
	Type           string `json:"type"`
	CitedText      string `json:"cited_text"`
	URL            string `json:"url"`
	Title          string `json:"title"`
	EncryptedIndex string `json:"encrypted_index"`
}

type aCitationsDelta struct {
	Type     string    `json:"type"`
	Citation aCitation `json:"citation"`
}

type aServerToolUse struct {
	Type   string          `json:"type"`
	ID     string          `json:"id"`
	Name   string          `json:"name"`
	Input  json.RawMessage `json:"input"`
	Caller *aCaller        `json:"caller,omitempty"`
}

// aToolResult is a web_search_tool_result block; Content is []aSearchHit
// or an aSearchError.
type aToolResult struct {
	Type      string   `json:"type"`
	ToolUseID string   `json:"tool_use_id"`
	Content   any      `json:"content"`
	Caller    *aCaller `json:"caller,omitempty"`
}

type aSearchHit struct {
	Type             string  `json:"type"`
	Title            string  `json:"title"`
	URL              string  `json:"url"`
	EncryptedContent string  `json:"encrypted_content"`
	PageAge          *string `json:"page_age"`
}

type aSearchError struct {
	Type      string `json:"type"`
	ErrorCode string `json:"error_code"`
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

type aModelPage struct {
	Data    []aModelInfo `json:"data"`
	HasMore bool         `json:"has_more"`
	FirstID *string      `json:"first_id"`
	LastID  *string      `json:"last_id"`
}

type aModelInfo struct {
	Type           string        `json:"type"`
	ID             string        `json:"id"`
	DisplayName    string        `json:"display_name"`
	CreatedAt      string        `json:"created_at"`
	MaxInputTokens int           `json:"max_input_tokens"`
	MaxTokens      int           `json:"max_tokens"`
	Capabilities   aCapabilities `json:"capabilities"`
	Lifecycle      string        `json:"lifecycle"`
	Line           *string       `json:"line"`
	DeprecatedAt   *string       `json:"deprecated_at"`
	RetiresAt      *string       `json:"retires_at"`
}

type aSupport struct {
	Supported bool `json:"supported"`
}

type aCapabilities struct {
	Batch             aSupport           `json:"batch"`
	Citations         aSupport           `json:"citations"`
	CodeExecution     aSupport           `json:"code_execution"`
	ContextManagement aContextManagement `json:"context_management"`
	Effort            aEffort            `json:"effort"`
	ImageInput        aSupport           `json:"image_input"`
	PDFInput          aSupport           `json:"pdf_input"`
	ServerTools       aServerTools       `json:"server_tools"`
	StructuredOutputs aSupport           `json:"structured_outputs"`
	Thinking          aThinkingCap       `json:"thinking"`
}

type aContextManagement struct {
	ClearThinking aSupport `json:"clear_thinking_20251015"`
	ClearToolUses aSupport `json:"clear_tool_uses_20250919"`
	Compact       aSupport `json:"compact_20260112"`
	Supported     bool     `json:"supported"`
}

type aEffort struct {
	High      aSupport `json:"high"`
	Low       aSupport `json:"low"`
	Max       aSupport `json:"max"`
	Medium    aSupport `json:"medium"`
	Supported bool     `json:"supported"`
	Xhigh     aSupport `json:"xhigh"`
}

type aServerTools struct {
	CodeExecution aSupport `json:"code_execution"`
	Supported     bool     `json:"supported"`
	WebSearch     aSupport `json:"web_search"`
}

type aThinkingCap struct {
	Supported bool           `json:"supported"`
	Types     aThinkingTypes `json:"types"`
}

type aThinkingTypes struct {
	Adaptive     aSupport `json:"adaptive"`
	BetweenTools aSupport `json:"between_tools"`
	Disabled     aSupport `json:"disabled"`
	Enabled      aSupport `json:"enabled"`
}
