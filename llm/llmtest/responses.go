package llmtest

// This file renders turns in the OpenAI Responses API wire format, modelled
// on recordings of the real API (llm/testdata/providers/openai-responses).
// Each block becomes one output item, in order; a streamed turn is, event
// by event (every event carries a sequence_number counting from 0):
//
//	response.created, response.in_progress
//	for each block (output_index = block index):
//	  response.output_item.added           after the block's Delay
//	  text:      response.content_part.added,
//	             response.output_text.delta …            ChunkDelay apart
//	             response.output_text.done, response.content_part.done
//	  thinking:  response.reasoning_summary_part.added,  if it has text
//	             response.reasoning_summary_text.delta … ChunkDelay apart
//	             response.reasoning_summary_text.done,
//	             response.reasoning_summary_part.done
//	  tool call: response.function_call_arguments.delta … one per fragment
//	             response.function_call_arguments.done
//	  search:    response.web_search_call.in_progress,
//	             response.web_search_call.searching,
//	             response.web_search_call.completed       after ChunkDelay
//	  response.output_item.done
//	response.completed                     usage
//	  or response.incomplete               StopReason max_tokens or refusal
//	  or response.failed                   if the turn has a StreamError
//
// Text becomes a "message" item (msg_…) with one output_text part; thinking
// and redacted thinking become a "reasoning" item (rs_…) whose summary is the
// thinking text and whose encrypted_content is the Signature (or the redacted
// Data), sent only when the request's include[] asks for
// "reasoning.encrypted_content"; a tool call becomes a "function_call" item
// (fc_…) whose call_id is the Block's ID; a web search becomes a
// "web_search_call" item (ws_…, or the Block's ID) whose action, once done,
// holds the query and, when include[] asks for
// "web_search_call.action.sources", the results' URLs. A text block's
// citations are url_citation annotations spanning its whole text, each
// announced by response.output_text.annotation.added after the text deltas.

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// responses answers POST /v1/responses.
func (s *Server) responses(x *exchange) {
	var head responsesHead
	t, ok := s.takeTurn(x, &head)
	if !ok {
		return
	}
	t = s.resolve(t, "call_", head.model())
	c := newResponsesCall(t, head, s.nextResponseNumber(), x.req.Received)
	if !head.Stream {
		if x.unstreamed(t) {
			x.writeJSON(c.final())
		}
		return
	}
	x.play(c.events(), t.CutAfter, t.StallAfter)
}

// ResponsesEventTypes lists the event types, in order, of t's OpenAI
// Responses stream when nothing cuts it short; CutAfter and StallAfter count
// these.
func ResponsesEventTypes(t Turn) []string {
	c := newResponsesCall(t.resolved(func() string { return "call_0" }, DefaultOpenAIModel), responsesHead{}, 0, time.Time{})
	evs := c.events()
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Name
	}
	return out
}

// responsesHead is what the renderer reads of a request: the options it
// honours, and the raw fields the real API echoes in its response object.
type responsesHead struct {
	openaiHead
	Include []string `json:"include"`
	raw     map[string]json.RawMessage
}

func (h *responsesHead) UnmarshalJSON(data []byte) error {
	type plain responsesHead // without this method, so no recursion
	if err := json.Unmarshal(data, (*plain)(h)); err != nil {
		return err
	}
	return json.Unmarshal(data, &h.raw)
}

// echo is the request's raw value of key, as the response object repeats
// it, or def (JSON text) when the request has none.
func (h responsesHead) echo(key, def string) json.RawMessage {
	if v, ok := h.raw[key]; ok {
		return v
	}
	return json.RawMessage(def)
}

// responsesCall renders one resolved turn.
type responsesCall struct {
	t         Turn
	head      responsesHead
	num       int   // the server's response number, for IDs
	created   int64 // Unix seconds
	encrypted bool  // include[] asks for reasoning.encrypted_content
	sources   bool  // include[] asks for web_search_call.action.sources
}

func newResponsesCall(t Turn, head responsesHead, num int, received time.Time) *responsesCall {
	return &responsesCall{
		t:         t,
		head:      head,
		num:       num,
		created:   received.Unix(),
		encrypted: slices.Contains(head.Include, "reasoning.encrypted_content"),
		sources:   slices.Contains(head.Include, "web_search_call.action.sources"),
	}
}

