package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"maps"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm/llmtest"
)

func TestHandshake(t *testing.T) {
	h := newHarness(t).start(func(c *Config) { c.AllowOrigins = []string{"https://editor.example"} })
	host := strings.TrimPrefix(strings.TrimSuffix(h.url, "/ws"), "ws://")
	tests := []struct {
		name      string
		header    http.Header
		protos    []string
		status    int    // of a refused handshake; 0: accepted
		subproto  string // selected, when accepted
		wantHello bool
	}{
		{name: "no token", header: http.Header{}, status: http.StatusUnauthorized},
		{name: "wrong bearer", header: http.Header{"Authorization": {"Bearer wrong-token-0123456789"}}, status: http.StatusUnauthorized},
		{name: "token of another length", header: http.Header{"Authorization": {"Bearer " + testToken + "x"}}, status: http.StatusUnauthorized},
		{name: "bearer", header: http.Header{"Authorization": {"Bearer " + testToken}}},
		{name: "wrong subprotocol token", header: http.Header{}, protos: []string{Protocol, "nova.token.nope-nope-nope-nope"}, status: http.StatusUnauthorized},
		{name: "subprotocol token with nova.v1", header: http.Header{}, protos: []string{Protocol, "nova.token." + testToken}, subproto: Protocol},
		{name: "subprotocol token alone", header: http.Header{}, protos: []string{"nova.token." + testToken}, subproto: "nova.token." + testToken},
		{name: "wrong origin", header: http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"https://evil.example"}}, status: http.StatusForbidden},
		{name: "wrong origin, no token", header: http.Header{"Origin": {"https://evil.example"}}, status: http.StatusUnauthorized},
		{name: "same origin", header: http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"http://" + host}}},
		{name: "allowed origin", header: http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"https://editor.example"}}},
		{name: "allowed host, other scheme", header: http.Header{"Authorization": {"Bearer " + testToken}, "Origin": {"http://editor.example"}}, status: http.StatusForbidden},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			conn, resp, err := websocket.Dial(ctx, h.url, h.dialOpts(tc.header, tc.protos))
			if tc.status != 0 {
				if err == nil {
					conn.CloseNow()
					t.Fatal("handshake accepted")
				}
				if resp == nil || resp.StatusCode != tc.status {
					t.Fatalf("refused with %v, want HTTP %d", err, tc.status)
				}
				return
			}
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			defer conn.CloseNow()
			if got := conn.Subprotocol(); got != tc.subproto {
				t.Errorf("subprotocol %q, want %q", got, tc.subproto)
			}
			c := &wsClient{t: t, conn: conn}
			if f := c.next(); f.Type != "hello" {
				t.Errorf("first frame %s", f.raw)
			}
			conn.Close(websocket.StatusNormalClosure, "")
		})
	}
}

func TestStaticAndPlaceholder(t *testing.T) {
	h := newHarness(t).start(nil)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Get(strings.TrimSuffix(h.httpURL, "/ws") + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("GET / = %d, X-Frame-Options %q", resp.StatusCode, resp.Header.Get("X-Frame-Options"))
	}
}

func TestCheckListen(t *testing.T) {
	tests := []struct {
		addr          string
		tls, insecure bool
		wantErr       string
	}{
		{addr: "127.0.0.1:7777"},
		{addr: "127.0.0.1:0"},
		{addr: "localhost:7777"},
		{addr: "[::1]:7777"},
		{addr: "0.0.0.0:7777", wantErr: "without TLS"},
		{addr: ":7777", wantErr: "every interface"},
		{addr: "192.168.1.5:80", wantErr: "--insecure-remote"},
		{addr: "example.com:80", wantErr: "without TLS"},
		{addr: "0.0.0.0:7777", tls: true},
		{addr: "0.0.0.0:7777", insecure: true},
		{addr: "7777", wantErr: "missing port"},
	}
	for _, tc := range tests {
		err := CheckListen(tc.addr, tc.tls, tc.insecure)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && !strings.Contains(got, tc.wantErr) {
			t.Errorf("CheckListen(%q, %v, %v) = %v, want an error with %q", tc.addr, tc.tls, tc.insecure, err, tc.wantErr)
		}
	}
}

