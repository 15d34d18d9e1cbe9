package builtin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/permission/rules"
	"github.com/novacode/nova/tool"
)

// webEnv is a session whose permission chain holds allow (the real chain:
// it decides which hosts are named and which redirects are followed).
func webEnv(t *testing.T, allow ...string) *tool.Env {
	t.Helper()
	env := newEnv(t)
	var rs []rules.Rule
	for _, a := range allow {
		r, err := rules.Parse(a)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	c, err := permission.New(permission.Config{Allow: rs, Workspace: env.Dir, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	env.Web = c
	return env
}

// askRecorder is a small model that answers from a script and remembers
// what it was asked.
type askRecorder struct {
	mu      sync.Mutex
	prompts []string
	answer  string
	err     error
}

func (a *askRecorder) ask(ctx context.Context, prompt string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.prompts = append(a.prompts, prompt)
	return a.answer, a.err
}

const docPage = `<html><head><title>Widgets</title><script>track()</script></head>
<body><h1>Widgets</h1><p>Install with <code>go install example.org/widget@latest</code>.</p>
<p>See the <a href="/api">API</a>.</p></body></html>`

func TestWebFetch(t *testing.T) {
	long := strings.Repeat("All work and no play makes a long page.\n", 2000) // 80,000 characters
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/doc":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, docPage)
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"version":"1.2.3"}`)
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "\x89PNG\r\n\x1a\n")
		case "/gone":
			http.Error(w, "this page is gone", http.StatusNotFound)
		case "/gone.png":
			w.Header().Set("Content-Type", "image/png")
			w.WriteHeader(http.StatusGone)
			fmt.Fprint(w, "\x89PNG\r\n\x1a\n")
		case "/moved":
			http.Redirect(w, r, "/doc", http.StatusMovedPermanently)
		case "/elsewhere":
			http.Redirect(w, r, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/data.json", http.StatusFound)
		case "/long":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, long)
		case "/huge":
			w.Header().Set("Content-Type", "text/plain")
			fmt.Fprint(w, strings.Repeat("x", 200<<10))
		case "/app":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><body><div id="root"></div><script src="/app.js"></script></body></html>`)
		}
	}))
	defer srv.Close()
	local := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	limits := defaultWebLimits
	limits.maxBytes = 100 << 10

	tests := []struct {
		name    string
		allow   []string
		url     string
		ask     *askRecorder
		wantErr bool
		want    []string // the result contains each
		asked   []string // the small model's prompt contains each
	}{
		{name: "html becomes markdown", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/doc",
			want: []string{"$URL/doc (HTML converted to Markdown)\n\n# Widgets\n\nInstall with `go install example.org/widget@latest`.\n\nSee the [API]($URL/api)."}},
		{name: "json as it is", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/data.json",
			want: []string{"$URL/data.json (application/json)\n\n{\"version\":\"1.2.3\"}"}},
		{name: "binary refused", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/logo.png", wantErr: true,
			want: []string{"$URL/logo.png is image/png: binary content, which WebFetch does not read"}},
		{name: "error status", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/gone", wantErr: true,
			want: []string{"answered 404 Not Found", "this page is gone"}},
		{name: "error status, binary", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/gone.png", wantErr: true,
			want: []string{"$URL/gone.png answered 410 Gone."}},
		{name: "same-host redirect followed", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/moved",
			want: []string{"$URL/doc (HTML converted to Markdown; redirected from $URL/moved)", "# Widgets"}},
		{name: "redirect to a host no rule allows", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/elsewhere",
			want: []string{"redirects (302) to another host: $LOCAL/data.json", "not followed: fetching localhost needs approval", `call WebFetch again with url "$LOCAL/data.json"`}},
		{name: "redirect to an allowed host followed", allow: []string{"WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)"}, url: "/elsewhere",
			want: []string{"$LOCAL/data.json (application/json; redirected from $URL/elsewhere)", "1.2.3"}},
		{name: "loopback refused without a rule naming it", allow: []string{"WebFetch"}, url: "/doc", wantErr: true,
			want: []string{"Refused to fetch $URL/doc: 127.0.0.1 is a loopback address", "WebFetch(domain:127.0.0.1)"}},
		{name: "long page summarised", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/long", ask: &askRecorder{answer: "It says one thing, often."},
			want:  []string{"$URL/long (text/plain)\n\nThe page is long (80,000 characters). A smaller model read the whole page and answered your prompt:\n\nIt says one thing, often."},
			asked: []string{`<page url="$URL/long">`, "All work and no play", "<request>\nwhat does it say?\n</request>"}},
		{name: "long page cut without a model", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/long",
			want: []string{"The page is long (80,000 characters); only its first 20,000 follow, the rest was cut.", "[… cut]"}},
		{name: "long page cut when the model fails", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/long", ask: &askRecorder{err: errors.New("overloaded")},
			want: []string{"(no summary could be written: overloaded)", "only its first 20,000 follow"}},
		{name: "oversized page", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/huge",
			want: []string{"the page is larger than 100 KB: only its first 100 KB were read", "The page is long (102,400 characters)"}},
		{name: "no text", allow: []string{"WebFetch(domain:127.0.0.1)"}, url: "/app",
			want: []string{"The page has no text content."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := webEnv(t, tt.allow...)
			if tt.ask != nil {
				env.AskModel = tt.ask.ask
			}
			sub := func(s string) string {
				return strings.NewReplacer("$URL", srv.URL, "$LOCAL", local).Replace(s)
			}
			res := run(t, newWebFetch(limits), env, WebFetchInput{URL: srv.URL + tt.url, Prompt: "what does it say?"})
			check(t, res, "", tt.wantErr)
			for _, w := range tt.want {
				if !strings.Contains(res.Content, sub(w)) {
					t.Errorf("result does not contain %q:\n%s", sub(w), abbreviate(res.Content))
				}
			}
			if tt.ask != nil && len(tt.asked) > 0 {
				if len(tt.ask.prompts) != 1 {
					t.Fatalf("the small model was asked %d times", len(tt.ask.prompts))
				}
				for _, w := range tt.asked {
					if !strings.Contains(tt.ask.prompts[0], sub(w)) {
						t.Errorf("the small model's prompt does not contain %q", sub(w))
					}
				}
			}
		})
	}
}

