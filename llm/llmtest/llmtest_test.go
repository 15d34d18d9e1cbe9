package llmtest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"go.uber.org/goleak"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newServer starts a server that is closed when the test ends.
func newServer(t *testing.T, turns ...llmtest.Turn) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServer(turns...)
	t.Cleanup(srv.Close)
	return srv
}

// newClient is the official SDK pointed at srv, isolated from the
// environment and without retries, so every scripted turn is seen once.
func newClient(baseURL string, opts ...option.RequestOption) anthropic.Client {
	return anthropic.NewClient(append([]option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(baseURL),
		option.WithAPIKey("test"),
		option.WithMaxRetries(0),
	}, opts...)...)
}

// testModel is the model the tests ask for. (The SDK's constant for it is
// deprecated; the server does not care about the name.)
const testModel anthropic.Model = "claude-sonnet-4-5"

func params() anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     testModel,
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))},
	}
}

// result is what a client made of one streamed call.
type result struct {
	msg    anthropic.Message
	events []string          // event types the SDK delivered (it drops pings)
	inputs map[int64]string  // raw input_json_delta text per block index
	stops  map[int]time.Time // client arrival time of each content_block_stop
	end    time.Time         // when the stream ended
	err    error
}

func stream(ctx context.Context, c anthropic.Client, p anthropic.MessageNewParams) result {
	s := c.Messages.NewStreaming(ctx, p)
	defer s.Close()
	r := result{inputs: map[int64]string{}, stops: map[int]time.Time{}}
	for s.Next() {
		ev := s.Current()
		r.events = append(r.events, ev.Type)
		switch ev.Type {
		case "content_block_delta":
			if ev.Delta.Type == "input_json_delta" {
				r.inputs[ev.Index] += ev.Delta.PartialJSON
			}
		case "content_block_stop":
			r.stops[int(ev.Index)] = time.Now()
		}
		if err := r.msg.Accumulate(ev); err != nil {
			r.err = fmt.Errorf("accumulate: %w", err)
			return r
		}
	}
	r.end = time.Now()
	r.err = s.Err()
	return r
}

func withoutPings(types []string) []string {
	return slices.DeleteFunc(slices.Clone(types), func(s string) bool { return s == "ping" })
}

