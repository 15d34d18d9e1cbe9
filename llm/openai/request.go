package openai

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

const (
	// minOutputTokens is the smallest max_output_tokens the API accepts.
	minOutputTokens = 16
	// defaultEffort is the reasoning effort when llm.Thinking names none.
	defaultEffort = "medium"
	// errorPrefix marks a failed tool result: function_call_output has no
	// error flag, so the model learns it from the text.
	errorPrefix = "Error: "
)

// request is the body of POST /responses, encoded with encoding/json from
// these structs rather than the SDK's parameter types, whose reflective
// encoder and union types cost time per request and a tenth of the binary.
// The fields are in the order the SDK wrote them, and strings are escaped
// as it did them (<, > and & verbatim), so bodies did not change with it.
type request struct {
	// Instructions carries the system prompt: the Responses way (rather than
	// a system/developer input item), and the API picks the right role for
	// the model.
	Instructions    string `json:"instructions,omitempty"`
	MaxOutputTokens int    `json:"max_output_tokens,omitempty"`
	// Store is always false: stateless by design, the agent keeps the
	// history, and a stored response would be data retained for nothing.
	Store   bool     `json:"store"`
	Include []string `json:"include,omitempty"`
	// Input holds the input items (messageItem, functionCall,
	// functionCallOutput, reasoningItem), never null.
	Input     []any             `json:"input"`
	Model     string            `json:"model"`
	Reasoning *reasoning        `json:"reasoning,omitempty"`
	Tools     []json.RawMessage `json:"tools,omitempty"`
	Stream    bool              `json:"stream"`
}

type reasoning struct {
	Effort  string `json:"effort"`
	Summary string `json:"summary"`
}

// messageItem is an easy-input message: Content is a string (assistant
// text) or []contentPart (user text and images).
type messageItem struct {
	Content any    `json:"content"`
	Role    string `json:"role"`
}