func TestValidToken(t *testing.T) {
	tests := map[string]bool{
		testToken:                   true,
		"short":                     false,
		"has space in it 0123456":   false,
		"slash/is/not/allowed/here": false,
		"dots.and_under~scores-ok1": true,
	}
	for tok, ok := range tests {
		if err := ValidToken(tok); (err == nil) != ok {
			t.Errorf("ValidToken(%q) = %v", tok, err)
		}
	}
	g, err := GenerateToken()
	if err != nil || ValidToken(g) != nil || len(g) != 43 {
		t.Errorf("GenerateToken() = %q, %v", g, err)
	}
}

// TestSessionEndToEnd drives one session: a prompt whose Write asks for
// permission (allowed once) and runs, then a question answered; a second
// prompt whose command is cancelled while it runs.
func TestSessionEndToEnd(t *testing.T) {
	h := newHarness(t,
		call("w1", "Write", `{"file_path":"hello.txt","content":"hi"}`),
		call("q1", "AskUserQuestion", `{"question":"Which database?","options":["Postgres","SQLite"]}`),
		text("Done: wrote hello.txt for Postgres."),
		call("b1", "Bash", `{"command":"sleep 30"}`),
	).start(nil)
	c := h.dial()
	c.send(map[string]any{"type": "prompt", "text": "write hello"})
	sess := c.next()
	if sess.Type != "session" || sess.Replay != "none" || !sess.Control || sess.SessionID == "" {
		t.Fatalf("want a session frame in control, got %s", sess.raw)
	}
	id := sess.SessionID

	var all []frame
	got := c.until(isType("permission_request"))
	all = append(all, got...)
	if pr := got[len(got)-1]; pr.ID != "w1" || pr.Name != "Write" {
		t.Fatalf("permission request %s", pr.raw)
	}
	c.send(map[string]any{"type": "permission", "id": "w1", "decision": "allow_once"})
	got = c.until(isType("question"))
	all = append(all, got...)
	if !slices.ContainsFunc(got, func(f frame) bool { return f.Type == "resolved" && f.ID == "w1" }) {
		t.Error("no resolved frame for w1")
	}
	if q := got[len(got)-1]; q.ID != "q1" {
		t.Fatalf("question %s", q.raw)
	}
	// An option the question does not offer is refused; the run waits on.
	c.send(map[string]any{"type": "answer", "id": "q1", "option": "MySQL", "ref": "r1"})
	if f := c.next(); f.Type != "error" || f.Code != codeBadRequest || !strings.Contains(f.raw, `"ref":"r1"`) {
		t.Fatalf("want a bad_request error with ref, got %s", f.raw)
	}
	c.send(map[string]any{"type": "answer", "id": "q1", "option": "Postgres"})
	got = c.until(isType("result"))
	all = append(all, got...)
	res := got[len(got)-1]
	if res.Subtype != "success" || !strings.Contains(res.raw, `"result":"Done: wrote hello.txt for Postgres."`) {
		t.Fatalf("result %s", res.raw)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "hello.txt")); err != nil || string(b) != "hi" {
		t.Errorf("hello.txt = %q, %v", b, err)
	}

	// The second prompt: its command runs until cancelled.
	c.send(map[string]any{"type": "prompt", "text": "sleep", "session_id": id})
	// sleep is a plain command the chain lets run without asking.
	got = c.until(func(f frame) bool { return f.Type == "tool_use" && f.ID == "b1" })
	all = append(all, got...)
	time.Sleep(200 * time.Millisecond) // the command starts
	c.send(map[string]any{"type": "cancel"})
	got = c.until(isType("result"))
	all = append(all, got...)
	if !slices.ContainsFunc(got, func(f frame) bool { return f.Type == "loop_complete" && f.Reason == "cancelled" }) {
		t.Errorf("no loop_complete cancelled in %v", types(got))
	}
	if r := got[len(got)-1]; r.Subtype != "cancelled" {
		t.Errorf("result %s", r.raw)
	}
	if !slices.ContainsFunc(got, func(f frame) bool { return f.Type == "tool_result" && f.ID == "b1" && f.Cancelled }) {
		t.Errorf("no cancelled tool_result for b1 in %v", types(got))
	}

	// Every frame of the stream: numbered from 1 without a gap, of this
	// session.
	var stream []frame
	for _, f := range all {
		if f.Type != "error" {
			stream = append(stream, f)
		}
	}
	if diff := cmp.Diff(count(1, int64(len(stream))), seqs(stream)); diff != "" {
		t.Errorf("seqs (-want +got):\n%s", diff)
	}
	for _, f := range stream {
		if f.SessionID != id {
			t.Errorf("frame of session %q: %s", f.SessionID, f.raw)
		}
	}
	wantTypes := []string{"user_prompt", "permission_request", "resolved", "question", "resolved", "loop_complete", "result",
		"user_prompt", "loop_complete", "result"}
	var gotTypes []string
	for _, f := range stream {
		if slices.Contains(wantTypes, f.Type) {
			gotTypes = append(gotTypes, f.Type)
		}
	}
	if diff := cmp.Diff(wantTypes, gotTypes); diff != "" {
		t.Errorf("frame order (-want +got):\n%s", diff)
	}
}