func TestRoundTrip(t *testing.T) {
	unicode := strings.Repeat("héllo wörld — ünïcödé 🚀 日本語 ", 5)
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6)
	cases := []struct {
		name string
		turn llmtest.Turn
	}{
		{"empty", llmtest.Turn{}},
		{"text", llmtest.Turn{
			Blocks: []llmtest.Block{llmtest.Text(long)},
			Usage:  llm.Usage{InputTokens: 10, OutputTokens: 20},
		}},
		{"thinking then text", llmtest.Turn{
			Blocks: []llmtest.Block{
				llmtest.Thinking("The user greets me; I should greet back politely.", "c2lnbmF0dXJl"),
				llmtest.Text("Hello!"),
			},
			Usage: llm.Usage{InputTokens: 30, OutputTokens: 40},
		}},
		{"text and tool calls", llmtest.Turn{
			Blocks: []llmtest.Block{
				llmtest.Text("I'll read both files."),
				llmtest.ToolUse("toolu_given", "read_file", `{"path":"a.go"}`),
				{Kind: llmtest.KindToolUse, Name: "read_file", Input: `{"path":"b.go","limit":10}`, Fragments: 5},
				llmtest.ToolUse("", "list", ""),
			},
			Usage: llm.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4},
		}},
		{"malformed tool input", llmtest.Turn{
			Blocks: []llmtest.Block{{Kind: llmtest.KindToolUse, ID: "toolu_x", Name: "bash", Input: `{"command": "ls`, Fragments: 1}},
		}},
		{"redacted thinking", llmtest.Turn{
			Blocks: []llmtest.Block{llmtest.RedactedThinking("EmwKAhgBEgy3va3pzix/LafPsn4a"), llmtest.Text("ok")},
		}},
		{"unicode", llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(unicode)}}},
		{"max tokens with cache and model", llmtest.Turn{
			Model:      "claude-opus-4-5",
			Blocks:     []llmtest.Block{llmtest.Text("truncat")},
			StopReason: "max_tokens",
			Usage:      llm.Usage{InputTokens: 3, OutputTokens: 4096, CacheReadTokens: 1000, CacheWriteTokens: 200},
		}},
		{"stop sequence", llmtest.Turn{
			Blocks:       []llmtest.Block{llmtest.Text("a b c")},
			StopReason:   "stop_sequence",
			StopSequence: "###",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.turn)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			r := stream(ctx, newClient(srv.URL), params())
			if r.err != nil {
				t.Fatalf("stream: %v", r.err)
			}

			if got, want := r.events, withoutPings(llmtest.AnthropicEventTypes(tc.turn)); !slices.Equal(got, want) {
				t.Errorf("events:\n got %v\nwant %v", got, want)
			}
			wantModel := cmpOr(tc.turn.Model, llmtest.DefaultModel)
			if string(r.msg.Model) != wantModel {
				t.Errorf("model = %q, want %q", r.msg.Model, wantModel)
			}
			if got, want := string(r.msg.StopReason), wantStopReason(tc.turn); got != want {
				t.Errorf("stop reason = %q, want %q", got, want)
			}
			if r.msg.StopSequence != tc.turn.StopSequence {
				t.Errorf("stop sequence = %q, want %q", r.msg.StopSequence, tc.turn.StopSequence)
			}
			u := r.msg.Usage
			got := llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
				CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}
			if got != tc.turn.Usage {
				t.Errorf("usage = %+v, want %+v", got, tc.turn.Usage)
			}

			if len(r.msg.Content) != len(tc.turn.Blocks) {
				t.Fatalf("got %d blocks, want %d", len(r.msg.Content), len(tc.turn.Blocks))
			}
			autoID := 0
			for i, b := range tc.turn.Blocks {
				cb := r.msg.Content[i]
				if cb.Type != b.Kind {
					t.Errorf("block %d type = %q, want %q", i, cb.Type, b.Kind)
					continue
				}
				switch b.Kind {
				case llmtest.KindText:
					if cb.Text != b.Text {
						t.Errorf("block %d text = %q, want %q", i, cb.Text, b.Text)
					}
				case llmtest.KindThinking:
					if cb.Thinking != b.Text || cb.Signature != b.Signature {
						t.Errorf("block %d thinking = %q/%q, want %q/%q", i, cb.Thinking, cb.Signature, b.Text, b.Signature)
					}
				case llmtest.KindRedactedThinking:
					if cb.Data != b.Data {
						t.Errorf("block %d data = %q, want %q", i, cb.Data, b.Data)
					}
				case llmtest.KindToolUse:
					wantID := b.ID
					if wantID == "" {
						autoID++
						wantID = fmt.Sprintf("toolu_%d", autoID)
					}
					if cb.ID != wantID || cb.Name != b.Name {
						t.Errorf("block %d tool = %q %q, want %q %q", i, cb.ID, cb.Name, wantID, b.Name)
					}
					wantInput := cmpOr(b.Input, "{}")
					// The raw deltas carry the input verbatim, malformed or not;
					// the SDK only keeps it when it is valid JSON.
					if got := cmpOr(r.inputs[int64(i)], "{}"); got != wantInput {
						t.Errorf("block %d streamed input = %q, want %q", i, got, wantInput)
					}
					if json.Valid([]byte(wantInput)) && string(cb.Input) != wantInput {
						t.Errorf("block %d accumulated input = %s, want %s", i, cb.Input, wantInput)
					}
				}
			}

			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("recorded %d requests, want 1", len(reqs))
			}
			if body := reqs[0].JSON(); body["stream"] != true || body["model"] != "claude-sonnet-4-5" {
				t.Errorf("recorded body = %s", reqs[0].Body)
			}
			if len(reqs[0].BlockStops) != len(tc.turn.Blocks) {
				t.Errorf("recorded %d block stops, want %d", len(reqs[0].BlockStops), len(tc.turn.Blocks))
			}
			if srv.Pending() != 0 {
				t.Errorf("pending = %d after the only turn was served", srv.Pending())
			}
		})
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func wantStopReason(t llmtest.Turn) string {
	if t.StopReason != "" {
		return t.StopReason
	}
	for _, b := range t.Blocks {
		if b.Kind == llmtest.KindToolUse {
			return "tool_use"
		}
	}
	return "end_turn"
}

