//go:build unix

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/novacode/nova/internal/serve/web/webtest"
	"github.com/novacode/nova/llm/llmtest"
)

// serveURL matches the address nova serve prints at start, token included.
var serveURL = regexp.MustCompile(`http://127\.0\.0\.1:\d+/#token=[^\s]+`)

// syncBuffer collects a process's output while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs `nova serve` on a free loopback port in workspace against
// srv, and returns the URL it printed (with the token in the fragment). The
// server is interrupted at the end of the test and must exit.
func startServe(t *testing.T, srv *llmtest.Server, workspace string, args ...string) string {
	t.Helper()
	full := append([]string{"serve", "--cwd", workspace, "--provider", "anthropic", "--listen", "127.0.0.1:0"}, args...)
	cmd := exec.Command(novaBin, full...)
	cmd.Env = append(os.Environ(), "NOVA_HOME="+t.TempDir(), "ANTHROPIC_MODEL=", "OPENAI_MODEL=",
		"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL="+srv.URL, "OPENAI_API_KEY=", "OPENAI_BASE_URL=")
	cmd.Stdin = strings.NewReader("")
	var out syncBuffer
	found := make(chan string, 1)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(&out, line)
			if u := serveURL.FindString(line); u != "" {
				select {
				case found <- u:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		exited <- cmd.Wait()
		pw.Close()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("nova serve ended with %v after SIGINT\n%s", err, out.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("nova serve did not exit within 15 s of SIGINT\n%s", out.String())
		}
	})
	select {
	case u := <-found:
		return u
	case err := <-exited:
		t.Fatalf("nova serve exited before printing its address: %v\n%s", err, out.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("nova serve printed no address within 30 s\n%s", out.String())
	}
	return ""
}

// webSession is one browser tab on the web client of a nova serve.
type webSession struct {
	t   *testing.T
	ctx context.Context
}

func openWebClient(t *testing.T, url string) *webSession {
	t.Helper()
	needTool(t, "chromium", ".ci/run installs it (apt-get install chromium)")
	w := &webSession{t: t, ctx: webtest.Browser(t)}
	if err := chromedp.Do(w.ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	w.wait(`document.getElementById('conn').textContent === 'connected'`)
	if h := webtest.Eval[string](t, w.ctx, "location.href"); strings.Contains(h, "token") {
		t.Errorf("the token stays in the address bar: %s", h)
	}
	return w
}

func (w *webSession) wait(expr string) {
	w.t.Helper()
	webtest.WaitJS(w.t, w.ctx, 30*time.Second, expr, "document.getElementById('timeline').innerText + '\\n--\\n' + document.getElementById('dialogs').innerText + '\\n--\\n' + document.getElementById('notice').innerText")
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

// TestWebClient drives nova serve from its web client in headless Chromium,
// as a person would: a prompt typed and sent, the answer streamed in as
// Markdown, a tool card that runs and completes, a permission dialog for a
// Write (its diff shown) allowed with a click — the model's next request
// carries the tool's result and the file is written — and, after a reload,
// the session rebuilt by the server without a duplicate.
func TestWebClient(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# demo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(ws, "hello.txt")
	srv := llmtest.NewServer(
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
	defer srv.Close()
	w := openWebClient(t, startServe(t, srv, ws))

	w.prompt("Write hello.txt")
	// The answer streams in: the first words show before the whole text has come.
	w.wait(`document.querySelector('.user') !== null && document.querySelector('.user').textContent === 'Write hello.txt'`)
	w.wait(`window.nova.stats.frames > 3 && document.querySelector('.answer strong') !== null && document.querySelector('.answer strong').textContent === 'workspace'`)
	w.wait(`document.querySelector('.card[data-tool="LS"].done') !== null`)
	if n := webtest.Eval[int](t, w.ctx, `document.querySelectorAll('#timeline img').length`); n != 0 {
		t.Errorf("model text became %d img elements", n)
	}
	// The markup in the model's text shows as text (awaited: the last
	// delta may still be in the render timer).
	w.wait(`document.querySelector('.answer').textContent.includes('<img src=x onerror=')`)
	// The card shows the result (tool_result comes after tool_done).
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
	calls := modelCalls(srv)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	results := toolResultsSent(t, calls[2])
	if len(results) != 1 || results[0]["is_error"] == true {
		t.Errorf("the third request's tool results: %v", results)
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
	ws := t.TempDir()
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Text("This takes a while."),
			llmtest.ToolUse("", "Bash", `{"command":"sleep 60","description":"wait a minute"}`),
		}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("not reached")}},
	)
	defer srv.Close()
	w := openWebClient(t, startServe(t, srv, ws))

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
	if n := len(modelCalls(srv)); n != 1 {
		t.Errorf("%d model calls after cancel, want 1", n)
	}
}