func types(fs []frame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Type)
	}
	return out
}

// TestReconnectFromRing: a client that leaves mid-turn and comes back with
// after_seq gets exactly what it missed.
func TestReconnectFromRing(t *testing.T) {
	long := strings.Repeat("streaming words ", 200) // ~130 deltas
	h := newHarness(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(long)}, ChunkDelay: 2 * time.Millisecond}).start(nil)
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "talk"})
	sess := a.next()
	first := a.until(func(f frame) bool { return f.Seq >= 10 })
	a.conn.Close(websocket.StatusNormalClosure, "going away for a bit")
	h.waitClients(0)                  // control is free
	time.Sleep(20 * time.Millisecond) // more frames stream meanwhile

	b := h.dial()
	last := first[len(first)-1].Seq
	b.send(map[string]any{"type": "resume", "session_id": sess.SessionID, "after_seq": last, "epoch": sess.Epoch})
	bs := b.next()
	if bs.Type != "session" || bs.Replay != "ring" || !bs.Control {
		t.Fatalf("session frame %s", bs.raw)
	}
	rest := b.until(isType("result"))
	all := append(seqs(first), seqs(rest)...)
	if diff := cmp.Diff(count(1, all[len(all)-1]), all); diff != "" {
		t.Errorf("seqs seen across the two connections (-want +got):\n%s", diff)
	}
	if seqs(rest)[0] != last+1 || bs.LastSeq < last {
		t.Errorf("replay starts at %d, last_seq %d; want %d", seqs(rest)[0], bs.LastSeq, last+1)
	}
	var text strings.Builder
	for _, f := range append(first, rest...) {
		if f.Type == "stream_text" {
			text.WriteString(f.Text)
		}
	}
	if text.String() != long {
		t.Errorf("the text across both connections is %d bytes, want %d", text.Len(), len(long))
	}
}

