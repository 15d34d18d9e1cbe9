package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

const (
	// minThinkingBudget is the smallest budget_tokens the API accepts.
	minThinkingBudget = 1024
)

// buildParams translates req into the SDK's request parameters, messages
// included. It is the uncached path; Client.prepare builds the same bytes from
// the encoding cache.
//
// Prompt caching: exactly three ephemeral breakpoints are set, on the system
// block, on the last tool (the web search tool, when offered) and on the last
// content block of the last user message. Tools and system are stable across the turns of a session, and the
// newest user block ends the prefix the next call will share, so these three
// give a cache hit for the whole history on every call while staying under
// the API's limit of four.
func buildParams(req *llm.Request) (anthropic.MessageNewParams, error) {
	p, err := buildEnvelope(req)
	if err != nil {
		return p, err
	}
	p.Messages = make([]anthropic.MessageParam, len(req.Messages))
	last := lastUser(req.Messages)
	for i := range req.Messages {
		if p.Messages[i], err = messageParam(i, &req.Messages[i], i == last); err != nil {
			return p, err
		}
	}
	return p, nil
}

// buildEnvelope translates everything of req but its messages.
func buildEnvelope(req *llm.Request) (anthropic.MessageNewParams, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		// max_tokens is required; the model's own ceiling is the only
		// default that never truncates an answer the caller did not limit.
		info, _ := llm.LookupModel(req.Model)
		maxTokens = info.MaxOutputTokens
	}
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(req.Model),
		MaxTokens: int64(maxTokens),
	}

	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{
			Text:         req.System,
			CacheControl: anthropic.NewCacheControlEphemeralParam(),
		}}
	}

	if len(req.Tools) > 0 {
		p.Tools = make([]anthropic.ToolUnionParam, len(req.Tools))
		for i := range req.Tools {
			t := &req.Tools[i]
			schema, err := inputSchema(t.InputSchema)
			if err != nil {
				return p, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("tool %q: %v", t.Name, err), Err: err}
			}
			tp := &anthropic.ToolParam{Name: t.Name, InputSchema: schema}
			if t.Description != "" {
				tp.Description = param.NewOpt(t.Description)
			}
			p.Tools[i] = anthropic.ToolUnionParam{OfTool: tp}
		}
	}
	if ws := req.WebSearch; ws != nil {
		// The server tool: Anthropic runs the searches and streams them
		// back as server_tool_use and web_search_tool_result blocks.
		t := &anthropic.WebSearchTool20250305Param{}
		if ws.MaxUses > 0 {
			t.MaxUses = param.NewOpt(int64(ws.MaxUses))
		}
		p.Tools = append(p.Tools, anthropic.ToolUnionParam{OfWebSearchTool20250305: t})
	}
	if len(p.Tools) > 0 {
		*p.Tools[len(p.Tools)-1].GetCacheControl() = anthropic.NewCacheControlEphemeralParam()
	}

	if req.Thinking != nil {
		info, _ := llm.LookupModel(req.Model)
		if info.AdaptiveThinking && req.Thinking.BudgetTokens <= 0 {
			// Models that choose their own thinking get no budget to
			// second-guess them; effort is how a user steers them.
			p.Thinking = anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}}
			if e := req.Thinking.Effort; e != "" {
				p.OutputConfig = anthropic.OutputConfigParam{Effort: anthropic.OutputConfigEffort(e)}
			}
		} else if t := thinking(req.Thinking, maxTokens); t != nil {
			p.Thinking = anthropic.ThinkingConfigParamUnion{OfEnabled: t}
		}
	}
	return p, nil
}

// lastUser returns the index of the last user message, which carries the
// conversation's cache breakpoint, or -1.
func lastUser(msgs []llm.Message) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return i
		}
	}
	return -1
}

// messageParam translates message i. breakpoint puts the prompt-caching
// marker on its last block. The result depends on nothing but the arguments
// (not on the model or any other setting): the encoding cache relies on it.
func messageParam(i int, m *llm.Message, breakpoint bool) (anthropic.MessageParam, error) {
	blocks, err := contentBlocks(m.Content)
	if err != nil {
		return anthropic.MessageParam{}, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
	}
	var mp anthropic.MessageParam
	switch m.Role {
	case llm.RoleUser:
		mp = anthropic.MessageParam{OfUser: &anthropic.UserMessageParam{Content: blocks}}
	case llm.RoleAssistant:
		mp = anthropic.MessageParam{OfAssistant: &anthropic.AssistantMessageParam{Content: blocks}}
	default:
		err := fmt.Errorf("unknown role %q", m.Role)
		return mp, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
	}
	if breakpoint && len(blocks) > 0 {
		// GetCacheControl is nil for the block kinds that take no
		// breakpoint (thinking), which a user turn never holds anyway.
		if cc := blocks[len(blocks)-1].GetCacheControl(); cc != nil {
			*cc = anthropic.NewCacheControlEphemeralParam()
		}
	}
	return mp, nil
}

