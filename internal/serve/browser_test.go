package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/novacode/nova/internal/serve/web"
	"github.com/novacode/nova/internal/serve/web/webtest"
	"github.com/novacode/nova/llm/llmtest"
)

// The web client (internal/serve/web) against this server, in headless
// Chromium, driven as a person would: these tests check that the client and
// the server speak the same protocol. The client's rendering of every kind
// of event is tested in its own package against hand-written frames.

// webSession is one browser tab on the web client of a server.
type webSession struct {
	t   *testing.T
	ctx context.Context
}

// openWebClient serves the web client from h and opens it at the address
// nova serve prints: the token in the fragment.
func openWebClient(t *testing.T, h *harness) *webSession {
	t.Helper()
	ctx := webtest.Browser(t) // skips (fails under CI) without Chromium, before the server starts
	h.start(func(c *Config) { c.Static = web.Handler() })
	page := strings.TrimSuffix(h.httpURL, "ws") + "#token=" + testToken
	w := &webSession{t: t, ctx: ctx}
	w.do(chromedp.Navigate(page))
	w.wait(`document.getElementById('conn').textContent === 'connected'`)
	if href := webtest.Eval[string](t, ctx, "location.href"); strings.Contains(href, "token") {
		t.Errorf("the token stays in the address bar: %s", href)
	}
	return w
}

func (w *webSession) wait(expr string) {
	w.t.Helper()
	webtest.WaitJS(w.t, w.ctx, 30*time.Second, expr,
		`document.getElementById('timeline').innerText + '\n--\n' + document.getElementById('dialogs').innerText + '\n--\n' + document.getElementById('notice').innerText`)
}

func (w *webSession) do(actions ...chromedp.Action[chromedp.Void]) {
	w.t.Helper()
	if err := chromedp.Do(w.ctx, actions...); err != nil {
		webtest.Screenshot(w.t, w.ctx, "failed")
		w.t.Fatal(err)
	}
}

func (w *webSession) prompt(text string) {
	w.t.Helper()
	w.do(chromedp.Click(chromedp.CSS("#prompt")), chromedp.SendKeys(chromedp.CSS("#prompt"), text+"\r"))
}

// modelCalls are the scripted model's recorded calls.
func modelCalls(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.Protocol != "" {
			out = append(out, r)
		}
	}
	return out
}

// lastToolResults are the tool_result blocks of a request's last message.
func lastToolResults(t *testing.T, req llmtest.Request) []map[string]any {
	t.Helper()
	var body struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, b := range body.Messages[len(body.Messages)-1].Content {
		if b["type"] == "tool_result" {
			out = append(out, b)
		}
	}
	return out
}

