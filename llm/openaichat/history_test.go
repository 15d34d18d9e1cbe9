package openaichat

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/novacode/nova/llm"
)

// This file holds what the encoding-cache tests and benchmarks share: a
// generator of random but well-formed conversations, and a transport that
// captures request bodies without a network.

// awkward are strings that hit every escaping rule an encoder has: HTML
// characters (escaped by the SDKs, not by encoding/json with SetEscapeHTML
// false), U+2028/U+2029, control characters, invalid UTF-8, quotes and
// backslashes, non-ASCII.
var awkward = []string{
	"plain words", `<tag> & "quotes" 'single'`, `back\slash /slash`, "tab\tnew\nline\r\n",
	"\x00\x01\x1f\x7f", "bad \xff\xfe utf-8 \xc3", "line\u2028para\u2029sep", "héllo wörld 世界 🙂",
	"</script><!--", "\ufeffbom", "", " ",
}

// awkwardInputs are tool_use inputs: valid objects with and without
// whitespace (compaction), escapes, invalid JSON and non-objects (sent as {}
// by some adapters), empty input.
var awkwardInputs = []string{
	`{"path": "main.go"}`, `{"a":1,"b":[1, 2, {"c": null}]}`, `{"html":"<a href=\"x\">&amp;</a>"}`,
	`{"u":"\u00e9\u003c\u2028"}`, "{\"raw\":\"\u2028 \xff\"}", `{"pattern": "func ma`, `[]`, ``,
	`  {"x": true}  `, `null`, `"str"`, `{}`, " \n{\n  \"k\": \"v\"\n}\n",
}

var origins = []string{"", llm.OriginAnthropic, llm.OriginOpenAIResponses, llm.OriginOpenAIChat, "other"}

// historyGen makes random conversations. Each string it returns is freshly
// allocated, as a model's answer would be.
type historyGen struct {
	r      *rand.Rand
	nextID int
}

func newHistoryGen(seed uint64) *historyGen {
	return &historyGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *historyGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *historyGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

// text returns up to about n bytes made of awkward pieces.
func (g *historyGen) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(g.pick(awkward))
		if g.chance(0.3) {
			break
		}
	}
	return b.String()
}

func (g *historyGen) id(prefix string) string {
	g.nextID++
	return fmt.Sprintf("%s_%d", prefix, g.nextID)
}

func (g *historyGen) image() llm.Block {
	return llm.Block{Type: llm.BlockImage, MediaType: g.pick([]string{"image/png", "image/jpeg"}), Data: fmt.Sprintf("iVBORw0KGgo%d=", g.r.IntN(1000))}
}

// assistant returns an assistant message and the ids of its tool calls.
func (g *historyGen) assistant() (llm.Message, []string) {
	m := llm.Message{Role: llm.RoleAssistant}
	if g.chance(0.3) {
		b := llm.Block{Type: llm.BlockThinking, Text: g.text(40), Origin: g.pick(origins)}
		if g.chance(0.8) {
			b.Signature = "sig-" + g.text(10)
		}
		if g.chance(0.5) {
			b.ItemID = g.id("rs")
		}
		m.Content = append(m.Content, b)
	}
	if g.chance(0.1) {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockRedactedThinking, Data: "opaque-" + g.text(8), Origin: g.pick(origins)})
	}
	for range g.r.IntN(3) {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockText, Text: g.text(60)})
	}
	var ids []string
	for range g.r.IntN(4) {
		id := g.id("call")
		ids = append(ids, id)
		m.Content = append(m.Content, llm.Block{Type: llm.BlockToolUse, ToolUseID: id, ToolName: g.pick([]string{"read", "grep", "pwd"}),
			Input: json.RawMessage(g.pick(awkwardInputs))})
	}
	return m, ids
}

// user returns a user message answering calls (most of them, in a shuffled
// order, sometimes with a result for a call that does not exist).
func (g *historyGen) user(calls []string) llm.Message {
	m := llm.Message{Role: llm.RoleUser}
	var results []llm.Block
	for _, id := range calls {
		if g.chance(0.85) {
			results = append(results, llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: g.text(80), IsError: g.chance(0.2)})
		}
	}
	if g.chance(0.05) {
		results = append(results, llm.Block{Type: llm.BlockToolResult, ToolUseID: g.id("stray"), Content: g.text(20)})
	}
	if g.chance(0.3) {
		g.r.Shuffle(len(results), func(i, j int) { results[i], results[j] = results[j], results[i] })
	}
	m.Content = append(m.Content, results...)
	if len(results) == 0 || g.chance(0.2) {
		m.Content = append(m.Content, llm.Block{Type: llm.BlockText, Text: g.text(60)})
	}
	if g.chance(0.1) {
		m.Content = append(m.Content, g.image(), llm.Block{Type: llm.BlockText, Text: g.text(20)})
	}
	return m
}