func (c *responsesCall) id() string { return fmt.Sprintf("resp_llmtest_%04d", c.num) }

func (c *responsesCall) itemID(i int) string {
	prefix := "msg"
	switch c.t.Blocks[i].Kind {
	case KindThinking, KindRedactedThinking:
		prefix = "rs"
	case KindToolUse:
		prefix = "fc"
	case KindWebSearch:
		if id := c.t.Blocks[i].ID; id != "" {
			return id
		}
		prefix = "ws"
	}
	return fmt.Sprintf("%s_llmtest_%04d_%d", prefix, c.num, i)
}

// outcome is how the response ends: its terminal event and status, and
// for an incomplete one the reason.
func (c *responsesCall) outcome() (event, status, reason string) {
	if c.t.StreamError != nil {
		return "response.failed", "failed", ""
	}
	switch c.t.StopReason {
	case "max_tokens", "max_output_tokens":
		return "response.incomplete", "incomplete", "max_output_tokens"
	case "refusal", "content_filter":
		return "response.incomplete", "incomplete", "content_filter"
	}
	return "response.completed", "completed", ""
}

// item is block i's output item: the empty shell output_item.added
// announces, or the finished item.
func (c *responsesCall) item(i int, done bool) any {
	b, id := c.t.Blocks[i], c.itemID(i)
	status := "in_progress"
	if done {
		status = "completed"
		// A truncated response leaves its last item unfinished.
		if _, _, reason := c.outcome(); reason != "" && i == len(c.t.Blocks)-1 {
			status = "incomplete"
		}
	}
	switch b.Kind {
	case KindThinking, KindRedactedThinking:
		r := rReasoning{ID: id, Type: "reasoning", Content: []any{}, Summary: []rSummaryText{}}
		secret := b.Signature
		if b.Kind == KindRedactedThinking {
			secret = b.Data
		}
		if c.encrypted && secret != "" {
			r.EncryptedContent = &secret
		}
		if done && b.Text != "" {
			r.Summary = append(r.Summary, rSummaryText{Type: "summary_text", Text: b.Text})
		}
		return r
	case KindToolUse:
		f := rFunctionCall{ID: id, Type: "function_call", Status: status, CallID: b.ID, Name: b.Name}
		if done {
			f.Arguments = b.Input
		}
		return f
	case KindWebSearch:
		w := rWebSearchCall{ID: id, Type: "web_search_call", Status: status, Action: rSearchAction{Type: "search"}}
		if !done {
			return w
		}
		if b.SearchError != "" {
			w.Status = "failed"
		}
		w.Action.Queries, w.Action.Query = []string{b.Query}, b.Query
		if c.sources && b.SearchError == "" {
			w.Action.Sources = []rSource{}
			for _, r := range b.Results {
				w.Action.Sources = append(w.Action.Sources, rSource{Type: "url", URL: r.URL})
			}
		}
		return w
	}
	m := rMessage{ID: id, Type: "message", Status: status, Content: []rOutputText{}, Role: "assistant"}
	if done {
		m.Content = append(m.Content, citedOutputText(b))
	}
	return m
}

func outputText(s string) rOutputText {
	return rOutputText{Type: "output_text", Annotations: []any{}, Logprobs: []any{}, Text: s}
}

// citedOutputText is the finished output_text part of text block b, with
// its citations as annotations.
func citedOutputText(b Block) rOutputText {
	p := outputText(b.Text)
	for _, a := range annotations(b) {
		p.Annotations = append(p.Annotations, a)
	}
	return p
}

// annotations are the url_citation annotations of text block b: each spans
// the block's whole text (in characters).
func annotations(b Block) []rURLCitation {
	var out []rURLCitation
	for _, c := range b.Citations {
		out = append(out, rURLCitation{Type: "url_citation", EndIndex: utf8.RuneCountInString(b.Text), Title: c.Title, URL: c.URL})
	}
	return out
}

