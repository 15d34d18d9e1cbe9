// Package openaichat is the llm.Client adapter for the OpenAI Chat
// Completions API and the many servers that imitate it: OpenAI itself, vLLM,
// Ollama, llama.cpp server, LM Studio, Together, OpenRouter, Groq, xAI, Z.ai,
// Kimi endpoints, Azure OpenAI…
//
// Requests are built and chunks decoded here, from the raw JSON, rather than
// with the official SDK's types: compatible servers add fields those types
// only expose as opaque extras (reasoning_content, reasoning,
// reasoning_details, cache_write_tokens), and the SDK's accumulator gets
// usage and chunk ids wrong for several of them (it sums repeated usage
// objects and drops chunks whose id changes mid-stream). HTTP and
// server-sent events are llm/internal/wire's. Nothing of the wire
// format leaks past this package: requests come in as llm.Request, events go
// out as llm.StreamEvent, failures as *llm.Error.
//
// Dialect choices, made for the widest compatibility:
//   - max_tokens is sent by default; max_completion_tokens (which OpenAI's
//     reasoning models require, and which many compatible servers ignore)
//     only when the base URL's host is api.openai.com.
//   - reasoning_effort is sent when Thinking is set and either the host is
//     api.openai.com (default "medium") or Thinking.Effort is explicit; other
//     servers often reject the field or think by default anyway.
//   - Thinking blocks are never sent back: most compatible endpoints reject or
//     ignore reasoning in input messages, and OpenAI's Chat API has no field
//     for it at all.
//   - The system prompt is a "system" message (not "developer"): OpenAI maps
//     it for reasoning models, and every compatible server knows it.
package openaichat

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// DefaultBaseURL is the OpenAI API, used when Options.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configures a Client. The zero value talks to OpenAI without a key
// (every call then fails with llm.ErrAuth).
type Options struct {
	// APIKey is sent as a bearer token. Empty sends no Authorization header
	// at all, which local servers (Ollama, llama.cpp, LM Studio) expect.
	APIKey string
	// BaseURL is the API root including its version segment, e.g.
	// "http://localhost:11434/v1"; requests go to BaseURL+"/chat/completions".
	// Empty means DefaultBaseURL. Nothing is appended: servers disagree on
	// where /v1 belongs (OpenRouter's is /api/v1, Groq's /openai/v1).
	BaseURL string
	// HTTPClient sends the requests. Nil uses a clone of
	// http.DefaultTransport with a 10-minute response-header timeout. It
	// should have no Client.Timeout: that would cut long streams.
	HTTPClient *http.Client
	// RequestTimeout bounds the time until the response headers arrive. It
	// does not bound the stream itself, since a long answer legitimately
	// takes minutes. 0 means no bound.
	RequestTimeout time.Duration
}

// OptionsFromEnv reads OPENAI_API_KEY and OPENAI_BASE_URL. It is the only
// place this package looks at the environment, so explicit Options always
// win.
func OptionsFromEnv() Options {
	return Options{
		APIKey:  os.Getenv("OPENAI_API_KEY"),
		BaseURL: os.Getenv("OPENAI_BASE_URL"),
	}
}

// Client streams Chat Completions calls. It is safe for concurrent use.
type Client struct {
	ep wire.Endpoint
	// openAIHosted is set when the base URL is OpenAI's own API, whose
	// dialect differs on max_completion_tokens and reasoning_effort.
	openAIHosted bool
	// callIDs numbers the ids synthesized for tool calls that arrive
	// without one, so they stay unique across the turns of a session.
	callIDs atomic.Uint64
	// cache keeps the encoding of the latest request's messages; nil
	// encodes every message on every call.
	cache *wire.Cache[pending]

	windowsMu sync.Mutex
	windows   map[string]int // ContextWindow answers by model
}

var _ llm.Client = (*Client)(nil)