// TestResumeAfterRestart: a stored session, resumed from a new server,
// comes from the transcript, replayed, and goes on.
func TestResumeAfterRestart(t *testing.T) {
	h := newHarness(t, text("first answer"), text("second answer")).start(nil)
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "first question"})
	sess := a.next()
	got := a.until(isType("result"))
	lastSeq := got[len(got)-1].Seq
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		h.shutdown()
	}()
	if _, err := a.read(5 * time.Second); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("at shutdown the connection ends with %v, want 1001", err)
	}
	<-stopped

	h.start(nil)
	b := h.dial()
	b.send(map[string]any{"type": "resume", "session_id": sess.SessionID, "after_seq": lastSeq, "epoch": sess.Epoch})
	bs := b.next()
	if bs.Type != "session" || bs.Replay != "transcript" || bs.LastSeq != 0 || bs.Epoch == sess.Epoch {
		t.Fatalf("session frame %s", bs.raw)
	}
	var replayed []string
	for {
		f := b.next()
		if !f.Replayed || f.Seq != 0 || f.SessionID != sess.SessionID {
			t.Fatalf("frame %s in the replay", f.raw)
		}
		replayed = append(replayed, f.Type+":"+f.Text)
		if f.Type == "usage" {
			break
		}
	}
	want := []string{"user_prompt:first question", "stream_text:first answer", "turn_complete:", "usage:"}
	if diff := cmp.Diff(want, replayed); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	b.send(map[string]any{"type": "prompt", "text": "second question", "session_id": sess.SessionID})
	got = b.until(isType("result"))
	if got[0].Type != "user_prompt" || got[0].Seq != 1 {
		t.Errorf("the new life's first frame %s", got[0].raw)
	}
	if !strings.Contains(got[len(got)-1].raw, `"result":"second answer"`) {
		t.Errorf("result %s", got[len(got)-1].raw)
	}
	// The model saw the conversation so far.
	reqs := h.llm.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "first answer") {
		t.Error("the resumed session's request lacks the earlier answer")
	}
}

// TestTwoClients: the second client watches (its prompt and decision are
// refused), sees the same frames, takes control; the first is told.
func TestTwoClients(t *testing.T) {
	h := newHarness(t,
		call("w1", "Write", `{"file_path":"a.txt","content":"a"}`),
		text("written"),
	).start(nil)
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "write a"})
	sess := a.next()
	fa := a.until(isType("permission_request"))

	b := h.dial()
	b.send(map[string]any{"type": "resume", "session_id": sess.SessionID})
	bs := b.next()
	if bs.Type != "session" || bs.Control || bs.Replay != "ring" || !bs.LastSeqAtLeast(fa[len(fa)-1].Seq) {
		t.Fatalf("the watcher's session frame %s", bs.raw)
	}
	fb := b.until(isType("permission_request"))
	if diff := cmp.Diff(raws(fa), raws(fb)); diff != "" {
		t.Errorf("the watcher's replay differs (-first +second):\n%s", diff)
	}
	b.send(map[string]any{"type": "permission", "id": "w1", "decision": "allow_once", "ref": "p"})
	if f := b.next(); f.Type != "error" || f.Code != codeNotController {
		t.Fatalf("a watcher's decision: %s", f.raw)
	}
	b.send(map[string]any{"type": "prompt", "text": "hijack", "session_id": sess.SessionID})
	if f := b.next(); f.Type != "error" || f.Code != codeNotController {
		t.Fatalf("a watcher's prompt: %s", f.raw)
	}
	b.send(map[string]any{"type": "take_control"})
	if f := b.next(); f.Type != "control" || !f.Control {
		t.Fatalf("after take_control: %s", f.raw)
	}
	if f := a.next(); f.Type != "control" || f.Control {
		t.Fatalf("the first client after the second took control: %s", f.raw)
	}
	// The first is a watcher now.
	a.send(map[string]any{"type": "permission", "id": "w1", "decision": "allow_once"})
	if f := a.next(); f.Type != "error" || f.Code != codeNotController {
		t.Fatalf("the former controller's decision: %s", f.raw)
	}
	b.send(map[string]any{"type": "permission", "id": "w1", "decision": "allow_once"})
	ra := a.until(isType("result"))
	rb := b.until(isType("result"))
	if diff := cmp.Diff(raws(ra), raws(rb)); diff != "" {
		t.Errorf("the two clients saw different frames (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(count(fa[len(fa)-1].Seq+1, ra[len(ra)-1].Seq), seqs(ra)); diff != "" {
		t.Errorf("seqs after the request (-want +got):\n%s", diff)
	}
}

func (f frame) LastSeqAtLeast(n int64) bool { return f.LastSeq >= n }

