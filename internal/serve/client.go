package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// client is one WebSocket connection. Two goroutines own it, both started
// and waited for by the connection's handler (Server.serveWS): the reader,
// which decodes the client's messages and acts on them (sess is its own,
// touched by no one else), and the writer, which sends what was queued.
//
// Whoever produces a frame for the client (a session publishing, the
// reader answering) only appends to the queue and never blocks: a session
// never waits for its slowest client. The queue is bounded (maxFrames,
// maxBytes): a client whose queue would grow past the bound is dropped, its
// queue emptied at once and the connection closed with 1008 once the write
// in progress ends (or times out, then the connection is cut).
type client struct {
	conn *websocket.Conn
	srv  *Server

	// sess is the session the client is attached to; the reader's alone.
	sess *live

	// wake has room for one signal: the writer has something to do.
	wake chan struct{}

	// mu guards what follows. Lock order: Server.mu, then live.mu, then
	// client.mu; nothing is locked while client.mu is held.
	mu sync.Mutex
	// queue holds encoded frames in order; queued is their total size.
	// Frames are shared (the ring and every client hold the same slice)
	// and never modified.
	queue  [][]byte
	queued int
	// extraFrames and extraBytes raise the bound by what a replay queued,
	// so that coming back to a long session does not count as reading
	// slowly; they shrink as the writer sends.
	extraFrames, extraBytes int
	// closeCode, once set, ends the connection: 1008 at once (the queue is
	// dropped), 1001 once the queue is sent.
	closeCode   websocket.StatusCode
	closeReason string
	// peakFrames and peakBytes are the longest the queue has been (tests
	// check the bound holds).
	peakFrames, peakBytes int
}

func newClient(srv *Server, conn *websocket.Conn) *client {
	return &client{srv: srv, conn: conn, wake: make(chan struct{}, 1)}
}

func (c *client) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// send queues one frame. It never blocks. Called with the sending
// session's lock held, or none.
func (c *client) send(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sendLocked(b)
}

func (c *client) sendLocked(b []byte) {
	if c.closeCode != 0 {
		return
	}
	lim := c.srv.cfg
	// An empty queue takes any one frame, however large (a Write of a big
	// file): what a client holds is bounded by the bound plus one frame.
	if len(c.queue) > 0 && (len(c.queue)+1 > lim.ClientQueueFrames+c.extraFrames || c.queued+len(b) > lim.ClientQueueBytes+c.extraBytes) {
		// Reading too slowly: drop what waits now, so that memory stays
		// bounded whatever the client does next.
		c.closeCode, c.closeReason = websocket.StatusPolicyViolation, "reading too slowly: send buffer full"
		c.queue, c.queued, c.extraFrames, c.extraBytes = nil, 0, 0, 0
		c.srv.noteDropped()
		c.signal()
		return
	}
	c.queue = append(c.queue, b)
	c.queued += len(b)
	c.peakFrames = max(c.peakFrames, len(c.queue))
	c.peakBytes = max(c.peakBytes, c.queued)
	c.signal()
}

// sendReplay queues a replay whole, crediting its size to the bound.
func (c *client) sendReplay(frames [][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range frames {
		c.extraFrames++
		c.extraBytes += len(b)
		c.sendLocked(b)
	}
}

// sendJSON queues a frame of the server's own.
func (c *client) sendJSON(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.srv.logf("encode a frame: %v", err)
		return
	}
	c.send(b)
}

// sendError queues an error frame.
func (c *client) sendError(code, ref string, format string, args ...any) {
	c.sendJSON(errorFrame{Type: "error", Code: code, Ref: ref, Error: fmt.Sprintf(format, args...)})
}

// shut asks the writer to send what is queued and close with code.
func (c *client) shut(code websocket.StatusCode, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeCode == 0 {
		c.closeCode, c.closeReason = code, reason
	}
	c.signal()
}

// next takes the next frame to write; done is set when the connection is
// to be closed now, with code and reason.
func (c *client) next() (b []byte, code websocket.StatusCode, reason string, done bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closeCode == websocket.StatusPolicyViolation || (c.closeCode != 0 && len(c.queue) == 0) {
		return nil, c.closeCode, c.closeReason, true
	}
	if len(c.queue) == 0 {
		return nil, 0, "", false
	}
	b = c.queue[0]
	c.queue[0] = nil
	c.queue = c.queue[1:]
	if len(c.queue) == 0 {
		c.queue = nil // let a long queue's array go
	}
	c.queued -= len(b)
	c.extraFrames = max(0, c.extraFrames-1)
	c.extraBytes = max(0, c.extraBytes-len(b))
	return b, 0, "", false
}

// writeLoop sends queued frames until the connection is to be closed, then
// closes it. Each write is bounded by the write timeout: a client that
// stopped reading altogether is cut then.
func (c *client) writeLoop(ctx context.Context) error {
	for {
		select {
		case <-c.wake:
		case <-ctx.Done():
			return ctx.Err()
		}
		for {
			b, code, reason, done := c.next()
			if done {
				return c.conn.Close(code, reason)
			}
			if b == nil {
				break
			}
			wctx, cancel := context.WithTimeout(ctx, c.srv.cfg.WriteTimeout)
			err := c.conn.Write(wctx, websocket.MessageText, b)
			cancel()
			if err != nil {
				return fmt.Errorf("write a frame: %w", err)
			}
		}
	}
}

// readLoop reads the client's messages and acts on each in turn. A frame
// over the read limit ends the connection (1009, by the library); a
// malformed one gets an error frame.
func (c *client) readLoop(ctx context.Context) error {
	for {
		typ, b, err := c.conn.Read(ctx)
		if err != nil {
			return fmt.Errorf("read a message: %w", err)
		}
		if typ != websocket.MessageText {
			c.sendError(codeBadRequest, "", "send JSON text frames")
			continue
		}
		c.srv.dispatch(ctx, c, b)
	}
}

// pingLoop pings the client every interval: a peer gone without closing
// (a laptop asleep, a cut network) is noticed within interval plus the
// write timeout, and its session's control freed.
func (c *client) pingLoop(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, c.srv.cfg.WriteTimeout)
			err := c.conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("ping: %w", err)
			}
		}
	}
}

// stats reports the queue's current and peak length, for tests.
func (c *client) stats() (frames, bytes, peakFrames, peakBytes int, code websocket.StatusCode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue), c.queued, c.peakFrames, c.peakBytes, c.closeCode
}

// defaultWriteTimeout bounds one frame's write to a client.
const defaultWriteTimeout = 10 * time.Second
