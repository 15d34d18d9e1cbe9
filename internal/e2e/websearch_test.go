//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/printmode"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
	"github.com/novacode/nova/tool"
	"github.com/novacode/nova/tool/builtin"
)

// searchAnswer is what llmtest.SearchTurn says.
const searchAnswer = "Per the notes, Go 1.26 shipped in February."

// runText runs nova in print mode with format text or json against srv and
// returns its standard output and error.
func runText(t *testing.T, srv *llmtest.Server, provider, format string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := novaCmdFor(t, ctx, srv, provider, "", append([]string{"--output-format", format}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("nova: %v\n%s", err, errOut.String())
	}
	return out.String(), errOut.String()
}

// The provider's web search through the binary, in every output format, on
// both protocols that have one: the tool is in the request (allowed by a
// rule in print mode), each search is a web_search event, the answer's
// citations are citation events and the result's sources, and the search
// is counted and billed.
func TestWebSearchPrintMode(t *testing.T) {
	for _, p := range protocols[:2] {
		t.Run(p.provider, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.SearchTurn)
			defer srv.Close()
			r := runNovaFor(t, srv, p.provider, "", "--allowedTools", "WebSearch", "what is new in go?")
			if r.Code != 0 || r.Result.Result != searchAnswer {
				t.Fatalf("exit %d, result %+v\nstderr: %s", r.Code, r.Result, r.Stderr)
			}
			var searches []string
			for _, l := range r.byType(event.TypeWebSearch) {
				searches = append(searches, fmt.Sprintf("%s %s %d", l["query"], l["status"], len(list(l["results"]))))
			}
			want := []string{"go 1.26 release searching 0", "go 1.26 release done 2", "go 1.27 searching 0", "go 1.27 failed 0"}
			if diff := cmp.Diff(want, searches); diff != "" {
				t.Errorf("web_search events (-want +got):\n%s", diff)
			}
			if c := r.byType(event.TypeCitation); len(c) != 1 || c[0]["url"] != "https://go.dev/doc/go1.26" {
				t.Errorf("citation events %v", c)
			}
			wantSources := []printmode.Source{{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"}}
			if diff := cmp.Diff(wantSources, r.Result.Sources); diff != "" {
				t.Errorf("result sources (-want +got):\n%s", diff)
			}
			info, _ := llm.LookupModel(p.model)
			if n := r.Result.Usage.ServerToolUse.WebSearchRequests; n != 1 || r.Result.TotalCostUSD < info.WebSearchPrice {
				t.Errorf("%d searches, USD %v; want one, billed", n, r.Result.TotalCostUSD)
			}
			calls := modelCalls(srv)
			tools := fmt.Sprint(body(t, calls[0])["tools"])
			wantTool := map[string]string{"anthropic": "type:web_search_20250305", "openai": "type:web_search"}[p.provider]
			if len(calls) != 1 || !strings.Contains(tools, wantTool) {
				t.Errorf("the request's tools lack %s: %s", wantTool, tools)
			}

			srv = llmtest.NewServer(llmtest.SearchTurn)
			defer srv.Close()
			out, errOut := runText(t, srv, p.provider, "text", "--allowedTools", "WebSearch", "what is new in go?")
			if want := searchAnswer + "\n\nSources:\n[1] Go 1.26 Release Notes — https://go.dev/doc/go1.26\n"; out != want {
				t.Errorf("text output %q, want %q", out, want)
			}
			for _, want := range []string{`nova: searched the web for "go 1.26 release": 2 results`, `nova: web search for "go 1.27" failed:`} {
				if !strings.Contains(errOut, want) {
					t.Errorf("standard error lacks %q:\n%s", want, errOut)
				}
			}

			srv = llmtest.NewServer(llmtest.SearchTurn)
			defer srv.Close()
			out, _ = runText(t, srv, p.provider, "json", "--allowedTools", "WebSearch", "what is new in go?")
			var res printmode.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("json output: %v\n%s", err, out)
			}
			if res.Usage.ServerToolUse.WebSearchRequests != 1 || len(res.Sources) != 1 || res.Result != searchAnswer {
				t.Errorf("json result %+v", res)
			}
		})
	}
}

