// Package llmtest is a scripted model server for tests and benchmarks.
//
// A [Server] is a real HTTP server on a loopback port. Each model call it
// receives is answered with the next [Turn] of its script, rendered in the
// streaming wire format of the API called, exactly as the real API sends it,
// and every request is recorded for later inspection. One server speaks three
// formats, chosen by the request path: Anthropic Messages (…/messages; point
// ANTHROPIC_BASE_URL at [Server.URL]), OpenAI Responses (…/responses) and
// OpenAI Chat Completions (…/chat/completions); OpenAI clients take
// URL+"/v1" as their base URL. Because it is a real listener rather than an
// in-process fake, the same script drives unit tests of the adapters,
// end-to-end tests of the nova binary and benchmarks; cmd/llmserver serves a
// script from a JSON file. A server holding several conversations at once
// (an agent and its subagents, calling in parallel) answers each from its
// own script with the fallback [Conversations], which tells them apart by
// their first user message.
//
// The script is protocol-neutral: a Turn describes what the model says
// (blocks of text, thinking, tool calls and searches of the provider's own
// web search, text citing what they found), how it says it (pacing, usage,
// stop reason) and how the call fails (HTTP errors, in-stream errors, dropped
// connections, hangs), in Anthropic's vocabulary. Rendering a Turn into a
// wire format is the job of one file per protocol: anthropic.go,
// responses.go and chat.go, whose comments show the event sequence.
//
// # What each format honours
//
// Anthropic Messages honours every field verbatim.
//
// OpenAI Responses: each block is one output item. Text is a message item;
// thinking is a reasoning item whose summary is the text and whose
// encrypted_content is the Signature (redacted thinking: the Data, with no
// summary), sent only when the request's include[] has
// "reasoning.encrypted_content"; a tool call is a function_call item whose
// call_id is the block's ID, its arguments streamed one delta per fragment.
// StopReason max_tokens ends with response.incomplete (reason
// max_output_tokens), refusal likewise (content_filter), anything else with
// response.completed; StopSequence is not sent. A StreamError ends with
// response.failed, its type mapped to a code (rate_limit_error →
// rate_limit_exceeded, overloaded_error and api_error → server_error,
// invalid_request_error → invalid_prompt, others verbatim).
//
// A web_search block is a search the provider ran itself. Anthropic sends it
// as two content blocks, a server_tool_use whose input {"query": …} streams
// in Fragments pieces and a web_search_tool_result with the results (each
// with an encrypted_content, made up from its URL when the script gives
// none) or an error code; message_delta's usage then carries
// server_tool_use.web_search_requests, the turn's searches that did not
// fail. A text block's Citations open it with "citations": [] and come as
// citations_delta events (web_search_result_location) before its text.
// Responses sends a search as a web_search_call item: its added event,
// response.web_search_call.in_progress, .searching and .completed, then the
// item done with its action (type search, query and queries, and the
// results' URLs as sources when the request's include[] has
// "web_search_call.action.sources"); a failed search ends with status
// failed and no completed event. Citations are url_citation annotations
// spanning the whole text of the block's message item, each announced by
// response.output_text.annotation.added after the text. Chat Completions
// has no web search: web_search blocks and citations are not sent.
//
// OpenAI Chat Completions: text is delta.content; thinking text is the
// non-standard delta.reasoning_content, as DeepSeek, xAI and others send it;
// signatures and redacted thinking are not sent. Tool calls are
// delta.tool_calls entries indexed in order among the turn's calls, the ID
// and name in the first chunk and then one chunk per argument fragment. The
// finish_reason maps end_turn and stop_sequence to stop, tool_use to
// tool_calls, max_tokens to length and refusal to content_filter; other
// values are sent verbatim. Usage comes only when the request sets
// stream_options.include_usage. A StreamError is an {"error": …} chunk
// after which the stream ends without [DONE].
//
// Usage in both OpenAI formats counts cache reads inside the input
// (input_tokens, prompt_tokens = InputTokens + CacheReadTokens, with
// cached_tokens = CacheReadTokens), leaves CacheWriteTokens out (OpenAI has
// no such figure), and reports reasoning_tokens estimated at a token per four
// bytes of thinking text, at most OutputTokens. OmitUsage sends no usage in
// any format. An empty Model claims DefaultModel in Anthropic responses and
// echoes the request's model in OpenAI ones; tool call IDs left empty become
// toolu_N and call_N respectively. Error statuses use each API's error shape:
// the OpenAI formats translate the Anthropic ErrorType values they have an
// equivalent for (rate_limit_error → type requests, code
// rate_limit_exceeded; overloaded_error and api_error → server_error;
// authentication_error → code invalid_api_key; permission_error →
// request_forbidden; not_found_error → code model_not_found), and ErrorCode
// sets the code outright.
//
// Pacing and faults work the same in every format. A block's Delay comes
// before its first event and ChunkDelay between its deltas; CutAfter and
// StallAfter count server-sent events, one per data line, including pings
// and Chat's [DONE] ([AnthropicEventTypes], [ResponsesEventTypes] and
// [ChatEventTypes] list them). A non-streaming call ("stream" false or
// absent) gets one JSON document instead, after the sum of the block
// delays; CutAfter then drops the connection, StallAfter hangs and a
// StreamError becomes an error status.
//
// Scripts can live in files: Turn and Block encode to JSON with snake_case
// keys. Durations (chunk_delay, delay) are written as Go duration strings
// ("250ms", "1.5s"); a bare JSON number is read as nanoseconds, which is how
// encoding/json writes a time.Duration, so either form round-trips. A tool
// call's input may be written either as a JSON string holding the raw
// argument text (the only way to script malformed arguments) or as a JSON
// value, which is compacted and used verbatim.
//
// # Adapter conformance
//
// The package also holds what every provider adapter is tested with alike.
// [Conformance] runs one suite against an [Adapter] (the adapter supplies
// its client, its recordings and the few things its protocol does its own
// way): replay of every recorded real stream against golden files
// ([Golden]) and the event contract ([CheckEvents]), rebuild of every
// recorded request, invalid requests and base URLs, a consumer stopping
// after any event ([Collect] checks the iterator contract on every call),
// damaged streams, the faults of [StreamFaults], the encoding cache of
// [CacheSuite] and the provider's web search ([SearchTurn]).
package llmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/novacode/nova/llm"
)

