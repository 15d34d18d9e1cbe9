package wire

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/novacode/nova/llm"
)

// Endpoint is what an adapter's calls share: its name (for error messages),
// its request timeout and a problem with its options found when the client
// was made, which every call then reports instead of sending anything; and,
// for an adapter that sends its own requests, how (HTTP, nil with a
// ConfigErr).
type Endpoint struct {
	Name           string
	RequestTimeout time.Duration
	ConfigErr      error
	HTTP           *HTTP
}

// Options are the options of an adapter that sends its own requests; the
// adapter's public Options convert to them.
type Options struct {
	APIKey         string
	BaseURL        string
	HTTPClient     *http.Client
	RequestTimeout time.Duration
}

// NewEndpoint returns the endpoint of such an adapter: o.BaseURL (which
// must be set; what names it in an error) checked at once, o.HTTPClient
// DefaultHTTPClient when nil.
func NewEndpoint(name, what string, o Options) Endpoint {
	e := Endpoint{Name: name, RequestTimeout: o.RequestTimeout}
	base, err := ParseBaseURL(o.BaseURL, what)
	if err != nil {
		e.ConfigErr = err
		return e
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = DefaultHTTPClient()
	}
	e.HTTP = NewHTTP(hc, base, o.APIKey)
	return e
}

// Begin starts a call of req. It fails, before anything is sent, with the
// endpoint's configuration error, with llm.ErrInvalid for a nil request, or
// with the caller's context error.
func (e *Endpoint) Begin(ctx context.Context, req *llm.Request) (*Call, error) {
	if e.ConfigErr != nil {
		return nil, e.ConfigErr
	}
	if req == nil {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: "nil request"}
	}
	return Start(ctx, e.Name, e.RequestTimeout)
}

// Unfinished is the error of a body that ended cleanly before the response
// did (a proxy or server that closed the connection early); end names what
// never came.
func Unfinished(end string) *llm.Error {
	return &llm.Error{Kind: llm.ErrBrokenStream, Message: "stream ended before " + end, Err: io.ErrUnexpectedEOF}
}
