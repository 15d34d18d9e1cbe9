package openaichat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// chatRequest is the body of POST /chat/completions. It is encoded with
// encoding/json from these structs rather than through the SDK's params: the
// SDK would decode tool schemas into maps (whose re-encoding reorders keys,
// changing the bytes of the tool list between calls and defeating prompt
// caching), and the fields sent here are few and stable.
type chatRequest struct {
	Model               string        `json:"model"`
	Messages            []chatMessage `json:"messages"`
	Tools               []chatTool    `json:"tools,omitempty"`
	MaxTokens           int           `json:"max_tokens,omitempty"`
	MaxCompletionTokens int           `json:"max_completion_tokens,omitempty"`
	ReasoningEffort     string        `json:"reasoning_effort,omitempty"`
	Stream              bool          `json:"stream"`
	StreamOptions       streamOptions `json:"stream_options"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type chatMessage struct {
	Role string `json:"role"`
	// Content is a string, a []contentPart, or nil (omitted: an assistant
	// message that only calls tools).
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function chatFunctionCall `json:"function"`
}

type chatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

const (
	// textJoiner separates the text blocks of one message, which Chat
	// Completions gets as a single string (see userMessage).
	textJoiner = "\n\n"
	// defaultEffort is the reasoning effort sent to OpenAI when Thinking is
	// on without an explicit Effort.
	defaultEffort = "medium"
	// missingResult is the tool message sent for a call whose result the
	// history lacks (an interrupted turn): every API in this family rejects
	// an assistant tool call that no tool message answers.
	missingResult = "Error: no result was recorded for this tool call."
)

// buildBody encodes req as a streaming Chat Completions request. openAI
// selects OpenAI's own dialect (see the package documentation). It is the
// uncached path; Client.requestBody builds the same bytes from the encoding
// cache.
func buildBody(req *llm.Request, openAI bool) ([]byte, error) {
	r, err := envelope(req, openAI)
	if err != nil {
		return nil, err
	}
	if r.Messages, err = messages(req); err != nil {
		return nil, err
	}
	return wire.AppendJSON(nil, &r)
}

// envelope translates everything of req but its messages.
func envelope(req *llm.Request, openAI bool) (chatRequest, error) {
	r := chatRequest{
		Model:         req.Model,
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
	}
	if req.MaxTokens > 0 {
		// 0 leaves the limit to the server, which is the only default that
		// never truncates an answer the caller did not limit.
		if openAI {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	if t := req.Thinking; t != nil {
		switch {
		case t.Effort != "":
			r.ReasoningEffort = t.Effort
		case openAI:
			r.ReasoningEffort = defaultEffort
		}
	}

	// req.WebSearch is not sent: Chat Completions has no web search tool
	// (OpenAI's search models search unasked), and the caller says so.
	if len(req.Tools) > 0 {
		r.Tools = make([]chatTool, len(req.Tools))
		for i := range req.Tools {
			t := &req.Tools[i]
			schema, err := parameters(t.InputSchema)
			if err != nil {
				return r, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("tool %q: %v", t.Name, err), Err: err}
			}
			r.Tools[i] = chatTool{Type: "function", Function: chatFunction{
				Name: t.Name, Description: t.Description, Parameters: schema,
			}}
		}
	}
	return r, nil
}

// messages translates the system prompt and the conversation.
//
// Chat Completions has no tool_result block: each result is a separate
// "tool" message, and those must directly follow the assistant message that
// made the calls. So a user turn becomes its tool messages first, then a user
// message with whatever text and images remain. The pairing is also repaired
// where the history is inconsistent, because the API rejects the whole
// request otherwise, and every later call of the session with it: a call
// left without a result gets an error result (missingResult), and a result
// whose call is not in the preceding assistant message is sent as user text.
func messages(req *llm.Request) ([]chatMessage, error) {
	out := make([]chatMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		out = append(out, chatMessage{Role: "system", Content: req.System})
	}
	// pending holds the ids of the last assistant message's calls that no
	// result answered yet, in call order.
	var pending []string
	for i := range req.Messages {
		var err error
		if out, pending, err = appendMessage(out, i, &req.Messages[i], pending); err != nil {
			return nil, err
		}
	}
	return appendMissing(out, pending), nil
}

// appendMessage appends the chat messages of message i (see messages).
// pending are the calls of the previous assistant message, which m may
// answer; it is not modified. The result's pending are the calls m leaves
// for the next message: an assistant message's calls, or none. The result
// depends on nothing but m and pending (not on the dialect or any other
// setting): the encoding cache relies on it.
func appendMessage(out []chatMessage, i int, m *llm.Message, pending []string) ([]chatMessage, []string, error) {
	fail := func(err error) ([]chatMessage, []string, error) {
		return nil, nil, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
	}
	switch m.Role {
	case llm.RoleUser:
		// The calls this message leaves unanswered. A copy: pending may
		// belong to a cache entry, which must never change.
		open := slices.Clone(pending)
		var texts []string
		var parts []contentPart // set once an image is seen
		addText := func(s string) {
			if parts != nil {
				parts = append(parts, contentPart{Type: "text", Text: s})
			} else {
				texts = append(texts, s)
			}
		}
		for j := range m.Content {
			b := &m.Content[j]
			switch b.Type {
			case llm.BlockText:
				if b.Text != "" {
					addText(b.Text)
				}
			case llm.BlockImage:
				if parts == nil {
					parts = make([]contentPart, 0, len(texts)+1)
					for _, t := range texts {
						parts = append(parts, contentPart{Type: "text", Text: t})
					}
				}
				parts = append(parts, contentPart{Type: "image_url", ImageURL: &imageURL{
					URL: "data:" + b.MediaType + ";base64," + b.Data,
				}})
			case llm.BlockToolResult:
				content := b.Content
				if b.IsError {
					// Chat Completions has no is_error flag: the model
					// learns of the failure from the text.
					content = "Error: " + content
				}
				if k := indexOf(open, b.ToolUseID); k >= 0 {
					open = append(open[:k], open[k+1:]...)
					out = append(out, chatMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: content})
				} else {
					addText(fmt.Sprintf("Result of tool call %s:\n%s", b.ToolUseID, content))
				}
			case llm.BlockThinking, llm.BlockRedactedThinking, llm.BlockServerToolUse, llm.BlockServerToolResult:
				// Never in a user turn; nothing to send if it were.
			case llm.BlockToolUse:
				return fail(fmt.Errorf("block %d: tool_use in a user message", j))
			default:
				return fail(fmt.Errorf("block %d: unsupported block type %q", j, b.Type))
			}
		}
		out = appendMissing(out, open)
		switch {
		case parts != nil:
			out = append(out, chatMessage{Role: "user", Content: parts})
		case len(texts) > 0:
			// One string rather than an array of text parts: every
			// compatible server takes a string, not all take arrays.
			out = append(out, chatMessage{Role: "user", Content: strings.Join(texts, textJoiner)})
		}
		return out, nil, nil

	case llm.RoleAssistant:
		out = appendMissing(out, pending)
		var texts []string
		var calls []chatToolCall
		var ids []string
		for j := range m.Content {
			b := &m.Content[j]
			switch b.Type {
			case llm.BlockText:
				if b.Text != "" {
					texts = append(texts, b.Text)
				}
			case llm.BlockToolUse:
				calls = append(calls, chatToolCall{ID: b.ToolUseID, Type: "function", Function: chatFunctionCall{
					Name: b.ToolName, Arguments: arguments(b.Input),
				}})
				ids = append(ids, b.ToolUseID)
			case llm.BlockThinking, llm.BlockRedactedThinking:
				// Dropped whatever its origin: Chat Completions has no
				// field for reasoning in input, and the compatible
				// servers' reasoning_content is rejected or ignored by
				// most of them. The answer text keeps the conclusions.
			case llm.BlockServerToolUse, llm.BlockServerToolResult:
				// Another protocol's web search: Chat Completions has
				// none, so nothing here can read it. The answer that used
				// it carries what it found.
			case llm.BlockImage:
				// An assistant message cannot carry an image here.
			case llm.BlockToolResult:
				return fail(fmt.Errorf("block %d: tool_result in an assistant message", j))
			default:
				return fail(fmt.Errorf("block %d: unsupported block type %q", j, b.Type))
			}
		}
		if len(texts) == 0 && len(calls) == 0 {
			// Nothing left (a turn that only thought): an empty
			// assistant message is rejected by several servers, two
			// user messages in a row by almost none.
			return out, nil, nil
		}
		msg := chatMessage{Role: "assistant", ToolCalls: calls}
		if len(texts) > 0 {
			msg.Content = strings.Join(texts, textJoiner)
		}
		return append(out, msg), ids, nil

	default:
		return fail(fmt.Errorf("unknown role %q", m.Role))
	}
}

// appendMissing answers every call of pending with missingResult.
func appendMissing(out []chatMessage, pending []string) []chatMessage {
	for _, id := range pending {
		out = append(out, chatMessage{Role: "tool", ToolCallID: id, Content: missingResult})
	}
	return out
}

// spliceRole marks the place of the messages in the envelope; the cached
// messages replace spliceMarker, its encoding. Inside a JSON string every
// quote is escaped, so the marker can only appear where encoding/json wrote
// a message with that role: if it appears twice, requestBody falls back to
// the uncached path.
const spliceRole = "nova-request-splice-point"

var spliceMarker = []byte(`{"role":"` + spliceRole + `"}`)

// requestBody encodes req for c, reusing the cached encoding of every
// message that is unchanged since the latest request.
//
// The body is byte-identical to buildBody's: the envelope is encoded with a
// marker in place of the messages, and each chat message is encoded alone by
// the same encoder with the same options, which writes it exactly as it
// would inside the array.
func (c *Client) requestBody(req *llm.Request) ([]byte, error) {
	if c.cache == nil {
		return buildBody(req, c.openAIHosted)
	}
	r, err := envelope(req, c.openAIHosted)
	if err != nil {
		return nil, err
	}
	enc, err := c.cache.Encode(req.Messages, codec{})
	if err != nil {
		return nil, err
	}
	// The system prompt and the results missing after the last message are
	// encoded on every call: the one is cheap, the other depends on
	// which message is last.
	var head, tail []byte
	if req.System != "" {
		if head, err = wire.AppendElements(nil, []chatMessage{{Role: "system", Content: req.System}}); err != nil {
			return nil, err
		}
	}
	if n := len(enc.Entries); n > 0 {
		if tail, err = wire.AppendElements(nil, appendMissing(nil, enc.Entries[n-1].Key.out)); err != nil {
			return nil, err
		}
	}
	r.Messages = []chatMessage{{Role: spliceRole}}
	env, err := wire.AppendJSON(nil, &r)
	if err != nil {
		return nil, err
	}
	parts := func(yield func([]byte) bool) {
		if !yield(head) {
			return
		}
		for p := range enc.Parts() {
			if !yield(p) {
				return
			}
		}
		yield(tail)
	}
	body, ok := wire.Splice(env, spliceMarker, len(head)+1+enc.Size+len(tail)+1, parts, 0)
	if !ok {
		return buildBody(req, c.openAIHosted)
	}
	return body, nil
}

// pending are the open call ids a message was translated with (in), and
// those it leaves open for the next message (out; see appendMessage). Both
// are never modified once stored.
type pending struct{ in, out []string }

// codec encodes single messages for the encoding cache. A message's chat
// messages depend on the calls of the previous assistant message that are
// still unanswered (Chat Completions pairs every call with a tool message,
// so a user message's tool results are sent as tool messages or as text,
// and an assistant message first answers the calls its predecessor left
// open), so those are its key.
type codec struct{}

func (codec) Key(_ int, prev *wire.Entry[pending]) pending {
	if prev == nil {
		return pending{}
	}
	return pending{in: prev.Key.out}
}

func (codec) SameKey(a, b pending) bool { return sameIDs(a.in, b.in) }

func (codec) Encode(i int, m *llm.Message, k pending) ([]byte, pending, error) {
	chat, out, err := appendMessage(nil, i, m, k.in)
	if err != nil {
		return nil, k, err
	}
	enc, err := wire.AppendElements(nil, chat)
	if err != nil {
		return nil, k, err
	}
	return enc, pending{in: k.in, out: out}, nil
}

// sameIDs reports whether two lists of call ids are equal.
func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !wire.SameString(a[i], b[i]) {
			return false
		}
	}
	return true
}

func indexOf(ids []string, id string) int {
	for i, s := range ids {
		if s == id {
			return i
		}
	}
	return -1
}

// arguments returns the arguments string to send back for a tool call.
// Models sometimes stream invalid JSON; the loop keeps it in history to show
// the model its mistake (in the tool result), but several servers parse the
// arguments of past calls and reject the request when they are not a JSON
// object, and one bad call must not make every later call of the session
// fail.
func arguments(in json.RawMessage) string {
	if wire.IsJSONObject(in) {
		return string(in)
	}
	return "{}"
}

// parameters returns a tool's JSON Schema as the function parameters,
// byte-for-byte (json.RawMessage is only compacted on encoding), so the tool
// list is identical on every call and prompt caching holds.
func parameters(schema json.RawMessage) (json.RawMessage, error) {
	return wire.ObjectSchema(schema)
}
