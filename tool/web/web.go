// Package web fetches one web page for the WebFetch tool, within limits that
// hold whatever the model or the page asks for: a total time limit, a cap on
// the bytes read (streamed, never more in memory), at most a few redirects,
// each one to another host only when the caller allows it, and connections
// only to public addresses unless the caller allows the host by name. The
// address check runs on the address actually dialled (a net.Dialer's
// Control), after resolution, so a name that resolves to a public address
// when it is looked at and to a private one when it is used (DNS rebinding)
// still cannot reach it. It also classifies what came back (HTML, text,
// binary) and turns HTML into Markdown.
package web

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Defaults of Fetcher's limits.
const (
	DefaultMaxBytes     = 10 << 20
	DefaultTimeout      = 30 * time.Second
	DefaultMaxRedirects = 5
)

// Fetcher fetches pages. The zero value is usable: default limits, no host
// named, no redirect to another host followed. Safe for concurrent use.
type Fetcher struct {
	// MaxBytes caps what is read of a body, after decompression; 0 means
	// DefaultMaxBytes.
	MaxBytes int64
	// Timeout bounds one Fetch: every connection, redirect, the headers and
	// the body. 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxRedirects is how many redirects are followed; 0 means
	// DefaultMaxRedirects.
	MaxRedirects int
	// Named reports whether the user named host in a rule: only such a
	// host is dialled at a non-public address (NonPublic), and fetched
	// over plain http. nil means none is.
	Named func(host string) bool
	// Follow reports whether a redirect to another host may be followed
	// (the permission layer's answer for that URL), and if not, why. nil
	// means none is: Fetch returns a RedirectError.
	Follow func(u *url.URL) (ok bool, why string)
	// UserAgent is sent with every request; "" means a generic one.
	UserAgent string

	// Tests' seams: the address rule (nil: NonPublic) and the roots TLS
	// certificates are checked against (nil: the system's).
	nonPublic func(netip.Addr) string
	roots     *x509.CertPool
}

// Page is what a fetch brought back.
type Page struct {
	// URL is where the content came from, after redirects and the upgrade
	// to https.
	URL *url.URL
	// Upgraded: the URL asked for http and was fetched over https.
	Upgraded bool
	// Redirects is how many redirects were followed.
	Redirects int
	Status    int    // HTTP status code
	StatusMsg string // e.g. "404 Not Found"
	// MediaType is the Content-Type without parameters, or what the
	// content looks like when the server sent none.
	MediaType string
	Kind      Kind
	// Body is the content as UTF-8; nil for Binary.
	Body []byte
	// Truncated: the body was longer than MaxBytes; Body is its head.
	Truncated bool
}

// RedirectError is a redirect that was not followed: to another host the
// caller did not allow (Why says why), or to something that is not a web
// page.
type RedirectError struct {
	From, To *url.URL
	Status   int
	Why      string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("%s redirects (%d) to %s: %s", e.From, e.Status, e.To, e.Why)
}

// ErrTooManyRedirects ends a chain of redirects longer than MaxRedirects.
var ErrTooManyRedirects = errors.New("too many redirects")

// TimeoutError is a fetch that did not finish within Fetcher.Timeout.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string { return fmt.Sprintf("no complete answer within %v", e.After) }

// ParseURL checks that raw is an absolute http or https URL with a host.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL: %v", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		if u.Scheme == "" {
			return nil, fmt.Errorf("%q has no scheme: give a full URL such as https://%s", raw, strings.TrimPrefix(raw, "//"))
		}
		return nil, fmt.Errorf("%q is not an http or https URL", raw)
	case u.Hostname() == "":
		return nil, fmt.Errorf("%q names no host", raw)
	}
	return u, nil
}

