package llmtest_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3/responses"

	"github.com/novacode/nova/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite the golden streams under testdata/")

// searchTurn is the suite's searching turn.
var searchTurn = llmtest.SearchTurn

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("stream differs from %s (-want +got):\n%s", path, diff)
	}
}

// The exact bytes of a searching turn in every format, and what the
// official SDKs make of them.
func TestWebSearchWireFormat(t *testing.T) {
	t.Run("anthropic", func(t *testing.T) {
		srv := newServer(t, searchTurn)
		golden(t, "web_search.anthropic.sse", rawStream(t, srv, "/v1/messages", `{"stream":true}`))

		srv = newServer(t, searchTurn)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		r := stream(ctx, newClient(srv.URL), params())
		if r.err != nil {
			t.Fatal(r.err)
		}
		var types []string
		for _, b := range r.msg.Content {
			types = append(types, b.Type)
		}
		want := []string{"server_tool_use", "web_search_tool_result", "text", "text", "server_tool_use", "web_search_tool_result"}
		if diff := cmp.Diff(want, types); diff != "" {
			t.Fatalf("content blocks (-want +got):\n%s", diff)
		}
		c := r.msg.Content
		if string(c[0].Input) != `{"query":"go 1.26 release"}` || c[1].ToolUseID != c[0].ID {
			t.Errorf("search call %s %s, result for %s", c[0].ID, c[0].Input, c[1].ToolUseID)
		}
		hits := c[1].Content.OfWebSearchResultBlockArray
		if len(hits) != 2 || hits[0].URL != "https://go.dev/doc/go1.26" || hits[0].EncryptedContent == "" || hits[0].PageAge != "2 weeks ago" {
			t.Errorf("results = %+v", hits)
		}
		if len(c[3].Citations) != 1 || c[3].Citations[0].URL != "https://go.dev/doc/go1.26" || c[3].Text != "Go 1.26 shipped in February." {
			t.Errorf("cited text = %+v", c[3])
		}
		if c[5].Content.ErrorCode != "max_uses_exceeded" {
			t.Errorf("failed search = %+v", c[5].Content)
		}
		if n := r.msg.Usage.ServerToolUse.WebSearchRequests; n != 1 {
			t.Errorf("web_search_requests = %d, want 1 (the failed search is not counted)", n)
		}
		if got := srv.Requests()[0].BlockStops; len(got) != len(searchTurn.Blocks) {
			t.Errorf("%d block stops, want one per script block (%d)", len(got), len(searchTurn.Blocks))
		}
	})
	t.Run("responses", func(t *testing.T) {
		srv := newServer(t, searchTurn)
		golden(t, "web_search.responses.sse", normalizeTimes(rawStream(t, srv, "/v1/responses",
			`{"model":"gpt-4.1","stream":true,"store":false,"include":["web_search_call.action.sources"],"stream_options":{"include_obfuscation":false}}`)))

		srv = newServer(t, searchTurn)
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		p := responsesParams()
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableWebSearchCallActionSources}
		r := streamResponses(ctx, newOpenAIClient(srv), p)
		if r.err != nil {
			t.Fatal(r.err)
		}
		out := r.final.Output
		var types []string
		for _, it := range out {
			types = append(types, it.Type)
		}
		if diff := cmp.Diff([]string{"web_search_call", "message", "message", "web_search_call"}, types); diff != "" {
			t.Fatalf("output items (-want +got):\n%s", diff)
		}
		ws := out[0].AsWebSearchCall()
		if ws.Status != "completed" || ws.Action.Query != "go 1.26 release" || len(ws.Action.Sources) != 2 || ws.Action.Sources[1].URL != "https://go.dev/blog/" {
			t.Errorf("search = %+v", ws)
		}
		ann := out[2].AsMessage().Content[0].Annotations
		if len(ann) != 1 || ann[0].Type != "url_citation" || ann[0].URL != "https://go.dev/doc/go1.26" || ann[0].EndIndex != 28 {
			t.Errorf("annotations = %+v", ann)
		}
		if failed := out[3].AsWebSearchCall(); failed.Status != "failed" {
			t.Errorf("failed search = %+v", failed)
		}
	})
	t.Run("chat", func(t *testing.T) {
		// Chat Completions has no web search: only the text is sent.
		want := []string{"role", "content", "content", "content", "finish", "[DONE]"}
		if diff := cmp.Diff(want, llmtest.ChatEventTypes(searchTurn, false)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

// A whole (non-streamed) answer carries the same blocks.
func TestWebSearchNonStreaming(t *testing.T) {
	srv := newServer(t, searchTurn)
	c := newClient(srv.URL)
	msg, err := c.Messages.New(t.Context(), params())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range msg.Content {
		got = append(got, b.Type)
	}
	if diff := cmp.Diff([]string{"server_tool_use", "web_search_tool_result", "text", "text", "server_tool_use", "web_search_tool_result"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if string(msg.Content[0].Input) != `{"query":"go 1.26 release"}` || len(msg.Content[3].Citations) != 1 || msg.Usage.ServerToolUse.WebSearchRequests != 1 {
		t.Errorf("message = %+v", msg)
	}
}

func TestWebSearchScript(t *testing.T) {
	data, err := json.Marshal([]llmtest.Turn{searchTurn})
	if err != nil {
		t.Fatal(err)
	}
	turns, err := llmtest.ParseScript(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(searchTurn, turns[0]); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	bad := llmtest.Turn{Blocks: []llmtest.Block{{Kind: llmtest.KindWebSearch, Citations: []llmtest.Citation{{URL: "u"}}}}}
	if err := bad.Validate(); err == nil {
		t.Error("citations on a web_search block were accepted")
	}
}
