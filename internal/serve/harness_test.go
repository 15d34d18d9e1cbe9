package serve

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"go.uber.org/goleak"

	"github.com/novacode/nova"
	"github.com/novacode/nova/llm/llmtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const testToken = "test-token-0123456789abcdef"

// harness is a server on 127.0.0.1 whose sessions talk to a scripted model,
// in a workspace and data directory of the test's.
type harness struct {
	t        *testing.T
	srv      *Server
	llm      *llmtest.Server
	dir      string
	data     string
	url      string // ws://…/ws
	httpURL  string
	stop     context.CancelFunc
	done     chan error
	tlsConf  *tls.Config // set for TLS: the client's
	listener func(net.Listener) net.Listener
}

// options are the nova.Options of the harness's sessions: as nova_test's
// testOptions, the scripted model over the Anthropic protocol.
func (h *harness) options() nova.Options {
	env := map[string]string{"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": h.llm.URL}
	return nova.Options{Dir: h.dir, DataDir: h.data, Getenv: func(k string) string { return env[k] }, Sandbox: "off"}
}

// newHarness makes the scripted model and directories; start serves.
func newHarness(t *testing.T, turns ...llmtest.Turn) *harness {
	t.Helper()
	h := &harness{t: t, llm: llmtest.NewServer(turns...), dir: t.TempDir(), data: t.TempDir()}
	t.Cleanup(h.llm.Close)
	return h
}

// start serves with cfg changed by tweak; the server stops at cleanup (or
// with h.shutdown).
func (h *harness) start(tweak func(*Config)) *harness {
	h.t.Helper()
	cfg := Config{Options: h.options, Token: testToken, Version: "test"}
	if tweak != nil {
		tweak(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.t.Fatal(err)
	}
	addr := ln.Addr().String()
	if h.listener != nil {
		ln = h.listener(ln)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h.srv, h.stop, h.done = srv, cancel, make(chan error, 1)
	scheme := "ws"
	if h.tlsConf != nil {
		scheme = "wss"
	}
	h.url = scheme + "://" + addr + "/ws"
	h.httpURL = strings.Replace(h.url, "ws", "http", 1)
	go func() { h.done <- srv.Serve(ctx, ln) }()
	h.t.Cleanup(h.shutdown)
	return h
}

// shutdown stops the server and waits for Serve to return.
func (h *harness) shutdown() {
	if h.stop == nil {
		return
	}
	h.stop()
	h.stop = nil
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Serve: %v", err)
		}
	case <-time.After(30 * time.Second):
		h.t.Error("Serve did not return after shutdown")
	}
}

// dialOpts are a dial's options: the token as a bearer header unless
// headers say otherwise; no keep-alive, so nothing lingers after a refused
// handshake.
func (h *harness) dialOpts(header http.Header, protos []string) *websocket.DialOptions {
	if header == nil {
		header = http.Header{"Authorization": {"Bearer " + testToken}}
	}
	tr := &http.Transport{DisableKeepAlives: true, TLSClientConfig: h.tlsConf}
	return &websocket.DialOptions{HTTPHeader: header, Subprotocols: protos, HTTPClient: &http.Client{Transport: tr}}
}

// dial connects with the token and reads the hello frame.
func (h *harness) dial() *wsClient {
	h.t.Helper()
	return h.dialWith(h.dialOpts(nil, nil))
}

func (h *harness) dialWith(opts *websocket.DialOptions) *wsClient {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, h.url, opts)
	if err != nil {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		h.t.Fatalf("dial: %v (HTTP %d)", err, status)
	}
	conn.SetReadLimit(64 << 20)
	c := &wsClient{t: h.t, conn: conn}
	h.t.Cleanup(func() { conn.CloseNow() })
	if f := c.next(); f.Type != "hello" {
		h.t.Fatalf("first frame is %s, want hello", f.raw)
	}
	return c
}

// wsClient is a test's WebSocket client.
type wsClient struct {
	t    *testing.T
	conn *websocket.Conn
}

// frame is a server frame, decoded enough to check.
type frame struct {
	Type      string `json:"type"`
	Seq       int64  `json:"seq"`
	SessionID string `json:"session_id"`
	Replayed  bool   `json:"replayed"`
	Resent    bool   `json:"resent"`
	ID        string `json:"id"`
	Reason    string `json:"reason"`
	Text      string `json:"text"`
	Code      string `json:"code"`
	Error     string `json:"error"`
	Replay    string `json:"replay"`
	Control   bool   `json:"control"`
	LastSeq   int64  `json:"last_seq"`
	Epoch     string `json:"epoch"`
	Subtype   string `json:"subtype"`
	Name      string `json:"name"`
	Cancelled bool   `json:"cancelled"`
	AgentID   string `json:"agent_id"`
	Parent    string `json:"parent_tool_use_id"`

	raw string
}

func (c *wsClient) send(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.sendRaw(b)
}

// write sends v; for goroutines other than the test's.
func (c *wsClient) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.conn.Write(ctx, websocket.MessageText, b)
}

func (c *wsClient) sendRaw(b []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Write(ctx, websocket.MessageText, b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read reads one frame; err is the connection's end.
func (c *wsClient) read(timeout time.Duration) (frame, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, b, err := c.conn.Read(ctx)
	if err != nil {
		return frame{}, err
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return frame{}, errors.New("not JSON: " + string(b))
	}
	f.raw = string(b)
	return f, nil
}

func (c *wsClient) next() frame {
	c.t.Helper()
	f, err := c.read(30 * time.Second)
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	return f
}

// until reads frames until one satisfies stop, returning all read.
func (c *wsClient) until(stop func(frame) bool) []frame {
	c.t.Helper()
	var out []frame
	for {
		f := c.next()
		out = append(out, f)
		if stop(f) {
			return out
		}
	}
}

// drain reads frames as fast as it can until one of type typ, and decodes
// them afterwards. It may run on a goroutine of its own.
func (c *wsClient) drain(typ string) ([]frame, error) {
	var raw [][]byte
	end := []byte(`{"type":"` + typ + `"`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		_, b, err := c.conn.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		raw = append(raw, b)
		if bytes.HasPrefix(b, end) {
			break
		}
	}
	out := make([]frame, len(raw))
	for i, b := range raw {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			return nil, fmt.Errorf("not JSON: %s", b)
		}
		out[i].raw = string(b)
	}
	return out, nil
}

func isType(typ string) func(frame) bool { return func(f frame) bool { return f.Type == typ } }

// seqs are the seqs of the stream frames among fs.
func seqs(fs []frame) []int64 {
	var out []int64
	for _, f := range fs {
		if f.Seq > 0 && !f.Resent {
			out = append(out, f.Seq)
		}
	}
	return out
}

func count(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func text(s string) llmtest.Turn { return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(s)}} }

func call(id, name, input string) llmtest.Turn {
	return llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse(id, name, input)}}
}

// waitClients waits until the server has n connections.
func (h *harness) waitClients(n int) {
	h.t.Helper()
	waitFor(h.t, fmt.Sprintf("%d connections", n), func() bool {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return len(h.srv.clients) == n
	})
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