func raws(fs []frame) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.raw)
	}
	return out
}

// TestSlowReader: a client that stops reading while a session streams a
// lot is dropped with 1008 once its queue is full; the queue never grows
// past its bound, and the other client gets everything.
func TestSlowReader(t *testing.T) {
	const frames, bytes = 1024, 1 << 20
	// ~5,000 deltas, paced as a fast model would stream them.
	huge := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(strings.Repeat("a long answer that never ends ", 4000))}, ChunkDelay: 10 * time.Microsecond}
	h := newHarness(t, huge)
	// A small socket buffer for the second connection (the slow client's),
	// so that the kernel holds little of what it does not read.
	h.listener = func(ln net.Listener) net.Listener { return &smallBuffers{Listener: ln, nth: 2} }
	h.start(func(c *Config) { c.ClientQueueFrames, c.ClientQueueBytes = frames, bytes })

	fast := h.dial()
	clients := func() []*client {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return slices.Collect(maps.Keys(h.srv.clients))
	}
	waitFor(t, "the first connection", func() bool { return len(clients()) == 1 })
	fc := clients()[0]
	opts := h.dialOpts(nil, nil)
	opts.HTTPClient.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			conn.(*net.TCPConn).SetReadBuffer(4096)
		}
		return conn, err
	}
	slow := h.dialWith(opts)
	waitFor(t, "the second connection", func() bool { return len(clients()) == 2 })
	sc := slices.DeleteFunc(clients(), func(c *client) bool { return c == fc })[0]

	fast.send(map[string]any{"type": "prompt", "text": "talk a lot"})
	sess := fast.next()
	slow.send(map[string]any{"type": "resume", "session_id": sess.SessionID})
	// The slow client reads nothing from now on; the fast one reads as
	// fast as it can, decoding afterwards.
	type drained struct {
		frames []frame
		err    error
	}
	fastDone := make(chan drained, 1)
	go func() {
		fs, err := fast.drain("result")
		fastDone <- drained{fs, err}
	}()
	waitFor(t, "the slow client to be dropped", func() bool { return h.srv.dropped.Load() == 1 })
	n, size, peakFrames, peakBytes, code := sc.stats()
	if code != websocket.StatusPolicyViolation || n != 0 || size != 0 {
		t.Errorf("the slow client: close code %d, %d frames (%d bytes) still queued", code, n, size)
	}
	if peakFrames > frames || peakBytes > bytes {
		t.Errorf("the slow client's queue grew to %d frames, %d bytes; the bound is %d, %d", peakFrames, peakBytes, frames, bytes)
	}
	// Reading again (before the write in progress times out), it finds the
	// end of what was sent, then 1008.
	for {
		_, err := slow.read(10 * time.Second)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Errorf("the slow client's connection ended with %v, want 1008", err)
			}
			break
		}
	}
	d := <-fastDone
	if d.err != nil {
		t.Fatalf("the fast client: %v", d.err)
	}
	got := d.frames
	if diff := cmp.Diff(count(got[0].Seq, got[len(got)-1].Seq), seqs(got)); diff != "" {
		t.Errorf("the fast client's seqs (-want +got):\n%s", diff)
	}
	if r := got[len(got)-1]; r.Subtype != "success" {
		t.Errorf("result %s", r.raw)
	}
	if _, _, fastPeak, _, fastCode := fc.stats(); fastCode != 0 {
		t.Errorf("the fast client was closed (%d); its queue peaked at %d frames", fastCode, fastPeak)
	}
	// The session and the fast client are unaffected.
	fast.send(map[string]any{"type": "list_sessions"})
	if f := fast.next(); f.Type != "sessions" {
		t.Errorf("after the drop: %s", f.raw)
	}
}

// smallBuffers gives the nth accepted connection a small send buffer.
type smallBuffers struct {
	net.Listener
	nth, n int // Accept is called from one goroutine
}

func (l *smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		if l.n++; l.n == l.nth {
			tc.SetWriteBuffer(4096)
		}
	}
	return c, err
}