// response is the response object of the opening events (status
// in_progress, no output yet) or, if terminal, of the end of a response
// that took elapsed to write.
func (c *responsesCall) response(terminal bool, elapsed time.Duration) rResponse {
	h := c.head
	r := rResponse{
		ID:                   c.id(),
		Object:               "response",
		CreatedAt:            c.created,
		Status:               "in_progress",
		FrequencyPenalty:     h.echo("frequency_penalty", "0.0"),
		Instructions:         h.echo("instructions", "null"),
		MaxOutputTokens:      h.echo("max_output_tokens", "null"),
		MaxToolCalls:         h.echo("max_tool_calls", "null"),
		Model:                c.t.Model,
		Moderation:           json.RawMessage("null"),
		Output:               []any{},
		ParallelToolCalls:    h.echo("parallel_tool_calls", "true"),
		PresencePenalty:      h.echo("presence_penalty", "0.0"),
		PreviousResponseID:   h.echo("previous_response_id", "null"),
		PromptCacheKey:       h.echo("prompt_cache_key", "null"),
		PromptCacheRetention: h.echo("prompt_cache_retention", `"in_memory"`),
		Reasoning:            h.echo("reasoning", `{"effort":null,"summary":null}`),
		SafetyIdentifier:     h.echo("safety_identifier", "null"),
		ServiceTier:          h.echo("service_tier", `"auto"`),
		Store:                h.echo("store", "true"),
		Temperature:          h.echo("temperature", "1.0"),
		Text:                 h.echo("text", `{"format":{"type":"text"},"verbosity":"medium"}`),
		ToolChoice:           h.echo("tool_choice", `"auto"`),
		Tools:                h.echo("tools", "[]"),
		TopLogprobs:          h.echo("top_logprobs", "0"),
		TopP:                 h.echo("top_p", "1.0"),
		Truncation:           h.echo("truncation", `"disabled"`),
		User:                 h.echo("user", "null"),
		Metadata:             h.echo("metadata", "{}"),
	}
	if !terminal {
		return r
	}
	_, status, reason := c.outcome()
	r.Status = status
	for i := range c.t.Blocks {
		r.Output = append(r.Output, c.item(i, true))
	}
	// The tier actually used replaces "auto" once the response is done.
	r.ServiceTier = h.echo("service_tier", `"default"`)
	switch r.Status {
	case "failed":
		code := responsesErrorCode(c.t.StreamError.Type)
		r.Error = &rError{Code: code, Message: c.t.StreamError.Message}
		return r
	case "incomplete":
		r.IncompleteDetails = &rIncomplete{Reason: reason}
	case "completed":
		done := c.created + int64(elapsed/time.Second)
		r.CompletedAt = &done
	}
	if !c.t.OmitUsage {
		u := c.t.Usage
		r.Usage = &rUsage{
			InputTokens:         inputTokens(c.t),
			InputTokensDetails:  rInputDetails{CachedTokens: u.CacheReadTokens},
			OutputTokens:        u.OutputTokens,
			OutputTokensDetails: rOutputDetails{ReasoningTokens: reasoningTokens(c.t)},
			TotalTokens:         inputTokens(c.t) + u.OutputTokens,
		}
	}
	return r
}

// responsesErrorCode is the response.error.code for an in-stream error of
// type typ (Anthropic vocabulary); other values are taken as codes already.
func responsesErrorCode(typ string) string {
	switch typ {
	case "rate_limit_error":
		return "rate_limit_exceeded"
	case "overloaded_error", "api_error":
		return "server_error"
	case "invalid_request_error":
		return "invalid_prompt"
	}
	return typ
}

// final is the answer to a non-streaming call: the terminal response
// object, sent after the sum of the block delays.
func (c *responsesCall) final() rResponse {
	var elapsed time.Duration
	for _, b := range c.t.Blocks {
		elapsed += b.Delay
	}
	return c.response(true, elapsed)
}

