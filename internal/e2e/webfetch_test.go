//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/novacode/nova/llm/llmtest"
)

// webSite is a local web server that records the paths it served.
type webSite struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newWebSite(t *testing.T) *webSite {
	t.Helper()
	s := &webSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.URL.Path)
		s.mu.Unlock()
		switch r.URL.Path {
		case "/guide":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><html><head><title>Guide</title><style>p{}</style></head><body>
<h1>Widget guide</h1><p>Run <code>widget --fast</code> to go <strong>fast</strong>.</p>
<ul><li><a href="/api">API</a></li><li>FAQ</li></ul></body></html>`)
		case "/old-guide":
			http.Redirect(w, r, "/guide", http.StatusMovedPermanently)
		case "/elsewhere":
			http.Redirect(w, r, strings.Replace(s.URL, "127.0.0.1", "localhost", 1)+"/guide", http.StatusFound)
		case "/huge":
			w.Header().Set("Content-Type", "text/plain")
			line := strings.Repeat("a very long log line ", 4) + "\n"
			for range (11 << 20) / len(line) {
				if _, err := fmt.Fprint(w, line); err != nil {
					return // the client stopped reading: it has what it wants
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *webSite) served() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

func webFetch(id, url, prompt string) llmtest.Block {
	b, _ := json.Marshal(map[string]string{"url": url, "prompt": prompt})
	return llmtest.ToolUse(id, "WebFetch", string(b))
}

// TestWebFetch runs nova in print mode against a local site: the rules on
// the command line decide which hosts it may reach, 127.0.0.1 included.
func TestWebFetch(t *testing.T) {
	site := newWebSite(t)
	local := strings.Replace(site.URL, "127.0.0.1", "localhost", 1)
	tests := []struct {
		name    string
		allow   []string
		path    string
		isError bool
		want    []string // in the tool result
		served  []string // paths the site served
	}{
		{name: "HTML page to Markdown", allow: []string{"WebFetch(domain:127.0.0.1)"}, path: "/guide",
			want:   []string{"$URL/guide (HTML converted to Markdown)\n\n# Widget guide\n\nRun `widget --fast` to go **fast**.\n\n- [API]($URL/api)\n- FAQ"},
			served: []string{"/guide"}},
		{name: "redirect within the host", allow: []string{"WebFetch(domain:127.0.0.1)"}, path: "/old-guide",
			want: []string{"redirected from $URL/old-guide", "# Widget guide"}, served: []string{"/old-guide", "/guide"}},
		{name: "redirect to an allowed host", allow: []string{"WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)"}, path: "/elsewhere",
			want: []string{"$LOCAL/guide (HTML converted to Markdown; redirected from $URL/elsewhere)"}, served: []string{"/elsewhere", "/guide"}},
		{name: "redirect to a host no rule allows", allow: []string{"WebFetch(domain:127.0.0.1)"}, path: "/elsewhere",
			want:   []string{"redirects (302) to another host: $LOCAL/guide", "The redirect was not followed: fetching localhost needs approval", `call WebFetch again with url "$LOCAL/guide"`},
			served: []string{"/elsewhere"}},
		{name: "private address refused", allow: []string{"WebFetch"}, path: "/guide", isError: true,
			want: []string{"Refused to fetch $URL/guide: 127.0.0.1 is a loopback address", "WebFetch(domain:127.0.0.1)"}},
		{name: "no rule in print mode", path: "/guide", isError: true,
			want: []string{"Permission to use WebFetch was not granted: it needs approval (fetching 127.0.0.1 needs approval", "--allowedTools"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(site.served())
			srv := llmtest.NewServer(
				llmtest.Turn{Blocks: []llmtest.Block{webFetch("f1", site.URL+tt.path, "How do I go fast?")}},
				llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Done.")}},
			)
			defer srv.Close()
			var args []string
			for _, a := range tt.allow {
				args = append(args, "--allowedTools", a)
			}
			r := runNova(t, srv, "", append(args, "read the guide")...)
			if r.Code != 0 {
				t.Fatalf("exit %d\nstderr %s", r.Code, r.Stderr)
			}
			res := r.byType("tool_result")
			if len(res) != 1 {
				t.Fatalf("%d tool results", len(res))
			}
			content, _ := res[0]["content"].(string)
			if res[0]["is_error"] != tt.isError {
				t.Errorf("is_error = %v, want %v:\n%s", res[0]["is_error"], tt.isError, content)
			}
			for _, w := range tt.want {
				w = strings.NewReplacer("$URL", site.URL, "$LOCAL", local).Replace(w)
				if !strings.Contains(content, w) {
					t.Errorf("result does not contain %q:\n%s", w, content)
				}
			}
			if diff := cmp.Diff(tt.served, site.served()[before:], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("paths served (-want +got):\n%s", diff)
			}
			// What the model got back is what the event showed.
			sent := toolResultsSent(t, modelCalls(srv)[1])
			if len(sent) != 1 || sentText(sent[0]) != content {
				t.Errorf("the model was sent %v", sent)
			}
		})
	}
}

// TestWebFetchLongPage: a page over the read limit is cut at 10 MB, and
// what is left is summarised for the prompt by the provider's small model
// (claude-haiku-4-5 beside the default Sonnet), in a request of its own.
func TestWebFetchLongPage(t *testing.T) {
	site := newWebSite(t)
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{webFetch("f1", site.URL+"/huge", "Which line repeats?")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Every line says: a very long log line.")}}, // the small model
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("The log repeats one line.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, "", "--allowedTools", "WebFetch(domain:127.0.0.1)", "read the log")
	if r.Code != 0 || r.Result.Result != "The log repeats one line." {
		t.Fatalf("exit %d result %+v\nstderr %s", r.Code, r.Result, r.Stderr)
	}
	content, _ := r.byType("tool_result")[0]["content"].(string)
	for _, w := range []string{
		site.URL + "/huge (text/plain; the page is larger than 10 MB: only its first 10 MB were read)",
		"The page is long (10,485,760 characters). A smaller model read its first 100,000 characters and answered your prompt:\n\nEvery line says: a very long log line.",
	} {
		if !strings.Contains(content, w) {
			t.Errorf("result does not contain %q:\n%s", w, content)
		}
	}
	calls := modelCalls(srv)
	if len(calls) != 3 {
		t.Fatalf("%d model calls, want 3", len(calls))
	}
	small := calls[1].JSON()
	if small["model"] != "claude-haiku-4-5" || calls[0].JSON()["model"] != "claude-sonnet-4-5" {
		t.Errorf("models: main %v, summary %v", calls[0].JSON()["model"], small["model"])
	}
	if _, ok := small["tools"]; ok {
		t.Error("the small model was offered tools")
	}
	body := string(calls[1].Body)
	for _, w := range []string{"a very long log line", "Which line repeats?", `\u003cpage url=\"` + site.URL + `/huge\"\u003e`} {
		if !strings.Contains(body, w) {
			t.Errorf("the summary request does not contain %q", w)
		}
	}
	if len(body) > 200_000 {
		t.Errorf("the summary request is %d bytes: the page was not cut for it", len(body))
	}
}