// TestBadFrames: malformed JSON and unknown messages get error frames and
// the connection stays; a 2 MiB frame closes that connection only.
func TestBadFrames(t *testing.T) {
	h := newHarness(t).start(nil)
	a, b := h.dial(), h.dial()
	tests := []struct {
		send, code string
	}{
		{`{"type":`, codeBadJSON},
		{`[1,2]`, codeBadJSON},
		{`{"type":"nonsense"}`, codeBadRequest},
		{`{"text":"no type"}`, codeBadRequest},
		{`{"type":"prompt"}`, codeBadRequest},
		{`{"type":"cancel"}`, codeNotAttached},
		{`{"type":"permission","id":"x","decision":"allow_once"}`, codeNotAttached},
		{`{"type":"resume","session_id":"no-such-session"}`, codeUnknownSession},
	}
	for _, tc := range tests {
		a.sendRaw([]byte(tc.send))
		if f := a.next(); f.Type != "error" || f.Code != tc.code {
			t.Errorf("%s: got %s, want an error %s", tc.send, f.raw, tc.code)
		}
	}
	a.send(map[string]any{"type": "list_sessions"})
	if f := a.next(); f.Type != "sessions" {
		t.Fatalf("after the errors: %s", f.raw)
	}

	big := []byte(`{"type":"prompt","text":"` + strings.Repeat("x", 2<<20) + `"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = a.conn.Write(ctx, websocket.MessageText, big) // the server may close before it is all sent
	if _, err := a.read(10 * time.Second); websocket.CloseStatus(err) != websocket.StatusMessageTooBig {
		t.Errorf("after a 2 MiB frame the connection ends with %v, want 1009", err)
	}
	b.send(map[string]any{"type": "list_sessions"})
	if f := b.next(); f.Type != "sessions" {
		t.Errorf("the other connection after the big frame: %s", f.raw)
	}
}

// TestTLS serves over TLS with a self-signed certificate.
func TestTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	h := newHarness(t, text("over TLS"))
	h.tlsConf = &tls.Config{RootCAs: pool}
	h.listener = func(ln net.Listener) net.Listener {
		return tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}})
	}
	h.start(nil)
	c := h.dial()
	c.send(map[string]any{"type": "prompt", "text": "hi"})
	got := c.until(isType("result"))
	if !strings.Contains(got[len(got)-1].raw, `"result":"over TLS"`) {
		t.Errorf("result %s", got[len(got)-1].raw)
	}
	// A client that does not trust the certificate is refused.
	h.tlsConf = nil
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if conn, _, err := websocket.Dial(ctx, h.url, h.dialOpts(nil, nil)); err == nil {
		conn.CloseNow()
		t.Error("a client that does not trust the certificate connected")
	}
}

// selfSigned makes a certificate for 127.0.0.1 and a pool that trusts it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "nova serve test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// TestSubagentRequest: a subagent's permission request reaches the client
// with its agent_id and is answered like the session's own.
func TestSubagentRequest(t *testing.T) {
	h := newHarness(t)
	task, _ := json.Marshal(map[string]any{"description": "write", "prompt": "child-a: write b.txt", "subagent_type": "general-purpose"})
	h.llm.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
		"":        {call("t1", "Task", string(task)), text("parent done")},
		"child-a": {call("w1", "Write", `{"file_path":"b.txt","content":"b"}`), text("child done")},
	}))
	h.start(nil)
	c := h.dial()
	c.send(map[string]any{"type": "prompt", "text": "delegate"})
	c.next() // session
	got := c.until(isType("permission_request"))
	pr := got[len(got)-1]
	if pr.ID != "w1" || pr.AgentID == "" || pr.Parent != "t1" {
		t.Fatalf("the subagent's request: %s", pr.raw)
	}
	c.send(map[string]any{"type": "permission", "id": "w1", "agent_id": "agent_nope", "decision": "allow_once"})
	if f := c.next(); f.Type != "error" || f.Code != codeUnknownRequest {
		t.Fatalf("a request of another agent: %s", f.raw)
	}
	c.send(map[string]any{"type": "permission", "id": "w1", "agent_id": pr.AgentID, "decision": "allow_once"})
	got = c.until(isType("result"))
	if r := got[len(got)-1]; r.Subtype != "success" || !strings.Contains(r.raw, `"result":"parent done"`) {
		t.Errorf("result %s", r.raw)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, "b.txt")); err != nil || string(b) != "b" {
		t.Errorf("b.txt = %q, %v", b, err)
	}
}

// TestPendingResent: a request still waiting when a client comes back is
// sent again (resent), past the replay; one in the replay is not.
func TestPendingResent(t *testing.T) {
	h := newHarness(t, call("w1", "Write", `{"file_path":"c.txt","content":"c"}`), text("ok")).start(nil)
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "write c"})
	sess := a.next()
	got := a.until(isType("permission_request"))
	reqSeq := got[len(got)-1].Seq
	a.conn.Close(websocket.StatusNormalClosure, "")
	h.waitClients(0)

	b := h.dial()
	b.send(map[string]any{"type": "resume", "session_id": sess.SessionID, "after_seq": reqSeq})
	if f := b.next(); f.Type != "session" || f.Replay != "ring" || f.LastSeq != reqSeq || !f.Control {
		t.Fatalf("session frame %s", f.raw)
	}
	if f := b.next(); f.Type != "permission_request" || !f.Resent || f.Seq != reqSeq || f.ID != "w1" {
		t.Fatalf("want the request resent, got %s", f.raw)
	}

	c := h.dial()
	c.send(map[string]any{"type": "resume", "session_id": sess.SessionID, "after_seq": 0})
	if f := c.next(); f.Type != "session" || f.Control {
		t.Fatalf("session frame %s", f.raw)
	}
	fc := c.until(isType("permission_request"))
	if diff := cmp.Diff(count(1, reqSeq), seqs(fc)); diff != "" || fc[len(fc)-1].Resent {
		t.Errorf("the replay from the start (-want +got):\n%s", diff)
	}
	b.send(map[string]any{"type": "permission", "id": "w1", "decision": "deny", "note": "not now"})
	got = b.until(isType("result"))
	if !slices.ContainsFunc(got, func(f frame) bool {
		return f.Type == "resolved" && strings.Contains(f.raw, `"decision":"deny","note":"not now"`)
	}) {
		t.Errorf("no resolved frame with the denial in %v", raws(got))
	}
	if _, err := os.Stat(filepath.Join(h.dir, "c.txt")); err == nil {
		t.Error("c.txt was written after a denial")
	}
}

// TestIdleSessionClosed: a session left without clients is closed after
// the idle timeout, and resumed from its transcript.
func TestIdleSessionClosed(t *testing.T) {
	h := newHarness(t, text("one"), text("two")).start(func(c *Config) { c.IdleTimeout = 50 * time.Millisecond })
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "first"})
	sess := a.next()
	a.until(isType("result"))
	time.Sleep(200 * time.Millisecond)
	h.srv.mu.Lock()
	live := len(h.srv.sessions)
	h.srv.mu.Unlock()
	if live != 1 {
		t.Fatalf("%d live sessions while a client is attached", live)
	}
	a.conn.Close(websocket.StatusNormalClosure, "")
	waitFor(t, "the idle session to close", func() bool {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return len(h.srv.sessions) == 0
	})
	b := h.dial()
	b.send(map[string]any{"type": "prompt", "text": "second", "session_id": sess.SessionID})
	if f := b.next(); f.Type != "session" || f.Replay != "transcript" || f.Epoch == sess.Epoch {
		t.Fatalf("session frame %s", f.raw)
	}
	got := b.until(isType("result"))
	if !strings.Contains(got[len(got)-1].raw, `"result":"two"`) {
		t.Errorf("result %s", got[len(got)-1].raw)
	}
}

// TestShutdownInterrupts: at shutdown a prompt waiting for a decision is
// interrupted; its end reaches the client before the 1001.
func TestShutdownInterrupts(t *testing.T) {
	h := newHarness(t, call("w1", "Write", `{"file_path":"d.txt","content":"d"}`)).start(nil)
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "write d"})
	a.next()
	a.until(isType("permission_request"))
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		h.shutdown()
	}()
	got := a.until(isType("result"))
	if r := got[len(got)-1]; r.Subtype != "cancelled" {
		t.Errorf("result %s", r.raw)
	}
	if _, err := a.read(10 * time.Second); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("the connection ends with %v, want 1001", err)
	}
	<-stopped
}

// TestDeadPeerFreesControl: a controller that stops answering pings is
// closed, and control goes to the next client to attach.
func TestDeadPeerFreesControl(t *testing.T) {
	h := newHarness(t, text("hi")).start(func(c *Config) { c.PingInterval, c.WriteTimeout = 50*time.Millisecond, 200*time.Millisecond })
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "hello"})
	sess := a.next()
	a.until(isType("result"))
	// a reads no more, so it answers no ping.
	waitFor(t, "the silent client to be closed", func() bool {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return len(h.srv.clients) == 0
	})
	b := h.dial()
	b.send(map[string]any{"type": "resume", "session_id": sess.SessionID})
	if f := b.next(); f.Type != "session" || !f.Control {
		t.Errorf("session frame %s", f.raw)
	}
}

// TestReplayBeyondTheRing: when the ring no longer reaches back (or the
// epoch differs), a live session is replayed from its transcript: whole
// when idle; while a prompt runs, the conversation before it and then the
// prompt's frames from the ring.
func TestReplayBeyondTheRing(t *testing.T) {
	long := strings.Repeat("many words ", 60) // ~30 deltas: more than the ring holds
	h := newHarness(t, text(long), call("w1", "Write", `{"file_path":"e.txt","content":"e"}`), text("written")).
		start(func(c *Config) { c.RingFrames = 16 })
	a := h.dial()
	a.send(map[string]any{"type": "prompt", "text": "first"})
	sess := a.next()
	a.until(isType("result"))
	a.conn.Close(websocket.StatusNormalClosure, "")
	h.waitClients(0) // control is free for b

	replay := func(c *wsClient, stop func(frame) bool) (frame, []string) {
		t.Helper()
		s := c.next()
		if s.Type != "session" {
			t.Fatalf("session frame %s", s.raw)
		}
		var got []string
		for _, f := range c.until(stop) {
			mark := ""
			switch {
			case f.Replayed:
				mark = "replayed "
			case f.Resent:
				mark = "resent "
			}
			got = append(got, mark+f.Type)
		}
		return s, got
	}
	b := h.dial()
	b.send(map[string]any{"type": "resume", "session_id": sess.SessionID, "after_seq": 1})
	bs, got := replay(b, isType("usage"))
	if bs.Replay != "transcript" {
		t.Errorf("replay %q, want transcript", bs.Replay)
	}
	if diff := cmp.Diff([]string{"replayed user_prompt", "replayed stream_text", "replayed turn_complete", "replayed usage"}, got); diff != "" {
		t.Errorf("idle replay (-want +got):\n%s", diff)
	}

	b.send(map[string]any{"type": "prompt", "text": "second", "session_id": sess.SessionID})
	b.until(isType("permission_request"))
	c := h.dial()
	c.send(map[string]any{"type": "resume", "session_id": sess.SessionID, "after_seq": 3, "epoch": "another life"})
	cs, got := replay(c, isType("permission_request"))
	if cs.Replay != "transcript" {
		t.Errorf("replay %q, want transcript", cs.Replay)
	}
	want := []string{"replayed user_prompt", "replayed stream_text", "replayed turn_complete", "replayed usage",
		"user_prompt", "tool_use", "usage", "permission_request"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay while a prompt runs (-want +got):\n%s", diff)
	}
	b.send(map[string]any{"type": "permission", "id": "w1", "decision": "allow_once"})
	c.until(isType("result"))
}