// events plans the stream.
func (c *responsesCall) events() []sseEvent {
	var evs []sseEvent
	seq := 0
	add := func(delay time.Duration, name string, blockStop bool, build func(seq int) any) {
		ev := sseEvent{Delay: delay, Name: name, Data: marshal(build(seq))}
		if blockStop {
			ev.BlockStops = 1
		}
		evs = append(evs, ev)
		seq++
	}
	pad := func(s string) *string {
		if !c.head.obfuscate() {
			return nil
		}
		p := padding(s)
		return &p
	}
	envelope := func(typ string, r rResponse) func(int) any {
		return func(seq int) any { return rEnvelope{Type: typ, Response: r, SequenceNumber: seq} }
	}
	opening := c.response(false, 0)
	add(0, "response.created", false, envelope("response.created", opening))
	add(0, "response.in_progress", false, envelope("response.in_progress", opening))

	for i, b := range c.t.Blocks {
		id := c.itemID(i)
		add(b.Delay, "response.output_item.added", false, func(seq int) any {
			return rItemEvent{Type: "response.output_item.added", Item: c.item(i, false), OutputIndex: i, SequenceNumber: seq}
		})
		// chunkDelay paces the deltas of this block after its first.
		k := 0
		chunkDelay := func() time.Duration {
			k++
			if k == 1 {
				return 0
			}
			return c.t.ChunkDelay
		}
		switch b.Kind {
		case KindText:
			const typ = "response.content_part.added"
			add(0, typ, false, func(seq int) any {
				return rPartEvent{Type: typ, ItemID: id, OutputIndex: i, Part: outputText(""), SequenceNumber: seq}
			})
			for _, chunk := range textChunks(b.Text) {
				add(chunkDelay(), "response.output_text.delta", false, func(seq int) any {
					return rTextDelta{Type: "response.output_text.delta", Delta: chunk, ItemID: id, Logprobs: []any{},
						Obfuscation: pad(chunk), OutputIndex: i, SequenceNumber: seq}
				})
			}
			for n, a := range annotations(b) {
				const typ = "response.output_text.annotation.added"
				add(0, typ, false, func(seq int) any {
					return rAnnotationEvent{Type: typ, Annotation: a, AnnotationIndex: n, ItemID: id, OutputIndex: i, SequenceNumber: seq}
				})
			}
			add(0, "response.output_text.done", false, func(seq int) any {
				return rTextDone{Type: "response.output_text.done", ItemID: id, Logprobs: []any{}, OutputIndex: i, SequenceNumber: seq, Text: b.Text}
			})
			add(0, "response.content_part.done", false, func(seq int) any {
				return rPartEvent{Type: "response.content_part.done", ItemID: id, OutputIndex: i, Part: citedOutputText(b), SequenceNumber: seq}
			})
		case KindThinking:
			if b.Text == "" {
				break // as a model that thought without summarising
			}
			add(0, "response.reasoning_summary_part.added", false, func(seq int) any {
				return rSummaryPartEvent{Type: "response.reasoning_summary_part.added", ItemID: id, OutputIndex: i,
					Part: rSummaryText{Type: "summary_text"}, SequenceNumber: seq}
			})
			for _, chunk := range textChunks(b.Text) {
				add(chunkDelay(), "response.reasoning_summary_text.delta", false, func(seq int) any {
					return rSummaryDelta{Type: "response.reasoning_summary_text.delta", Delta: chunk, ItemID: id,
						Obfuscation: pad(chunk), OutputIndex: i, SequenceNumber: seq}
				})
			}
			add(0, "response.reasoning_summary_text.done", false, func(seq int) any {
				return rSummaryDone{Type: "response.reasoning_summary_text.done", ItemID: id, OutputIndex: i, SequenceNumber: seq, Text: b.Text}
			})
			add(0, "response.reasoning_summary_part.done", false, func(seq int) any {
				return rSummaryPartEvent{Type: "response.reasoning_summary_part.done", ItemID: id, OutputIndex: i,
					Part: rSummaryText{Type: "summary_text", Text: b.Text}, SequenceNumber: seq}
			})
		case KindToolUse:
			for _, frag := range fragments(b.Input, b.Fragments) {
				add(chunkDelay(), "response.function_call_arguments.delta", false, func(seq int) any {
					return rArgsDelta{Type: "response.function_call_arguments.delta", Delta: frag, ItemID: id,
						Obfuscation: pad(frag), OutputIndex: i, SequenceNumber: seq}
				})
			}
			add(0, "response.function_call_arguments.done", false, func(seq int) any {
				return rArgsDone{Type: "response.function_call_arguments.done", Arguments: b.Input, ItemID: id, OutputIndex: i, SequenceNumber: seq}
			})
		case KindWebSearch:
			phases := []string{"response.web_search_call.in_progress", "response.web_search_call.searching"}
			if b.SearchError == "" {
				phases = append(phases, "response.web_search_call.completed")
			}
			for n, typ := range phases {
				var delay time.Duration
				if n == 2 {
					delay = c.t.ChunkDelay // the search itself
				}
				add(delay, typ, false, func(seq int) any {
					return rSearchEvent{Type: typ, ItemID: id, OutputIndex: i, SequenceNumber: seq}
				})
			}
		}
		add(0, "response.output_item.done", true, func(seq int) any {
			return rItemEvent{Type: "response.output_item.done", Item: c.item(i, true), OutputIndex: i, SequenceNumber: seq}
		})
	}

	var elapsed time.Duration // the scripted pacing of the whole stream
	for _, ev := range evs {
		elapsed += ev.Delay
	}
	typ, _, _ := c.outcome()
	add(0, typ, false, envelope(typ, c.response(true, elapsed)))
	return evs
}

