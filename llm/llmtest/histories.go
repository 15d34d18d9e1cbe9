package llmtest

// This file holds what the adapters' encoding-cache tests and request
// benchmarks share: a generator of random but well-formed conversations
// ([HistoryGen]), a long regular conversation for benchmarks
// ([BenchHistory]), a transport that captures request bodies without a
// network ([CaptureTransport]) and the protocol-independent checks of an
// encoding cache ([CacheSuite]).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/novacode/nova/llm"
)

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

// HistoryGen makes random conversations from a seed, the same ones for the
// same seed. Each string it returns is freshly allocated, as a model's
// answer would be.
type HistoryGen struct {
	r      *rand.Rand
	nextID int
}

// NewHistoryGen returns a generator seeded with seed.
func NewHistoryGen(seed uint64) *HistoryGen {
	return &HistoryGen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

func (g *HistoryGen) chance(p float64) bool { return g.r.Float64() < p }

func (g *HistoryGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

// text returns up to about n bytes made of awkward pieces.
func (g *HistoryGen) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(g.pick(awkward))
		if g.chance(0.3) {
			break
		}
	}
	return b.String()
}

func (g *HistoryGen) id(prefix string) string {
	g.nextID++
	return fmt.Sprintf("%s_%d", prefix, g.nextID)
}

func (g *HistoryGen) image() llm.Block {
	return llm.Block{Type: llm.BlockImage, MediaType: g.pick([]string{"image/png", "image/jpeg"}), Data: fmt.Sprintf("iVBORw0KGgo%d=", g.r.IntN(1000))}
}