// TestWireFormat pins the exact bytes of a small stream, so field order and
// shapes stay those of the real API.
func TestWireFormat(t *testing.T) {
	srv := newServer(t, llmtest.Turn{
		Model: "claude-sonnet-4-20250514",
		Blocks: []llmtest.Block{
			llmtest.Text("Hi <there> & you"),
			{Kind: llmtest.KindToolUse, ID: "toolu_01", Name: "weather", Input: `{"location":"Florence"}`, Fragments: 2},
		},
		Usage: llm.Usage{InputTokens: 394, OutputTokens: 67, CacheReadTokens: 5, CacheWriteTokens: 6},
	})
	resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if resp.Header.Get("Request-Id") == "" {
		t.Error("no request-id header")
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	const want = `event: message_start
data: {"type":"message_start","message":{"model":"claude-sonnet-4-20250514","id":"msg_llmtest_0001","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":394,"cache_creation_input_tokens":6,"cache_read_input_tokens":5,"cache_creation":{"ephemeral_5m_input_tokens":6,"ephemeral_1h_input_tokens":0},"output_tokens":1,"service_tier":"standard","inference_geo":"not_available"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi <there> & you"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01","name":"weather","input":{},"caller":{"type":"direct"}}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"location\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"Florence\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":394,"cache_creation_input_tokens":6,"cache_read_input_tokens":5,"output_tokens":67}}

event: message_stop
data: {"type":"message_stop"}

`
	if string(body) != want {
		t.Errorf("stream:\n%s\nwant:\n%s", body, want)
	}
}

type sseEvent struct{ name, data string }

// readSSE parses a whole text/event-stream body.
func readSSE(t *testing.T, r io.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			out = append(out, cur)
			cur = sseEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		default:
			t.Fatalf("unexpected SSE line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDeltaSplitting checks text streams in 16–32 byte pieces on rune
// boundaries and every event's data is JSON whose "type" is the event name.
func TestDeltaSplitting(t *testing.T) {
	texts := []string{
		"",
		"short",
		strings.Repeat("x", 16),
		strings.Repeat("abcdefghij", 30),
		strings.Repeat("日本語のテキスト", 20), // 3-byte runes
		strings.Repeat("🚀a", 40),       // 4-byte runes out of step with chunk sizes
	}
	for _, text := range texts {
		srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(text), llmtest.Thinking(text, "")}})
		resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		evs := readSSE(t, resp.Body)
		resp.Body.Close()

		var names []string
		pieces := map[string][]string{}
		for _, ev := range evs {
			names = append(names, ev.name)
			var v struct {
				Type  string `json:"type"`
				Delta struct {
					Type     string `json:"type"`
					Text     string `json:"text"`
					Thinking string `json:"thinking"`
				} `json:"delta"`
			}
			if err := json.Unmarshal([]byte(ev.data), &v); err != nil {
				t.Fatalf("event %s: bad JSON %q: %v", ev.name, ev.data, err)
			}
			if v.Type != ev.name {
				t.Errorf("event %s has type %q", ev.name, v.Type)
			}
			switch v.Delta.Type {
			case "text_delta":
				pieces["text"] = append(pieces["text"], v.Delta.Text)
			case "thinking_delta":
				pieces["thinking"] = append(pieces["thinking"], v.Delta.Thinking)
			}
		}
		if want := llmtest.AnthropicEventTypes(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(text), llmtest.Thinking(text, "")}}); !slices.Equal(names, want) {
			t.Errorf("events %v, want %v", names, want)
		}
		for kind, ps := range pieces {
			if got := strings.Join(ps, ""); got != text {
				t.Errorf("%s pieces join to %q, want %q", kind, got, text)
			}
			for i, p := range ps {
				if !utf8.ValidString(p) {
					t.Errorf("%s piece %d %q splits a rune", kind, i, p)
				}
				// Up to 3 extra bytes finish a rune begun inside the limit.
				if len(p) > 32+3 || (len(p) < 16 && i < len(ps)-1) {
					t.Errorf("%s piece %d has %d bytes", kind, i, len(p))
				}
			}
		}
		srv.Close()
	}
}