// Wire structs. Field order is the real API's: events list "type" first and
// the rest alphabetically; items and the response object have their own
// order.

type rEnvelope struct {
	Type           string    `json:"type"`
	Response       rResponse `json:"response"`
	SequenceNumber int       `json:"sequence_number"`
}

type rResponse struct {
	ID                   string          `json:"id"`
	Object               string          `json:"object"`
	CreatedAt            int64           `json:"created_at"`
	Status               string          `json:"status"`
	Background           bool            `json:"background"`
	CompletedAt          *int64          `json:"completed_at"`
	Error                *rError         `json:"error"`
	FrequencyPenalty     json.RawMessage `json:"frequency_penalty"`
	IncompleteDetails    *rIncomplete    `json:"incomplete_details"`
	Instructions         json.RawMessage `json:"instructions"`
	MaxOutputTokens      json.RawMessage `json:"max_output_tokens"`
	MaxToolCalls         json.RawMessage `json:"max_tool_calls"`
	Model                string          `json:"model"`
	Moderation           json.RawMessage `json:"moderation"`
	Output               []any           `json:"output"`
	ParallelToolCalls    json.RawMessage `json:"parallel_tool_calls"`
	PresencePenalty      json.RawMessage `json:"presence_penalty"`
	PreviousResponseID   json.RawMessage `json:"previous_response_id"`
	PromptCacheKey       json.RawMessage `json:"prompt_cache_key"`
	PromptCacheRetention json.RawMessage `json:"prompt_cache_retention"`
	Reasoning            json.RawMessage `json:"reasoning"`
	SafetyIdentifier     json.RawMessage `json:"safety_identifier"`
	ServiceTier          json.RawMessage `json:"service_tier"`
	Store                json.RawMessage `json:"store"`
	Temperature          json.RawMessage `json:"temperature"`
	Text                 json.RawMessage `json:"text"`
	ToolChoice           json.RawMessage `json:"tool_choice"`
	Tools                json.RawMessage `json:"tools"`
	TopLogprobs          json.RawMessage `json:"top_logprobs"`
	TopP                 json.RawMessage `json:"top_p"`
	Truncation           json.RawMessage `json:"truncation"`
	Usage                *rUsage         `json:"usage"`
	User                 json.RawMessage `json:"user"`
	Metadata             json.RawMessage `json:"metadata"`
}

type rError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type rIncomplete struct {
	Reason string `json:"reason"`
}

type rUsage struct {
	InputTokens         int64          `json:"input_tokens"`
	InputTokensDetails  rInputDetails  `json:"input_tokens_details"`
	OutputTokens        int64          `json:"output_tokens"`
	OutputTokensDetails rOutputDetails `json:"output_tokens_details"`
	TotalTokens         int64          `json:"total_tokens"`
}

type rInputDetails struct {
	CachedTokens int64 `json:"cached_tokens"`
}

type rOutputDetails struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
}

type rMessage struct {
	ID      string        `json:"id"`
	Type    string        `json:"type"`
	Status  string        `json:"status"`
	Content []rOutputText `json:"content"`
	Role    string        `json:"role"`
}