// spliceMarker stands for the messages in the envelope the SDK encodes; the
// cached messages replace it. Inside a JSON string every quote is escaped, so
// the marker (quotes included) can only appear as a whole string value: if
// a tool schema holds it too, prepare falls back to the uncached path.
var spliceMarker = json.RawMessage(`"nova-request-splice-point"`)

// streamField ends every body: NewStreaming adds "stream":true to the
// encoded parameters (with sjson, which appends a missing key at the end).
const streamField = `,"stream":true}`

// prepare returns the parameters for req and, when the Client caches
// encodings, the finished request body built from the cache; with a nil body
// the parameters are complete and NewStreaming encodes them.
//
// The body is byte-identical to what NewStreaming sends for buildParams(req):
// the envelope is the SDK's encoding with a marker for the messages array,
// each message is the SDK's encoding of that message (which its encoder
// copies verbatim into the array), and "stream":true ends it as the SDK's
// sjson step would.
func (c *Client) prepare(req *llm.Request) (anthropic.MessageNewParams, []byte, error) {
	if c.cache == nil {
		p, err := buildParams(req)
		return p, nil, err
	}
	p, err := buildEnvelope(req)
	if err != nil {
		return p, nil, err
	}
	enc, err := c.cache.Encode(req.Messages, codec{last: lastUser(req.Messages)})
	if err != nil {
		return p, nil, err
	}
	p.Messages = []anthropic.MessageParam{param.Override[anthropic.MessageParam](spliceMarker)}
	env, err := p.MarshalJSON()
	p.Messages = nil
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

// codec encodes single messages for the encoding cache. Its key is whether
// the message carries the prompt-caching breakpoint, which only the last
// user message (last) does.
type codec struct{ last int }

func (k codec) Key(i int, _ *wire.Entry[bool]) bool { return i == k.last }
func (codec) SameKey(a, b bool) bool                { return a == b }

func (codec) Encode(i int, m *llm.Message, breakpoint bool) ([]byte, bool, error) {
	mp, err := messageParam(i, m, breakpoint)
	if err != nil {
		return nil, false, err
	}
	enc, err := mp.MarshalJSON()
	if err != nil {
		return nil, false, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
	}
	return enc, breakpoint, nil
}

// newStreaming starts the call. A body from prepare is posted as it is:
// NewStreaming would take it too (option.WithRequestBody), but would then
// scan and copy all of it once more to add "stream":true. What NewStreaming
// adds besides, OpenTelemetry spans and a deprecation notice on stderr, is
// nothing this program uses.
func (c *Client) newStreaming(ctx context.Context, p anthropic.MessageNewParams, body []byte, opts ...option.RequestOption) *ssestream.Stream[anthropic.MessageStreamEventUnion] {
	if body == nil {
		return c.sdk.Messages.NewStreaming(ctx, p, opts...)
	}
	var raw *http.Response
	err := c.sdk.Post(ctx, "v1/messages", body, &raw, opts...)
	return ssestream.NewStream[anthropic.MessageStreamEventUnion](ssestream.NewDecoder(raw), err)
}

// thinking returns the extended-thinking config for t, or nil for none. The
// API wants minThinkingBudget <= budget_tokens < max_tokens; a max_tokens too
// small for any budget turns thinking off rather than fail every call.
func thinking(t *llm.Thinking, maxTokens int) *anthropic.ThinkingConfigEnabledParam {
	if t == nil || maxTokens <= minThinkingBudget {
		return nil
	}
	budget := t.BudgetTokens
	if budget <= 0 {
		// No explicit budget on a model that takes one: half the output
		// allowance leaves room for the answer.
		budget = max(minThinkingBudget, maxTokens/2)
	}
	budget = min(max(budget, minThinkingBudget), maxTokens-1)
	return &anthropic.ThinkingConfigEnabledParam{BudgetTokens: int64(budget)}
}

// contentBlocks translates one message's content.
func contentBlocks(in []llm.Block) ([]anthropic.ContentBlockParamUnion, error) {
	out := make([]anthropic.ContentBlockParamUnion, 0, len(in))
	for i := range in {
		b := &in[i]
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" {
				// The API rejects empty text blocks; an empty one carries
				// nothing, so dropping it keeps the call valid.
				continue
			}
			out = append(out, anthropic.ContentBlockParamUnion{OfText: &anthropic.TextBlockParam{Text: b.Text}})
		case llm.BlockThinking:
			if foreign(b) || b.Signature == "" {
				// Reasoning from another protocol, or cut before its
				// signature arrived: the API would reject it, and it is
				// only context, so it is left out.
				continue
			}
			out = append(out, anthropic.ContentBlockParamUnion{OfThinking: &anthropic.ThinkingBlockParam{
				Thinking: b.Text, Signature: b.Signature,
			}})
		case llm.BlockRedactedThinking:
			if foreign(b) {
				continue
			}
			out = append(out, anthropic.ContentBlockParamUnion{OfRedactedThinking: &anthropic.RedactedThinkingBlockParam{
				Data: b.Data,
			}})
		case llm.BlockToolUse:
			out = append(out, anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{
				ID: b.ToolUseID, Name: b.ToolName, Input: toolInput(b.Input),
			}})
		case llm.BlockToolResult:
			tr := &anthropic.ToolResultBlockParam{ToolUseID: b.ToolUseID}
			if b.Content != "" {
				// Empty text blocks are rejected, but a result without
				// content is valid.
				tr.Content = []anthropic.ToolResultBlockParamContentUnion{{
					OfText: &anthropic.TextBlockParam{Text: b.Content},
				}}
			}
			if b.IsError {
				tr.IsError = param.NewOpt(true)
			}
			out = append(out, anthropic.ContentBlockParamUnion{OfToolResult: tr})
		case llm.BlockServerToolUse:
			if b.Origin != llm.OriginAnthropic {
				// Another protocol's search (or none this adapter made):
				// the API only takes its own back, and the answer that
				// used it carries what it found.
				continue
			}
			// As the API sent it: this adapter offers the search to the
			// model only, so the caller is always the model itself.
			out = append(out, anthropic.ContentBlockParamUnion{OfServerToolUse: &anthropic.ServerToolUseBlockParam{
				ID: b.ToolUseID, Name: anthropic.ServerToolUseBlockParamName(b.ToolName), Input: toolInput(b.Input),
				Caller: anthropic.ServerToolUseBlockParamCallerUnion{OfDirect: &anthropic.DirectCallerParam{}},
			}})
		case llm.BlockServerToolResult:
			if b.Origin != llm.OriginAnthropic {
				continue
			}
			p, err := serverToolResult(b.Raw)
			if err != nil {
				return nil, fmt.Errorf("block %d: %w", i, err)
			}
			out = append(out, p)
		case llm.BlockImage:
			out = append(out, anthropic.ContentBlockParamUnion{OfImage: &anthropic.ImageBlockParam{
				Source: anthropic.ImageBlockParamSourceUnion{OfBase64: &anthropic.Base64ImageSourceParam{
					Data: b.Data, MediaType: anthropic.Base64ImageSourceMediaType(b.MediaType),
				}},
			}})
		default:
			return nil, fmt.Errorf("block %d: unsupported block type %q", i, b.Type)
		}
	}
	return out, nil
}