// Block kinds a script can use.
const (
	KindText             = "text"
	KindThinking         = "thinking"
	KindRedactedThinking = "redacted_thinking"
	KindToolUse          = "tool_use"
	KindWebSearch        = "web_search"
)

// Script defaults.
const (
	// DefaultModel is the model an Anthropic response claims when the turn
	// names none.
	DefaultModel = "claude-sonnet-4-5"
	// DefaultOpenAIModel is the model an OpenAI response claims when
	// neither the turn nor the request names one; normally the request's
	// "model" is echoed, as the real API does.
	DefaultOpenAIModel = "gpt-5"
	defaultFragments   = 3
	defaultInput       = "{}"
)

// Turn is one scripted model response.
//
// The zero Turn streams an empty end_turn message. Hang takes precedence
// over Status, and Status over the content. A Turn is rendered afresh for
// every request, so the same value may be served many times (see [Cycle]).
type Turn struct {
	// Status 0 or 200 streams the turn; any other status answers with an
	// error response, in the called API's error shape, whose JSON body
	// carries ErrorType and ErrorMessage (defaults derived from the status,
	// e.g. 429 → rate_limit_error, or for OpenAI type requests with code
	// rate_limit_exceeded).
	Status int `json:"status,omitempty"`
	// RetryAfter is sent as the Retry-After header of error responses.
	RetryAfter string `json:"retry_after,omitempty"`
	// ErrorType is written in Anthropic's vocabulary; the OpenAI formats
	// translate the Anthropic types they have an equivalent for (see the
	// package doc) and send any other value verbatim.
	ErrorType    string `json:"error_type,omitempty"`
	ErrorMessage string `json:"error_message,omitempty"`
	// ErrorCode is the OpenAI error.code (e.g. "context_length_exceeded");
	// it overrides the code derived from Status or ErrorType. Anthropic
	// errors have no code.
	ErrorCode string `json:"error_code,omitempty"`

	// Model is the model the response claims to come from. If empty, an
	// Anthropic response claims DefaultModel and an OpenAI one echoes the
	// request's model (DefaultOpenAIModel if it has none).
	Model  string  `json:"model,omitempty"`
	Blocks []Block `json:"blocks,omitempty"`
	// StopReason, in Anthropic's vocabulary, defaults to "tool_use" if any
	// block is a tool call, else "end_turn". The OpenAI formats translate
	// it (see the package doc).
	StopReason string `json:"stop_reason,omitempty"`
	// StopSequence is reported alongside StopReason "stop_sequence".
	StopSequence string `json:"stop_sequence,omitempty"`
	// Usage is reported as each real API does (see the package doc for the
	// mapping): Anthropic sends the input and cache figures in the opening
	// event and the final figures in the closing one; OpenAI sends them all
	// at the end, with the cache reads counted inside the input tokens and
	// no cache writes.
	Usage llm.Usage `json:"usage,omitzero"`
	// OmitUsage sends no usage at all, in any format, as some
	// OpenAI-compatible servers do: for testing a client's estimate.
	OmitUsage bool `json:"omit_usage,omitempty"`

	// ChunkDelay is the pause between consecutive delta events inside a
	// block, to simulate a model generating tokens at a given rate.
	ChunkDelay time.Duration `json:"chunk_delay,omitzero"`

	// StreamError, if set, is sent as an in-stream error event after the
	// blocks, in place of the normal end of the message: the HTTP status is
	// already 200 when the provider fails, as with a real mid-stream
	// overload. (Responses: a response.failed event; Chat: an error chunk.)
	StreamError *StreamError `json:"stream_error,omitempty"`
	// CutAfter > 0 drops the TCP connection abruptly after that many events
	// have been written (every event counts, including the opening one,
	// pings and Chat's [DONE]), so the client sees an unexpected EOF
	// mid-stream. If the stream is shorter, it completes normally.
	// [AnthropicEventTypes], [ResponsesEventTypes] and [ChatEventTypes] list
	// the events a turn produces in each format.
	CutAfter int `json:"cut_after,omitempty"`
	// StallAfter > 0 stops writing after that many events but keeps the
	// connection open until the client gives up or the server closes: a
	// stream that goes silent, for testing idle timeouts.
	StallAfter int `json:"stall_after,omitempty"`
	// Hang accepts the request and never answers until the client
	// disconnects or the server closes.
	Hang bool `json:"hang,omitempty"`
}