// assistant returns an assistant message and the ids of its tool calls.
func (g *HistoryGen) assistant() (llm.Message, []string) {
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
	if g.chance(0.15) {
		m.Content = append(m.Content, g.search()...)
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

// search returns a web search of the provider's: the call and its result,
// whose Raw is what the protocol of its origin sent (any other origin gets
// Anthropic's shape; no adapter but its own reads it).
func (g *HistoryGen) search() []llm.Block {
	origin := g.pick(origins)
	id := g.id("srvtoolu")
	input, _ := json.Marshal(map[string]string{"query": g.text(20)})
	res := llm.Block{Type: llm.BlockServerToolResult, ToolUseID: id, ToolName: "web_search", Origin: origin}
	if g.chance(0.2) {
		res.IsError, res.Content = true, "unavailable"
	}
	for range g.r.IntN(3) {
		res.Results = append(res.Results, llm.SearchResult{Title: g.text(20), URL: "https://example.com/" + g.id("page")})
	}
	res.Raw = SearchRaw(origin, id, input, res)
	return []llm.Block{
		{Type: llm.BlockServerToolUse, ToolUseID: id, ToolName: "web_search", Input: input, Origin: origin},
		res,
	}
}

// SearchRaw is the provider's own encoding of web search result res (call
// id, input {"query": …}) as the protocol of origin sends it: a
// web_search_call item for Responses, a web_search_tool_result block
// otherwise.
func SearchRaw(origin, id string, input json.RawMessage, res llm.Block) json.RawMessage {
	var in struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(input, &in)
	if origin == llm.OriginOpenAIResponses {
		w := rWebSearchCall{ID: id, Type: "web_search_call", Status: "completed",
			Action: rSearchAction{Type: "search", Queries: []string{in.Query}, Query: in.Query}}
		if res.IsError {
			w.Status = "failed"
		}
		for _, r := range res.Results {
			w.Action.Sources = append(w.Action.Sources, rSource{Type: "url", URL: r.URL})
		}
		return marshal(w)
	}
	b := Block{Kind: KindWebSearch, SearchError: res.Content}
	if !res.IsError {
		b.SearchError = ""
	}
	for _, r := range res.Results {
		b.Results = append(b.Results, SearchResult{Title: r.Title, URL: r.URL, PageAge: r.PageAge})
	}
	return marshal(aSearchResult(b, id))
}

// user returns a user message answering calls (most of them, in a shuffled
// order, sometimes with a result for a call that does not exist).
func (g *HistoryGen) user(calls []string) llm.Message {
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

// History returns n messages, mostly alternating user and assistant, with
// the irregularities the adapters must repair or tolerate: two messages of
// one role in a row, empty messages, unanswered and stray tool calls,
// strings that need escaping.
func (g *HistoryGen) History(n int) []llm.Message {
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

// ToolPool are three tool specs: one with a full schema and a description
// that needs escaping, one with a loose schema, one with neither.
// [HistoryGen.Request] offers a prefix of them.
var ToolPool = []llm.ToolSpec{
	{Name: "read", Description: "Read <a> file & more", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	{Name: "grep", Description: "Search", InputSchema: json.RawMessage(`{"properties": {"pattern": {"type": "string"}}}`)},
	{Name: "pwd"},
}

// Request returns a request around msgs with random top-level settings:
// model, system prompt, token limit, tools and thinking.
func (g *HistoryGen) Request(msgs []llm.Message) *llm.Request {
	req := &llm.Request{
		Model:     g.pick([]string{"claude-sonnet-4-5", "gpt-5", "test-model"}),
		System:    g.pick(awkward),
		Messages:  msgs,
		MaxTokens: []int{0, 1, 100, 8000}[g.r.IntN(4)],
	}
	req.Tools = ToolPool[:g.r.IntN(len(ToolPool)+1)]
	if g.chance(0.3) {
		req.WebSearch = &llm.WebSearch{MaxUses: 4 * g.r.IntN(3)}
	}
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

// BenchHistory returns a conversation of a first prompt and turns turns,
// each an assistant message (text and a tool call) and a user message with
// the call's result of about resultSize bytes of source-like text (quotes,
// tabs, newlines, <, > and &, which every encoder has to escape). Every
// string is distinct and allocated on its own, as in a real session.
func BenchHistory(turns, resultSize int) []llm.Message {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "Refactor the <parser> & fix the \"tests\"."}}}}
	for i := range turns {
		msgs = append(msgs, BenchTurn(i, resultSize)...)
	}
	return msgs
}

// BenchTurn returns turn i of [BenchHistory]: its two messages.
func BenchTurn(i, resultSize int) []llm.Message {
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

// CaptureTransport is an http.RoundTripper that answers every request with
// 200 and Response as a text/event-stream body, and keeps the request
// bodies. Its zero value (with Response set) is ready to use; it is safe for
// concurrent use.
type CaptureTransport struct {
	// Response is the canned SSE body to answer with: the adapter's
	// smallest complete stream.
	Response string
	// Discard makes it count the bytes of each body instead of keeping it
	// (for benchmarks, where keeping a copy would be measured too); Last and
	// BodyFor then have nothing to return.
	Discard bool

	mu      sync.Mutex
	bodies  [][]byte
	size    int64
	headers http.Header // of the latest request
	// byKey holds the bodies of requests whose context carries a body key
	// (WithBodyKey), for concurrent callers that must tell them apart.
	byKey map[int][]byte
}

// bodyKeyCtx is the context key of WithBodyKey.
type bodyKeyCtx struct{}

// WithBodyKey returns a context that makes a CaptureTransport file the body
// of a request sent with it under key, for [CaptureTransport.BodyFor].
func WithBodyKey(ctx context.Context, key int) context.Context {
	return context.WithValue(ctx, bodyKeyCtx{}, key)
}

// RoundTrip implements http.RoundTripper.
func (ct *CaptureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var n int64
	var body []byte
	var err error
	if ct.Discard {
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
	if !ct.Discard {
		ct.bodies = append(ct.bodies, body)
	}
	if k, ok := r.Context().Value(bodyKeyCtx{}).(int); ok {
		if ct.byKey == nil {
			ct.byKey = map[int][]byte{}
		}
		ct.byKey[k] = body
	}
	ct.size = n
	ct.headers = r.Header.Clone()
	ct.mu.Unlock()
	return &http.Response{
		StatusCode: http.StatusOK,
		Header:     http.Header{"Content-Type": []string{"text/event-stream"}},
		Body:       io.NopCloser(strings.NewReader(ct.Response)),
		Request:    r,
	}, nil
}

// Last returns the body of the latest request; it fails t if none was
// sent.
func (ct *CaptureTransport) Last(t testing.TB) []byte {
	t.Helper()
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if len(ct.bodies) == 0 {
		t.Fatal("no request was sent")
	}
	return ct.bodies[len(ct.bodies)-1]
}

// Size returns the size in bytes of the latest request's body.
func (ct *CaptureTransport) Size() int64 {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.size
}

// Headers returns a copy of the latest request's headers.
func (ct *CaptureTransport) Headers() http.Header {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.headers.Clone()
}

// BodyFor returns the body of the latest request sent with a context from
// WithBodyKey(ctx, key), or nil.
func (ct *CaptureTransport) BodyFor(key int) []byte {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return ct.byKey[key]
}

// Send streams req through c to its end and returns the body that reached
// ct, c's transport. It fails t if the stream fails.
func Send(t testing.TB, c llm.Client, ct *CaptureTransport, req *llm.Request) []byte {
	t.Helper()
	for _, err := range c.Stream(context.Background(), req) {
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
	}
	return ct.Last(t)
}

// CacheSuite holds the checks of an adapter's encoding cache (which keeps
// the wire encoding of each message of the latest request, to encode only
// what is new on the next) that do not depend on the protocol: a caching
// client must send exactly the body an uncached one sends, whatever the
// history does between calls, must reuse the encoding of every unchanged
// message and must encode every changed one again.
type CacheSuite struct {
	// Response is the adapter's smallest complete stream, for the
	// transports of the clients.
	Response string
	// NewClients returns a caching client and one with the cache disabled,
	// which encodes every message on every call, whose requests go through
	// cached and uncached, at the endpoint the adapter tests for seed.
	NewClients func(seed uint64, cached, uncached http.RoundTripper) (c, plain llm.Client)
	// Fresh reports, for each message of the latest request of c (a caching
	// client of NewClients), whether that request encoded it rather than
	// reusing an earlier encoding.
	Fresh func(c llm.Client) []bool
	// Decorated returns the index of the message of msgs whose encoding
	// depends on its position, or -1.
	Decorated func(msgs []llm.Message) int
}

// cacheHarness sends every request through a caching client and through an
// uncached one, and requires identical bodies.
type cacheHarness struct {
	s                 *CacheSuite
	cachedCT, plainCT CaptureTransport
	cached, plain     llm.Client
}

func (s *CacheSuite) harness(seed uint64) *cacheHarness {
	h := &cacheHarness{s: s, cachedCT: CaptureTransport{Response: s.Response}, plainCT: CaptureTransport{Response: s.Response}}
	h.cached, h.plain = s.NewClients(seed, &h.cachedCT, &h.plainCT)
	return h
}

// check sends req with msgs through both clients and compares the bodies
// byte for byte. It returns which messages the cached client encoded.
func (h *cacheHarness) check(t *testing.T, step string, req *llm.Request, msgs []llm.Message) []bool {
	t.Helper()
	r := *req
	r.Messages = msgs
	got := Send(t, h.cached, &h.cachedCT, &r)
	want := Send(t, h.plain, &h.plainCT, &r)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: cached body differs from the uncached one %s", step, FirstDiff(got, want))
	}
	return h.s.Fresh(h.cached)
}

// FirstDiff describes where a (the cached body) and b (the uncached one)
// first differ.
func FirstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-60)
	return fmt.Sprintf("at byte %d (lengths %d, %d):\n  cached:   %q\n  uncached: %q", i, len(a), len(b), a[lo:min(len(a), i+60)], b[lo:min(len(b), i+60)])
}

// expectReused fails for every message before n, but those in skip, that
// was encoded again (fresh is from the latest call).
func expectReused(t *testing.T, step string, msgs []llm.Message, fresh []bool, n int, skip ...int) {
	t.Helper()
	for i := range n {
		if !slices.Contains(skip, i) && fresh[i] {
			t.Errorf("%s: message %d was encoded again though unchanged", step, i)
		}
	}
}

// edits change one message of a history in place, the way an embedder
// editing history might: from index from on, the first message they apply
// to. They return its index, or -1.
var edits = []struct {
	name string
	edit func(msgs []llm.Message, from int) int
}{
	{"text replaced", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockText && b.Text != "" {
				b.Text += "!"
				return true
			}
			return false
		})
	}},
	{"tool result replaced", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockToolResult {
				b.Content = "edited " + b.Content
				return true
			}
			return false
		})
	}},
	{"input rewritten in place", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockToolUse && len(b.Input) > 2 {
				// Same backing array, same length: only the bytes say it
				// changed.
				b.Input[len(b.Input)/2] ^= 1
				return true
			}
			return false
		})
	}},
	{"error flag flipped", func(msgs []llm.Message, from int) int {
		return findBlock(msgs, from, func(b *llm.Block) bool {
			if b.Type == llm.BlockToolResult {
				b.IsError = !b.IsError
				return true
			}
			return false
		})
	}},
	{"last block dropped in place", func(msgs []llm.Message, from int) int {
		for i := from; i < len(msgs); i++ {
			if n := len(msgs[i].Content); n > 1 && msgs[i].Content[n-1].Type != llm.BlockToolUse {
				msgs[i].Content = msgs[i].Content[:n-1]
				return i
			}
		}
		return -1
	}},
	{"block appended", func(msgs []llm.Message, from int) int {
		if from >= len(msgs) {
			return -1
		}
		msgs[from].Content = append(msgs[from].Content, llm.Block{Type: llm.BlockText, Text: "appended"})
		return from
	}},
	{"role changed", func(msgs []llm.Message, from int) int {
		for i := from; i < len(msgs); i++ {
			if onlyText(msgs[i].Content) {
				if msgs[i].Role == llm.RoleUser {
					msgs[i].Role = llm.RoleAssistant
				} else {
					msgs[i].Role = llm.RoleUser
				}
				return i
			}
		}
		return -1
	}},
}

