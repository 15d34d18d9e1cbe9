package serve

import (
	"context"
	"fmt"
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
// the server speak the same protocol where it is subtle (resume after a
// drop, control passing between clients). The client's rendering of every
// kind of event is tested in its own package against hand-written frames;
// a whole session through the nova binary in internal/e2e (web_test.go).

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

// TestWebClientReconnect: the connection drops while the answer streams;
// the client reconnects, resumes after the last seq it saw, and the answer
// ends up whole, each piece once.
func TestWebClientReconnect(t *testing.T) {
	var words []string
	for i := range 120 {
		words = append(words, fmt.Sprintf("w%03d", i))
	}
	answer := strings.Join(words, " ")
	h := newHarness(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(answer)}, ChunkDelay: 80 * time.Millisecond})
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