// Fetch gets raw with GET. A page with an error status is a Page, not an
// error; errors are the fetch's own failures: a refused address
// (*BlockedError), a redirect not followed (*RedirectError), too many
// redirects, the time limit (*TimeoutError), the network.
func (f *Fetcher) Fetch(ctx context.Context, raw string) (*Page, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	timeout := cmp.Or(f.Timeout, DefaultTimeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tr := &http.Transport{
		// No proxy: the address check must see the server's address, not
		// a proxy's.
		Proxy:                  nil,
		DialContext:            f.dial,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 1 << 20,
	}
	if f.roots != nil {
		tr.TLSClientConfig = &tls.Config{RootCAs: f.roots}
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{
		Transport: tr,
		// Redirects are followed below, one hop at a time, so that each
		// is checked like the first URL.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	page := &Page{}
	for {
		if u.Scheme == "http" && !f.named(u.Hostname()) {
			// Plain http can be read and rewritten on the way; a page is
			// what the model acts on. A host the user named (a dev server)
			// keeps it.
			u = upgrade(u)
			page.Upgraded = true
		}
		resp, err := f.get(ctx, client, u)
		if err != nil {
			err = f.explain(ctx, err, timeout)
			if _, blocked := err.(*BlockedError); !blocked && page.Upgraded {
				err = fmt.Errorf("%w (http was upgraded to https: plain http is used only for hosts an allow rule names)", err)
			}
			return nil, err
		}
		if !isRedirect(resp.StatusCode) {
			page.URL = u
			err := f.read(resp, page)
			resp.Body.Close()
			if err != nil {
				return nil, f.explain(ctx, err, timeout)
			}
			return page, nil
		}
		resp.Body.Close()
		next, err := f.nextHop(u, resp, page.Redirects)
		if err != nil {
			return nil, err
		}
		u = next
		page.Redirects++
	}
}

func (f *Fetcher) get(ctx context.Context, client *http.Client, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", cmp.Or(f.UserAgent, "Mozilla/5.0 (compatible; NovaCode-WebFetch/1.0)"))
	// Some documentation sites answer with Markdown when asked: it needs
	// no conversion.
	req.Header.Set("Accept", "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5")
	return client.Do(req)
}

// nextHop decides where a redirect leads, or why it is not followed.
func (f *Fetcher) nextHop(u *url.URL, resp *http.Response, hops int) (*url.URL, error) {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, fmt.Errorf("%s answered %s without saying where to", u, resp.Status)
	}
	next, err := u.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("%s redirects to %q, which is not a URL", u, loc)
	}
	next.Fragment, next.RawFragment = "", ""
	if next.Scheme != "http" && next.Scheme != "https" {
		return nil, &RedirectError{From: u, To: next, Status: resp.StatusCode, Why: "not an http or https URL"}
	}
	if hops >= cmp.Or(f.MaxRedirects, DefaultMaxRedirects) {
		return nil, fmt.Errorf("%w: more than %d, the last from %s to %s", ErrTooManyRedirects, hops, u, next)
	}
	if sameSite(u, next) {
		return next, nil
	}
	why := "another host needs its own approval"
	if f.Follow != nil {
		ok, reason := f.Follow(next)
		if ok {
			return next, nil
		}
		if reason != "" {
			why = reason
		}
	}
	return nil, &RedirectError{From: u, To: next, Status: resp.StatusCode, Why: why}
}

// sameSite reports whether a redirect stays with the host the call was
// approved for: the same name, or the name with or without "www.". Ports
// and schemes may change: permission rules name hosts only.
func sameSite(a, b *url.URL) bool {
	ha := strings.TrimSuffix(strings.ToLower(a.Hostname()), ".")
	hb := strings.TrimSuffix(strings.ToLower(b.Hostname()), ".")
	return ha == hb || "www."+ha == hb || ha == "www."+hb
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// upgrade returns u over https; http's default port goes with the scheme.
func upgrade(u *url.URL) *url.URL {
	v := *u
	v.Scheme = "https"
	if v.Port() == "80" {
		v.Host = strings.TrimSuffix(v.Host, ":80")
	}
	return &v
}

func (f *Fetcher) named(host string) bool {
	return f.Named != nil && f.Named(host)
}

// dial connects to addr (host:port as the URL names it), refusing every
// resolved address that is not public unless the user named the host. The
// check runs in Control, on the address the socket is about to connect to:
// no second resolution can differ from the one checked.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	allowed := f.named(host)
	nonPublic := f.nonPublic
	if nonPublic == nil {
		nonPublic = NonPublic
	}
	d := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			if allowed {
				return nil
			}
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &BlockedError{Host: host, Why: "unrecognised"}
			}
			if why := nonPublic(ap.Addr()); why != "" {
				return &BlockedError{Host: host, Addr: ap.Addr().WithZone(""), Why: why}
			}
			return nil
		},
	}
	return d.DialContext(ctx, network, addr)
}

// explain turns a transport error into the fetch's own: a refused address,
// the time limit.
func (f *Fetcher) explain(ctx context.Context, err error, timeout time.Duration) error {
	if b, ok := errors.AsType[*BlockedError](err); ok {
		return b
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &TimeoutError{After: timeout}
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}

// read reads the body into page, classifying it first: a binary body is not
// read at all.
func (f *Fetcher) read(resp *http.Response, page *Page) error {
	page.Status, page.StatusMsg = resp.StatusCode, resp.Status
	max := cmp.Or(f.MaxBytes, DefaultMaxBytes)
	body := io.LimitReader(resp.Body, max+1)
	head := make([]byte, 512)
	n, err := io.ReadFull(body, head)
	head = head[:n]
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return err
	}
	mediaType, charset := contentType(resp.Header.Get("Content-Type"), head)
	page.MediaType = mediaType
	page.Kind = classify(mediaType, head)
	if page.Kind == Binary {
		return nil
	}
	var buf bytes.Buffer
	if resp.ContentLength > 0 {
		buf.Grow(int(min(resp.ContentLength, max) + 1))
	}
	buf.Write(head)
	if _, err := buf.ReadFrom(body); err != nil {
		return err
	}
	b := buf.Bytes()
	if int64(len(b)) > max {
		b, page.Truncated = b[:max], true
	}
	if page.Kind != HTML && looksBinary(b) {
		page.Kind = Binary
		return nil
	}
	page.Body = toUTF8(b, charset)
	return nil
}