func TestPacing(t *testing.T) {
	const (
		delay      = 60 * time.Millisecond
		toolDelay  = 80 * time.Millisecond
		chunkDelay = 10 * time.Millisecond
		fragments  = 4
	)
	turn := llmtest.Turn{
		Blocks: []llmtest.Block{
			{Kind: llmtest.KindText, Text: "first", Delay: delay},
			llmtest.Text("second, right away"),
			{Kind: llmtest.KindToolUse, Name: "read", Input: `{"path":"main.go"}`, Fragments: fragments, Delay: toolDelay},
		},
		ChunkDelay: chunkDelay,
	}
	srv := newServer(t, turn)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	start := time.Now()
	r := stream(ctx, newClient(srv.URL), params())
	if r.err != nil {
		t.Fatal(r.err)
	}

	req := srv.Requests()[0]
	if len(req.BlockStops) != 3 {
		t.Fatalf("BlockStops = %v", req.BlockStops)
	}
	if got := req.BlockStops[0].Sub(req.Received); got < delay {
		t.Errorf("first block stopped %v after the request, want ≥ %v", got, delay)
	}
	// The tool block waits toolDelay, then streams "" and 4 fragments with
	// a ChunkDelay between each of those 5 deltas.
	minTool := toolDelay + fragments*chunkDelay
	if got := req.BlockStops[2].Sub(req.BlockStops[1]); got < minTool {
		t.Errorf("tool block stopped %v after the previous one, want ≥ %v", got, minTool)
	}
	if !req.Done.After(req.BlockStops[2]) && !req.Done.Equal(req.BlockStops[2]) {
		t.Errorf("Done %v before the last block stop %v", req.Done, req.BlockStops[2])
	}
	if got := r.end.Sub(start); got < delay+minTool {
		t.Errorf("stream took %v, want ≥ %v", got, delay+minTool)
	}
}

// TestFlushesEachEvent checks events reach the client as they are written,
// not when the response ends.
func TestFlushesEachEvent(t *testing.T) {
	const gap = 300 * time.Millisecond
	srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Text("now"),
		{Kind: llmtest.KindText, Text: "later", Delay: gap},
	}})
	r := stream(t.Context(), newClient(srv.URL), params())
	if r.err != nil {
		t.Fatal(r.err)
	}
	// Only a lower bound: the client can lag behind the server, but it
	// cannot see the first block stop late by half the gap unless the
	// event sat in a buffer.
	if got := r.stops[1].Sub(r.stops[0]); got < gap/2 {
		t.Errorf("client saw the block stops %v apart, want about %v", got, gap)
	}
}

func TestErrorStatus(t *testing.T) {
	cases := []struct {
		name       string
		turn       llmtest.Turn
		wantType   string
		wantMsg    string
		retryAfter string
	}{
		{"rate limit", llmtest.Turn{Status: 429, RetryAfter: "7"}, "rate_limit_error", "", "7"},
		{"overloaded", llmtest.Turn{Status: 529}, "overloaded_error", "Overloaded", ""},
		{"server error", llmtest.Turn{Status: 500}, "api_error", "Internal server error", ""},
		{"auth", llmtest.Turn{Status: 401}, "authentication_error", "invalid x-api-key", ""},
		{"custom", llmtest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorMessage: "prompt is too long: 210000 tokens > 200000 maximum"},
			"invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.turn)
			r := stream(t.Context(), newClient(srv.URL), params())
			var apiErr *anthropic.Error
			if !errors.As(r.err, &apiErr) {
				t.Fatalf("err = %v (%T), want *anthropic.Error", r.err, r.err)
			}
			if apiErr.StatusCode != tc.turn.Status {
				t.Errorf("status = %d, want %d", apiErr.StatusCode, tc.turn.Status)
			}
			if string(apiErr.Type()) != tc.wantType {
				t.Errorf("type = %q, want %q", apiErr.Type(), tc.wantType)
			}
			if tc.wantMsg != "" && apiErr.Message != tc.wantMsg {
				t.Errorf("message = %q, want %q", apiErr.Message, tc.wantMsg)
			}
			if got := apiErr.Response.Header.Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d requests recorded, want 1", n)
			}
		})
	}
}