// StreamError is an error reported inside an already-started stream.
type StreamError struct {
	// Type is the provider's error type; "overloaded_error" if empty.
	Type string `json:"type,omitempty"`
	// Message defaults to "Overloaded".
	Message string `json:"message,omitempty"`
}

// Block is one content block of a scripted response.
type Block struct {
	// Kind is one of the Kind* constants.
	Kind string `json:"kind"`
	// Text is the answer text or the thinking text. It is streamed in
	// pieces of 16 to 32 bytes, split on rune boundaries, as a real model
	// streams a few tokens per event.
	Text string `json:"text,omitempty"`
	// Signature is a thinking block's signature, sent as its last delta.
	Signature string `json:"signature,omitempty"`
	// Data is a redacted_thinking block's opaque payload.
	Data string `json:"data,omitempty"`
	// ID and Name identify a tool call. An empty ID is replaced by
	// "toolu_" followed by a per-server counter.
	ID   string `json:"id,omitempty"`
	Name string `json:"name,omitempty"`
	// Input is the tool call's raw argument JSON, sent verbatim: it may be
	// deliberately malformed. Empty means "{}".
	Input string `json:"input,omitempty"`
	// Fragments is how many pieces Input is streamed in (default 3; fewer
	// if Input has fewer runes).
	Fragments int `json:"fragments,omitempty"`
	// Delay is the pause before this block starts: time to first token for
	// the first block, thinking or tool-planning time for later ones.
	Delay time.Duration `json:"delay,omitzero"`

	// Query, Results and SearchError describe a web_search block: the query
	// the model searched for and the pages found, or the error code of a
	// search that failed ("max_uses_exceeded", "too_many_requests",
	// "unavailable", …). An empty ID is made up as the API's are
	// (srvtoolu_…, ws_…). The search itself takes the turn's ChunkDelay.
	Query       string         `json:"query,omitempty"`
	Results     []SearchResult `json:"results,omitempty"`
	SearchError string         `json:"search_error,omitempty"`
	// Citations are the sources a text block cites.
	Citations []Citation `json:"citations,omitempty"`
}

// SearchResult is a page a web_search block finds.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	PageAge string `json:"page_age,omitempty"`
	// EncryptedContent is Anthropic's opaque copy of the page, which a
	// client must send back; empty makes one up from the URL.
	EncryptedContent string `json:"encrypted_content,omitempty"`
}

// Citation is a source a text block cites.
type Citation struct {
	URL       string `json:"url"`
	Title     string `json:"title"`
	CitedText string `json:"cited_text,omitempty"`
}