func findBlock(msgs []llm.Message, from int, edit func(*llm.Block) bool) int {
	for i := from; i < len(msgs); i++ {
		for j := range msgs[i].Content {
			if edit(&msgs[i].Content[j]) {
				return i
			}
		}
	}
	return -1
}

func onlyText(blocks []llm.Block) bool {
	for _, b := range blocks {
		if b.Type != llm.BlockText {
			return false
		}
	}
	return len(blocks) > 0
}

// MatchesUncached drives long random histories through turns, in-place
// edits of earlier messages, reordering, truncation and changes of the
// other settings, and requires the cached encoder to produce exactly the
// uncached body every time, to reuse every unchanged message and to encode
// every edited one again.
func (s *CacheSuite) MatchesUncached(t *testing.T) {
	for seed := range uint64(16) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			g := NewHistoryGen(seed)
			msgs := g.History(120)
			req := g.Request(nil)
			h := s.harness(seed)

			for k := 0; k <= len(msgs); k += 2 {
				step := fmt.Sprintf("turn with %d messages", k)
				fresh := h.check(t, step, req, msgs[:k])
				if k > 0 {
					expectReused(t, step, msgs, fresh, k-2, s.Decorated(msgs[:k-2]), s.Decorated(msgs[:k]))
				}
			}

			for n, e := range edits {
				before := s.Decorated(msgs)
				j := e.edit(msgs, 5+13*n)
				if j < 0 {
					continue
				}
				step := fmt.Sprintf("%s (message %d)", e.name, j)
				fresh := h.check(t, step, req, msgs)
				if !fresh[j] {
					t.Errorf("%s: the stale encoding was reused", step)
				}
				expectReused(t, step, msgs, fresh, j, before, s.Decorated(msgs))
			}

			// The same messages at other positions.
			msgs[20], msgs[31] = msgs[31], msgs[20]
			h.check(t, "messages 20 and 31 swapped", req, msgs)
			msgs[20], msgs[31] = msgs[31], msgs[20]
			h.check(t, "swapped back", req, msgs)
			h.check(t, "history cut to 41 messages", req, msgs[:41])
			h.check(t, "whole history again", req, msgs)
			h.check(t, "no messages", req, nil)
			for i := range 3 {
				h.check(t, fmt.Sprintf("other settings %d", i), g.Request(nil), msgs)
			}
		})
	}
}