func TestStreamError(t *testing.T) {
	cases := []struct {
		name     string
		se       llmtest.StreamError
		wantType string
		wantMsg  string
	}{
		{"defaults", llmtest.StreamError{}, "overloaded_error", "Overloaded"},
		{"custom", llmtest.StreamError{Type: "api_error", Message: "Internal server error"}, "api_error", "Internal server error"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			se := tc.se
			srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("partial answer")}, StreamError: &se})
			r := stream(t.Context(), newClient(srv.URL), params())
			var apiErr *anthropic.Error
			if !errors.As(r.err, &apiErr) {
				t.Fatalf("err = %v (%T), want *anthropic.Error", r.err, r.err)
			}
			if string(apiErr.Type()) != tc.wantType || apiErr.Message != tc.wantMsg {
				t.Errorf("error = %q %q, want %q %q", apiErr.Type(), apiErr.Message, tc.wantType, tc.wantMsg)
			}
			if len(r.msg.Content) != 1 || r.msg.Content[0].Text != "partial answer" {
				t.Errorf("content before the error = %+v", r.msg.Content)
			}
			if slices.Contains(r.events, "message_stop") {
				t.Error("message_stop sent despite the stream error")
			}
		})
	}
}

func TestCutAfter(t *testing.T) {
	turn := llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Text("some text that spans more than one delta event"),
		llmtest.ToolUse("toolu_1", "read", `{"path":"x"}`),
	}}
	all := llmtest.AnthropicEventTypes(turn)
	for _, cut := range []int{1, 2, 3, 6, len(all)} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			turn := turn
			turn.CutAfter = cut
			srv := newServer(t, turn)
			// The guard turns a hang into a failure instead of a test timeout.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			r := stream(ctx, newClient(srv.URL), params())
			if r.err == nil {
				t.Fatal("stream ended without error")
			}
			if ctx.Err() != nil {
				t.Fatalf("stream hung until the guard timeout: %v", r.err)
			}
			if !errors.Is(r.err, io.ErrUnexpectedEOF) {
				t.Errorf("err = %v, want unexpected EOF", r.err)
			}
			if want := withoutPings(all[:cut]); !slices.Equal(r.events, want) {
				t.Errorf("events before the cut = %v, want %v", r.events, want)
			}
			if req := srv.Requests()[0]; req.Done.IsZero() {
				t.Error("Done not recorded for a cut response")
			}
		})
	}
	t.Run("beyond the end", func(t *testing.T) {
		turn := turn
		turn.CutAfter = len(all) + 1
		srv := newServer(t, turn)
		if r := stream(t.Context(), newClient(srv.URL), params()); r.err != nil {
			t.Fatalf("err = %v, want a complete stream", r.err)
		}
	})
}

func TestStallAfter(t *testing.T) {
	srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("hello")}, StallAfter: 2})
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	r := stream(ctx, newClient(srv.URL), params())
	if !errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", r.err)
	}
	if elapsed := time.Since(start); elapsed > 15*time.Second {
		t.Errorf("returned after %v", elapsed)
	}
	if want := []string{"message_start", "content_block_start"}; !slices.Equal(r.events, want) {
		t.Errorf("events = %v, want %v", r.events, want)
	}
}

