//go:build unix

package e2e

import (
	"net"
	"strconv"
	"sync/atomic"
	"testing"
)

// tcpProbe is a listener on 127.0.0.1 that notes whether anything connected.
type tcpProbe struct {
	port string
	hits atomic.Int32
}

func (p *tcpProbe) accepted() bool { return p.hits.Load() > 0 }

func newListener(t *testing.T) (*tcpProbe, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &tcpProbe{port: strconv.Itoa(l.Addr().(*net.TCPAddr).Port)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			p.hits.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return p, nil
}