// RecordedRequests compares the cached and uncached bodies of every
// recorded request in dir (*.request.json, read by parse) and of the
// requests in extra, each sent twice (the second time entirely from the
// cache).
func (s *CacheSuite) RecordedRequests(t *testing.T, dir string, parse func(t *testing.T, body []byte) *llm.Request, extra map[string]*llm.Request) {
	files, err := filepath.Glob(filepath.Join(dir, "*.request.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded requests: %v", err)
	}
	reqs := map[string]*llm.Request{}
	for name, req := range extra {
		reqs[name] = req
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		reqs[filepath.Base(f)] = parse(t, body)
	}
	for name, req := range reqs {
		t.Run(name, func(t *testing.T) {
			h := s.harness(0)
			h.check(t, "first call", req, req.Messages)
			h.check(t, "second call", req, req.Messages)
		})
	}
}

// Errors checks that an invalid message fails the call as it does without
// the cache, with an llm.ErrInvalid, and leaves nothing behind that a
// corrected history could pick up.
func (s *CacheSuite) Errors(t *testing.T) {
	g := NewHistoryGen(99)
	msgs := g.History(30)
	req := g.Request(nil)
	h := s.harness(0)
	h.check(t, "valid history", req, msgs)

	for _, bad := range []struct {
		name  string
		spoil func(m *llm.Message) (restore func())
	}{
		{"unsupported block", func(m *llm.Message) func() {
			m.Content = append(m.Content, llm.Block{Type: "bogus"})
			return func() { m.Content = m.Content[:len(m.Content)-1] }
		}},
		{"unknown role", func(m *llm.Message) func() {
			role := m.Role
			m.Role = "system"
			return func() { m.Role = role }
		}},
	} {
		t.Run(bad.name, func(t *testing.T) {
			restore := bad.spoil(&msgs[7])
			r := *req
			r.Messages = msgs
			errOf := func(c llm.Client) error {
				for _, err := range c.Stream(context.Background(), &r) {
					if err != nil {
						return err
					}
				}
				return nil
			}
			gotErr, wantErr := errOf(h.cached), errOf(h.plain)
			var llmErr *llm.Error
			if !errors.As(gotErr, &llmErr) || llmErr.Kind != llm.ErrInvalid {
				t.Errorf("cached: got %v, want an llm.ErrInvalid", gotErr)
			}
			if got, want := fmt.Sprint(gotErr), fmt.Sprint(wantErr); got != want {
				t.Errorf("cached error differs from the uncached one:\n  uncached: %s\n  cached:   %s", want, got)
			}
			restore()
			h.check(t, "repaired history", req, msgs)
		})
	}
}

