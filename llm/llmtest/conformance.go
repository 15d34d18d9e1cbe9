package llmtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
)

// Adapter is what the conformance suite needs of a provider adapter: how to
// make its client, where the recordings of its protocol are, and the few
// things its protocol does its own way. Everything else is checked alike for
// every adapter.
type Adapter struct {
	// Recordings are the directories of recorded real streams (*.sse) and
	// of the requests that produced them (*.request.json, decoded by
	// RequestFromRecording).
	Recordings []string
	// Goldens is the directory of the golden renderings, one per stream
	// ("testdata/golden" when empty); Update rewrites them (the adapter's
	// -update flag).
	Goldens string
	Update  bool

	// New returns a client for the server at baseURL (the adapter adds any
	// path prefix) with its SDK's own retries off and requestTimeout (0:
	// none); it closes its idle connections at test cleanup.
	New func(t testing.TB, baseURL string, requestTimeout time.Duration) llm.Client
	// Request is what the replays ask for; any request the adapter accepts.
	Request *llm.Request

	// Origin is the llm.Origin… of the protocol, which every thinking delta
	// carries.
	Origin string
	// Thinking writes a thinking delta into a golden rendering (with g.Delta
	// or g.Line): signatures, encrypted reasoning and item ids differ by
	// protocol. ToolDeltaID adds the call's id to tool_delta lines.
	Thinking    func(g *Golden, e llm.ThinkingDelta)
	ToolDeltaID bool

	// CheckRecording compares the events of a replay with what the
	// recording itself says (usage, stop reason, text, calls…), read from
	// its raw JSON without the adapter's code: what no golden file should be
	// trusted for.
	CheckRecording func(t *testing.T, events []llm.StreamEvent, sse []byte)
	// RequestFromRecording rebuilds the llm.Request a recorded request body
	// was made from.
	RequestFromRecording func(t *testing.T, body []byte) *llm.Request
	// Deliberate edits a sent body and its recording (both decoded) so that
	// they compare equal where the adapter deliberately differs from the
	// recording's client; it may check what it removes.
	Deliberate func(t *testing.T, sent, recorded map[string]any)
	// Requests are hand-written requests (every block type, say) the request
	// and cache checks send besides the recorded ones.
	Requests map[string]*llm.Request
	// Invalid are requests the protocol cannot carry, besides those no
	// protocol can.
	Invalid map[string]*llm.Request

	// Faults are the stream bytes of the fault suite (its New is the
	// adapter's).
	Faults StreamFaults
	// Cache holds the encoding-cache hooks (its Response at least).
	Cache CacheSuite
	// Garbage are bodies of this protocol's events that make no sense, for
	// the damage check, besides the damaged recordings.
	Garbage []string
}

// Conformance runs every check of a provider adapter as subtests:
//
//   - Replay: every recorded stream, through the real client against a
//     local server, renders as its golden file, keeps the event contract
//     (CheckEvents) and agrees with its recording (Adapter.CheckRecording);
//   - Requests: every recorded request is rebuilt and sent, and the body on
//     the wire equals the recorded one but for the deliberate differences;
//     every request gives the same bytes twice;
//   - Invalid: a request no protocol (or not this one) can carry, or a base
//     URL that is none, fails with llm.ErrInvalid before anything is sent;
//   - Contract: a consumer that stops after any event of a recording gets
//     no further call of yield, and the stream ends cleanly (the adapter's
//     TestMain checks with goleak that nothing is left behind);
//   - Damaged: truncated, garbled and nonsensical streams end with
//     StreamEnd or one *llm.Error, never a panic or a hang;
//   - Faults: the fault suite (StreamFaults);
//   - Cache: the encoding-cache suite (CacheSuite), over random histories,
//     the recorded and the hand-written requests;
//   - WebSearch: SearchTurn from the scripted server, in the adapter's
//     protocol: a protocol with a web search of its own (llm.HasWebSearch)
//     offers it when asked, reports the searches, their results and the
//     citations alike, counts the searches that ran and sends them back on
//     the next call; one without offers nothing and sends nothing back.
func Conformance(t *testing.T, a Adapter) {
	t.Run("Replay", a.replay)
	t.Run("Requests", a.requests)
	t.Run("Invalid", a.invalid)
	t.Run("BadBaseURL", a.badBaseURL)
	t.Run("Contract", a.contract)
	t.Run("Damaged", a.damaged)
	t.Run("Faults", func(t *testing.T) {
		f := a.Faults
		f.New = a.New
		f.Run(t)
	})
	t.Run("Cache", func(t *testing.T) {
		c := a.Cache
		t.Run("MatchesUncached", c.MatchesUncached)
		t.Run("RecordedRequests", func(t *testing.T) {
			for _, dir := range a.requestDirs(t) {
				c.RecordedRequests(t, dir, a.RequestFromRecording, a.Requests)
			}
		})
		t.Run("Errors", c.Errors)
		t.Run("Concurrent", c.Concurrent)
		t.Run("SpliceMarkerInSchema", c.SpliceMarkerInSchema)
	})
	t.Run("WebSearch", a.webSearch)
}

