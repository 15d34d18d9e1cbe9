package openaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/novacode/nova/llm"
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
// selects OpenAI's own dialect (see the package documentation).
func buildBody(req *llm.Request, openAI bool) ([]byte, error) {
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

	if len(req.Tools) > 0 {
		r.Tools = make([]chatTool, len(req.Tools))
		for i := range req.Tools {
			t := &req.Tools[i]
			schema, err := parameters(t.InputSchema)
			if err != nil {
				return nil, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("tool %q: %v", t.Name, err), Err: err}
			}
			r.Tools[i] = chatTool{Type: "function", Function: chatFunction{
				Name: t.Name, Description: t.Description, Parameters: schema,
			}}
		}
	}

	msgs, err := messages(req)
	if err != nil {
		return nil, err
	}
	r.Messages = msgs

	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Prompts are full of <, > and &; escaping them would only inflate the
	// body.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&r); err != nil {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: "encoding request: " + err.Error(), Err: err}
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
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
	flushPending := func() {
		for _, id := range pending {
			out = append(out, chatMessage{Role: "tool", ToolCallID: id, Content: missingResult})
		}
		pending = pending[:0]
	}
	for i := range req.Messages {
		m := &req.Messages[i]
		fail := func(err error) ([]chatMessage, error) {
			return nil, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("message %d: %v", i, err), Err: err}
		}
		switch m.Role {
		case llm.RoleUser:
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
					if k := indexOf(pending, b.ToolUseID); k >= 0 {
						pending = append(pending[:k], pending[k+1:]...)
						out = append(out, chatMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: content})
					} else {
						addText(fmt.Sprintf("Result of tool call %s:\n%s", b.ToolUseID, content))
					}
				case llm.BlockThinking, llm.BlockRedactedThinking:
					// Never in a user turn; nothing to send if it were.
				case llm.BlockToolUse:
					return fail(fmt.Errorf("block %d: tool_use in a user message", j))
				default:
					return fail(fmt.Errorf("block %d: unsupported block type %q", j, b.Type))
				}
			}
			flushPending()
			switch {
			case parts != nil:
				out = append(out, chatMessage{Role: "user", Content: parts})
			case len(texts) > 0:
				// One string rather than an array of text parts: every
				// compatible server takes a string, not all take arrays.
				out = append(out, chatMessage{Role: "user", Content: strings.Join(texts, textJoiner)})
			}

		case llm.RoleAssistant:
			flushPending()
			var texts []string
			var calls []chatToolCall
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
					pending = append(pending, b.ToolUseID)
				case llm.BlockThinking, llm.BlockRedactedThinking:
					// Dropped whatever its origin: Chat Completions has no
					// field for reasoning in input, and the compatible
					// servers' reasoning_content is rejected or ignored by
					// most of them. The answer text keeps the conclusions.
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
				continue
			}
			msg := chatMessage{Role: "assistant", ToolCalls: calls}
			if len(texts) > 0 {
				msg.Content = strings.Join(texts, textJoiner)
			}
			out = append(out, msg)

		default:
			return fail(fmt.Errorf("unknown role %q", m.Role))
		}
	}
	flushPending()
	return out, nil
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
	if isJSONObject(in) {
		return string(in)
	}
	return "{}"
}

// isJSONObject reports whether b is valid JSON whose value is an object.
func isJSONObject(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(b)
}

// emptyParameters is the schema of a tool without parameters.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// parameters returns a tool's JSON Schema as the function parameters,
// byte-for-byte (json.RawMessage is only compacted on encoding), so the tool
// list is identical on every call and prompt caching holds.
func parameters(schema json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return emptyParameters, nil
	}
	if !isJSONObject(schema) {
		return nil, fmt.Errorf("input schema is not a JSON object")
	}
	var top struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	if top.Type == nil {
		// OpenAI requires "type": "object" at the top; a schema that
		// leaves it implicit gets it prepended, the rest untouched.
		t := bytes.TrimLeft(schema, " \t\r\n")[1:]
		fixed := make([]byte, 0, len(t)+17)
		fixed = append(fixed, `{"type":"object"`...)
		if bytes.TrimLeft(t, " \t\r\n")[0] != '}' {
			fixed = append(fixed, ',')
		}
		return append(fixed, t...), nil
	}
	return schema, nil
}