// Print mode offers web search only where a rule allows it: asked for
// without one, or on Chat Completions, nova says why it goes without.
func TestWebSearchOffInPrintMode(t *testing.T) {
	tests := []struct {
		provider string
		args     []string
		notice   string // "" for none
	}{
		{"anthropic", nil, ""},
		{"anthropic", []string{"--web-search"}, "nova: web search needs an allow rule in print mode"},
		{"openai", []string{"--web-search", "--disallowedTools", "WebSearch"}, "nova: web search is off: denied by rule WebSearch"},
		{"openai-chat", []string{"--model", "qwen3", "--web-search", "--allowedTools", "WebSearch"}, "nova: web search is not available with openai-chat endpoints"},
		{"anthropic", []string{"--web-search=false", "--allowedTools", "WebSearch"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.provider+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("ok")}})
			defer srv.Close()
			r := runNovaFor(t, srv, tt.provider, "", append(tt.args, "hi")...)
			if r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			if got := strings.Contains(r.Stderr, "web search"); got != (tt.notice != "") || !strings.Contains(r.Stderr, tt.notice) {
				t.Errorf("standard error %q, want %q", r.Stderr, tt.notice)
			}
			if req := string(modelCalls(srv)[0].Body); strings.Contains(req, "web_search") {
				t.Errorf("web search offered:\n%s", req)
			}
		})
	}
}