// Text returns a text block.
func Text(s string) Block { return Block{Kind: KindText, Text: s} }

// Thinking returns a thinking block with its signature.
func Thinking(text, sig string) Block {
	return Block{Kind: KindThinking, Text: text, Signature: sig}
}

// RedactedThinking returns a redacted_thinking block carrying data.
func RedactedThinking(data string) Block {
	return Block{Kind: KindRedactedThinking, Data: data}
}

// ToolUse returns a tool call block. id may be empty to have the server
// assign one; input is the raw argument JSON.
func ToolUse(id, name, input string) Block {
	return Block{Kind: KindToolUse, ID: id, Name: name, Input: input}
}

// WebSearch returns a web_search block: a search for query that finds
// results.
func WebSearch(query string, results ...SearchResult) Block {
	return Block{Kind: KindWebSearch, Query: query, Results: results}
}

// CitedText returns a text block that cites sources.
func CitedText(s string, sources ...Citation) Block {
	return Block{Kind: KindText, Text: s, Citations: sources}
}

// Validate reports the first thing wrong with t that would stop it from
// being rendered. Deliberately broken content (malformed tool input, odd
// stop reasons) is not an error: provoking clients with it is the point.
func (t Turn) Validate() error {
	if t.Status != 0 && t.Status != 200 && (t.Status < 400 || t.Status > 599) {
		return fmt.Errorf("status %d: want 0, 200 or an error status 400-599", t.Status)
	}
	if t.ChunkDelay < 0 || t.CutAfter < 0 || t.StallAfter < 0 {
		return errors.New("chunk_delay, cut_after and stall_after must not be negative")
	}
	for i, b := range t.Blocks {
		switch b.Kind {
		case KindText, KindThinking, KindRedactedThinking, KindToolUse, KindWebSearch:
		default:
			return fmt.Errorf("block %d: unknown kind %q", i, b.Kind)
		}
		if len(b.Citations) > 0 && b.Kind != KindText {
			return fmt.Errorf("block %d: citations on a %s block; only text cites", i, b.Kind)
		}
		if b.Fragments < 0 || b.Delay < 0 {
			return fmt.Errorf("block %d: fragments and delay must not be negative", i)
		}
	}
	return nil
}

// resolved returns a copy of t with every default filled in, taking tool
// call IDs from nextID and model as the default model. Rendering works on
// resolved turns only, so the protocol files never repeat the defaulting
// rules.
func (t Turn) resolved(nextID func() string, model string) Turn {
	if t.Model == "" {
		t.Model = model
	}
	blocks := make([]Block, len(t.Blocks))
	hasTool := false
	for i, b := range t.Blocks {
		if b.Kind == KindToolUse {
			hasTool = true
			if b.ID == "" {
				b.ID = nextID()
			}
			if b.Input == "" {
				b.Input = defaultInput
			}
			if b.Fragments == 0 {
				b.Fragments = defaultFragments
			}
		}
		if b.Kind == KindWebSearch && b.Fragments == 0 {
			b.Fragments = defaultFragments
		}
		blocks[i] = b
	}
	t.Blocks = blocks
	if t.StopReason == "" {
		t.StopReason = string(llm.StopEndTurn)
		if hasTool {
			t.StopReason = string(llm.StopToolUse)
		}
	}
	if t.StreamError != nil {
		se := *t.StreamError
		if se.Type == "" {
			se.Type = "overloaded_error"
		}
		if se.Message == "" {
			se.Message = "Overloaded"
		}
		t.StreamError = &se
	}
	return t
}

// searchInput is the input of a web_search block's call, as the model
// writes it.
func searchInput(b Block) string {
	return string(marshal(struct {
		Query string `json:"query"`
	}{b.Query}))
}

// searches is how many of t's searches ran: those that did not fail.
func searches(t Turn) int64 {
	var n int64
	for _, b := range t.Blocks {
		if b.Kind == KindWebSearch && b.SearchError == "" {
			n++
		}
	}
	return n
}

// hasSearch reports whether t has a web_search block.
func hasSearch(t Turn) bool {
	for _, b := range t.Blocks {
		if b.Kind == KindWebSearch {
			return true
		}
	}
	return false
}

// encryptedContent is a result's encrypted_content: the script's, or one
// made up from its URL (opaque to the client either way).
func encryptedContent(r SearchResult) string {
	if r.EncryptedContent != "" {
		return r.EncryptedContent
	}
	return base64.StdEncoding.EncodeToString([]byte("llmtest page " + r.URL))
}