type rOutputText struct {
	Type        string `json:"type"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
	Text        string `json:"text"`
}

type rReasoning struct {
	ID               string         `json:"id"`
	Type             string         `json:"type"`
	Content          []any          `json:"content"`
	EncryptedContent *string        `json:"encrypted_content,omitempty"`
	Summary          []rSummaryText `json:"summary"`
}

type rSummaryText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rFunctionCall struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
}

type rItemEvent struct {
	Type           string `json:"type"`
	Item           any    `json:"item"`
	OutputIndex    int    `json:"output_index"`
	SequenceNumber int    `json:"sequence_number"`
}

type rPartEvent struct {
	Type           string      `json:"type"`
	ContentIndex   int         `json:"content_index"`
	ItemID         string      `json:"item_id"`
	OutputIndex    int         `json:"output_index"`
	Part           rOutputText `json:"part"`
	SequenceNumber int         `json:"sequence_number"`
}

type rTextDelta struct {
	Type           string  `json:"type"`
	ContentIndex   int     `json:"content_index"`
	Delta          string  `json:"delta"`
	ItemID         string  `json:"item_id"`
	Logprobs       []any   `json:"logprobs"`
	Obfuscation    *string `json:"obfuscation,omitempty"`
	OutputIndex    int     `json:"output_index"`
	SequenceNumber int     `json:"sequence_number"`
}

type rTextDone struct {
	Type           string `json:"type"`
	ContentIndex   int    `json:"content_index"`
	ItemID         string `json:"item_id"`
	Logprobs       []any  `json:"logprobs"`
	OutputIndex    int    `json:"output_index"`
	SequenceNumber int    `json:"sequence_number"`
	Text           string `json:"text"`
}

type rSummaryPartEvent struct {
	Type           string       `json:"type"`
	ItemID         string       `json:"item_id"`
	OutputIndex    int          `json:"output_index"`
	Part           rSummaryText `json:"part"`
	SequenceNumber int          `json:"sequence_number"`
	SummaryIndex   int          `json:"summary_index"`
}

type rSummaryDelta struct {
	Type           string  `json:"type"`
	Delta          string  `json:"delta"`
	ItemID         string  `json:"item_id"`
	Obfuscation    *string `json:"obfuscation,omitempty"`
	OutputIndex    int     `json:"output_index"`
	SequenceNumber int     `json:"sequence_number"`
	SummaryIndex   int     `json:"summary_index"`
}

type rSummaryDone struct {
	Type           string `json:"type"`
	ItemID         string `json:"item_id"`
	OutputIndex    int    `json:"output_index"`
	SequenceNumber int    `json:"sequence_number"`
	SummaryIndex   int    `json:"summary_index"`
	Text           string `json:"text"`
}

type rArgsDelta struct {
	Type           string  `json:"type"`
	Delta          string  `json:"delta"`
	ItemID         string  `json:"item_id"`
	Obfuscation    *string `json:"obfuscation,omitempty"`
	OutputIndex    int     `json:"output_index"`
	SequenceNumber int     `json:"sequence_number"`
}

type rWebSearchCall struct {
	ID     string        `json:"id"`
	Type   string        `json:"type"`
	Status string        `json:"status"`
	Action rSearchAction `json:"action"`
}

type rSearchAction struct {
	Type    string    `json:"type"`
	Queries []string  `json:"queries,omitempty"`
	Query   string    `json:"query,omitempty"`
	Sources []rSource `json:"sources,omitempty"`
}

type rSource struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type rSearchEvent struct {
	Type           string `json:"type"`
	ItemID         string `json:"item_id"`
	OutputIndex    int    `json:"output_index"`
	SequenceNumber int    `json:"sequence_number"`
}

type rURLCitation struct {
	Type       string `json:"type"`
	EndIndex   int    `json:"end_index"`
	StartIndex int    `json:"start_index"`
	Title      string `json:"title"`
	URL        string `json:"url"`
}

type rAnnotationEvent struct {
	Type            string       `json:"type"`
	Annotation      rURLCitation `json:"annotation"`
	AnnotationIndex int          `json:"annotation_index"`
	ContentIndex    int          `json:"content_index"`
	ItemID          string       `json:"item_id"`
	OutputIndex     int          `json:"output_index"`
	SequenceNumber  int          `json:"sequence_number"`
}

type rArgsDone struct {
	Type           string `json:"type"`
	Arguments      string `json:"arguments"`
	ItemID         string `json:"item_id"`
	OutputIndex    int    `json:"output_index"`
	SequenceNumber int    `json:"sequence_number"`
}