// Concurrent sends different histories through one client from several
// goroutines (run it with -race): each body must be its own request's,
// whatever the others did to the cache meanwhile.
func (s *CacheSuite) Concurrent(t *testing.T) {
	const workers, calls = 4, 12
	ct := &CaptureTransport{Response: s.Response}
	plainCT := &CaptureTransport{Response: s.Response}
	c, plain := s.NewClients(0, ct, plainCT)

	// Each worker grows its own history; the first two share a prefix.
	var wg sync.WaitGroup
	for w := range workers {
		g := NewHistoryGen(uint64(100 + max(w, 1)))
		msgs := g.History(2 * calls)
		req := g.Request(nil)
		wg.Go(func() {
			for k := range calls {
				key := w*calls + k + 1
				r := *req
				r.Messages = msgs[:2*k+1]
				ctx := WithBodyKey(context.Background(), key)
				for _, err := range c.Stream(ctx, &r) {
					if err != nil {
						t.Errorf("worker %d call %d: %v", w, k, err)
						return
					}
				}
				for _, err := range plain.Stream(ctx, &r) {
					if err != nil {
						t.Errorf("worker %d call %d, uncached: %v", w, k, err)
						return
					}
				}
				got, want := ct.BodyFor(key), plainCT.BodyFor(key)
				if !bytes.Equal(got, want) {
					t.Errorf("worker %d call %d: body differs from the uncached one %s", w, k, FirstDiff(got, want))
				}
			}
		})
	}
	wg.Wait()
}

