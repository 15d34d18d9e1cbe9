package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"

	"github.com/novacode/nova/internal/serve/web"
	"github.com/novacode/nova/internal/serve/web/webtest"
)

// fakeServer serves the client and a /ws whose frames the test writes by
// hand, frame by frame: the client's rendering of every kind of event, its
// answers, and its reconnection are checked against exact frames, which
// the real server (tested end to end in internal/e2e) cannot be made to
// produce at will.
type fakeServer struct {
	t         *testing.T
	srv       *httptest.Server
	token     string
	conns     chan *fakeConn
	mu        sync.Mutex
	protocols [][]string // each upgrade's offered subprotocols
}

type fakeConn struct {
	t  *testing.T
	c  *websocket.Conn
	in chan map[string]any
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{t: t, token: "tok-123_ABC", conns: make(chan *fakeConn, 4)}
	mux := http.NewServeMux()
	mux.Handle("/", web.Handler())
	mux.HandleFunc("/ws", func(w http.ResponseWriter, r *http.Request) {
		var offered []string
		for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
			for p := range strings.SplitSeq(v, ",") {
				offered = append(offered, strings.TrimSpace(p))
			}
		}
		f.mu.Lock()
		f.protocols = append(f.protocols, offered)
		f.mu.Unlock()
		if !slices.Contains(offered, "nova.token."+f.token) {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{"nova.v1"}})
		if err != nil {
			return
		}
		fc := &fakeConn{t: t, c: c, in: make(chan map[string]any, 64)}
		f.conns <- fc
		for {
			_, data, err := c.Read(context.Background())
			if err != nil {
				close(fc.in)
				return
			}
			var m map[string]any
			if err := json.Unmarshal(data, &m); err != nil {
				t.Errorf("client sent a frame that is not JSON: %s", data)
				continue
			}
			fc.in <- m
		}
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) accept() *fakeConn {
	f.t.Helper()
	select {
	case c := <-f.conns:
		c.send(map[string]any{"type": "hello", "protocol": 1, "version": "test", "workspace": "/w"})
		return c
	case <-time.After(15 * time.Second):
		f.t.Fatal("the client did not connect")
		return nil
	}
}