// New returns a Client for opts.
func New(opts Options) *Client {
	opts.BaseURL = cmp.Or(opts.BaseURL, DefaultBaseURL)
	c := &Client{ep: wire.NewEndpoint("openaichat", "OpenAI", wire.Options(opts)), cache: &wire.Cache[pending]{}}
	c.openAIHosted = c.ep.HTTP != nil && c.ep.HTTP.Host("api.openai.com")
	return c
}

// maxJSONBody caps how much of a non-stream response body is read.
const maxJSONBody = 1 << 20

// Stream sends req and yields its normalized events. See llm.Client for the
// contract: it stops as soon as yield returns false, yields at most one error
// and only as the last element, and releases the connection before returning.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	return func(yield func(llm.StreamEvent, error) bool) {
		call, err := c.ep.Begin(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		defer call.End()
		body, err := c.requestBody(req)
		if err != nil {
			yield(nil, err)
			return
		}
		// Do returns once the headers arrived and leaves the body to us.
		res, err := c.ep.HTTP.Do(call.Context(), http.MethodPost, "chat/completions", body, "text/event-stream")
		call.Responded()
		if err != nil {
			yield(nil, call.Classify(err, false, fromHTTPError))
			return
		}
		defer res.Body.Close()
		if err := call.Context().Err(); err != nil {
			// The timer fired just as the headers arrived: the body would
			// fail on its first read anyway.
			yield(nil, call.Classify(err, false, fromHTTPError))
			return
		}
		var r io.Reader = res.Body
		if isJSON(res.Header.Get("Content-Type")) {
			// Not a stream: a server that ignores stream:true, or one that
			// reports an error with status 200. Unless the body is an
			// event stream after all, mislabelled.
			br := bufio.NewReader(res.Body)
			if startsJSON(br) {
				err := jsonInsteadOfStream(br)
				if cerr := call.Canceled(); cerr != nil {
					err = cerr
				}
				yield(nil, err)
				return
			}
			r = br
		}

		src := wire.NewSSE(r)
		n := normalizer{newID: c.newCallID}
		if wire.Pump(call, src, n.handle, yield) {
			return
		}
		if err := src.Err(); err != nil {
			yield(nil, call.Classify(err, n.started, fromHTTPError))
			return
		}
		if err := call.Canceled(); err != nil {
			yield(nil, err)
			return
		}
		// The body ended without [DONE]. Servers that omit it still end
		// every complete response with a finish_reason; without one the
		// answer was cut short.
		if n.finished {
			n.out = n.out[:0]
			n.finish()
			for _, e := range n.out {
				if !yield(e, nil) {
					return
				}
			}
			return
		}
		yield(nil, wire.Unfinished("finish_reason and [DONE]"))
	}
}

// newCallID makes an id for a tool call the server sent without one, so that
// its result can be paired with it in the next request.
func (c *Client) newCallID(wireIndex int) string {
	return fmt.Sprintf("call_%d_%d", wireIndex, c.callIDs.Add(1))
}

// isJSON reports whether a Content-Type is JSON rather than an event stream.
func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// startsJSON reports whether the first non-blank byte of r opens a JSON
// object or array, leaving r positioned on it.
func startsJSON(r *bufio.Reader) bool {
	for {
		c, err := r.ReadByte()
		if err != nil {
			return false
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		_ = r.UnreadByte()
		return c == '{' || c == '['
	}
}

// jsonInsteadOfStream turns a 2xx JSON answer to a streaming request into an
// error: the provider's error if the body holds one, else a non-retryable
// error.
func jsonInsteadOfStream(body io.Reader) error {
	b, err := io.ReadAll(io.LimitReader(body, maxJSONBody))
	if err != nil {
		return &llm.Error{Kind: llm.ErrBrokenStream, Message: "reading response: " + err.Error(), Err: err}
	}
	if e, ok := parseErrorBody(b); ok {
		return fromStreamError(e, b)
	}
	// Not retryable: the same request would get the same answer.
	return &llm.Error{
		Kind:    llm.ErrOther,
		Message: "server answered with JSON instead of an event stream (does it support stream: true?)",
		Err:     errProtocol,
	}
}