// textChunks splits s the way a model streams it: pieces of 16 to 32
// bytes, never inside a UTF-8 sequence (an encoder would otherwise replace
// the halves with U+FFFD). The sizes vary deterministically so tests are
// reproducible but clients still see uneven pieces.
func textChunks(s string) []string {
	var out []string
	for k := 0; len(s) > 0; k++ {
		n := 16 + (k*11)%17
		if n >= len(s) {
			out = append(out, s)
			break
		}
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// fragments splits s into n pieces of about equal rune count (fewer if s
// has fewer runes), again never inside a UTF-8 sequence.
func fragments(s string, n int) []string {
	runes := utf8.RuneCountInString(s)
	if runes == 0 {
		return nil
	}
	n = max(1, min(n, runes))
	out := make([]string, 0, n)
	for i := range n {
		// Runes in this piece: spread the remainder over the first pieces.
		want := runes / n
		if i < runes%n {
			want++
		}
		end := 0
		for range want {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// ParseScript decodes a JSON array of turns and validates each one. Unknown
// keys are errors: a misspelt "cut_afer" silently ignored would make a test
// pass for the wrong reason.
func ParseScript(data []byte) ([]Turn, error) {
	var turns []Turn
	if err := strictUnmarshal(data, &turns); err != nil {
		return nil, fmt.Errorf("llmtest: parse script: %w", err)
	}
	for i, t := range turns {
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("llmtest: script turn %d: %w", i, err)
		}
	}
	return turns, nil
}

func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after JSON value")
	}
	return nil
}

// jsonDuration is a time.Duration that encodes as a Go duration string and
// decodes from either such a string or a number of nanoseconds.
type jsonDuration time.Duration

func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func (d *jsonDuration) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = jsonDuration(v)
		return nil
	}
	n, err := strconv.ParseInt(string(data), 10, 64)
	if err != nil {
		return fmt.Errorf("duration %s: want a string such as \"250ms\" or integer nanoseconds", data)
	}
	*d = jsonDuration(n)
	return nil
}

// The (un)marshalers below shadow the time.Duration fields with
// jsonDuration ones: a field at a shallower depth wins over the embedded
// struct's field of the same JSON name.

// MarshalJSON writes ChunkDelay as a duration string.
func (t Turn) MarshalJSON() ([]byte, error) {
	type plain Turn
	return json.Marshal(struct {
		plain
		ChunkDelay jsonDuration `json:"chunk_delay,omitzero"`
	}{plain(t), jsonDuration(t.ChunkDelay)})
}

// UnmarshalJSON reads a turn strictly: unknown keys are errors.
func (t *Turn) UnmarshalJSON(data []byte) error {
	type plain Turn
	aux := struct {
		*plain
		ChunkDelay jsonDuration `json:"chunk_delay,omitzero"`
	}{plain: (*plain)(t)}
	if err := strictUnmarshal(data, &aux); err != nil {
		return err
	}
	t.ChunkDelay = time.Duration(aux.ChunkDelay)
	return nil
}

// MarshalJSON writes Delay as a duration string and Input as a string.
func (b Block) MarshalJSON() ([]byte, error) {
	type plain Block
	return json.Marshal(struct {
		plain
		Delay jsonDuration `json:"delay,omitzero"`
	}{plain(b), jsonDuration(b.Delay)})
}

// UnmarshalJSON reads a block strictly, taking Input as a string or a value.
func (b *Block) UnmarshalJSON(data []byte) error {
	type plain Block
	aux := struct {
		*plain
		Delay jsonDuration    `json:"delay,omitzero"`
		Input json.RawMessage `json:"input,omitempty"`
	}{plain: (*plain)(b)}
	if err := strictUnmarshal(data, &aux); err != nil {
		return err
	}
	b.Delay = time.Duration(aux.Delay)
	switch in := bytes.TrimSpace(aux.Input); {
	case len(in) == 0 || string(in) == "null":
		b.Input = ""
	case in[0] == '"':
		// A string holds the raw argument text, malformed or not.
		if err := json.Unmarshal(in, &b.Input); err != nil {
			return err
		}
	default:
		// A JSON value is the arguments themselves; compact it so it
		// streams like model output rather than like the script's layout.
		var buf bytes.Buffer
		if err := json.Compact(&buf, in); err != nil {
			return err
		}
		b.Input = buf.String()
	}
	return nil
}