type contentPart struct {
	Detail   string `json:"detail,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Text     string `json:"text,omitempty"`
	Type     string `json:"type"`
}

type functionCall struct {
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Type      string `json:"type"`
}

type functionCallOutput struct {
	Output string `json:"output"`
	CallID string `json:"call_id"`
	Type   string `json:"type"`
}

type reasoningItem struct {
	ID               string        `json:"id"`
	Summary          []summaryPart `json:"summary"` // required, even empty
	EncryptedContent string        `json:"encrypted_content"`
	Type             string        `json:"type"`
}

// webSearchCall is a web_search_call item sent back: the item the API
// sent, without its id. With store: false the API keeps no item an id could
// name (as for reasoning, whose encrypted content stands in for it); the
// status and action say all there is, as Codex sends them.
type webSearchCall struct {
	Type   string          `json:"type"`
	Status string          `json:"status"`
	Action json.RawMessage `json:"action"`
}

type summaryPart struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

// buildBody encodes req as a streaming Responses request, input items
// included. It is the uncached path; Client.requestBody builds the same
// bytes from the encoding cache.
//
// The body is a pure function of req: store is false, the whole history is
// sent as input items every call, and nothing varies between two calls with
// the same history (no item ids for messages, no timestamps), so OpenAI's
// automatic prefix caching hits on everything but the newest turn.
func buildBody(req *llm.Request) ([]byte, error) {
	r, err := envelope(req)
	if err != nil {
		return nil, err
	}
	for i := range req.Messages {
		if r.Input, err = messageItems(r.Input, i, &req.Messages[i]); err != nil {
			return nil, err
		}
	}
	return wire.AppendJSON(nil, &r)
}

// envelope translates everything of req but its messages.
func envelope(req *llm.Request) (request, error) {
	r := request{Model: req.Model, Instructions: req.System, Input: []any{}, Stream: true}
	if req.MaxTokens > 0 {
		// The API rejects a limit below its minimum rather than apply it;
		// a few tokens more is the closer outcome to what was asked.
		r.MaxOutputTokens = max(req.MaxTokens, minOutputTokens)
	}
	if t := req.Thinking; t != nil {
		r.Reasoning = &reasoning{Effort: cmp.Or(t.Effort, defaultEffort), Summary: "auto"}
		// With store: false the reasoning of one turn reaches the next only
		// as its encrypted content.
		r.Include = []string{"reasoning.encrypted_content"}
	}
	if len(req.Tools) > 0 {
		r.Tools = make([]json.RawMessage, len(req.Tools), len(req.Tools)+1)
		for i := range req.Tools {
			raw, err := toolJSON(&req.Tools[i])
			if err != nil {
				return r, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("tool %q: %v", req.Tools[i].Name, err), Err: err}
			}
			r.Tools[i] = raw
		}
	}
	if req.WebSearch != nil {
		// The built-in tool: the API runs the searches (it takes no cap
		// of its own; max_tool_calls would cap the function calls too).
		// The sources are what a search found; without asking, a
		// web_search_call says only what was searched for.
		r.Tools = append(r.Tools, json.RawMessage(`{"type":"web_search"}`))
		r.Include = append(r.Include, "web_search_call.action.sources")
	}
	return r, nil
}

// messageItems appends the items of message i. Messages hold only text and
// images; reasoning, function calls and their outputs are items of their
// own between them. They depend on the message alone (not on its position,
// the model or any other setting): the encoding cache relies on it.
func messageItems(items []any, i int, m *llm.Message) ([]any, error) {
	if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
		err := fmt.Errorf("unknown role %q", m.Role)
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
	}
	items, err := appendBlocks(items, m.Role, m.Content)
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
	}
	return items, nil
}

// spliceMarker stands for the input items in the encoded envelope; the
// cached items replace it. Inside a JSON string every quote is escaped, so
// the marker (quotes included) can only appear as a whole string value: if
// a tool schema holds it too, requestBody falls back to the uncached path.
var spliceMarker = json.RawMessage(`"nova-request-splice-point"`)

// requestBody encodes req for c, reusing the cached encoding of every
// message that is unchanged since the latest request.
//
// The body is byte-identical to buildBody's: the envelope is encoded with a
// marker in place of the input items, and each message's items are encoded
// alone by the same encoder with the same options, which writes them exactly
// as it would inside the array.
func (c *Client) requestBody(req *llm.Request) ([]byte, error) {
	if c.cache == nil {
		return buildBody(req)
	}
	r, err := envelope(req)
	if err != nil {
		return nil, err
	}
	enc, err := c.cache.Encode(req.Messages, codec{})
	if err != nil {
		return nil, err
	}
	r.Input = []any{spliceMarker}
	env, err := wire.AppendJSON(nil, &r)
	if err != nil {
		return nil, err
	}
	body, ok := wire.Splice(env, spliceMarker, enc.Size, enc.Parts(), 0)
	if !ok {
		return buildBody(req)
	}
	return body, nil
}

// codec encodes single messages for the encoding cache: a message's input
// items depend on nothing but the message.
type codec struct{}

func (codec) Key(int, *wire.Entry[struct{}]) struct{} { return struct{}{} }
func (codec) SameKey(_, _ struct{}) bool              { return true }

func (codec) Encode(i int, m *llm.Message, _ struct{}) ([]byte, struct{}, error) {
	items, err := messageItems(nil, i, m)
	if err != nil {
		return nil, struct{}{}, err
	}
	enc, err := wire.AppendElements(nil, items)
	return enc, struct{}{}, err
}

// appendBlocks appends the items of one message. Consecutive user text and
// image blocks share one user message item; an assistant text block is an
// assistant message item of its own.
func appendBlocks(items []any, role llm.Role, blocks []llm.Block) ([]any, error) {
	var parts []contentPart
	flush := func() {
		if len(parts) > 0 {
			items = append(items, messageItem{Role: "user", Content: parts})
			parts = nil
		}
	}
	for i := range blocks {
		b := &blocks[i]
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" {
				// Carries nothing, and an empty message may be rejected.
				continue
			}
			if role == llm.RoleUser {
				parts = append(parts, contentPart{Type: "input_text", Text: b.Text})
				continue
			}
			// Earlier assistant output without its message id: an
			// easy-input message with role assistant and string content. (A
			// list would have to hold output_text parts of an output
			// message, whose id and status are required.)
			items = append(items, messageItem{Role: "assistant", Content: b.Text})
		case llm.BlockImage:
			if role != llm.RoleUser {
				return nil, fmt.Errorf("block %d: image in an assistant message", i)
			}
			parts = append(parts, contentPart{Type: "input_image", Detail: "auto", ImageURL: "data:" + b.MediaType + ";base64," + b.Data})
		case llm.BlockThinking:
			flush()
			if r := reasoningItemOf(b); r != nil {
				items = append(items, *r)
			}
		case llm.BlockRedactedThinking:
			// Anthropic's redacted thinking has no Responses counterpart (and
			// this adapter never produces it): it is opaque to anyone else.
			continue
		case llm.BlockServerToolUse:
			// A web search's call and result are one item, kept whole in
			// the result block.
		case llm.BlockServerToolResult:
			flush()
			if it, ok := webSearchItem(b); ok {
				items = append(items, it)
			}
		case llm.BlockToolUse:
			flush()
			items = append(items, functionCall{Type: "function_call", CallID: b.ToolUseID, Name: b.ToolName, Arguments: toolArguments(b.Input)})
		case llm.BlockToolResult:
			flush()
			out := b.Content
			if b.IsError {
				out = errorPrefix + out
			}
			items = append(items, functionCallOutput{Type: "function_call_output", CallID: b.ToolUseID, Output: out})
		default:
			return nil, fmt.Errorf("block %d: unsupported block type %q", i, b.Type)
		}
	}
	flush()
	return items, nil
}

// reasoningItemOf returns the reasoning input item for a thinking block, or nil
// when the block cannot be sent back here:
//
//   - thinking from another protocol (Anthropic's signed thinking, Chat
//     Completions reasoning_content) means nothing to the Responses API, and
//     its summary alone would be a fabricated reasoning item;
//   - a block without its encrypted content (cut before output_item.done,
//     or from a call made without reasoning) cannot be resolved by id when
//     store is false: the API would fail the whole call with "item not
//     found".
//
// Dropping it only costs the model its earlier reasoning, which it can redo.
func reasoningItemOf(b *llm.Block) *reasoningItem {
	if b.Origin != "" && b.Origin != llm.OriginOpenAIResponses {
		return nil
	}
	// An empty Origin (history written before origins existed) is ours only
	// if it carries a Responses item id: Anthropic never sets one.
	if b.ItemID == "" || b.Signature == "" {
		return nil
	}
	r := &reasoningItem{Type: "reasoning", ID: b.ItemID, Summary: []summaryPart{}, EncryptedContent: b.Signature}
	if b.Text != "" {
		r.Summary = append(r.Summary, summaryPart{Type: "summary_text", Text: b.Text})
	}
	return r
}

// webSearchItem returns the web_search_call item of a server tool result,
// or false when it cannot go back here: another protocol's search (an
// empty Origin included: no such block predates origins), or no item to
// send.
func webSearchItem(b *llm.Block) (webSearchCall, bool) {
	if b.Origin != llm.OriginOpenAIResponses {
		return webSearchCall{}, false
	}
	var item struct {
		Type   string          `json:"type"`
		Status string          `json:"status"`
		Action json.RawMessage `json:"action"`
	}
	if json.Unmarshal(b.Raw, &item) != nil || item.Type != "web_search_call" || len(item.Action) == 0 {
		return webSearchCall{}, false
	}
	return webSearchCall{Type: item.Type, Status: cmp.Or(item.Status, "completed"), Action: item.Action}, true
}

// toolArguments returns the arguments string of a function_call item. The
// loop keeps a model's invalid JSON in history so the model can see its
// mistake in the tool result, but sending it back would make the API reject
// every later call of the session.
func toolArguments(in json.RawMessage) string {
	if len(bytes.TrimSpace(in)) == 0 || !json.Valid(in) {
		return "{}"
	}
	return string(in)
}

// toolJSON renders a function tool. It is written by hand, with the schema
// copied byte for byte, rather than through FunctionToolParam: its
// Parameters field is a map, whose re-encoding reorders the schema's keys,
// and the tool list must be byte-stable across calls for prompt caching.
func toolJSON(t *llm.ToolSpec) (json.RawMessage, error) {
	schema, err := wire.ObjectSchema(t.InputSchema)
	if err != nil {
		return nil, err
	}
	name, err := json.Marshal(t.Name)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 64+len(t.Name)+len(t.Description)+len(schema))
	b = append(b, `{"type":"function","name":`...)
	b = append(b, name...)
	if t.Description != "" {
		desc, err := json.Marshal(t.Description)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"description":`...)
		b = append(b, desc...)
	}
	b = append(b, `,"parameters":`...)
	b = append(b, schema...)
	// Non-strict: strict mode demands every property be required and
	// additionalProperties false, which general tool schemas are not.
	b = append(b, `,"strict":false}`...)
	return b, nil
}
