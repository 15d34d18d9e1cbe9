package serve

import "net/http"

// placeholder is the page served at / when no web client is given
// (Config.Static): what runs here and where the protocol is described.
func placeholder() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'")
		_, _ = w.Write([]byte(placeholderPage))
	})
}

const placeholderPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>nova serve</title></head>
<body>
<h1>nova serve</h1>
<p>The server is running. This build has no web client; drive it with a WebSocket client at
<code>/ws</code> (token as <code>Authorization: Bearer</code> or the subprotocol
<code>nova.token.TOKEN</code>), as described in <code>internal/serve/PROTOCOL.md</code>.</p>
</body></html>
`