// SearchTurn searches, cites what it found and searches again in vain:
// every shape of the providers' web search, for the conformance suite and
// the end-to-end tests.
var SearchTurn = Turn{
	Model: "claude-sonnet-4-20250514",
	Blocks: []Block{
		{Kind: KindWebSearch, Query: "go 1.26 release", Fragments: 2, Results: []SearchResult{
			{Title: "Go 1.26 Release Notes", URL: "https://go.dev/doc/go1.26", PageAge: "2 weeks ago"},
			{Title: "The Go Blog", URL: "https://go.dev/blog/"},
		}},
		Text("Per the notes, "),
		CitedText("Go 1.26 shipped in February.", Citation{
			URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes", CitedText: "Go 1.26 was released in February 2026.",
		}),
		{Kind: KindWebSearch, Query: "go 1.27", SearchError: "max_uses_exceeded", Fragments: 1},
	},
	Usage: llm.Usage{InputTokens: 2049, OutputTokens: 57},
}

// search is what a stream says of one web search, protocol aside.
type search struct {
	Query string
	URLs  []string
	Error bool
}

func (a Adapter) webSearch(t *testing.T) {
	srv := NewServer(SearchTurn, Turn{Blocks: []Block{Text("ok")}})
	t.Cleanup(srv.Close)
	c := a.New(t, srv.URL, 0)
	req := Hi("claude-sonnet-4-20250514")
	req.WebSearch = &llm.WebSearch{MaxUses: 3}
	events, err := Collect(t, c.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	CheckEvents(t, events, a.Origin)

	var searches []search
	var cites []string
	var text string
	for _, ev := range events {
		switch e := ev.(type) {
		case llm.ServerToolUse:
			var in struct{ Query string }
			if err := json.Unmarshal(e.Input, &in); err != nil {
				t.Errorf("search input %s: %v", e.Input, err)
			}
			searches = append(searches, search{Query: in.Query})
		case llm.ServerToolResult:
			s := &searches[len(searches)-1]
			for _, r := range e.Results {
				s.URLs = append(s.URLs, r.URL)
			}
			s.Error = e.Error != ""
		case llm.Citation:
			cites = append(cites, e.URL)
		case llm.TextDelta:
			text += e.Text
		}
	}
	end := events[len(events)-1].(llm.StreamEnd)
	want := []search{{"go 1.26 release", []string{"https://go.dev/doc/go1.26", "https://go.dev/blog/"}, false}, {"go 1.27", nil, true}}
	wantCites, wantCount := []string{"https://go.dev/doc/go1.26"}, int64(1)
	if !llm.HasWebSearch(a.Origin) {
		want, wantCites, wantCount = nil, nil, 0
	}
	if diff := gocmp.Diff(want, searches); diff != "" {
		t.Errorf("searches (-want +got):\n%s", diff)
	}
	if diff := gocmp.Diff(wantCites, cites); diff != "" {
		t.Errorf("citations (-want +got):\n%s", diff)
	}
	if text != "Per the notes, Go 1.26 shipped in February." || end.Usage.WebSearchRequests != wantCount {
		t.Errorf("text %q, %d searches counted; want %d", text, end.Usage.WebSearchRequests, wantCount)
	}

	// The next call carries the searches back, to this protocol only.
	req.Messages = append(req.Messages, Assistant(events), llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "thanks"}}})
	if _, err := Collect(t, c.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	first, next := string(reqs[0].Body), string(reqs[1].Body)
	for _, s := range []string{`web_search`, `go 1.26 release`, `https://go.dev/blog/`, `go 1.27`} {
		if sent := strings.Contains(next, s); sent != llm.HasWebSearch(a.Origin) {
			t.Errorf("%q in the next request: %v, want %v\n%s", s, sent, !sent, next)
		}
	}
	if offered := strings.Contains(first, `web_search`); offered != llm.HasWebSearch(a.Origin) {
		t.Errorf("web search offered: %v\n%s", offered, first)
	}
}