func (c *fakeConn) send(frames ...any) {
	c.t.Helper()
	for _, fr := range frames {
		var data []byte
		switch v := fr.(type) {
		case string:
			data = []byte(v)
		default:
			var err error
			if data, err = json.Marshal(v); err != nil {
				c.t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.c.Write(ctx, websocket.MessageText, data)
		cancel()
		if err != nil {
			c.t.Fatalf("write %s: %v", data, err)
		}
	}
}

// expect returns the client's next frame, which must be of type typ.
func (c *fakeConn) expect(typ string) map[string]any {
	c.t.Helper()
	select {
	case m, ok := <-c.in:
		if !ok {
			c.t.Fatalf("connection closed while waiting for %s", typ)
		}
		if m["type"] != typ {
			c.t.Fatalf("client sent %v, want a %s frame", m, typ)
		}
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatalf("the client sent no %s frame", typ)
		return nil
	}
}

// ev is one frame of session s1's stream.
func ev(seq int, typ string, fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return fmt.Sprintf(`{"type":%q,"seq":%d,"session_id":"s1"%s}`, typ, seq, fields)
}

// TestClientInBrowser drives the web client in headless Chromium against
// hand-written frames: the token handshake, streamed Markdown with hostile
// markup, tool cards and diffs, a subagent inside its Task card, the
// permission dialog and a question answered with the frames the server
// expects, todos and usage, a reconnect that resumes without duplicates,
// watcher mode, cancel, a replay from the transcript, and the session list.
func TestClientInBrowser(t *testing.T) {
	ctx := webtest.Browser(t)
	f := newFakeServer(t)
	wait := func(expr string) {
		t.Helper()
		webtest.WaitJS(t, ctx, 10*time.Second, expr, "document.body.innerText")
	}
	count := func(sel string) int {
		t.Helper()
		return webtest.Eval[int](t, ctx, fmt.Sprintf("document.querySelectorAll(%q).length", sel))
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(f.srv.URL+"/#token="+f.token)); err != nil {
		t.Fatal(err)
	}
	c := f.accept()
	f.mu.Lock()
	if got := f.protocols[0]; !slices.Equal(got, []string{"nova.v1", "nova.token." + f.token}) {
		t.Errorf("offered subprotocols %v", got)
	}
	f.mu.Unlock()
	wait(`document.getElementById('conn').textContent === 'connected'`)
	if h := webtest.Eval[string](t, ctx, "location.href"); strings.Contains(h, f.token) || strings.Contains(h, "#") {
		t.Errorf("the token stays in the address bar: %s", h)
	}
	if tok := webtest.Eval[string](t, ctx, "sessionStorage.getItem('nova.token')"); tok != f.token {
		t.Errorf("sessionStorage token %q", tok)
	}

	// A prompt typed and sent with Enter starts a session.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#prompt")),
		chromedp.SendKeys(chromedp.CSS("#prompt"), "first line"),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(chromedp.ModifierShift)),
		chromedp.SendKeys(chromedp.CSS("#prompt"), "second line\r"),
	); err != nil {
		t.Fatal(err)
	}
	p := c.expect("prompt")
	if p["text"] != "first line\nsecond line" || p["session_id"] != nil {
		t.Fatalf("prompt frame %v", p)
	}
	hostile := "**Hi** <script>window.pwned=1</script> and <img src=x onerror=\"window.pwned=2\"> " +
		"[click](javascript:window.pwned=3) [docs](https://example.org/d)\n\n```go\nfmt.Println(\"<b>x</b>\")\n```\n\n- one\n- two `<i>`\n"
	half := len(hostile) / 2
	c.send(
		`{"type":"session","session_id":"s1","epoch":7,"last_seq":0,"replay":"none","control":true,"running":true,"model":"claude-test","mode":"default"}`,
		ev(1, "user_prompt", `"text":"first line\nsecond line"`),
		ev(2, "thinking_text", `"turn":1,"text":"Let me think <b>hard</b>."`),
		ev(3, "stream_text", `"turn":1,"text":`+jsonString(hostile[:half])),
		ev(4, "stream_text", `"turn":1,"text":`+jsonString(hostile[half:])),
	)
	wait(`document.querySelector('.answer strong') !== null && document.querySelector('.answer pre') !== null`)
	if n := count("#timeline img, #timeline script, #timeline b, #timeline i"); n != 0 {
		t.Errorf("model text became %d elements", n)
	}
	text := webtest.Eval[string](t, ctx, "document.querySelector('.answer').textContent")
	for _, want := range []string{"<script>window.pwned=1</script>", `<img src=x onerror="window.pwned=2">`, `fmt.Println("<b>x</b>")`, "<i>"} {
		if !strings.Contains(text, want) {
			t.Errorf("answer lacks %q as text: %q", want, text)
		}
	}
	if v := webtest.Eval[any](t, ctx, "window.pwned"); v != nil {
		t.Errorf("model text ran: window.pwned = %v", v)
	}
	if links := webtest.Eval[[]string](t, ctx, "[...document.querySelectorAll('.answer a')].map(a => a.href)"); !slices.Equal(links, []string{"https://example.org/d"}) {
		t.Errorf("links %v: only the https one may be a link", links)
	}
	if n := count("details.thinking:not([open])"); n != 1 {
		t.Errorf("%d folded thinking blocks", n)
	}
	if got := webtest.Eval[string](t, ctx, "document.querySelector('.user').textContent"); got != "first line\nsecond line" {
		t.Errorf("user entry %q", got)
	}

	// Tool cards: an Edit as a diff, running then done; a Write; a denied call.
	c.send(
		ev(5, "tool_use", `"turn":1,"id":"e1","name":"Edit","input":{"file_path":"/w/a.go","old_string":"a\nold\nc","new_string":"a\nnew\nc"}`),
		ev(6, "tool_use", `"turn":1,"id":"w1","name":"Write","input":{"file_path":"/w/b.txt","content":"x\ny\n"}`),
	)
	wait(`document.querySelector('.card[data-id="e1"].running') !== null`)
	c.send(
		ev(7, "tool_done", `"turn":1,"id":"e1","name":"Edit","is_error":false,"duration_ms":12`),
		ev(8, "tool_done", `"turn":1,"id":"w1","name":"Write","is_error":true,"duration_ms":3`),
		ev(9, "tool_result", `"turn":1,"id":"e1","name":"Edit","content":"ok","is_error":false,"duration_ms":12`),
		ev(10, "tool_result", `"turn":1,"id":"w1","name":"Write","content":"disk full","is_error":true,"duration_ms":3`),
	)
	wait(`document.querySelector('.card[data-id="e1"].done') !== null && document.querySelector('.card[data-id="w1"].error') !== null`)
	diff := webtest.Eval[[]string](t, ctx, `[...document.querySelectorAll('.card[data-id="e1"] .dl')].map(d => d.className.split(' ')[1] + d.textContent.trimEnd())`)
	if !slices.Equal(diff, []string{"ctx  a", "del- old", "add+ new", "ctx  c"}) {
		t.Errorf("Edit diff %q", diff)
	}
	if n := count(`.card[data-id="w1"] .dl.add`); n != 2 {
		t.Errorf("Write diff has %d added lines, want 2", n)
	}

	// A subagent's events go into its Task card; its call ids are its own
	// (e1 is also the main conversation's Edit).
	c.send(
		ev(11, "tool_use", `"turn":1,"id":"task1","name":"Task","input":{"description":"look around","prompt":"find it","subagent_type":"Explore"}`),
		ev(12, "tool_use", `"turn":1,"id":"e1","name":"Grep","input":{"pattern":"TODO"},"parent_tool_use_id":"task1","agent_id":"agent_1"`),
		ev(13, "tool_done", `"turn":1,"id":"e1","name":"Grep","is_error":false,"duration_ms":5,"parent_tool_use_id":"task1","agent_id":"agent_1"`),
		ev(14, "stream_text", `"turn":2,"text":"child says <u>hi</u>","parent_tool_use_id":"task1","agent_id":"agent_1"`),
		ev(15, "usage", `"turn":2,"model":"m","call":{},"total":{},"cost_usd":0.5,"context_window":1000,"parent_tool_use_id":"task1","agent_id":"agent_1"`),
	)
	wait(`document.querySelector('.card[data-id="task1"] .subagent .card[data-id="e1"][data-agent="agent_1"][data-tool="Grep"].done') !== null`)
	if n := count(`#timeline > .card[data-agent]`); n != 0 {
		t.Error("the subagent's call is in the main timeline, not in its Task card")
	}
	if n := count(`#timeline > .card[data-id="e1"][data-tool="Edit"] .result`); n != 1 {
		t.Error("the subagent's call e1 changed the main conversation's e1")
	}
	wait(`document.querySelector('.card[data-id="task1"] .subagent .answer').textContent.includes('child says <u>hi</u>')`)
	if got := webtest.Eval[string](t, ctx, `document.getElementById('cost').textContent`); got != "" {
		t.Errorf("a subagent's usage reached the status line: %q", got)
	}

	// The permission dialog: tool, input, reason, choices; Allow once sends
	// the decision.
	c.send(
		ev(16, "tool_use", `"turn":1,"id":"b1","name":"Bash","input":{"command":"rm -rf build"}`),
		ev(17, "permission_request", `"turn":1,"id":"b1","name":"Bash","input":{"command":"rm -rf build"},"reason":"Bash needs your approval","choices":["allow_once","allow_always","deny"],"suggest":["Bash(rm:*)"]`),
		ev(18, "todo", `"turn":1,"todos":[{"content":"Clean","status":"in_progress","active_form":"Cleaning"},{"content":"Build","status":"pending","active_form":"Building"}]`),
		ev(19, "usage", `"turn":1,"model":"claude-test","call":{"input_tokens":100,"output_tokens":20},"total":{"input_tokens":1200,"output_tokens":340,"cache_read_input_tokens":800},"cost_usd":0.0123,"context_window":200000`),
	)
	wait(`document.querySelector('.dialog.permission[data-id="b1"]') !== null`)
	dlg := webtest.Eval[string](t, ctx, `document.querySelector('.dialog.permission').textContent`)
	for _, want := range []string{"Bash", "rm -rf build", "Bash needs your approval", "Allow once", "Allow always", "Deny", "Bash(rm:*)"} {
		if !strings.Contains(dlg, want) {
			t.Errorf("dialog lacks %q: %q", want, dlg)
		}
	}
	wait(`document.getElementById('todos').textContent.includes('Cleaning') && !document.getElementById('todos').hidden`)
	if got := webtest.Eval[string](t, ctx, `document.getElementById('tokens').textContent + ' ' + document.getElementById('cost').textContent`); got != "2.0k in · 340 out · ctx 0% $0.0123" {
		t.Errorf("status line %q", got)
	}
	webtest.Screenshot(t, ctx, "permission")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`.dialog[data-id="b1"] .note`), "careful"),
		chromedp.Click(chromedp.CSS(`.dialog[data-id="b1"] button[data-choice="allow_once"]`)),
	); err != nil {
		t.Fatal(err)
	}
	perm := c.expect("permission")
	if perm["id"] != "b1" || perm["decision"] != "allow_once" || perm["note"] != "careful" || perm["session_id"] != "s1" {
		t.Errorf("permission frame %v", perm)
	}
	c.send(ev(20, "resolved", `"id":"b1","decision":"allow_once"`))
	wait(`document.querySelector('.dialog[data-id="b1"]') === null && document.querySelector('.card[data-id="b1"].running') !== null`)

	// A subagent's question: an option button answers it.
	c.send(ev(21, "question", `"turn":1,"id":"q1","question":"Which <b>one</b>?","options":["left","right"],"parent_tool_use_id":"task1","agent_id":"agent_1"`))
	wait(`document.querySelector('.dialog.question[data-id="q1"]') !== null`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.Search(`//div[@data-id="q1"]//button[text()="right"]`))); err != nil {
		t.Fatal(err)
	}
	ans := c.expect("answer")
	if ans["id"] != "q1" || ans["option"] != "right" || ans["agent_id"] != "agent_1" {
		t.Errorf("answer frame %v", ans)
	}

	// The connection drops; the client comes back with resume after_seq 21
	// and the session's epoch, and what the server sends again is not shown
	// twice.
	answers := count(".answer")
	cards := count(".card")
	c.c.Close(websocket.StatusGoingAway, "test drop")
	c = f.accept()
	res := c.expect("resume")
	if res["session_id"] != "s1" || res["after_seq"] != float64(21) || res["epoch"] != float64(7) {
		t.Fatalf("resume frame %v", res)
	}
	c.send(
		`{"type":"session","session_id":"s1","epoch":7,"last_seq":23,"replay":"ring","control":true,"running":true,"model":"claude-test","mode":"default"}`,
		ev(20, "resolved", `"id":"b1","decision":"allow_once"`),
		ev(21, "question", `"turn":1,"id":"q1","question":"Which <b>one</b>?","options":["left","right"],"parent_tool_use_id":"task1","agent_id":"agent_1","resent":true`),
		ev(22, "tool_done", `"turn":1,"id":"b1","name":"Bash","is_error":false,"duration_ms":1500`),
		ev(23, "stream_text", `"turn":2,"text":"Done."`),
		ev(22, "tool_done", `"turn":1,"id":"b1","name":"Bash","is_error":false,"duration_ms":1500`),
		ev(23, "stream_text", `"turn":2,"text":"Done."`),
	)
	wait(`window.nova.S.lastSeq === 23 && document.querySelector('.card[data-id="b1"].done') !== null`)
	wait(`[...document.querySelectorAll('.answer')].some(a => a.textContent === 'Done.')`)
	if got := count(".answer"); got != answers+1 {
		t.Errorf("%d answer blocks after the replay, want %d", got, answers+1)
	}
	if got := count(".card"); got != cards {
		t.Errorf("%d cards after the replay, want %d", got, cards)
	}
	if n := count(`.dialog[data-id="q1"]:not([hidden])`); n != 0 {
		t.Error("the answered question came back")
	}
	if d := webtest.Eval[int](t, ctx, "window.nova.stats.duplicates"); d < 3 {
		t.Errorf("%d duplicates dropped, want 3", d)
	}

	// Another client takes control: this one watches, with its controls off
	// and a take-control button.
	c.send(`{"type":"control","session_id":"s1","control":false}`)
	wait(`document.getElementById('prompt').disabled && !document.getElementById('take').hidden`)
	if !webtest.Eval[bool](t, ctx, `document.getElementById('mode').disabled && document.getElementById('cancel').disabled`) {
		t.Error("a watcher's mode selector or cancel button is enabled")
	}
	webtest.Screenshot(t, ctx, "watching")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#take"))); err != nil {
		t.Fatal(err)
	}
	c.expect("take_control")
	c.send(`{"type":"control","session_id":"s1","control":true}`)
	wait(`!document.getElementById('prompt').disabled && document.getElementById('take').hidden`)

	// The mode selector sends set_mode (SetValue fires its change event);
	// cancel ends the run.
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS("#mode"), "acceptEdits")); err != nil {
		t.Fatal(err)
	}
	if m := c.expect("set_mode"); m["mode"] != "acceptEdits" {
		t.Errorf("set_mode frame %v", m)
	}
	wait(`!document.getElementById('cancel').hidden`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#cancel"))); err != nil {
		t.Fatal(err)
	}
	c.expect("cancel")
	c.send(
		ev(24, "loop_complete", `"reason":"cancelled","turns":2,"final_text":"","usage":{},"cost_usd":0.02,"duration_ms":900`),
		ev(25, "result", `"subtype":"cancelled","is_error":true,"num_turns":2,"total_cost_usd":0.02,"duration_ms":900`),
	)
	wait(`document.getElementById('cancel').hidden && document.querySelector('.line.end.cancelled') !== null`)
	webtest.Screenshot(t, ctx, "cancelled")

	// The smaller entries: a search updated in place, sources under the
	// answer they support (which goes on in the same block), mailbox,
	// warning, retry and compaction lines.
	c.send(
		ev(26, "web_search", `"turn":3,"id":"ws1","query":"go 1.26","status":"searching"`),
		ev(27, "web_search", `"turn":3,"id":"ws1","query":"go 1.26","status":"done","results":[{"url":"https://go.dev/doc/go1.26"}]`),
		ev(28, "stream_text", `"turn":3,"text":"Go 1.26 is out"`),
		ev(29, "citation", `"turn":3,"url":"https://go.dev/doc/go1.26","title":"Go 1.26 <notes>"`),
		ev(30, "stream_text", `"turn":3,"text":" since February."`),
		ev(31, "mailbox", `"turn":3,"items":[{"kind":"command","from":"bash_1","text":"exit 0"}]`),
		ev(32, "warning", `"turn":3,"message":"could not save the rule"`),
		ev(33, "retry", `"turn":3,"kind":"overloaded","status_code":529,"error":"busy","retry":2,"max_retries":4,"wait_ms":1100`),
		ev(34, "compact", `"tokens_before":150000,"tokens_after":20000,"reason":"auto","boundary_id":"b1"`),
		ev(35, "loop_complete", `"reason":"done","turns":3,"final_text":"","usage":{},"cost_usd":0.03,"duration_ms":900`),
	)
	wait(`[...document.querySelectorAll('.line')].some(l => l.textContent.startsWith('context compacted'))`)
	lines := webtest.Eval[[]string](t, ctx, `[...document.querySelectorAll('#timeline > .line:not(.citation):not(.end)')].slice(-5).map(l => l.textContent)`)
	wantLines := []string{
		"search: go 1.26 — done (1 result)",
		"✉ command bash_1: exit 0",
		"⚠ could not save the rule",
		"↻ overloaded (HTTP 529) — retrying in 1.1 s (2/4)",
		"context compacted: 150.0k → 20.0k tokens (auto)",
	}
	if !slices.Equal(lines, wantLines) {
		t.Errorf("lines %q\nwant %q", lines, wantLines)
	}
	// (A wait: the answer's last delta may still be in the render timer.)
	wait(`[...document.querySelectorAll('.answer')].pop().textContent + ' | ' + document.querySelector('.line.citation').textContent === 'Go 1.26 is out since February. | sources: Go 1.26 <notes>'`)

	// A plan to approve: the plan as Markdown, the plan's choices; keep
	// planning sends the note as feedback. A question answered in words.
	c.send(
		ev(36, "tool_use", `"turn":4,"id":"p1","name":"ExitPlanMode","input":{"plan":"## Plan\n1. read\n2. write"}`),
		ev(37, "permission_request", `"turn":4,"id":"p1","name":"ExitPlanMode","input":{},"reason":"approve the plan","choices":["approve_accept_edits","approve_default","keep_planning"],"plan":"## Plan\n1. read\n2. write <script>x</script>"`),
	)
	wait(`document.querySelector('.dialog.permission[data-id="p1"] .plan h2') !== null`)
	if got := webtest.Eval[[]string](t, ctx, `[...document.querySelectorAll('.dialog[data-id="p1"] button')].map(b => b.textContent)`); !slices.Equal(got, []string{"Approve, accept edits", "Approve, ask before edits", "Keep planning"}) {
		t.Errorf("plan choices %q", got)
	}
	if got := webtest.Eval[string](t, ctx, `document.querySelector('.dialog[data-id="p1"] .plan ol').textContent`); got != "readwrite <script>x</script>" {
		t.Errorf("plan list %q", got)
	}
	webtest.Screenshot(t, ctx, "plan")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`.dialog[data-id="p1"] .note`), "test first"),
		chromedp.Click(chromedp.CSS(`.dialog[data-id="p1"] button[data-choice="keep_planning"]`)),
	); err != nil {
		t.Fatal(err)
	}
	if m := c.expect("permission"); m["decision"] != "keep_planning" || m["note"] != "test first" || m["id"] != "p1" {
		t.Errorf("plan decision %v", m)
	}
	c.send(ev(38, "question", `"turn":4,"id":"q2","question":"Name?","options":["a"]`))
	wait(`document.querySelector('.dialog.question[data-id="q2"]') !== null`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`.dialog[data-id="q2"] .note`), "my own\r")); err != nil {
		t.Fatal(err)
	}
	if m := c.expect("answer"); m["text"] != "my own" || m["option"] != nil || m["id"] != "q2" {
		t.Errorf("free answer %v", m)
	}
	c.send(ev(39, "loop_complete", `"reason":"done","turns":4,"final_text":"","usage":{},"cost_usd":0.03,"duration_ms":900`))

	// A reload resumes the session from nothing: the server replays it from
	// the transcript (frames without seq), which replaces the page.
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	c = f.accept()
	res = c.expect("resume")
	if res["session_id"] != "s1" || res["after_seq"] != float64(0) {
		t.Fatalf("resume after reload %v", res)
	}
	c.send(
		`{"type":"session","session_id":"s1","epoch":7,"last_seq":25,"replay":"transcript","control":true,"running":false,"model":"claude-test","mode":"acceptEdits"}`,
		`{"type":"user_prompt","session_id":"s1","replayed":true,"text":"first line\nsecond line"}`,
		`{"type":"stream_text","session_id":"s1","replayed":true,"turn":1,"text":"replayed answer"}`,
	)
	wait(`document.querySelectorAll('.answer').length === 1 && document.querySelector('.answer').textContent === 'replayed answer'`)
	if got := webtest.Eval[string](t, ctx, "document.getElementById('mode').value"); got != "acceptEdits" {
		t.Errorf("mode %q after resume", got)
	}

	// The session list, and resuming another session from it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#sessions-toggle"))); err != nil {
		t.Fatal(err)
	}
	c.expect("list_sessions")
	c.send(`{"type":"sessions","sessions":[{"id":"s1","first_prompt":"first line","turns":2,"cost_usd":0.02,"live":true},{"id":"s0","created":"2026-01-02T03:04:05Z","updated":"2026-01-02T03:05:05Z","first_prompt":"an older <b>one</b>","turns":4,"cost_usd":1.5,"live":false}]}`)
	wait(`document.querySelectorAll('#session-list li').length === 2`)
	webtest.Screenshot(t, ctx, "sessions")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#session-list li[data-id="s0"] button`))); err != nil {
		t.Fatal(err)
	}
	res = c.expect("resume")
	if res["session_id"] != "s0" || res["after_seq"] != float64(0) {
		t.Errorf("resume of s0 %v", res)
	}
	wait(`document.querySelectorAll('#timeline > *').length === 0`)

	// New session: the next prompt goes without a session id.
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS("#new")),
		chromedp.SendKeys(chromedp.CSS("#prompt"), "fresh\r"),
	); err != nil {
		t.Fatal(err)
	}
	if p := c.expect("prompt"); p["session_id"] != nil || p["text"] != "fresh" {
		t.Errorf("prompt of a new session %v", p)
	}

	// A malformed frame and an error frame do not break the page.
	c.send(`{not json`, `{"type":"error","error":"someone else is in control","code":"not_controller","ref":"prompt"}`)
	wait(`document.getElementById('notice').textContent.includes('someone else is in control') && document.getElementById('prompt').value === 'fresh'`)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestMarkdownInBrowser renders Markdown with the client's own renderer in