func TestWebFetchMistakes(t *testing.T) {
	env := webEnv(t)
	tests := []struct{ url, prompt, want string }{
		{"example.org/docs", "p", `Invalid url: "example.org/docs" has no scheme`},
		{"file:///etc/passwd", "p", "is not an http or https URL"},
		{"https://example.org/", " ", "prompt is empty"},
	}
	for _, tt := range tests {
		res := run(t, NewWebFetch(), env, WebFetchInput{URL: tt.url, Prompt: tt.prompt})
		check(t, res, "", true, tt.want)
	}
}

// TestWebFetchTimeLimit: a server that stalls mid-page ends the call at the
// time limit with a result that says so.
func TestWebFetchTimeLimit(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "the start")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	limits := defaultWebLimits
	limits.timeout = 50 * time.Millisecond
	res := run(t, newWebFetch(limits), webEnv(t, "WebFetch(domain:127.0.0.1)"), WebFetchInput{URL: srv.URL + "/", Prompt: "p"})
	check(t, res, "", true, "did not answer completely within 50ms")
}

// TestWebFetchCancelled: an interrupted run ends the fetch, and the result
// says it was cancelled rather than blaming the site.
func TestWebFetchCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "never read") }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := runCtx(ctx, t, NewWebFetch(), webEnv(t, "WebFetch(domain:127.0.0.1)"), WebFetchInput{URL: srv.URL + "/", Prompt: "p"})
	check(t, res, "", true, "WebFetch was cancelled.")
}

func TestCutText(t *testing.T) {
	tests := []struct {
		s    string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"héllo wörld", 5, "héllo\n\n[… cut]"},
		{"line one\nline two is long", 20, "line one\nline two is\n\n[… cut]"},                         // no line end near: cut mid-line
		{strings.Repeat("abcdefghi\n", 10), 95, strings.Repeat("abcdefghi\n", 9)[:89] + "\n\n[… cut]"}, // at the last line end
	}
	for _, tt := range tests {
		if got := cutText(tt.s, tt.max); got != tt.want {
			t.Errorf("cutText(%q, %d) = %q, want %q", tt.s, tt.max, got, tt.want)
		}
	}
}
