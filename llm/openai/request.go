package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

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

// buildParams translates req into the SDK's request parameters, input items
// included. It is the uncached path; Client.prepare builds the same bytes from
// the encoding cache.
//
// The body is a pure function of req: store is false, the whole history is
// sent as input items every call, and nothing varies between two calls with
// the same history (no item ids for messages, no timestamps), so OpenAI's
// automatic prefix caching hits on everything but the newest turn.
func buildParams(req *llm.Request) (responses.ResponseNewParams, error) {
	p, err := buildEnvelope(req)
	if err != nil {
		return p, err
	}
	items, err := inputItems(req.Messages)
	if err != nil {
		return p, err
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	return p, nil
}

// buildEnvelope translates everything of req but its messages.
func buildEnvelope(req *llm.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: shared.ResponsesModel(req.Model),
		// Stateless by design: the agent keeps the history, and a stored
		// response would be data retained for nothing.
		Store: param.NewOpt(false),
	}
	if req.System != "" {
		// instructions rather than a system/developer input item: it is the
		// Responses way, and the API picks the right role for the model.
		p.Instructions = param.NewOpt(req.System)
	}
	if req.MaxTokens > 0 {
		// The API rejects a limit below its minimum rather than apply it;
		// a few tokens more is the closer outcome to what was asked.
		p.MaxOutputTokens = param.NewOpt(int64(max(req.MaxTokens, minOutputTokens)))
	}
	if t := req.Thinking; t != nil {
		effort := t.Effort
		if effort == "" {
			effort = defaultEffort
		}
		p.Reasoning = shared.ReasoningParam{
			Effort:  shared.ReasoningEffort(effort),
			Summary: shared.ReasoningSummaryAuto,
		}
		// With store: false the reasoning of one turn reaches the next only
		// as its encrypted content.
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
	}

	if len(req.Tools) > 0 {
		p.Tools = make([]responses.ToolUnionParam, len(req.Tools))
		for i := range req.Tools {
			raw, err := toolJSON(&req.Tools[i])
			if err != nil {
				return p, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("tool %q: %v", req.Tools[i].Name, err), Err: err}
			}
			p.Tools[i] = param.Override[responses.ToolUnionParam](raw)
		}
	}
	return p, nil
}

// inputItems flattens the conversation into Responses input items, in order.
// Messages hold only text and images; reasoning, function calls and their
// outputs are items of their own between them.
func inputItems(msgs []llm.Message) (responses.ResponseInputParam, error) {
	items := make(responses.ResponseInputParam, 0, 2*len(msgs))
	for i := range msgs {
		var err error
		if items, err = messageItems(items, i, &msgs[i]); err != nil {
			return nil, err
		}
	}
	return items, nil
}

// messageItems appends the items of message i. They depend on the message
// alone (not on its position, the model or any other setting): the encoding
// cache relies on it.
func messageItems(items responses.ResponseInputParam, i int, m *llm.Message) (responses.ResponseInputParam, error) {
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

// spliceMarker stands for the input items in the envelope the SDK encodes;
// the cached items replace it. Inside a JSON string every quote is escaped,
// so the marker (quotes included) can only appear as a whole string value:
// if a tool schema holds it too, prepare falls back to the uncached path.
var spliceMarker = json.RawMessage(`"nova-request-splice-point"`)

// streamField ends every body: NewStreaming adds "stream":true to the
// encoded parameters (with sjson, which appends a missing key at the end).
const streamField = `,"stream":true}`

// prepare returns the parameters for req and, when the Client caches
// encodings, the finished request body built from the cache; with a nil body
// the parameters are complete and NewStreaming encodes them.
//
// The body is byte-identical to what NewStreaming sends for buildParams(req):
// the envelope is the SDK's encoding with a marker for the input array, each
// item is the SDK's encoding of that item (which its encoder copies verbatim
// into the array), and "stream":true ends it as the SDK's sjson step would.
func (c *Client) prepare(req *llm.Request) (responses.ResponseNewParams, []byte, error) {
	if c.cache == nil {
		p, err := buildParams(req)
		return p, nil, err
	}
	p, err := buildEnvelope(req)
	if err != nil {
		return p, nil, err
	}
	enc, err := c.cache.Encode(req.Messages, codec{})
	if err != nil {
		return p, nil, err
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
		param.Override[responses.ResponseInputItemUnionParam](spliceMarker),
	}}
	env, err := p.MarshalJSON()
	p.Input = responses.ResponseNewParamsInputUnion{}
	if err != nil {
		return p, nil, &llm.Error{Kind: llm.ErrInvalid, Message: "encoding request: " + err.Error(), Err: err}
	}
	if !bytes.HasSuffix(env, []byte("}")) {
		p, err := buildParams(req)
		return p, nil, err
	}
	body, ok := wire.Splice(env[:len(env)-1], spliceMarker, enc.Size, enc.Parts(), len(streamField))
	if !ok {
		p, err := buildParams(req)
		return p, nil, err
	}
	return p, append(body, streamField...), nil
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
	var enc []byte
	for j := range items {
		b, err := items[j].MarshalJSON()
		if err != nil {
			return nil, struct{}{}, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
		}
		if j > 0 {
			enc = append(enc, ',')
		}
		enc = append(enc, b...)
	}
	return enc, struct{}{}, nil
}