// the browser and compares the DOM it builds, serialized.
func TestMarkdownInBrowser(t *testing.T) {
	ctx := webtest.Browser(t)
	f := newFakeServer(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(f.srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ md, html string }{
		{"# Title\n\nsome **bold**, *em*, `code` and ~~gone~~", "<h1>Title</h1><p>some <strong>bold</strong>, <em>em</em>, <code>code</code> and <del>gone</del></p>"},
		{"<script>alert(1)</script> & <img src=x onerror=alert(2)>", "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt;</p>"},
		{"keep snake_case_names and a * b * c", "<p>keep snake_case_names and a * b * c</p>"},
		{"[ok](https://a.example/x?y=1) [bad](javascript:alert(1)) [rel](/etc/passwd) <https://b.example>",
			`<p><a href="https://a.example/x?y=1" target="_blank" rel="noopener noreferrer nofollow">ok</a> bad rel <a href="https://b.example/" target="_blank" rel="noopener noreferrer nofollow">https://b.example</a></p>`},
		{"see https://c.example/p.html.", `<p>see <a href="https://c.example/p.html" target="_blank" rel="noopener noreferrer nofollow">https://c.example/p.html</a>.</p>`},
		{"```js\nlet a = '<b>';\n```\nafter", `<pre><code data-lang="js">let a = '&lt;b&gt;';</code></pre><p>after</p>`},
		{"```\nstill streaming", "<pre><code>still streaming</code></pre>"},
		{"- one\n- two\n  - nested\n- three", "<ul><li>one</li><li>two<ul><li>nested</li></ul></li><li>three</li></ul>"},
		{"3. c\n4. d", `<ol start="3"><li>c</li><li>d</li></ol>`},
		{"- [x] done\n- [ ] todo", `<ul><li><input type="checkbox" disabled="" checked="">done</li><li><input type="checkbox" disabled="">todo</li></ul>`},
		{"> quoted **text**\n> more", "<blockquote><p>quoted <strong>text</strong>\nmore</p></blockquote>"},
		{"| a | b |\n|---|--:|\n| 1 | <i>2</i> |", `<div class="table-wrap"><table><thead><tr><th>a</th><th style="text-align: right;">b</th></tr></thead><tbody><tr><td>1</td><td style="text-align: right;">&lt;i&gt;2&lt;/i&gt;</td></tr></tbody></table></div>`},
		{"a\n\n---\n\nb", "<p>a</p><hr><p>b</p>"},
		{"**unclosed bold", "<p>**unclosed bold</p>"},
		{`\*not em\*`, "<p>*not em*</p>"},
	}
	for _, c := range cases {
		expr := fmt.Sprintf(`import('./markdown.js').then(m => { const d = document.createElement('div'); d.appendChild(m.render(%s)); return d.innerHTML; })`, jsonString(c.md))
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		if got != c.html {
			t.Errorf("render(%q)\n got %s\nwant %s", c.md, got, c.html)
		}
	}
}

// TestWrongToken: a refused connection is retried, and the page says what
// to check; without a token it says where to find one.
func TestWrongToken(t *testing.T) {
	ctx := webtest.Browser(t)
	f := newFakeServer(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(f.srv.URL+"/#token=wrong")); err != nil {
		t.Fatal(err)
	}
	webtest.WaitJS(t, ctx, 15*time.Second, `document.getElementById('notice').textContent.includes('Cannot reach nova serve') && document.getElementById('conn').textContent === 'reconnecting'`, "document.body.innerText")
	if !webtest.Eval[bool](t, ctx, `document.getElementById('prompt').disabled`) {
		t.Error("the prompt box is enabled without a connection")
	}
	webtest.Eval[any](t, ctx, "sessionStorage.clear()")
	if err := chromedp.Do(ctx, chromedp.Navigate(f.srv.URL+"/?again")); err != nil {
		t.Fatal(err)
	}
	webtest.WaitJS(t, ctx, 5*time.Second, `document.getElementById('notice').textContent.includes('#token=')`, "document.body.innerText")
}