func TestHang(t *testing.T) {
	t.Run("client cancels", func(t *testing.T) {
		srv := newServer(t, llmtest.Turn{Hang: true})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		r := stream(ctx, newClient(srv.URL), params())
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", r.err)
		}
		if elapsed := time.Since(start); elapsed > 15*time.Second {
			t.Errorf("cancel took %v to return", elapsed)
		}
		waitDone(t, srv)
	})
	t.Run("server closes", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Turn{Hang: true})
		time.AfterFunc(100*time.Millisecond, srv.Close)
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		r := stream(ctx, newClient(srv.URL), params())
		if r.err == nil || ctx.Err() != nil {
			t.Fatalf("err = %v, want a prompt connection error", r.err)
		}
		srv.Close()
	})
	t.Run("client cancels during a delay", func(t *testing.T) {
		srv := llmtest.NewServer(llmtest.Turn{Blocks: []llmtest.Block{{Kind: llmtest.KindText, Text: "x", Delay: time.Hour}}})
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(100*time.Millisecond, cancel)
		if r := stream(ctx, newClient(srv.URL), params()); !errors.Is(r.err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", r.err)
		}
		// Close waits for the handler, which must have left its delay.
		start := time.Now()
		srv.Close()
		if elapsed := time.Since(start); elapsed > 15*time.Second {
			t.Errorf("Close took %v: the handler outlived its client", elapsed)
		}
	})
}

// waitDone waits for the server to finish answering every request: after a
// client gives up, the handler notices a moment later.
func waitDone(t *testing.T, srv *llmtest.Server) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		done := true
		for _, r := range srv.Requests() {
			done = done && !r.Done.IsZero()
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("requests never finished")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRecording(t *testing.T) {
	srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("one")}}, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("two")}})
	c := newClient(srv.URL)
	for _, prompt := range []string{"first prompt", "second prompt"} {
		p := params()
		p.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}
		if r := stream(t.Context(), c, p); r.err != nil {
			t.Fatal(r.err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(reqs))
	}
	for i, want := range []string{"first prompt", "second prompt"} {
		r := reqs[i]
		if r.Method != http.MethodPost || r.Path != "/v1/messages" {
			t.Errorf("request %d: %s %s", i, r.Method, r.Path)
		}
		// This SDK version sends the key as a bearer token.
		if auth := r.Header.Get("X-Api-Key") + r.Header.Get("Authorization"); !strings.Contains(auth, "test") {
			t.Errorf("request %d: no API key in headers %v", i, r.Header)
		}
		if r.Header.Get("Anthropic-Version") == "" {
			t.Errorf("request %d: no anthropic-version header", i)
		}
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("request %d body %s lacks %q", i, r.Body, want)
		}
		msgs, _ := r.JSON()["messages"].([]any)
		if len(msgs) != 1 {
			t.Errorf("request %d: decoded messages = %v", i, r.JSON()["messages"])
		}
		if r.Received.IsZero() || r.Done.Before(r.Received) {
			t.Errorf("request %d: received %v, done %v", i, r.Received, r.Done)
		}
	}
	if !reqs[1].Received.After(reqs[0].Received) && !reqs[1].Received.Equal(reqs[0].Received) {
		t.Error("requests not in arrival order")
	}
	// Copies are the caller's to change.
	reqs[0].Body[0] = 'X'
	reqs[0].Header.Set("Anthropic-Version", "changed")
	if again := srv.Requests()[0]; again.Body[0] == 'X' || again.Header.Get("Anthropic-Version") == "changed" {
		t.Error("Requests returned shared storage")
	}
	if (llmtest.Request{Body: []byte("not json")}).JSON() != nil {
		t.Error("JSON of a non-JSON body is not nil")
	}
}

func TestScriptExhausted(t *testing.T) {
	srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("only")}})
	c := newClient(srv.URL)
	if r := stream(t.Context(), c, params()); r.err != nil {
		t.Fatal(r.err)
	}
	r := stream(t.Context(), c, params())
	var apiErr *anthropic.Error
	if !errors.As(r.err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Message != "llmtest: script exhausted" {
		t.Fatalf("err = %v, want 500 llmtest: script exhausted", r.err)
	}
}