// Hi returns a request that only says "hi" to model: for tests about
// anything but the request.
func Hi(model string) *llm.Request {
	return &llm.Request{
		Model: model, MaxTokens: 100,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "hi"}}}},
	}
}

// Render writes events as the adapter's golden files show them.
func (a Adapter) Render(events []llm.StreamEvent) string {
	g := &Golden{Thinking: a.Thinking, ToolDeltaID: a.ToolDeltaID}
	return g.Render(events)
}

// streams returns every recorded stream, directory by directory.
func (a Adapter) streams(t testing.TB) []string {
	t.Helper()
	var all []string
	for _, dir := range a.Recordings {
		files, err := filepath.Glob(filepath.Join(dir, "*.sse"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("no recorded streams under %s", dir)
		}
		all = append(all, files...)
	}
	return all
}

// requestDirs returns the recording directories that hold requests.
func (a Adapter) requestDirs(t testing.TB) []string {
	t.Helper()
	var dirs []string
	for _, dir := range a.Recordings {
		if files, _ := filepath.Glob(filepath.Join(dir, "*.request.json")); len(files) > 0 {
			dirs = append(dirs, dir)
		}
	}
	if len(dirs) == 0 {
		t.Fatalf("no recorded requests under %v", a.Recordings)
	}
	return dirs
}

// LargestRecording returns the biggest recorded stream, for benchmarks and
// the damage check.
func (a Adapter) LargestRecording(t testing.TB) []byte {
	t.Helper()
	var best []byte
	for _, f := range a.streams(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > len(best) {
			best = data
		}
	}
	return best
}

// serve starts a server that answers every request with h; connections are
// cut before Close, which waits for handlers.
func serve(t testing.TB, h http.Handler) *httptest.Server {
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv
}

// eachStream runs check as a subtest for every recorded stream, with a
// client against a server that replays it and the events of one replay.
func (a Adapter) eachStream(t *testing.T, check func(t *testing.T, name string, body []byte, c llm.Client, events []llm.StreamEvent)) {
	for _, file := range a.streams(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".sse")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			c := a.New(t, serve(t, SSEHandler(body)).URL, 0)
			events, err := Collect(t, c.Stream(context.Background(), a.Request))
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			check(t, name, body, c, events)
		})
	}
}

func (a Adapter) replay(t *testing.T) {
	a.eachStream(t, func(t *testing.T, name string, body []byte, c llm.Client, events []llm.StreamEvent) {
		got := a.Render(events)
		golden := filepath.Join(cmp.Or(a.Goldens, filepath.Join("testdata", "golden")), name+".golden")
		if a.Update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if diff := gocmp.Diff(string(want), got); diff != "" {
			t.Errorf("events differ from %s (-want +got):\n%s", golden, diff)
		}

		CheckEvents(t, events, a.Origin)
		a.CheckRecording(t, events, body)
	})
}

// Body keeps the body of the latest request it saw and answers with a
// canned stream.
type Body struct {
	Response string

	mu   sync.Mutex
	n    int
	last []byte
	req  *http.Request
}

func (b *Body) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	b.mu.Lock()
	b.n++
	b.last, b.req = body, r
	b.mu.Unlock()
	SSEHandler([]byte(b.Response))(w, r)
}