// SpliceMarkerInSchema puts the marker that stands for the messages in the
// envelope into a tool schema too; the body must still be right.
func (s *CacheSuite) SpliceMarkerInSchema(t *testing.T) {
	g := NewHistoryGen(7)
	msgs := g.History(12)
	req := &llm.Request{Model: "m", MaxTokens: 100, Tools: []llm.ToolSpec{{Name: "x", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"a":{"role":"nova-request-splice-point"}},"default":"nova-request-splice-point"}`)}}}
	h := s.harness(0)
	h.check(t, "first call", req, msgs)
	h.check(t, "second call", req, msgs)
}

// SnapshotDetectsEveryField changes each field of a block in turn and
// requires a message snapshot to notice, so that a field added to
// llm.Block cannot be forgotten by the snapshot. snapshot takes a snapshot
// of m and returns its match function: whether a message is still equal to
// m as it was.
func SnapshotDetectsEveryField(t *testing.T, snapshot func(m *llm.Message) (matches func(*llm.Message) bool)) {
	newMessage := func() llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Block{{
			Type: llm.BlockToolUse, Text: "t", Signature: "s", Origin: "o", ItemID: "i", Data: "d", MediaType: "m",
			ToolUseID: "u", ToolName: "n", Input: json.RawMessage(`{"a":1}`), Content: "c",
			Results: []llm.SearchResult{{Title: "t", URL: "u", PageAge: "p"}}, Raw: json.RawMessage(`{"b":2}`),
		}}}
	}
	typ := reflect.TypeFor[llm.Block]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			m := newMessage()
			matches := snapshot(&m)
			if !matches(&m) {
				t.Fatal("a snapshot does not match its own message")
			}
			v := reflect.ValueOf(&m.Content[0]).Elem().Field(i)
			switch {
			case v.Kind() == reflect.String:
				v.SetString(v.String() + "x")
			case v.Kind() == reflect.Bool:
				v.SetBool(!v.Bool())
			case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8:
				// In place: the snapshot must own a copy.
				v.Index(1).SetUint(v.Index(1).Uint() ^ 1)
			case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct:
				// In place, each field of the first element in turn.
				for j := range v.Index(0).NumField() {
					e := v.Index(0).Field(j)
					e.SetString(e.String() + "x")
					if matches(&m) {
						t.Errorf("a change of %s[0].%s went unnoticed", f.Name, v.Type().Elem().Field(j).Name)
					}
					e.SetString(e.String()[:e.Len()-1])
				}
				v.Index(0).Field(0).SetString("changed")
			default:
				t.Fatalf("field %s of kind %s: teach messageSnapshot.matches and this test about it", f.Name, v.Kind())
			}
			if matches(&m) {
				t.Errorf("a change of %s went unnoticed", f.Name)
			}
		})
	}

	t.Run("equal copies match", func(t *testing.T) {
		a, b := newMessage(), newMessage()
		b.Content[0].Text = string([]byte("t")) // equal, other bytes
		matches := snapshot(&a)
		if !matches(&b) {
			t.Error("an equal message with its own strings does not match")
		}
	})
	t.Run("role and length", func(t *testing.T) {
		m := newMessage()
		matches := snapshot(&m)
		m.Role = llm.RoleAssistant
		if matches(&m) {
			t.Error("a change of role went unnoticed")
		}
		m = newMessage()
		m.Content = append(m.Content, llm.Block{Type: llm.BlockText})
		if matches(&m) {
			t.Error("an added block went unnoticed")
		}
	})
}