func TestQueueAndFallback(t *testing.T) {
	srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("queued 1")}})
	srv.Push(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("queued 2")}})
	calls := 0
	srv.SetFallback(func(r llmtest.Request) llmtest.Turn {
		calls++            // no locking: the server serialises fallback calls
		_ = srv.Requests() // and the fallback may use the server
		return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(fmt.Sprintf("fallback %d for %s", calls, r.Path))}}
	})
	if srv.Pending() != 2 {
		t.Errorf("pending = %d, want 2", srv.Pending())
	}
	c := newClient(srv.URL)
	text := func() string {
		r := stream(t.Context(), c, params())
		if r.err != nil {
			return r.err.Error()
		}
		return r.msg.Content[0].Text
	}
	for _, want := range []string{"queued 1", "queued 2", "fallback 1 for /v1/messages", "fallback 2 for /v1/messages"} {
		if got := text(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	srv.Push(llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("queued 3")}})
	if got := text(); got != "queued 3" {
		t.Errorf("queue did not take precedence over the fallback: %q", got)
	}
	srv.SetFallback(nil)
	if got := text(); !strings.Contains(got, "script exhausted") {
		t.Errorf("after SetFallback(nil): %q", got)
	}
}

func TestCycle(t *testing.T) {
	if llmtest.Cycle() != nil {
		t.Error("Cycle() of nothing is not nil")
	}
	srv := newServer(t)
	srv.SetFallback(llmtest.Cycle(
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("a"), llmtest.ToolUse("", "t", "")}},
		llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("b")}},
	))
	c := newClient(srv.URL)
	var got, ids []string
	for range 5 {
		r := stream(t.Context(), c, params())
		if r.err != nil {
			t.Fatal(r.err)
		}
		got = append(got, r.msg.Content[0].Text)
		if len(r.msg.Content) == 2 {
			ids = append(ids, r.msg.Content[1].ID)
		}
	}
	if want := []string{"a", "b", "a", "b", "a"}; !slices.Equal(got, want) {
		t.Errorf("texts = %v, want %v", got, want)
	}
	// A repeated turn still gets fresh tool call IDs.
	if want := []string{"toolu_1", "toolu_2", "toolu_3"}; !slices.Equal(ids, want) {
		t.Errorf("tool IDs = %v, want %v", ids, want)
	}
}

func TestRouting(t *testing.T) {
	srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("via gateway")}})

	t.Run("path prefix", func(t *testing.T) {
		r := stream(t.Context(), newClient(srv.URL+"/gateway/anthropic/"), params())
		if r.err != nil || r.msg.Content[0].Text != "via gateway" {
			t.Fatalf("err %v, content %+v", r.err, r.msg.Content)
		}
		reqs := srv.Requests()
		if got := reqs[len(reqs)-1].Path; got != "/gateway/anthropic/v1/messages" {
			t.Errorf("recorded path %q", got)
		}
	})
	t.Run("models", func(t *testing.T) {
		c := newClient(srv.URL)
		page, err := c.Models.List(t.Context(), anthropic.ModelListParams{})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Data) == 0 || page.Data[0].ID != llmtest.DefaultModel {
			t.Errorf("models = %+v", page.Data)
		}
	})
	t.Run("count tokens", func(t *testing.T) {
		before := srv.Pending()
		c := newClient(srv.URL)
		n, err := c.Messages.CountTokens(t.Context(), anthropic.MessageCountTokensParams{
			Model:    testModel,
			Messages: params().Messages,
		})
		if err != nil {
			t.Fatal(err)
		}
		if n.InputTokens <= 0 || srv.Pending() != before {
			t.Errorf("input tokens %d, pending %d → %d", n.InputTokens, before, srv.Pending())
		}
	})
	t.Run("unknown path", func(t *testing.T) {
		resp, err := http.Get(srv.URL + "/v1/nothing")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Type  string `json:"type"`
			Error struct{ Type, Message string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 404 || body.Type != "error" || body.Error.Type != "not_found_error" {
			t.Errorf("got %d %+v", resp.StatusCode, body)
		}
		if reqs := srv.Requests(); reqs[len(reqs)-1].Path != "/v1/nothing" {
			t.Error("unrouted request not recorded")
		}
	})
	t.Run("body not JSON", func(t *testing.T) {
		srv := newServer(t, llmtest.Turn{})
		resp, err := http.Post(srv.URL+"/v1/messages", "application/json", strings.NewReader("{oops"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 || srv.Pending() != 1 {
			t.Errorf("status %d, pending %d: want 400 and the turn kept", resp.StatusCode, srv.Pending())
		}
	})
}

func TestInvalidTurn(t *testing.T) {
	srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{{Kind: "txt", Text: "typo"}}})
	r := stream(t.Context(), newClient(srv.URL), params())
	var apiErr *anthropic.Error
	if !errors.As(r.err, &apiErr) || apiErr.StatusCode != 500 || !strings.Contains(apiErr.Message, `unknown kind "txt"`) {
		t.Fatalf("err = %v, want a 500 naming the bad kind", r.err)
	}
}

