package mcp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// httpBase is the HTTP transport every HTTP server of a Manager shares.
// It knows every connection it dialled, so that Close can end them all,
// requests in flight included (the SDK's closing DELETE waits up to 5 s
// for a server that does not answer).
type httpBase struct {
	transport *http.Transport

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

func newHTTPBase() *httpBase {
	b := &httpBase{conns: map[net.Conn]struct{}{}}
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.closed {
			c.Close()
			return nil, errors.New("the MCP client is closed")
		}
		tc := &trackedConn{Conn: c, base: b}
		b.conns[tc] = struct{}{}
		return tc, nil
	}
	b.transport = t
	return b
}

// closeAll ends every connection and refuses new ones.
func (b *httpBase) closeAll() {
	b.mu.Lock()
	b.closed = true
	conns := b.conns
	b.conns = map[net.Conn]struct{}{}
	b.mu.Unlock()
	for c := range conns {
		c.(*trackedConn).Conn.Close()
	}
	b.transport.CloseIdleConnections()
}

type trackedConn struct {
	net.Conn
	base *httpBase
}

func (c *trackedConn) Close() error {
	c.base.mu.Lock()
	delete(c.base.conns, c)
	c.base.mu.Unlock()
	return c.Conn.Close()
}

// headerTransport adds a server's headers to every request and remembers
// whether the server refused the credentials.
type headerTransport struct {
	base         http.RoundTripper
	headers      map[string]string
	unauthorized atomic.Bool
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnauthorized {
		t.unauthorized.Store(true)
	}
	return resp, err
}