// history returns n messages, mostly alternating user and assistant, with
// the irregularities the adapters must repair or tolerate: two messages of
// one role in a row, empty messages.
func (g *historyGen) history(n int) []llm.Message {
	var msgs []llm.Message
	var calls []string
	for len(msgs) < n {
		switch {
		case g.chance(0.03):
			role := llm.RoleUser
			if g.chance(0.5) {
				role = llm.RoleAssistant
			}
			msgs = append(msgs, llm.Message{Role: role})
		case len(msgs)%2 == 0 || g.chance(0.05):
			msgs = append(msgs, g.user(calls))
			calls = nil
		default:
			var m llm.Message
			m, calls = g.assistant()
			msgs = append(msgs, m)
		}
	}
	return msgs
}

var toolPool = []llm.ToolSpec{
	{Name: "read", Description: "Read <a> file & more", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	{Name: "grep", Description: "Search", InputSchema: json.RawMessage(`{"properties": {"pattern": {"type": "string"}}}`)},
	{Name: "pwd"},
}

// request returns a request around msgs with random top-level settings.
func (g *historyGen) request(msgs []llm.Message) *llm.Request {
	req := &llm.Request{
		Model:     g.pick([]string{"claude-sonnet-4-5", "gpt-5", "test-model"}),
		System:    g.pick(awkward),
		Messages:  msgs,
		MaxTokens: []int{0, 1, 100, 8000}[g.r.IntN(4)],
	}
	req.Tools = toolPool[:g.r.IntN(len(toolPool)+1)]
	switch g.r.IntN(4) {
	case 1:
		req.Thinking = &llm.Thinking{}
	case 2:
		req.Thinking = &llm.Thinking{BudgetTokens: 2000}
	case 3:
		req.Thinking = &llm.Thinking{Effort: "high"}
	}
	return req
}

// captureTransport answers every request with okStream and keeps the
// request bodies; with discard set it only counts their bytes (for
// benchmarks, where keeping a copy would be measured too).
type captureTransport struct {
	discard bool

	mu      sync.Mutex
	bodies  [][]byte
	size    int64
	headers http.Header // of the latest request
	// byKey holds the bodies of requests whose context carries a bodyKey,
	// for concurrent callers that must tell their requests apart.
	byKey map[bodyKey][]byte
}

// bodyKey, as a context value, files a request's body under that key.
type bodyKey int

func (ct *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var n int64
	var body []byte
	var err error
	if ct.discard {
		// bytes.Reader.WriteTo hands over the whole body in one Write.
		n, err = io.Copy(io.Discard, r.Body)
	} else {
		body, err = io.ReadAll(r.Body)
		n = int64(len(body))
	}
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	ct.mu.Lock()
	if !ct.discard {
		ct.bodies = append(ct.bodies, body)
	}
	if k, ok := r.Context().Value(bodyKey(0)).(bodyKey); ok {
		if ct.byKey == nil {
			ct.byKey = map[bodyKey][]byte{}
		}
		ct.byKey[k] = body
	}
	ct.size = n
	ct.headers = r.Header.Clone()
	ct.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(okStream)),
		Request:    r,
	}, nil
}

func (ct *captureTransport) last(t testing.TB) []byte {
	t.Helper()
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if len(ct.bodies) == 0 {
		t.Fatal("no request was sent")
	}
	return ct.bodies[len(ct.bodies)-1]
}

// captureClient returns a Client whose requests go to ct instead of a
// network. baseURL may be empty (the default endpoint).
func captureClient(ct *captureTransport, baseURL string) *Client {
	return New(Options{APIKey: "test-key", BaseURL: baseURL, HTTPClient: &http.Client{Transport: ct}})
}

// send streams req through c and returns the body that reached ct.
func send(t testing.TB, c *Client, ct *captureTransport, req *llm.Request) []byte {
	t.Helper()
	for _, err := range c.Stream(context.Background(), req) {
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
	}
	return ct.last(t)
}

// benchHistory returns a conversation of a first prompt and turns turns,
// each an assistant message (text and a tool call) and a user message with
// the call's result of about resultSize bytes of source-like text (quotes,
// tabs, newlines, <, > and &, which every encoder has to escape). Every
// string is distinct and allocated on its own, as in a real session.
func benchHistory(turns, resultSize int) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "Refactor the <parser> & fix the \"tests\"."}}}}
	for i := range turns {
		msgs = append(msgs, benchTurn(i, resultSize)...)
	}
	return msgs
}

// benchTurn returns turn i of benchHistory.
func benchTurn(i, resultSize int) []llm.Message {
	id := fmt.Sprintf("call_%06d", i)
	var b strings.Builder
	for line := 0; b.Len() < resultSize; line++ {
		fmt.Fprintf(&b, "%d:%d\tif v, ok := m[\"key_%d\"]; ok && v < %d || v > 2 {\n\t\treturn fmt.Errorf(\"bad <%%d> & more\", v)\n\t}\n", i, line, line, i)
	}
	return []llm.Message{
		{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockText, Text: fmt.Sprintf("Turn %d: I'll read file_%d.go next, then compare <a> & <b>.", i, i)},
			{Type: llm.BlockToolUse, ToolUseID: id, ToolName: "read", Input: json.RawMessage(fmt.Sprintf(`{"path":"src/pkg/file_%d.go","offset":0,"limit":400}`, i))},
		}},
		{Role: llm.RoleUser, Content: []llm.Block{
			{Type: llm.BlockToolResult, ToolUseID: id, Content: b.String()},
		}},
	}
}
