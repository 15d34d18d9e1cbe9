// Package openai is the llm.Client adapter for the OpenAI Responses API
// (POST /v1/responses with stream: true).
//
// The adapter is stateless: every call sends store: false and the whole
// history as input items, so the agent's own transcript stays the single
// source of truth and nothing is kept server-side. OpenAI caches prompts by
// prefix automatically, so the request is built to be byte-identical for an
// unchanged history (no generated ids, no timestamps, tool schemas sent
// verbatim). Reasoning is carried across turns through the reasoning items'
// encrypted_content (include: ["reasoning.encrypted_content"]).
//
// The server-sent events are normalized into llm.StreamEvent values and every
// failure comes out as an *llm.Error (or the caller's context error), so
// nothing of the Responses wire format leaks past this package. Nothing is
// retried here: llm.WithRetry owns that decision one level up.
//
// Requests and events are encoded and decoded with this package's own
// structs, and sent with llm/internal/wire, rather than through the official
// SDK: its reflective types cost several times the time per event, and with
// them the SDK made up a tenth of the binary.
package openai

import (
	"cmp"
	"context"
	"iter"
	"net/http"
	"os"
	"time"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// DefaultBaseURL is the production API. Base URLs include the version
// segment: "responses" and "models" are appended to them.
const DefaultBaseURL = "https://api.openai.com/v1"

// Options configures a Client. The zero value talks to the production API
// without a key (every call then fails with llm.ErrAuth).
type Options struct {
	// APIKey is sent as a bearer token. Empty sends no credential at all,
	// which suits a local proxy that adds its own.
	APIKey string
	// BaseURL replaces DefaultBaseURL. It must include the API version
	// ("https://proxy.example/openai/v1"): requests go to BaseURL +
	// "/responses".
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
// place this package looks at the environment (no OPENAI_ORG_ID,
// OPENAI_PROJECT_ID or OPENAI_CUSTOM_HEADERS behind the caller's back), so
// explicit Options always win.
func OptionsFromEnv() Options {
	return Options{
		APIKey:  os.Getenv("OPENAI_API_KEY"),
		BaseURL: os.Getenv("OPENAI_BASE_URL"),
	}
}

// Client streams Responses API calls. It is safe for concurrent use.
type Client struct {
	ep wire.Endpoint
	// cache keeps the encoding of the latest request's messages; nil
	// encodes every message on every call.
	cache *wire.Cache[struct{}]
}

var _ llm.Client = (*Client)(nil)

// New returns a Client for opts.
func New(opts Options) *Client {
	opts.BaseURL = cmp.Or(opts.BaseURL, DefaultBaseURL)
	return &Client{ep: wire.NewEndpoint("openai", "OpenAI", wire.Options(opts)), cache: &wire.Cache[struct{}]{}}
}

// Stream sends req and yields its normalized events. See llm.Client for the
// contract: it stops as soon as yield returns false, yields at most one error
// and only as the last element, and releases the connection before
// returning.
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
		// Do returns once the response headers arrived; the body is read
		// lazily.
		res, err := c.ep.HTTP.Do(call.Context(), http.MethodPost, "responses", body, "text/event-stream")
		call.Responded()
		if err != nil {
			yield(nil, call.Classify(err, false, fromHTTPError))
			return
		}
		defer res.Body.Close()

		src := wire.NewSSE(res.Body)
		var n normalizer
		if wire.Pump(call, src, n.handle, yield) {
			return
		}
		if err := src.Err(); err != nil {
			yield(nil, call.Classify(err, n.started, fromHTTPError))
			return
		}
		yield(nil, wire.Unfinished("response.completed"))
	}
}

// ContextWindow returns the context length the endpoint reports for model,
// or 0 when it reports none.
//
// OpenAI's own /v1/models lists only id, created and owned_by, so for
// api.openai.com it returns 0 without a network call (the llm catalog knows
// those models). Other endpoints behind OPENAI_BASE_URL (vLLM, OpenRouter,
// LM Studio, gateways) often do say: their GET /models list is searched for
// model (wire.HTTP.ListedWindow). An endpoint without a models list or
// without the model in it gives 0, nil; other failures are reported as
// *llm.Error.
func (c *Client) ContextWindow(ctx context.Context, model string) (int, error) {
	if c.ep.ConfigErr != nil {
		return 0, c.ep.ConfigErr
	}
	if c.ep.HTTP.Host("api.openai.com") {
		return 0, nil
	}
	call, err := wire.Start(ctx, c.ep.Name, c.ep.RequestTimeout)
	if err != nil {
		return 0, err
	}
	defer call.End()
	w, err := c.ep.HTTP.ListedWindow(call.Context(), model)
	if err != nil {
		return 0, call.Classify(err, false, fromHTTPError)
	}
	return w, nil
}
