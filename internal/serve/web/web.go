// Package web is the browser client of `nova serve`: plain HTML, CSS and
// JavaScript of our own, embedded in the binary, so a user needs no build
// step, no CDN and no network beyond the server itself.
//
// The client speaks the server's WebSocket protocol at /ws (see
// internal/serve): it renders a session's events (the stream-json events
// with seq and session_id) as a timeline and sends prompts, decisions,
// answers, cancel and mode changes. Model output is untrusted: the client
// builds every node with textContent and createElement, never innerHTML, and
// its own Markdown renderer (static/markdown.js) does the same.
//
// Handler serves the files with a strict Content-Security-Policy: scripts
// and styles only from the server itself, no inline script, so even a bug
// that let model text into the DOM as markup could not run it.
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var static embed.FS

// CSP is the Content-Security-Policy of every response: everything from the
// server's own origin, WebSocket connections (the page's own /ws; a browser
// does not treat ws: as 'self' everywhere, hence the schemes), nothing
// inline, no plugins, no framing (the page holds a token: no clickjacking),
// forms and <base> disabled.
const CSP = "default-src 'self'; connect-src 'self' ws: wss:; script-src 'self'; " +
	"style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; " +
	"form-action 'none'; frame-ancestors 'none'"

// contentTypes are the types of the files we ship, set by us rather than
// by the platform's MIME table (which differs between systems, and a module
// script served with a wrong type does not run).
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// Files lists the served paths ("/" for index.html), for tests and for a
// server that wants to know what the client owns.
func Files() []string {
	out := []string{"/"}
	_ = fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, "static"))
		}
		return nil
	})
	return out
}

// Handler serves the client: index.html at "/", each asset at its name
// ("/app.js"); anything else is 404. Mount it at the server's root, beside
// /ws.
func Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embed pattern guarantees the directory
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		typ, ok := contentTypes[path.Ext(name)]
		if !ok || strings.HasPrefix(name, ".") {
			http.NotFound(w, r)
			return
		}
		data, err := fs.ReadFile(sub, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		h.Set("Content-Type", typ)
		// Always revalidated: a new nova binary's client must replace the
		// old one at the next load. The files are small.
		h.Set("Cache-Control", "no-cache")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(data)
	})
}