// serverToolResult is the param that sends a server tool result block back
// as the API sent it: raw is that block (web_search_tool_result, with every
// result's encrypted_content, which the API needs to read the pages again),
// turned into its param by the SDK's own conversion.
func serverToolResult(raw json.RawMessage) (anthropic.ContentBlockParamUnion, error) {
	var b anthropic.ContentBlockUnion
	if len(raw) == 0 || b.UnmarshalJSON(raw) != nil || b.Type == "" {
		return anthropic.ContentBlockParamUnion{}, fmt.Errorf("server tool result without the block the API sent (%.40q)", raw)
	}
	return b.ToParam(), nil
}

// foreign reports whether a thinking block came from another protocol. An
// empty Origin is taken as ours (history written before origins existed).
func foreign(b *llm.Block) bool {
	return b.Origin != "" && b.Origin != llm.OriginAnthropic
}

// emptyObject is the input sent for a tool call whose recorded input is not a
// JSON object.
var emptyObject = json.RawMessage("{}")

// toolInput returns the tool_use input to send back. Models sometimes stream
// invalid JSON; the loop keeps it in history to show the model its mistake
// (in the tool_result), but the API only accepts an object here, and one bad
// block must not make every later call of the session fail.
func toolInput(in json.RawMessage) json.RawMessage {
	if wire.IsJSONObject(in) {
		return in
	}
	return emptyObject
}

// inputSchema wraps a tool's JSON Schema for the SDK. The schema is sent
// byte-for-byte (as a raw override) rather than decoded into
// ToolInputSchemaParam: its ExtraFields map is re-serialized in random order,
// and a tool list whose bytes change between calls defeats prompt caching.
func inputSchema(schema json.RawMessage) (anthropic.ToolInputSchemaParam, error) {
	schema, err := wire.ObjectSchema(schema)
	if err != nil {
		return anthropic.ToolInputSchemaParam{}, err
	}
	return param.Override[anthropic.ToolInputSchemaParam](schema), nil
}
