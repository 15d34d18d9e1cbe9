package wire

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/novacode/nova/llm"
)

// DefaultHTTPClient is the client an adapter uses when its caller gives
// none: a clone of http.DefaultTransport whose response-header timeout
// catches a server that accepts the connection and never answers, while the
// body (the stream) stays unbounded. It has no Client.Timeout, which would
// cut long streams.
func DefaultHTTPClient() *http.Client {
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		t = t.Clone()
		t.ResponseHeaderTimeout = 10 * time.Minute
		return &http.Client{Transport: t}
	}
	return &http.Client{}
}

// ParseBaseURL checks an endpoint's base URL when the client is made, so that
// a typo surfaces as a configuration problem (llm.ErrInvalid) rather than as
// a connection failure on the first call. what names the endpoint
// ("Anthropic", "OpenAI").
func ParseBaseURL(raw, what string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme != "http" && u.Scheme != "https" || u.Host == "") {
		err = errors.New("base URL needs an http or https scheme and a host")
	}
	if err != nil {
		return nil, &llm.Error{Kind: llm.ErrInvalid, Message: fmt.Sprintf("invalid %s base URL %q", what, raw), Err: err}
	}
	return u, nil
}