// send starts the call and returns the response, whose body is the event
// stream. A body from prepare is posted as it is: NewStreaming would take it
// too (option.WithRequestBody), but would then scan and copy all of it once
// more to add "stream":true.
func (c *Client) send(ctx context.Context, p responses.ResponseNewParams, body []byte) (*http.Response, error) {
	var raw *http.Response
	if body == nil {
		// What NewStreaming sends.
		err := c.sdk.Post(ctx, "responses", p, &raw, option.WithJSONSet("stream", true))
		return raw, err
	}
	err := c.sdk.Post(ctx, "responses", body, &raw)
	return raw, err
}

// appendBlocks appends the items of one message. Consecutive user text and
// image blocks share one user message item; an assistant text block is an
// assistant message item of its own.
func appendBlocks(items responses.ResponseInputParam, role llm.Role, blocks []llm.Block) (responses.ResponseInputParam, error) {
	var parts responses.ResponseInputMessageContentListParam
	flush := func() {
		if len(parts) > 0 {
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleUser,
				Content: responses.EasyInputMessageContentUnionParam{OfInputItemContentList: parts},
			}})
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
				parts = append(parts, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: b.Text}})
				continue
			}
			// The typed way to send earlier assistant output without its
			// message id: an easy-input message with role assistant and
			// string content. (A list would have to hold output_text parts,
			// which the SDK only types for output messages, whose id and
			// status are required.)
			items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &responses.EasyInputMessageParam{
				Role:    responses.EasyInputMessageRoleAssistant,
				Content: responses.EasyInputMessageContentUnionParam{OfString: param.NewOpt(b.Text)},
			}})
		case llm.BlockImage:
			if role != llm.RoleUser {
				return nil, fmt.Errorf("block %d: image in an assistant message", i)
			}
			parts = append(parts, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
				Detail:   responses.ResponseInputImageDetailAuto,
				ImageURL: param.NewOpt("data:" + b.MediaType + ";base64," + b.Data),
			}})
		case llm.BlockThinking:
			flush()
			if r := reasoningItem(b); r != nil {
				items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: r})
			}
		case llm.BlockRedactedThinking:
			// Anthropic's redacted thinking has no Responses counterpart (and
			// this adapter never produces it): it is opaque to anyone else.
			continue
		case llm.BlockToolUse:
			flush()
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
				CallID:    b.ToolUseID,
				Name:      b.ToolName,
				Arguments: toolArguments(b.Input),
			}})
		case llm.BlockToolResult:
			flush()
			out := b.Content
			if b.IsError {
				out = errorPrefix + out
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
				CallID: param.NewOpt(b.ToolUseID),
				Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(out)},
			}})
		default:
			return nil, fmt.Errorf("block %d: unsupported block type %q", i, b.Type)
		}
	}
	flush()
	return items, nil
}

// reasoningItem returns the reasoning input item for a thinking block, or nil
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
func reasoningItem(b *llm.Block) *responses.ResponseReasoningItemParam {
	if b.Origin != "" && b.Origin != llm.OriginOpenAIResponses {
		return nil
	}
	// An empty Origin (history written before origins existed) is ours only
	// if it carries a Responses item id: Anthropic never sets one.
	if b.ItemID == "" || b.Signature == "" {
		return nil
	}
	summary := []responses.ResponseReasoningItemSummaryParam{} // required, even empty
	if b.Text != "" {
		summary = append(summary, responses.ResponseReasoningItemSummaryParam{Text: b.Text})
	}
	return &responses.ResponseReasoningItemParam{
		ID:               b.ItemID,
		Summary:          summary,
		EncryptedContent: param.NewOpt(b.Signature),
	}
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
