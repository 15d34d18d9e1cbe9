package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
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

// HTTP sends an endpoint's requests: JSON bodies to a path under its base
// URL, with its API key as a bearer token. It reads nothing from the
// environment and never retries (llm.WithRetry decides that, knowing
// whether anything was yielded).
type HTTP struct {
	client *http.Client
	base   *url.URL
	apiKey string
}

// UserAgent names this program to the servers.
const UserAgent = "NovaCode"

// maxErrorBody caps how much of an error response is read.
const maxErrorBody = 1 << 20

// NewHTTP returns an HTTP for base (see ParseBaseURL), whose path the
// request paths are relative to ("https://host/v1" + "responses" is
// "https://host/v1/responses"; a query of base is not kept). An empty
// apiKey sends no credential, which suits a local server or a proxy that
// adds its own.
func NewHTTP(hc *http.Client, base *url.URL, apiKey string) *HTTP {
	b := *base
	if b.Path != "" && !strings.HasSuffix(b.Path, "/") {
		b.Path += "/"
	}
	return &HTTP{client: hc, base: &b, apiKey: apiKey}
}

// StatusError is an error status and the start of the body that came with
// it, for the adapter to make sense of (what an error body says differs by
// protocol).
type StatusError struct {
	StatusCode int
	Header     http.Header
	Body       []byte
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d %s", e.StatusCode, http.StatusText(e.StatusCode))
}

// Do sends a request, with body as JSON if it is not nil, and returns the
// response once its headers arrived; the caller reads and closes its body.
// An error status is returned as a *StatusError instead, its body read (up
// to a megabyte) and closed. accept is the Accept header.
func (h *HTTP) Do(ctx context.Context, method, path string, body []byte, accept string) (*http.Response, error) {
	u, err := h.base.Parse(path)
	if err != nil {
		return nil, err
	}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", UserAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if h.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+h.apiKey)
	}
	res, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		defer res.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		return nil, &StatusError{StatusCode: res.StatusCode, Header: res.Header, Body: b}
	}
	return res, nil
}

// Host reports whether the endpoint is at host (case-insensitively): some
// adapters speak a dialect for their provider's own API.
func (h *HTTP) Host(host string) bool {
	return strings.EqualFold(h.base.Hostname(), host)
}
