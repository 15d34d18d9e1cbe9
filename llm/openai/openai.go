// Package openai is the llm.Client adapter for the OpenAI Responses API
// (POST /v1/responses with stream: true), over the official SDK
// (github.com/openai/openai-go/v3).
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
// nothing of the Responses wire format leaks past this package. The SDK does
// no retries here: llm.WithRetry owns that decision one level up.
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// DefaultBaseURL is the production API. Base URLs include the version
// segment: the SDK appends "responses" and "models" to them.
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
// place this package looks at the environment: New never lets the SDK read
// it (no OPENAI_ORG_ID, OPENAI_PROJECT_ID or OPENAI_CUSTOM_HEADERS behind
// the caller's back), so explicit Options always win.
func OptionsFromEnv() Options {
	return Options{
		APIKey:  os.Getenv("OPENAI_API_KEY"),
		BaseURL: os.Getenv("OPENAI_BASE_URL"),
	}
}

// Client streams Responses API calls. It is safe for concurrent use.
type Client struct {
	models  sdk.ModelService
	baseURL *url.URL
	ep      wire.Endpoint
	// cache keeps the encoding of the latest request's messages; nil
	// encodes every message on every call.
	cache *wire.Cache[struct{}]
	// sdk sends the requests (see send).
	sdk sdk.Client
}

var _ llm.Client = (*Client)(nil)

// New returns a Client for opts.
func New(opts Options) *Client {
	c := &Client{ep: wire.Endpoint{Name: "openai", RequestTimeout: opts.RequestTimeout}, cache: &wire.Cache[struct{}]{}}
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	// The SDK would only report a bad URL on the first request, as an
	// untyped error.
	c.baseURL, c.ep.ConfigErr = wire.ParseBaseURL(base, "OpenAI")
	hc := opts.HTTPClient
	if hc == nil {
		hc = wire.DefaultHTTPClient()
	}
	// The services are built directly rather than through sdk.NewClient,
	// which reads OPENAI_* variables (base URL, key, organization, project,
	// custom headers) and has no public switch to stop it. Services read
	// nothing from the environment, so every setting below is explicit.
	sdkOpts := []option.RequestOption{
		option.WithHTTPClient(hc),
		// Retries belong to llm.WithRetry, which knows whether anything was
		// already yielded; the SDK would retry blindly (and sleep out any
		// Retry-After up to two minutes).
		option.WithMaxRetries(0),
	}
	if c.ep.ConfigErr == nil {
		sdkOpts = append(sdkOpts, option.WithBaseURL(base))
	}
	if opts.APIKey != "" {
		sdkOpts = append(sdkOpts, option.WithAPIKey(opts.APIKey))
	}
	// Only Client.Post is used, which relies on nothing but Options.
	c.sdk = sdk.Client{Options: sdkOpts}
	c.models = sdk.NewModelService(sdkOpts...)
	return c
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
		// The call returns once the response headers arrived; the body is
		// read lazily. (The SDK's own WithRequestTimeout would also cut the
		// body.)
		var res *http.Response
		err = c.sdk.Post(call.Context(), "responses", body, &res)
		call.Responded()
		if res != nil && res.Body != nil {
			defer res.Body.Close()
		}
		if err != nil {
			yield(nil, classify(call, err, false))
			return
		}

		src := wire.NewSSE(res.Body)
		var n normalizer
		if wire.Pump(call, src, n.handle, yield) {
			return
		}
		if err := src.Err(); err != nil {
			yield(nil, classify(call, err, n.started))
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
// model and the first positive context_window, context_length,
// max_context_length or max_model_len field of its entry is returned. An
// endpoint without a models list (404, 405, 501) or without the model in it
// gives 0, nil; other failures are reported as *llm.Error.
func (c *Client) ContextWindow(ctx context.Context, model string) (int, error) {
	if c.ep.ConfigErr != nil {
		return 0, c.ep.ConfigErr
	}
	if strings.EqualFold(c.baseURL.Hostname(), "api.openai.com") {
		return 0, nil
	}
	call, err := wire.Start(ctx, c.ep.Name, c.ep.RequestTimeout)
	if err != nil {
		return 0, err
	}
	defer call.End()
	page, err := c.models.List(call.Context())
	if err != nil {
		var apiErr *sdk.Error
		if errors.As(err, &apiErr) {
			switch apiErr.StatusCode {
			case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNotImplemented:
				return 0, nil
			}
		}
		return 0, classify(call, err, false)
	}
	for i := range page.Data {
		if page.Data[i].ID == model {
			return contextLength(page.Data[i].RawJSON()), nil
		}
	}
	return 0, nil
}

// contextLength reads the context size a models-list entry reports under
// any of the names OpenAI-compatible servers use.
func contextLength(raw string) int {
	var m struct {
		ContextWindow    json.Number `json:"context_window"`
		ContextLength    json.Number `json:"context_length"`
		MaxContextLength json.Number `json:"max_context_length"`
		MaxModelLen      json.Number `json:"max_model_len"`
	}
	if json.Unmarshal([]byte(raw), &m) != nil {
		return 0
	}
	for _, v := range []json.Number{m.ContextWindow, m.ContextLength, m.MaxContextLength, m.MaxModelLen} {
		if n, err := v.Int64(); err == nil && n > 0 && n < 1<<31 {
			return int(n)
		}
	}
	return 0
}
