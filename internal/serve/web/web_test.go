package web

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func get(t *testing.T, method, target string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(method, target, nil))
	return rec.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Every file of static/ is served with its type and the security headers;
// index.html at "/".
func TestEveryAssetServed(t *testing.T) {
	files := Files()
	for _, want := range []string{"/", "/index.html", "/app.js", "/markdown.js", "/diff.js", "/style.css", "/icon.svg"} {
		if !slices.Contains(files, want) {
			t.Errorf("Files() = %v lacks %s", files, want)
		}
	}
	types := map[string]string{
		".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
		".html": "text/html; charset=utf-8", ".svg": "image/svg+xml",
	}
	for _, f := range files {
		r := get(t, http.MethodGet, f)
		if r.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", f, r.StatusCode)
			continue
		}
		ext := path.Ext(f)
		if f == "/" {
			ext = ".html"
		}
		if got := r.Header.Get("Content-Type"); got != types[ext] {
			t.Errorf("GET %s: Content-Type %q, want %q", f, got, types[ext])
		}
		checkHeaders(t, f, r.Header)
		name := strings.TrimPrefix(f, "/")
		if f == "/" {
			name = "index.html"
		}
		want, err := fs.ReadFile(static, "static/"+name)
		if err != nil {
			t.Fatal(err)
		}
		if got := body(t, r); got != string(want) {
			t.Errorf("GET %s: body differs from static/%s", f, name)
		}
	}
}

func checkHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'self'", "connect-src 'self' ws: wss:", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("%s: CSP %q lacks %q", what, csp, d)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("%s: CSP %q allows inline code", what, csp)
	}
	if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("%s: X-Content-Type-Options %q", what, got)
	}
	if got := h.Get("Referrer-Policy"); got != "no-referrer" {
		t.Errorf("%s: Referrer-Policy %q", what, got)
	}
}

func TestNotFoundAndMethods(t *testing.T) {
	for _, p := range []string{"/nope.js", "/web.go", "/../web.go", "/static/app.js", "/.hidden", "/ws", "/webtest/webtest.go"} {
		r := get(t, http.MethodGet, p)
		if r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, r.StatusCode)
		}
		checkHeaders(t, p, r.Header)
	}
	r := get(t, http.MethodPost, "/")
	if r.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", r.StatusCode)
	}
	r = get(t, http.MethodHead, "/app.js")
	if r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || body(t, r) != "" {
		t.Errorf("HEAD /app.js: %d %q", r.StatusCode, r.Header.Get("Content-Type"))
	}
}

var (
	attrRef   = regexp.MustCompile(`(?i)\b(?:src|href)\s*=\s*"([^"]*)"`)
	scriptTag = regexp.MustCompile(`(?is)<script\b([^>]*)>(.*?)</script>`)
	handler   = regexp.MustCompile(`(?i)<[^>]*\son[a-z]+\s*=`)
	styleAttr = regexp.MustCompile(`(?i)<[^>]*\sstyle\s*=`)
	jsImport  = regexp.MustCompile(`(?m)^import\s.*from\s+'([^']+)'`)
)

// index.html refers only to files we serve (no CDN, works offline), and has
// nothing inline that the CSP would block (or that would need it loosened).
func TestIndexReferencesOnlyLocalAssets(t *testing.T) {
	index := body(t, get(t, http.MethodGet, "/"))
	files := Files()
	refs := attrRef.FindAllStringSubmatch(index, -1)
	if len(refs) < 3 {
		t.Fatalf("index.html refers to %d files; the pattern is broken?", len(refs))
	}
	for _, m := range refs {
		ref := m[1]
		if strings.Contains(ref, ":") || strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, ".") {
			t.Errorf("index.html refers to %q: only relative names of our own files", ref)
			continue
		}
		if !slices.Contains(files, "/"+ref) {
			t.Errorf("index.html refers to %q, which is not served", ref)
		}
	}
	scripts := scriptTag.FindAllStringSubmatch(index, -1)
	if len(scripts) == 0 {
		t.Error("index.html loads no script")
	}
	for _, s := range scripts {
		if !strings.Contains(s[1], "src=") || strings.TrimSpace(s[2]) != "" {
			t.Errorf("inline script in index.html: %s", s[0])
		}
	}
	if m := handler.FindString(index); m != "" {
		t.Errorf("inline event handler in index.html: %s", m)
	}
	if m := styleAttr.FindString(index); m != "" {
		t.Errorf("inline style in index.html: %s", m)
	}
}

// The scripts import only each other, and nothing in them turns a string
// into markup or code: model output must never become HTML.
func TestScriptsBuildNoMarkup(t *testing.T) {
	files := Files()
	for _, f := range files {
		if path.Ext(f) != ".js" {
			continue
		}
		src := body(t, get(t, http.MethodGet, f))
		for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "createContextualFragment", "DOMParser"} {
			if strings.Contains(src, bad) && !strings.Contains(src, "nothing here assigns "+bad) {
				t.Errorf("%s uses %s", f, bad)
			}
		}
		for _, m := range jsImport.FindAllStringSubmatch(src, -1) {
			if !strings.HasPrefix(m[1], "./") || !slices.Contains(files, "/"+strings.TrimPrefix(m[1], "./")) {
				t.Errorf("%s imports %q: only our own files", f, m[1])
			}
		}
	}
}