// Last returns the latest request and its body; it fails t if none came.
func (b *Body) Last(t testing.TB) (*http.Request, []byte) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.n == 0 {
		t.Fatal("no request arrived")
	}
	return b.req, b.last
}

// Count is the number of requests so far.
func (b *Body) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// Send streams req through a client of the adapter against a local server
// answering with response, and returns the request the server saw and its
// body.
func (a Adapter) Send(t testing.TB, req *llm.Request, response string) (*http.Request, []byte) {
	t.Helper()
	return SendTo(t, func(url string) llm.Client { return a.New(t, url, 0) }, req, response)
}

// SendTo streams req through the client newClient makes for a local server
// answering with response, and returns the request the server saw and its
// body.
func SendTo(t testing.TB, newClient func(serverURL string) llm.Client, req *llm.Request, response string) (*http.Request, []byte) {
	t.Helper()
	b := &Body{Response: response}
	c := newClient(serve(t, b).URL)
	if _, err := Collect(t, c.Stream(context.Background(), req)); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	return b.Last(t)
}

func decodeObject(t testing.TB, body []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body is no JSON object: %v\n%s", err, body)
	}
	return m
}

func (a Adapter) requests(t *testing.T) {
	for _, dir := range a.requestDirs(t) {
		files, _ := filepath.Glob(filepath.Join(dir, "*.request.json"))
		for _, file := range files {
			name := strings.TrimSuffix(filepath.Base(file), ".request.json")
			t.Run(name, func(t *testing.T) {
				recorded, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				_, sent := a.Send(t, a.RequestFromRecording(t, recorded), a.Cache.Response)
				got, want := decodeObject(t, sent), decodeObject(t, recorded)
				a.Deliberate(t, got, want)
				if diff := gocmp.Diff(want, got); diff != "" {
					t.Errorf("request body differs from the recording (-want +got):\n%s", diff)
				}
			})
		}
	}
	// Prompt caching needs the same bytes for the same request, from any
	// client.
	for name, req := range a.Requests {
		t.Run(name+"/deterministic", func(t *testing.T) {
			_, first := a.Send(t, req, a.Cache.Response)
			for range 3 {
				if _, again := a.Send(t, req, a.Cache.Response); !bytes.Equal(first, again) {
					t.Fatalf("request bytes changed between clients %s", FirstDiff(again, first))
				}
			}
		})
	}
}

// invalid are requests no protocol can carry.
var invalid = func() map[string]*llm.Request {
	user := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "a"}}}}
	return map[string]*llm.Request{
		"nil request":          nil,
		"unknown role":         {Messages: []llm.Message{{Role: "system", Content: user[0].Content}}},
		"unknown block":        {Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: "video"}}}}},
		"schema not an object": {Messages: user, Tools: []llm.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`[1]`)}}},
		"schema not JSON":      {Messages: user, Tools: []llm.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`{"type":`)}}},
	}
}()

func (a Adapter) invalid(t *testing.T) {
	reqs := maps.Clone(invalid)
	maps.Copy(reqs, a.Invalid)
	for name, req := range reqs {
		t.Run(name, func(t *testing.T) {
			b := &Body{Response: a.Cache.Response}
			c := a.New(t, serve(t, b).URL, 0)
			events, err := Collect(t, c.Stream(context.Background(), req))
			var le *llm.Error
			if !errors.As(err, &le) || le.Kind != llm.ErrInvalid || len(events) != 0 {
				t.Fatalf("got %v, %v; want only an llm.ErrInvalid", events, err)
			}
			if b.Count() != 0 {
				t.Errorf("an invalid request was sent")
			}
		})
	}
}