// TestWebClient: a prompt typed and sent, the answer streamed in as
// Markdown (its markup shown as text), a tool card that runs and completes,
// a permission dialog for a Write (its diff shown) allowed with a click —
// the model's next request carries the tool's result and the file is
// written — and, after a reload, the session rebuilt by the server with
// each entry once.
func TestWebClient(t *testing.T) {
	h := newHarness(t)
	ws := h.dir
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(ws, "hello.txt")
	h.llm.Push(
		llmtest.Turn{
			Blocks: []llmtest.Block{
				llmtest.Text("Let me look at the **workspace** first. It has <img src=x onerror=\"document.title='pwned'\"> nothing to hide."),
				llmtest.ToolUse("", "LS", fmt.Sprintf(`{"path":%q}`, ws)),
			},
			ChunkDelay: 40 * time.Millisecond,
		},
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Text("Now I write the file."),
			llmtest.ToolUse("", "Write", fmt.Sprintf(`{"file_path":%q,"content":"hello\nweb\n"}`, target)),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Wrote `hello.txt`:\n\n- hello\n- web")}},
	)
	w := openWebClient(t, h)

	w.prompt("Write hello.txt")
	w.wait(`document.querySelector('.user') !== null && document.querySelector('.user').textContent === 'Write hello.txt'`)
	// The answer streams in as Markdown.
	w.wait(`document.querySelector('.answer strong') !== null && document.querySelector('.answer strong').textContent === 'workspace'`)
	w.wait(`document.querySelector('.card[data-tool="LS"].done') !== null`)
	if n := webtest.Eval[int](t, w.ctx, `document.querySelectorAll('#timeline img').length`); n != 0 {
		t.Errorf("model text became %d img elements", n)
	}
	if !webtest.Eval[bool](t, w.ctx, `document.querySelector('.answer').textContent.includes('<img src=x onerror=')`) {
		t.Error("the markup in the model's text is not shown as text")
	}
	w.wait(`[...document.querySelectorAll('.card[data-tool="LS"] .result pre')].some(p => p.textContent.includes('README.md'))`)

	// The Write asks: the dialog names the tool and shows the diff.
	w.wait(`document.querySelector('.dialog.permission') !== null`)
	dialog := webtest.Eval[string](t, w.ctx, `document.querySelector('.dialog.permission').textContent`)
	for _, want := range []string{"Write", "+ hello", "+ web", "Allow once", "Deny"} {
		if !strings.Contains(dialog, want) {
			t.Errorf("permission dialog lacks %q: %q", want, dialog)
		}
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the file was written before the person allowed it")
	}
	webtest.Screenshot(t, w.ctx, "permission")
	w.do(chromedp.Click(chromedp.CSS(`.dialog.permission button[data-choice="allow_once"]`)))
	w.wait(`document.querySelector('.card[data-tool="Write"].done') !== null`)
	w.wait(`[...document.querySelectorAll('.answer')].some(a => a.textContent.includes('Wrote hello.txt') && a.querySelectorAll('li').length === 2)`)
	w.wait(`document.getElementById('send').disabled === false && document.getElementById('cancel').hidden`)
	webtest.Screenshot(t, w.ctx, "done")

	if data, err := os.ReadFile(target); err != nil || string(data) != "hello\nweb\n" {
		t.Errorf("hello.txt = %q, %v", data, err)
	}
	calls := modelCalls(h.llm)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	if res := lastToolResults(t, calls[2]); len(res) != 1 || res[0]["is_error"] == true {
		t.Errorf("the third request's tool results: %v", res)
	}
	if got := webtest.Eval[string](t, w.ctx, "document.title"); got == "pwned" {
		t.Error("model text ran as script")
	}

	// A reload: the client resumes the session and the server rebuilds it,
	// each entry once.
	w.do(chromedp.Reload())
	w.wait(`document.getElementById('conn').textContent === 'connected'`)
	w.wait(`[...document.querySelectorAll('.answer')].some(a => a.textContent.includes('Wrote hello.txt'))`)
	for sel, what := range map[string]string{
		`[...document.querySelectorAll('.answer')].filter(a => a.textContent.includes('Wrote hello.txt')).length`: "the final answer",
		`document.querySelectorAll('.card[data-tool="Write"]').length`:                                            "the Write card",
		`document.querySelectorAll('.user').length`:                                                               "the prompt",
	} {
		if n := webtest.Eval[int](t, w.ctx, sel); n != 1 {
			t.Errorf("%s shows %d times after the reload", what, n)
		}
	}
	webtest.Screenshot(t, w.ctx, "reloaded")
}

// TestWebClientCancel: Cancel, clicked while a long command runs, ends the
// run as cancelled at once; the model is not called again.
func TestWebClientCancel(t *testing.T) {
	h := newHarness(t,
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Text("This takes a while."),
			llmtest.ToolUse("", "Bash", `{"command":"sleep 60","description":"wait a minute"}`),
		}},
		text("not reached"),
	)
	w := openWebClient(t, h)

	w.prompt("Wait for it")
	w.wait(`document.querySelector('.card[data-tool="Bash"].running') !== null && !document.getElementById('cancel').hidden`)
	webtest.Screenshot(t, w.ctx, "running")
	start := time.Now()
	w.do(chromedp.Click(chromedp.CSS("#cancel")))
	w.wait(`document.querySelector('.line.end.cancelled') !== null`)
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancel took %s", d)
	}
	w.wait(`document.querySelector('.card[data-tool="Bash"].cancelled') !== null && document.getElementById('cancel').hidden`)
	webtest.Screenshot(t, w.ctx, "cancelled")
	if n := len(modelCalls(h.llm)); n != 1 {
		t.Errorf("%d model calls after cancel, want 1", n)
	}
}