// A resumed session sends its searches back as the provider sent them: the
// transcript keeps the provider's blocks whole.
func TestWebSearchResumed(t *testing.T) {
	for _, p := range protocols[:2] {
		t.Run(p.provider, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			srv := llmtest.NewServer(llmtest.SearchTurn, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Nothing newer.")}})
			defer srv.Close()
			env := []string{"NOVA_HOME=" + home}
			if r := runNovaEnv(t, srv, p.provider, ws, env, "--allowedTools", "WebSearch", "what is new in go?"); r.Code != 0 {
				t.Fatalf("first run: %s", r.Stderr)
			}
			r := runNovaEnv(t, srv, p.provider, ws, env, "--continue", "--allowedTools", "WebSearch", "anything newer?")
			if r.Code != 0 || r.Result.Result != "Nothing newer." {
				t.Fatalf("resumed run: %+v\n%s", r.Result, r.Stderr)
			}
			calls := modelCalls(srv)
			next := body(t, calls[1])
			switch p.provider {
			case "anthropic":
				// The assistant message: the call, its result block with
				// every encrypted_content, the text, the failed search.
				var types []string
				msgs := list(next["messages"])
				for _, b := range list(obj(msgs[1])["content"]) {
					types = append(types, fmt.Sprint(obj(b)["type"]))
				}
				want := []string{"server_tool_use", "web_search_tool_result", "text", "text", "server_tool_use", "web_search_tool_result"}
				if diff := cmp.Diff(want, types); diff != "" {
					t.Errorf("assistant message sent back (-want +got):\n%s", diff)
				}
				result := obj(list(obj(msgs[1])["content"])[1])
				hits := list(result["content"])
				if len(hits) != 2 || obj(hits[0])["encrypted_content"] == "" || obj(hits[0])["url"] != "https://go.dev/doc/go1.26" {
					t.Errorf("search results sent back: %v", result)
				}
			case "openai":
				var items []string
				for _, it := range list(next["input"]) {
					items = append(items, fmt.Sprint(obj(it)["type"], obj(it)["role"], obj(it)["status"]))
				}
				want := []string{"<nil>user<nil>", "web_search_call<nil>completed", "<nil>assistant<nil>", "<nil>assistant<nil>", "web_search_call<nil>failed", "<nil>user<nil>"}
				if diff := cmp.Diff(want, items); diff != "" {
					t.Errorf("input items sent back (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A conversation that searched on one protocol goes on on another: the
// answer's text goes along, the searches (another protocol's opaque blocks)
// do not.
func TestWebSearchSwitchProvider(t *testing.T) {
	for _, from := range protocols[:2] {
		for _, to := range protocols {
			if from.provider == to.provider {
				continue
			}
			t.Run(from.provider+"→"+to.provider, func(t *testing.T) {
				srvA := llmtest.NewServer(llmtest.SearchTurn)
				defer srvA.Close()
				srvB := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("Nothing newer.")}})
				defer srvB.Close()
				a := &agent.Agent{
					Client: clientFor(from.provider, srvA.URL), Model: from.model,
					Tools: tool.NewRegistry(builtin.All()...), Env: &tool.Env{Dir: t.TempDir(), Files: tool.NewFileState()},
					// Without a checker the loop would ask about the web
					// search, and with nobody to ask leave it off.
					WebSearch: &llm.WebSearch{}, Permissions: agent.AllowAll,
				}
				conv := agent.NewConversation("s", "You are a test.", "What is new in Go?")
				if lc := runAgent(t, a, conv); lc.Reason != event.ReasonDone || lc.FinalText != searchAnswer {
					t.Fatalf("first half: %+v", lc)
				}
				a.Client, a.Model = clientFor(to.provider, srvB.URL), to.model
				if !llm.HasWebSearch(protocolOf(to.provider)) {
					a.WebSearch = nil
				}
				conv.AddUser("Anything newer?")
				if lc := runAgent(t, a, conv); lc.Reason != event.ReasonDone || lc.FinalText != "Nothing newer." {
					t.Fatalf("second half: %+v", lc)
				}
				sent := string(modelCalls(srvB)[0].Body)
				for _, foreign := range []string{"server_tool_use", "web_search_tool_result", "encrypted_content", `"type":"web_search_call"`, "srvtoolu_", "ws_llmtest"} {
					if strings.Contains(sent, foreign) {
						t.Errorf("%s's search (%s) was sent to %s:\n%s", from.provider, foreign, to.provider, sent)
					}
				}
				for _, want := range []string{"Go 1.26 shipped in February.", "Anything newer?"} {
					if !strings.Contains(sent, want) {
						t.Errorf("history sent to %s lacks %q:\n%s", to.provider, want, sent)
					}
				}
			})
		}
	}
}

// protocolOf is the llm.Origin… of a provider name.
func protocolOf(provider string) string {
	return map[string]string{"anthropic": llm.OriginAnthropic, "openai": llm.OriginOpenAIResponses, "openai-chat": llm.OriginOpenAIChat}[provider]
}

// The interactive UI with --web-search: the session's question comes before
// the first request, then the search is a card with its results, the
// answer carries a footnote and its sources follow it.
func TestTUIWebSearch(t *testing.T) {
	needTmux(t)
	srv := llmtest.NewServer(llmtest.SearchTurn)
	defer srv.Close()
	s := &tmuxSession{t: t, name: fmt.Sprintf("nova-e2e-search-%d", os.Getpid())}
	script := fmt.Sprintf("cd %q && env ANTHROPIC_API_KEY=test-key ANTHROPIC_BASE_URL=%s NOVA_HOME=%q OPENAI_API_KEY= ANTHROPIC_MODEL= %q --web-search 'what is new in go?'; sleep 30",
		t.TempDir(), srv.URL, t.TempDir(), novaBin)
	s.run("new-session", "-d", "-s", s.name, "-x", "100", "-y", "30", script)
	defer exec.Command("tmux", "-L", s.name, "kill-server").Run()

	s.waitFor("Allow WebSearch")
	if n := len(modelCalls(srv)); n != 0 {
		t.Fatalf("%d model calls before the answer about web search", n)
	}
	s.run("send-keys", "-t", s.name, "Enter")
	// The failed second search is the last thing the turn shows: wait for
	// it, not for the sources, which come first.
	final := s.waitFor("max_uses_exceeded")
	for _, want := range []string{
		`● WebSearch("go 1.26 release")`, "Go 1.26 Release Notes — https://go.dev/doc/go1.26", "https://go.dev/blog/",
		"Go 1.26 shipped in February.[1]", "[1] Go 1.26 Release Notes — https://go.dev/doc/go1.26",
		`● WebSearch("go 1.27")`, "max_uses_exceeded",
	} {
		if !strings.Contains(final, want) {
			t.Errorf("final screen lacks %q:\n%s", want, final)
		}
	}
	if tools := fmt.Sprint(body(t, modelCalls(srv)[0])["tools"]); !strings.Contains(tools, "web_search_20250305") {
		t.Errorf("web search not offered after it was allowed: %s", tools)
	}
}