func TestNonStreaming(t *testing.T) {
	turn := llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Thinking("hmm", "sig"),
			llmtest.Text("Reading it."),
			llmtest.ToolUse("", "read", `{"path":"a"}`),
		},
		Usage: llm.Usage{InputTokens: 5, OutputTokens: 6, CacheReadTokens: 7},
	}
	srv := newServer(t, turn)
	c := newClient(srv.URL)
	msg, err := c.Messages.New(t.Context(), params())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg.Content) != 3 || msg.Content[0].Thinking != "hmm" || msg.Content[0].Signature != "sig" ||
		msg.Content[1].Text != "Reading it." || msg.Content[2].ID != "toolu_1" || string(msg.Content[2].Input) != `{"path":"a"}` {
		t.Errorf("content = %+v", msg.Content)
	}
	if msg.StopReason != "tool_use" || msg.Usage.OutputTokens != 6 || msg.Usage.CacheReadInputTokens != 7 {
		t.Errorf("stop %q usage %+v", msg.StopReason, msg.Usage)
	}
}

func TestConcurrentRequests(t *testing.T) {
	const n = 16
	srv := newServer(t)
	for i := range n {
		srv.Push(llmtest.Turn{Blocks: []llmtest.Block{{Kind: llmtest.KindText, Text: fmt.Sprint("answer ", i), Delay: time.Duration(i%4) * time.Millisecond}}, ChunkDelay: time.Millisecond})
	}
	c := newClient(srv.URL)
	var wg sync.WaitGroup
	answers := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			r := stream(t.Context(), c, params())
			errs[i] = r.err
			if r.err == nil {
				answers[i] = r.msg.Content[0].Text
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	slices.Sort(answers)
	if got := slices.Compact(answers); len(got) != n {
		t.Errorf("answers not distinct: %v", got)
	}
	if got := len(srv.Requests()); got != n {
		t.Errorf("%d requests recorded, want %d", got, n)
	}
}

func TestClose(t *testing.T) {
	srv := llmtest.NewServer()
	srv.Close()
	srv.Close() // idempotent
	if resp, err := http.Get(srv.URL + "/v1/models"); err == nil {
		resp.Body.Close()
		t.Error("server still answering after Close")
	}
}

func TestAnthropicEventTypes(t *testing.T) {
	cases := []struct {
		name string
		turn llmtest.Turn
		want []string
	}{
		{"empty", llmtest.Turn{}, []string{"message_start", "ping", "message_delta", "message_stop"}},
		{"thinking and tool", llmtest.Turn{Blocks: []llmtest.Block{
			llmtest.Thinking("short", "sig"),
			{Kind: llmtest.KindToolUse, Name: "t", Input: `{"a":1}`, Fragments: 2},
			llmtest.RedactedThinking("x"),
		}}, []string{
			"message_start",
			"content_block_start", "ping", "content_block_delta", "content_block_delta", "content_block_stop",
			"content_block_start", "content_block_delta", "content_block_delta", "content_block_delta", "content_block_stop",
			"content_block_start", "content_block_stop",
			"message_delta", "message_stop",
		}},
		{"stream error", llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("hi")}, StreamError: &llmtest.StreamError{}}, []string{
			"message_start", "content_block_start", "ping", "content_block_delta", "content_block_stop", "error",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := llmtest.AnthropicEventTypes(tc.turn); !slices.Equal(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}