// A base URL that is no URL (the adapter's New may add a path to it) is a
// configuration error, reported by every call.
func (a Adapter) badBaseURL(t *testing.T) {
	for _, base := range []string{"://nope", "api.example.com", "ftp://example.com"} {
		c := a.New(t, base, 0)
		_, err := Collect(t, c.Stream(context.Background(), a.Request))
		var le *llm.Error
		if !errors.As(err, &le) || le.Kind != llm.ErrInvalid || le.Err == nil {
			t.Errorf("base %q: err = %v, want llm.ErrInvalid with a cause", base, err)
		}
		if ws, ok := c.(llm.WindowSource); ok {
			if _, err := ws.ContextWindow(context.Background(), "m"); !errors.As(err, &le) || le.Kind != llm.ErrInvalid {
				t.Errorf("base %q: ContextWindow err = %v, want llm.ErrInvalid", base, err)
			}
		}
	}
}

// stops returns the event counts after which the contract check stops a
// stream of n events: all for a short stream, a spread for a long one.
func stops(n int) []int {
	var ks []int
	for k := 1; k <= n; k++ {
		if n <= 40 || k <= 10 || k >= n-2 || k%(n/20) == 0 {
			ks = append(ks, k)
		}
	}
	return ks
}

func (a Adapter) contract(t *testing.T) {
	a.eachStream(t, func(t *testing.T, _ string, _ []byte, c llm.Client, all []llm.StreamEvent) {
		for _, k := range stops(len(all)) {
			// A yield after the loop body said stop would panic here:
			// the runtime checks range-over-func iterators.
			var got []llm.StreamEvent
			for ev, err := range c.Stream(context.Background(), a.Request) {
				if err != nil {
					t.Fatalf("stop after %d: %v", k, err)
				}
				got = append(got, ev)
				if len(got) == k {
					break
				}
			}
			// Kinds, not values: ids an adapter makes up for calls that
			// came without one differ from call to call.
			if diff := gocmp.Diff(kinds(all[:k]), kinds(got)); diff != "" {
				t.Fatalf("stop after %d (-want +got):\n%s", k, diff)
			}
		}
	})
}

func kinds(events []llm.StreamEvent) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = fmt.Sprintf("%T", ev)
	}
	return out
}

// damage returns broken copies of a recorded stream: cut at 40 points (some
// within a line or a JSON value), bytes changed, lines dropped or repeated.
// The same stream gives the same copies.
func damage(full string) []string {
	var out []string
	for i := range 40 {
		out = append(out, full[:min(len(full), len(full)*i/40+i)])
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		b := []byte(full)
		for range 1 + rng.IntN(4) {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
		out = append(out, string(b))
	}
	lines := strings.SplitAfter(full, "\n")
	for range 12 {
		l := append([]string(nil), lines...)
		i := rng.IntN(len(l))
		if rng.IntN(2) == 0 {
			l = append(l[:i], l[i+1:]...)
		} else {
			l = append(l[:i+1], l[i:]...)
		}
		out = append(out, strings.Join(l, ""))
	}
	return out
}

// garbage is nonsense in any protocol.
var garbage = []string{
	"data: null\n\n",
	"data: []\n\n",
	"data: 42\n\n",
	"data: \"str\"\n\n",
	"data: {}\n\n",
	"data: [DONE]\n\n",
	"data: {\"error\":null}\n\n",
	"data: {\"error\":[1,2]}\n\n",
	"event: error\ndata: not json\n\n",
	"\x00\xff\n\n\n",
	": comment only\n\n",
	"data: {\"type\":\"unheard_of\",\"index\":-1}\n\n",
}

func (a Adapter) damaged(t *testing.T) {
	bodies := damage(string(a.LargestRecording(t)))
	bodies = append(bodies, garbage...)
	bodies = append(bodies, a.Garbage...)
	for i, body := range bodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			c := a.New(t, serve(t, SSEHandler([]byte(body))).URL, 0)
			// A hang guard, not a timing assertion: every body here is
			// complete, so any wait at all is a hang.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			events, err := Collect(t, c.Stream(ctx, a.Request))
			if ctx.Err() != nil {
				t.Fatal("hung until the deadline")
			}
			if err == nil {
				if len(events) == 0 {
					t.Fatal("neither events nor an error")
				}
				if _, ok := events[len(events)-1].(llm.StreamEnd); !ok {
					t.Fatalf("ended without StreamEnd or error: %v", events)
				}
				return
			}
			var le *llm.Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
			}
		})
	}
}
