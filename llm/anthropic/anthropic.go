// Package anthropic is the llm.Client adapter for the Anthropic Messages API,
// streaming over the official SDK (github.com/anthropics/anthropic-sdk-go/v2).
//
// It translates an llm.Request into a Messages request (with prompt-caching
// breakpoints on the system prompt, the tool list and the newest user turn),
// normalizes the server-sent events into llm.StreamEvent values and maps every
// failure to an *llm.Error, so nothing of the Anthropic wire format leaks past
// this package.
package anthropic

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"os"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/internal/wire"
)

// DefaultMaxRetries is how many times the SDK re-sends a request that failed
// before its stream started (connection error, 408, 409, 429, 5xx) when
// Options.MaxRetries is zero.
const DefaultMaxRetries = 2

// Options configures a Client. The zero value talks to the production API
// without a key (every call then fails with llm.ErrAuth).
type Options struct {
	// APIKey authenticates the calls. Empty sends no credential at all, which
	// suits a local proxy that adds its own.
	APIKey string
	// BaseURL replaces https://api.anthropic.com/. A path prefix is kept:
	// "https://proxy.example/anthropic" sends to
	// "https://proxy.example/anthropic/v1/messages".
	BaseURL string
	// HTTPClient sends the requests. Nil uses a clone of
	// http.DefaultTransport with a 10-minute response-header timeout. It
	// should have no Client.Timeout: that would cut long streams.
	HTTPClient *http.Client
	// MaxRetries is how many times the SDK retries a call that failed before
	// streaming began. 0 means DefaultMaxRetries; a negative value disables
	// retries. Failures after the first event are never retried here: the
	// caller owns that decision (llm.IsRetryable).
	MaxRetries int
	// RequestTimeout bounds the time until the response starts streaming,
	// including every SDK retry and the Retry-After waits between them (the
	// SDK honours Retry-After without a cap). It does not bound the stream
	// itself, since a long answer legitimately takes minutes. 0 means no
	// bound.
	RequestTimeout time.Duration
}

// OptionsFromEnv reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL. It is the
// only place this package looks at the environment: New tells the SDK not to
// read it, so explicit Options always win.
func OptionsFromEnv() Options {
	return Options{
		APIKey:  os.Getenv("ANTHROPIC_API_KEY"),
		BaseURL: os.Getenv("ANTHROPIC_BASE_URL"),
	}
}

// Client streams Messages API calls. It is safe for concurrent use.
type Client struct {
	sdk anthropic.Client
	ep  wire.Endpoint
	// cache keeps the encoding of the latest request's messages; nil
	// encodes every message on every call.
	cache *wire.Cache[bool]
}

var _ llm.Client = (*Client)(nil)

// New returns a Client for opts.
func New(opts Options) *Client {
	retries := opts.MaxRetries
	switch {
	case retries == 0:
		retries = DefaultMaxRetries
	case retries < 0:
		retries = 0
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = wire.DefaultHTTPClient()
	}
	sdkOpts := []option.RequestOption{
		// Without this the SDK walks its own credential chain
		// (ANTHROPIC_AUTH_TOKEN, profiles on disk, federation, custom headers)
		// and could authenticate or route differently from what Options say.
		option.WithoutEnvironmentDefaults(),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(retries),
	}
	c := &Client{ep: wire.Endpoint{Name: "anthropic", RequestTimeout: opts.RequestTimeout}, cache: &wire.Cache[bool]{}}
	if opts.APIKey != "" {
		sdkOpts = append(sdkOpts, option.WithAPIKey(opts.APIKey))
	}
	if opts.BaseURL != "" {
		// The SDK would only report a bad URL on the first request, as an
		// untyped error.
		if _, err := wire.ParseBaseURL(opts.BaseURL, "Anthropic"); err != nil {
			c.ep.ConfigErr = err
		} else {
			sdkOpts = append(sdkOpts, option.WithBaseURL(opts.BaseURL))
		}
	}
	c.sdk = anthropic.NewClient(sdkOpts...)
	return c
}

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
		params, body, err := c.prepare(req)
		if err != nil {
			yield(nil, err)
			return
		}
		// NewStreaming returns once response headers arrived (after any
		// retries); the body is read lazily by Next.
		var last lastAttempt
		stream := c.newStreaming(call.Context(), params, body, option.WithMiddleware(last.record))
		call.Responded()
		defer stream.Close()

		var n normalizer
		if wire.Pump(call, stream, n.handle, yield) {
			return
		}
		if err := stream.Err(); err != nil {
			yield(nil, classify(call, err, &last, n.started))
			return
		}
		yield(nil, wire.Unfinished("message_stop"))
	}
}

// lastAttempt remembers the status and headers of the latest failed HTTP
// attempt, so that a RequestTimeout that expires while the SDK waits out a
// Retry-After still reports the rate limit (and its delay) that caused it.
type lastAttempt struct {
	status int
	header http.Header
}

func (l *lastAttempt) record(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if res != nil && res.StatusCode >= 400 {
		l.status, l.header = res.StatusCode, res.Header
	}
	return res, err
}

var _ option.Middleware = (*lastAttempt)(nil).record

// ContextWindow asks the Models API for model's input window
// (max_input_tokens). It returns 0 when the endpoint does not know the
// model or does not say; callers then fall back to the built-in table.
func (c *Client) ContextWindow(ctx context.Context, model string) (int, error) {
	if c.ep.ConfigErr != nil {
		return 0, c.ep.ConfigErr
	}
	info, err := c.sdk.Models.Get(ctx, model, anthropic.ModelGetParams{})
	if err != nil {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
			return 0, nil
		}
		return 0, fmt.Errorf("look up model %s: %w", model, err)
	}
	return int(info.MaxInputTokens), nil
}