// TestWebClientReconnect: the connection drops while the answer streams;
// the client reconnects, resumes after the last seq it saw, and the answer
// ends up whole, each piece once.
func TestWebClientReconnect(t *testing.T) {
	var words []string
	for i := range 60 {
		words = append(words, fmt.Sprintf("w%02d", i))
	}
	answer := strings.Join(words, " ")
	h := newHarness(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(answer)}, ChunkDelay: 60 * time.Millisecond})
	w := openWebClient(t, h)

	w.prompt("Count")
	w.wait(`document.querySelector('.answer') !== null && document.querySelector('.answer').textContent.length > 20`)
	shown := webtest.Eval[int](t, w.ctx, `(() => { const n = document.querySelector('.answer').textContent.length; window.nova.S.ws.close(); return n; })()`)
	if shown >= len(answer) {
		t.Fatalf("the whole answer (%d bytes) was in before the drop: make it longer or slower", shown)
	}
	w.wait(`window.nova.stats.connects === 2`)
	w.wait(`document.getElementById('send').disabled === false && document.querySelector('.line.end') !== null`)
	got := webtest.Eval[string](t, w.ctx, `[...document.querySelectorAll('.answer')].map(a => a.textContent).join('|')`)
	if got != answer {
		t.Errorf("after the reconnect the answer is\n%q\nwant\n%q", got, answer)
	}
	if d := webtest.Eval[int](t, w.ctx, "window.nova.stats.gaps"); d != 0 {
		t.Errorf("%d gaps in the seqs", d)
	}
	if n := webtest.Eval[int](t, w.ctx, "document.querySelectorAll('.user').length"); n != 1 {
		t.Errorf("the prompt shows %d times", n)
	}
}

// TestWebClientWatcher: a second tab opens the first tab's live session
// from the session list and watches it, controls off, until it takes
// control; the first tab then watches.
func TestWebClientWatcher(t *testing.T) {
	h := newHarness(t, text("hello from the model"), text("second answer"))
	w1 := openWebClient(t, h)
	w1.prompt("hi")
	w1.wait(`document.querySelector('.line.end') !== null`)
	id := webtest.Eval[string](t, w1.ctx, "window.nova.S.session")

	ctx2, cancel := chromedp.NewContext(w1.ctx) // a second tab: its own sessionStorage
	t.Cleanup(cancel)
	w2 := &webSession{t: t, ctx: ctx2}
	w2.do(chromedp.Navigate(strings.TrimSuffix(h.httpURL, "ws") + "#token=" + testToken))
	w2.wait(`document.getElementById('conn').textContent === 'connected'`)
	w2.do(chromedp.Click(chromedp.CSS("#sessions-toggle")))
	w2.wait(fmt.Sprintf(`document.querySelector('#session-list li[data-id=%q] .live') !== null`, id))
	w2.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#session-list li[data-id=%q] button`, id))))
	w2.wait(`[...document.querySelectorAll('.answer')].some(a => a.textContent === 'hello from the model')`)
	w2.wait(`document.getElementById('prompt').disabled && !document.getElementById('take').hidden && document.getElementById('role').textContent === 'watching'`)
	webtest.Screenshot(t, w2.ctx, "watching")

	w2.do(chromedp.Click(chromedp.CSS("#take")))
	w2.wait(`!document.getElementById('prompt').disabled && document.getElementById('take').hidden`)
	w1.wait(`document.getElementById('prompt').disabled && !document.getElementById('take').hidden`)

	// The new controller prompts; the watcher sees it all.
	w2.prompt("again")
	w1.wait(`[...document.querySelectorAll('.user')].some(u => u.textContent === 'again') && [...document.querySelectorAll('.answer')].some(a => a.textContent === 'second answer')`)
	w2.wait(`[...document.querySelectorAll('.answer')].some(a => a.textContent === 'second answer')`)
	webtest.Screenshot(t, w1.ctx, "watcher-sees")
}