// TestTodoWrite: each saved list is a todo event in stream-json, right
// after its call's tool_done; a refused one is not.
func TestTodoWrite(t *testing.T) {
	list := func(statuses ...string) string {
		var todos []map[string]string
		for i, s := range statuses {
			todos = append(todos, map[string]string{"content": fmt.Sprintf("Step %d", i+1), "status": s, "activeForm": fmt.Sprintf("Doing step %d", i+1)})
		}
		b, _ := json.Marshal(map[string]any{"todos": todos})
		return string(b)
	}
	srv := llmtest.NewServer(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Planning."), llmtest.ToolUse("w1", "TodoWrite", list("in_progress", "pending"))}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("w2", "TodoWrite", list("in_progress", "in_progress"))}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.ToolUse("w3", "TodoWrite", list("completed", "completed"))}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("All steps done.")}},
	)
	defer srv.Close()
	r := runNova(t, srv, "", "do two steps") // no rule: TodoWrite needs none
	if r.Code != 0 || r.Result.Result != "All steps done." {
		t.Fatalf("exit %d result %+v\nstderr %s", r.Code, r.Result, r.Stderr)
	}
	var got []string
	for _, l := range r.Lines {
		switch l["type"] {
		case "tool_done":
			got = append(got, fmt.Sprintf("tool_done %s error=%v", l["id"], l["is_error"]))
		case "todo":
			b, _ := json.Marshal(l["todos"])
			got = append(got, fmt.Sprintf("todo turn %v %s", l["turn"], b))
		}
	}
	want := []string{
		"tool_done w1 error=false",
		`todo turn 1 [{"active_form":"Doing step 1","content":"Step 1","status":"in_progress"},{"active_form":"Doing step 2","content":"Step 2","status":"pending"}]`,
		"tool_done w2 error=true",
		"tool_done w3 error=false",
		`todo turn 3 [{"active_form":"Doing step 1","content":"Step 1","status":"completed"},{"active_form":"Doing step 2","content":"Step 2","status":"completed"}]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	res := r.byType("tool_result")
	if c, _ := res[1]["content"].(string); !strings.Contains(c, `Todos 1 ("Step 1") and 2 ("Step 2") are all in_progress`) {
		t.Errorf("the refused list's result: %s", c)
	}
}

// sentText is the text of a tool_result block as Anthropic's wire format
// carries it: a string, or text blocks.
func sentText(b map[string]any) string {
	switch c := b["content"].(type) {
	case string:
		return c
	case []any:
		var out strings.Builder
		for _, x := range c {
			if m, ok := x.(map[string]any); ok && m["type"] == "text" {
				s, _ := m["text"].(string)
				out.WriteString(s)
			}
		}
		return out.String()
	}
	return ""
}

// TestWebFetchPermissionCheck: nova permission check answers for a fetch as
// the loop would: a host needs a rule, in plan mode too.
func TestWebFetchPermissionCheck(t *testing.T) {
	ws := t.TempDir()
	in := `{"url":"https://docs.example.org/guide","prompt":"p"}`
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"WebFetch", in}, "ask"},
		{[]string{"--mode", "plan", "WebFetch", in}, "ask"},
		{[]string{"--allow", "WebFetch(domain:example.org)", "WebFetch", in}, "allow"},
		{[]string{"--allow", "WebFetch(domain:example.com)", "WebFetch", in}, "ask"},
		{[]string{"--allow", "WebFetch", "--deny", "WebFetch(domain:docs.example.org)", "WebFetch", in}, "deny"},
		{[]string{"TodoWrite", `{"todos":[]}`}, "allow"},
		{[]string{"--mode", "plan", "TodoWrite", `{"todos":[]}`}, "allow"},
	}
	for _, tt := range tests {
		r, stderr := permissionCheck(t, ws, tt.args...)
		if r.Decision != tt.want {
			t.Errorf("%v: %s (%s), want %s\n%s", tt.args, r.Decision, r.Reason, tt.want, stderr)
		}
	}
}
