package llmtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	oaoption "github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// newOpenAIClient is the official OpenAI SDK pointed at srv, without
// retries, so every scripted turn is seen once.
func newOpenAIClient(srv *llmtest.Server, opts ...oaoption.RequestOption) openai.Client {
	return openai.NewClient(append([]oaoption.RequestOption{
		oaoption.WithBaseURL(srv.URL + "/v1"),
		oaoption.WithAPIKey("test"),
		oaoption.WithMaxRetries(0),
	}, opts...)...)
}

func responsesParams() responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model: "gpt-5",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hello")},
	}
}

func chatParams(includeUsage bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{
		Model:    "gpt-4o",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")},
	}
	if includeUsage {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	return p
}

// outcome is what a client made of one call in protocol-neutral terms, so
// every format can be checked against the same expectations.
type outcome struct {
	Text     string
	Thinking string
	Secrets  []string // encrypted_content of reasoning items (Responses)
	Tools    []call
	Stop     string     // the format's own stop reason or status
	Usage    *llm.Usage // as an adapter would derive it; nil if none was sent
}

type call struct{ ID, Name, Args string }

// responsesRun is a streamed Responses call as the SDK delivered it.
type responsesRun struct {
	out    outcome
	events []string
	final  responses.Response // of the terminal event
	err    error
}

func streamResponses(ctx context.Context, c openai.Client, p responses.ResponseNewParams) responsesRun {
	s := c.Responses.NewStreaming(ctx, p)
	defer s.Close()
	var r responsesRun
	calls := map[string]*call{}
	var order []string
	for s.Next() {
		ev := s.Current()
		if want := int64(len(r.events)); ev.SequenceNumber != want {
			r.err = fmt.Errorf("event %s has sequence_number %d, want %d", ev.Type, ev.SequenceNumber, want)
			return r
		}
		r.events = append(r.events, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			r.out.Text += ev.Delta
		case "response.reasoning_summary_text.delta":
			r.out.Thinking += ev.Delta
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				calls[ev.Item.ID] = &call{ID: ev.Item.CallID, Name: ev.Item.Name}
				order = append(order, ev.Item.ID)
			}
		case "response.function_call_arguments.delta":
			// The raw deltas, which carry malformed arguments verbatim.
			calls[ev.ItemID].Args += ev.Delta
		case "response.output_item.done":
			if ev.Item.Type == "reasoning" && ev.Item.EncryptedContent != "" {
				r.out.Secrets = append(r.out.Secrets, ev.Item.EncryptedContent)
			}
		case "response.completed", "response.incomplete", "response.failed":
			r.final = ev.Response
		}
	}
	r.err = s.Err()
	for _, id := range order {
		r.out.Tools = append(r.out.Tools, *calls[id])
	}
	r.out.Stop = string(r.final.Status)
	if reason := r.final.IncompleteDetails.Reason; reason != "" {
		r.out.Stop += ":" + string(reason)
	}
	if r.final.JSON.Usage.Valid() {
		u := r.final.Usage
		r.out.Usage = &llm.Usage{
			InputTokens:     u.InputTokens - u.InputTokensDetails.CachedTokens,
			OutputTokens:    u.OutputTokens,
			CacheReadTokens: u.InputTokensDetails.CachedTokens,
		}
	}
	return r
}

// chatRun is a streamed Chat Completions call as the SDK delivered it.
type chatRun struct {
	out    outcome
	chunks int
	acc    openai.ChatCompletionAccumulator
	err    error
}

func streamChat(ctx context.Context, c openai.Client, p openai.ChatCompletionNewParams) *chatRun {
	s := c.Chat.Completions.NewStreaming(ctx, p)
	defer s.Close()
	r := &chatRun{}
	calls := map[int64]*call{}
	var order []int64
	for s.Next() {
		ch := s.Current()
		r.chunks++
		if !r.acc.AddChunk(ch) {
			r.err = fmt.Errorf("chunk %d rejected by the SDK accumulator", r.chunks)
			return r
		}
		if ch.JSON.Usage.Valid() {
			u := ch.Usage
			r.out.Usage = &llm.Usage{
				InputTokens:     u.PromptTokens - u.PromptTokensDetails.CachedTokens,
				OutputTokens:    u.CompletionTokens,
				CacheReadTokens: u.PromptTokensDetails.CachedTokens,
			}
		}
		for _, choice := range ch.Choices {
			d := choice.Delta
			r.out.Text += d.Content
			if f, ok := d.JSON.ExtraFields["reasoning_content"]; ok {
				var s string
				if err := json.Unmarshal([]byte(f.Raw()), &s); err != nil {
					r.err = fmt.Errorf("reasoning_content %s: %w", f.Raw(), err)
					return r
				}
				r.out.Thinking += s
			}
			for _, tc := range d.ToolCalls {
				cl := calls[tc.Index]
				if cl == nil {
					cl = &call{}
					calls[tc.Index] = cl
					order = append(order, tc.Index)
				}
				cl.ID += tc.ID
				cl.Name += tc.Function.Name
				cl.Args += tc.Function.Arguments
			}
			if choice.FinishReason != "" {
				r.out.Stop = choice.FinishReason
			}
		}
	}
	r.err = s.Err()
	for _, i := range order {
		r.out.Tools = append(r.out.Tools, *calls[i])
	}
	return r
}

// anthropicOutcome is the same view of an Anthropic stream.
func anthropicOutcome(r result) outcome {
	var o outcome
	for i, b := range r.msg.Content {
		switch b.Type {
		case "text":
			o.Text += b.Text
		case "thinking":
			o.Thinking += b.Thinking
		case "tool_use":
			o.Tools = append(o.Tools, call{b.ID, b.Name, r.inputs[int64(i)]})
		}
	}
	o.Stop = string(r.msg.StopReason)
	u := r.msg.Usage
	o.Usage = &llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadInputTokens, CacheWriteTokens: u.CacheCreationInputTokens}
	return o
}

// want is the outcome a correct rendering of turn gives, with tool calls
// whose ID is empty numbered from firstID on and stop as the format's
// stop reason.
func want(turn llmtest.Turn, stop string, firstID int) outcome {
	o := outcome{Stop: stop}
	for _, b := range turn.Blocks {
		switch b.Kind {
		case llmtest.KindText:
			o.Text += b.Text
		case llmtest.KindThinking:
			o.Thinking += b.Text
		case llmtest.KindToolUse:
			id := b.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", firstID)
				firstID++
			}
			o.Tools = append(o.Tools, call{id, b.Name, cmpOr(b.Input, "{}")})
		}
	}
	if !turn.OmitUsage {
		// OpenAI has no cache writes; the rest survives the round trip.
		u := turn.Usage
		u.CacheWriteTokens = 0
		o.Usage = &u
	}
	return o
}

var roundTripTurns = []struct {
	name string
	turn llmtest.Turn
	// stops in Responses (status[:reason]) and Chat (finish_reason)
	responsesStop, chatStop string
}{
	{"empty", llmtest.Turn{}, "completed", "stop"},
	{"text", llmtest.Turn{
		Blocks: []llmtest.Block{llmtest.Text(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6))},
		Usage:  llm.Usage{InputTokens: 10, OutputTokens: 20},
	}, "completed", "stop"},
	{"thinking then text", llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Thinking("The user greets me; I should greet back politely.", "c2lnbmF0dXJl"),
			llmtest.Text("Hello!"),
		},
		Usage: llm.Usage{InputTokens: 30, OutputTokens: 40, CacheReadTokens: 1000},
	}, "completed", "stop"},
	{"text and several tool calls", llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Text("I'll read both files."),
			llmtest.ToolUse("call_given", "read_file", `{"path":"a.go"}`),
			{Kind: llmtest.KindToolUse, Name: "read_file", Input: `{"path":"b.go","limit":10}`, Fragments: 5},
			llmtest.ToolUse("", "list", ""),
		},
		Usage: llm.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4},
	}, "completed", "tool_calls"},
	{"malformed tool input", llmtest.Turn{
		Blocks: []llmtest.Block{{Kind: llmtest.KindToolUse, ID: "call_x", Name: "bash", Input: `{"command": "ls`, Fragments: 2}},
	}, "completed", "tool_calls"},
	{"redacted thinking", llmtest.Turn{
		Blocks: []llmtest.Block{llmtest.RedactedThinking("EmwKAhgBEgy3va3pzix/LafPsn4a"), llmtest.Text("ok")},
	}, "completed", "stop"},
	{"unicode", llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(strings.Repeat("héllo wörld — ünïcödé 🚀 日本語 ", 5))}}, "completed", "stop"},
	{"max tokens", llmtest.Turn{
		Model:      "gpt-5-2025-08-07",
		Blocks:     []llmtest.Block{llmtest.Text("truncat")},
		StopReason: "max_tokens",
		Usage:      llm.Usage{InputTokens: 3, OutputTokens: 4096, CacheReadTokens: 1000},
	}, "incomplete:max_output_tokens", "length"},
	{"refusal", llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("I can't")}, StopReason: "refusal"}, "incomplete:content_filter", "content_filter"},
	{"omit usage", llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("no figures")}, Usage: llm.Usage{InputTokens: 5}, OmitUsage: true}, "completed", "stop"},
}

func TestResponsesRoundTrip(t *testing.T) {
	for _, tc := range roundTripTurns {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.turn)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			r := streamResponses(ctx, newOpenAIClient(srv), responsesParams())
			if r.err != nil {
				t.Fatalf("stream: %v", r.err)
			}
			if diff := cmp.Diff(want(tc.turn, tc.responsesStop, 1), r.out); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(llmtest.ResponsesEventTypes(tc.turn), r.events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if got, wantModel := r.final.Model, cmpOr(tc.turn.Model, "gpt-5"); got != wantModel {
				t.Errorf("model = %q, want %q (the request's)", got, wantModel)
			}
			// The terminal response carries every item whole, including
			// malformed arguments, which travel as a string.
			if got, want := len(r.final.Output), len(tc.turn.Blocks); got != want {
				t.Fatalf("final output has %d items, want %d", got, want)
			}
			for i, b := range tc.turn.Blocks {
				item := r.final.Output[i]
				wantType := map[string]string{llmtest.KindText: "message", llmtest.KindThinking: "reasoning",
					llmtest.KindRedactedThinking: "reasoning", llmtest.KindToolUse: "function_call"}[b.Kind]
				if item.Type != wantType {
					t.Errorf("item %d type = %q, want %q", i, item.Type, wantType)
				}
				if b.Kind == llmtest.KindToolUse && item.Arguments.OfString != cmpOr(b.Input, "{}") {
					t.Errorf("item %d arguments = %q, want %q", i, item.Arguments.OfString, b.Input)
				}
			}
			if got := r.final.OutputText(); got != want(tc.turn, "", 1).Text {
				t.Errorf("OutputText() = %q", got)
			}
			req := srv.Requests()[0]
			if req.Protocol != llmtest.ProtocolResponses || req.Path != "/v1/responses" || req.JSON()["stream"] != true {
				t.Errorf("recorded %s %s %s", req.Protocol, req.Path, req.Body)
			}
			if len(req.BlockStops) != len(tc.turn.Blocks) {
				t.Errorf("recorded %d block stops, want %d", len(req.BlockStops), len(tc.turn.Blocks))
			}
		})
	}
}

func TestChatRoundTrip(t *testing.T) {
	for _, tc := range roundTripTurns {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.turn)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			r := streamChat(ctx, newOpenAIClient(srv), chatParams(true))
			if r.err != nil {
				t.Fatalf("stream: %v", r.err)
			}
			if diff := cmp.Diff(want(tc.turn, tc.chatStop, 1), r.out); diff != "" {
				t.Errorf("outcome (-want +got):\n%s", diff)
			}
			if got, want := r.chunks, len(llmtest.ChatEventTypes(tc.turn, true))-1; got != want {
				t.Errorf("SDK delivered %d chunks, want %d (all but [DONE])", got, want)
			}
			// The SDK's own accumulator agrees with the raw deltas.
			acc := r.acc.ChatCompletion
			if len(acc.Choices) != 1 {
				t.Fatalf("accumulated %d choices", len(acc.Choices))
			}
			msg := acc.Choices[0].Message
			if msg.Content != r.out.Text || acc.Model != cmpOr(tc.turn.Model, "gpt-4o") {
				t.Errorf("accumulated content %q model %q", msg.Content, acc.Model)
			}
			var tools []call
			for _, tc := range msg.ToolCalls {
				tools = append(tools, call{tc.ID, tc.Function.Name, tc.Function.Arguments})
			}
			if diff := cmp.Diff(r.out.Tools, tools); diff != "" {
				t.Errorf("accumulated tool calls (-raw +accumulated):\n%s", diff)
			}
			req := srv.Requests()[0]
			if req.Protocol != llmtest.ProtocolChat || req.Path != "/v1/chat/completions" {
				t.Errorf("recorded %s %s", req.Protocol, req.Path)
			}
			if len(req.BlockStops) != len(tc.turn.Blocks) {
				t.Errorf("recorded %d block stops, want %d", len(req.BlockStops), len(tc.turn.Blocks))
			}
		})
	}
}

// TestSameTurnAllFormats serves one turn to a client of each format: the
// text, thinking and tool calls must come out the same.
func TestSameTurnAllFormats(t *testing.T) {
	turn := llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Thinking("Two files to read; both at once.", "sig"),
			llmtest.Text("Reading a.go and b.go — 🚀."),
			{Kind: llmtest.KindToolUse, ID: "id_a", Name: "read_file", Input: `{"path":"a.go"}`, Fragments: 4},
			{Kind: llmtest.KindToolUse, ID: "id_b", Name: "read_file", Input: `{"path":"b.go","limit":10}`, Fragments: 7},
		},
		Usage: llm.Usage{InputTokens: 100, OutputTokens: 50, CacheReadTokens: 900},
	}
	srv := newServer(t, turn, turn, turn)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()

	a := stream(ctx, newClient(srv.URL), params())
	resp := streamResponses(ctx, newOpenAIClient(srv), responsesParams())
	chat := streamChat(ctx, newOpenAIClient(srv), chatParams(true))
	if err := errors.Join(a.err, resp.err, chat.err); err != nil {
		t.Fatal(err)
	}
	// Only what every format can say: the stop reasons and usage
	// vocabularies differ by design.
	neutral := func(o outcome) outcome { return outcome{Text: o.Text, Thinking: o.Thinking, Tools: o.Tools} }
	base := neutral(anthropicOutcome(a))
	if diff := cmp.Diff(neutral(want(turn, "", 1)), base); diff != "" {
		t.Fatalf("anthropic (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(base, neutral(resp.out)); diff != "" {
		t.Errorf("responses differs from anthropic (-anthropic +responses):\n%s", diff)
	}
	if diff := cmp.Diff(base, neutral(chat.out)); diff != "" {
		t.Errorf("chat differs from anthropic (-anthropic +chat):\n%s", diff)
	}
	var protos []string
	for _, r := range srv.Requests() {
		protos = append(protos, r.Protocol)
	}
	if diff := cmp.Diff([]string{llmtest.ProtocolAnthropic, llmtest.ProtocolResponses, llmtest.ProtocolChat}, protos); diff != "" {
		t.Errorf("recorded protocols (-want +got):\n%s", diff)
	}
}

func TestResponsesEncryptedContent(t *testing.T) {
	turn := llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Thinking("Summary of my thoughts.", "gAAAAB-signature"),
		llmtest.Thinking("", "gAAAAB-no-summary"),
		llmtest.RedactedThinking("gAAAAB-redacted"),
		llmtest.Text("done"),
	}}
	cases := []struct {
		name    string
		include bool
		want    []string
	}{
		{"not asked for", false, nil},
		{"included", true, []string{"gAAAAB-signature", "gAAAAB-no-summary", "gAAAAB-redacted"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, turn)
			p := responsesParams()
			if tc.include {
				p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
			}
			r := streamResponses(t.Context(), newOpenAIClient(srv), p)
			if r.err != nil {
				t.Fatal(r.err)
			}
			if diff := cmp.Diff(tc.want, r.out.Secrets); diff != "" {
				t.Errorf("encrypted_content of the done items (-want +got):\n%s", diff)
			}
			var final []string
			for _, item := range r.final.Output {
				if item.EncryptedContent != "" {
					final = append(final, item.EncryptedContent)
				}
			}
			if diff := cmp.Diff(tc.want, final); diff != "" {
				t.Errorf("encrypted_content in response.completed (-want +got):\n%s", diff)
			}
			if r.out.Thinking != "Summary of my thoughts." || len(r.final.Output[0].Summary) != 1 || len(r.final.Output[1].Summary) != 0 {
				t.Errorf("summaries: streamed %q, final %+v", r.out.Thinking, r.final.Output[:2])
			}
		})
	}
}

func TestOpenAIUsage(t *testing.T) {
	u := llm.Usage{InputTokens: 120, OutputTokens: 80, CacheReadTokens: 4000, CacheWriteTokens: 300}
	thinking := llmtest.Thinking(strings.Repeat("abcd", 10), "s") // ~10 reasoning tokens
	t.Run("responses", func(t *testing.T) {
		srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{thinking, llmtest.Text("hi")}, Usage: u})
		r := streamResponses(t.Context(), newOpenAIClient(srv), responsesParams())
		if r.err != nil {
			t.Fatal(r.err)
		}
		got := r.final.Usage
		type figures struct{ Input, Cached, Output, Reasoning, Total int64 }
		if diff := cmp.Diff(figures{4120, 4000, 80, 10, 4200}, figures{got.InputTokens, got.InputTokensDetails.CachedTokens,
			got.OutputTokens, got.OutputTokensDetails.ReasoningTokens, got.TotalTokens}); diff != "" {
			t.Errorf("usage (-want +got):\n%s", diff)
		}
	})
	t.Run("chat", func(t *testing.T) {
		srv := newServer(t, llmtest.Turn{Blocks: []llmtest.Block{thinking, llmtest.Text("hi")}, Usage: u})
		r := streamChat(t.Context(), newOpenAIClient(srv), chatParams(true))
		if r.err != nil {
			t.Fatal(r.err)
		}
		got := r.acc.Usage
		type figures struct{ Prompt, Cached, Completion, Reasoning, Total int64 }
		if diff := cmp.Diff(figures{4120, 4000, 80, 10, 4200}, figures{got.PromptTokens, got.PromptTokensDetails.CachedTokens,
			got.CompletionTokens, got.CompletionTokensDetails.ReasoningTokens, got.TotalTokens}); diff != "" {
			t.Errorf("usage (-want +got):\n%s", diff)
		}
	})
	t.Run("chat without include_usage", func(t *testing.T) {
		turn := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("hi")}, Usage: u}
		srv := newServer(t, turn)
		r := streamChat(t.Context(), newOpenAIClient(srv), chatParams(false))
		if r.err != nil {
			t.Fatal(r.err)
		}
		if r.out.Usage != nil {
			t.Errorf("usage %+v sent without stream_options.include_usage", r.out.Usage)
		}
		if got, want := r.chunks, len(llmtest.ChatEventTypes(turn, false))-1; got != want {
			t.Errorf("%d chunks, want %d", got, want)
		}
		// Without include_usage the real API sends no usage field at all.
		raw := rawStream(t, srv, "/v1/chat/completions", `{"stream":true}`)
		if strings.Contains(raw, `"usage"`) {
			t.Errorf("usage field present without include_usage:\n%s", raw)
		}
	})
}

func TestOmitUsage(t *testing.T) {
	turn := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("hi")}, Usage: llm.Usage{InputTokens: 9, OutputTokens: 9}, OmitUsage: true}
	cases := []struct{ path, body string }{
		{"/v1/messages", `{"stream":true}`},
		{"/v1/messages", `{}`},
		{"/v1/responses", `{"stream":true}`},
		{"/v1/responses", `{}`},
		{"/v1/chat/completions", `{"stream":true,"stream_options":{"include_usage":true}}`},
		{"/v1/chat/completions", `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.path+" "+tc.body, func(t *testing.T) {
			srv := newServer(t, turn)
			raw := rawStream(t, srv, tc.path, tc.body)
			// The Responses object keeps its "usage": null, as when usage
			// is not known yet; no format sends a figure.
			if strings.Contains(raw, `"usage":{`) || usageFigureRE.MatchString(raw) {
				t.Errorf("usage sent despite OmitUsage:\n%s", raw)
			}
		})
	}
	t.Run("anthropic SDK", func(t *testing.T) {
		srv := newServer(t, turn)
		r := stream(t.Context(), newClient(srv.URL), params())
		if r.err != nil || r.msg.Content[0].Text != "hi" || r.msg.Usage.InputTokens != 0 || r.msg.Usage.OutputTokens != 0 {
			t.Errorf("err %v, message %+v", r.err, r.msg)
		}
	})
	t.Run("responses SDK", func(t *testing.T) {
		srv := newServer(t, turn)
		r := streamResponses(t.Context(), newOpenAIClient(srv), responsesParams())
		if r.err != nil || r.out.Usage != nil || r.final.JSON.Usage.Valid() {
			t.Errorf("err %v, usage %+v", r.err, r.out.Usage)
		}
	})
}

var usageFigureRE = regexp.MustCompile(`"(input|output|prompt|completion|cache_read_input|cache_creation_input)_tokens"`)

// rawStream posts body to path and returns the whole answer.
func rawStream(t *testing.T, srv *llmtest.Server, path, body string) string {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenAIErrorStatus(t *testing.T) {
	cases := []struct {
		name       string
		turn       llmtest.Turn
		wantType   string
		wantCode   string
		wantMsg    string
		retryAfter string
	}{
		{"rate limit", llmtest.Turn{Status: 429, RetryAfter: "7"}, "requests", "rate_limit_exceeded", "", "7"},
		{"server error", llmtest.Turn{Status: 500}, "server_error", "", "The server had an error while processing your request. Sorry about that!", ""},
		{"auth", llmtest.Turn{Status: 401}, "invalid_request_error", "invalid_api_key", "Incorrect API key provided.", ""},
		{"forbidden", llmtest.Turn{Status: 403}, "request_forbidden", "unsupported_country_region_territory", "not supported", ""},
		{"overloaded 529", llmtest.Turn{Status: 529}, "server_error", "", "overloaded", ""},
		{"overloaded 503", llmtest.Turn{Status: 503, RetryAfter: "2"}, "server_error", "", "overloaded", "2"},
		{"anthropic type translated", llmtest.Turn{Status: 429, ErrorType: "rate_limit_error", ErrorMessage: "slow down"},
			"requests", "rate_limit_exceeded", "slow down", ""},
		{"custom code", llmtest.Turn{Status: 400, ErrorType: "invalid_request_error", ErrorCode: "context_length_exceeded",
			ErrorMessage: "This model's maximum context length is 128000 tokens."},
			"invalid_request_error", "context_length_exceeded", "This model's maximum context length is 128000 tokens.", ""},
	}
	for _, tc := range cases {
		for _, format := range []string{"responses", "chat"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				srv := newServer(t, tc.turn)
				var err error
				if format == "responses" {
					err = streamResponses(t.Context(), newOpenAIClient(srv), responsesParams()).err
				} else {
					err = streamChat(t.Context(), newOpenAIClient(srv), chatParams(true)).err
				}
				var apiErr *openai.Error
				if !errors.As(err, &apiErr) {
					t.Fatalf("err = %v (%T), want *openai.Error", err, err)
				}
				type shape struct {
					Status                 int
					Type, Code, RetryAfter string
				}
				got := shape{apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Response.Header.Get("Retry-After")}
				wantShape := shape{tc.turn.Status, tc.wantType, tc.wantCode, tc.retryAfter}
				if diff := cmp.Diff(wantShape, got); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if !strings.Contains(apiErr.Message, tc.wantMsg) {
					t.Errorf("message = %q, want it to contain %q", apiErr.Message, tc.wantMsg)
				}
				// param is present and null, as in the real API.
				if !strings.Contains(apiErr.RawJSON(), `"param":null`) {
					t.Errorf("raw error %s lacks \"param\":null", apiErr.RawJSON())
				}
			})
		}
	}
}

func TestOpenAIStreamError(t *testing.T) {
	cases := []struct {
		name         string
		se           llmtest.StreamError
		wantCode     string // Responses error.code
		wantChatType string // Chat error.type
	}{
		{"defaults", llmtest.StreamError{}, "server_error", "server_error"},
		{"rate limit", llmtest.StreamError{Type: "rate_limit_error", Message: "Too many tokens"}, "rate_limit_exceeded", "requests"},
		{"openai code verbatim", llmtest.StreamError{Type: "vector_store_timeout", Message: "slow"}, "vector_store_timeout", "vector_store_timeout"},
	}
	for _, tc := range cases {
		se := tc.se
		turn := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("partial answer")}, StreamError: &se}
		wantMsg := cmpOr(tc.se.Message, "Overloaded")
		t.Run(tc.name+"/responses", func(t *testing.T) {
			srv := newServer(t, turn)
			r := streamResponses(t.Context(), newOpenAIClient(srv), responsesParams())
			if r.err != nil {
				t.Fatalf("err = %v: response.failed is an event, not a transport error", r.err)
			}
			if last := r.events[len(r.events)-1]; last != "response.failed" {
				t.Errorf("last event %q, want response.failed", last)
			}
			if got := r.final.Error; string(got.Code) != tc.wantCode || got.Message != wantMsg || r.final.Status != "failed" {
				t.Errorf("status %q error %q %q, want failed %q %q", r.final.Status, got.Code, got.Message, tc.wantCode, wantMsg)
			}
			if r.out.Text != "partial answer" || len(r.final.Output) != 1 {
				t.Errorf("before the failure: text %q, output %+v", r.out.Text, r.final.Output)
			}
		})
		t.Run(tc.name+"/chat", func(t *testing.T) {
			srv := newServer(t, turn)
			r := streamChat(t.Context(), newOpenAIClient(srv), chatParams(true))
			var se *ssestream.StreamError
			if !errors.As(r.err, &se) {
				t.Fatalf("err = %v (%T), want *ssestream.StreamError", r.err, r.err)
			}
			var body struct {
				Error struct {
					Message, Type string
					Code          *string
				}
			}
			if err := json.Unmarshal(se.Event.Data, &body); err != nil {
				t.Fatal(err)
			}
			if body.Error.Message != wantMsg || body.Error.Type != tc.wantChatType {
				t.Errorf("error chunk %s, want message %q type %q", se.Event.Data, wantMsg, tc.wantChatType)
			}
			if r.out.Text != "partial answer" || r.out.Stop != "" {
				t.Errorf("before the error: text %q, finish %q", r.out.Text, r.out.Stop)
			}
		})
	}
}

func TestOpenAICutAfter(t *testing.T) {
	turn := llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Text("some text that spans more than one delta event"),
		llmtest.ToolUse("call_1", "read", `{"path":"x"}`),
	}}
	respEvents := llmtest.ResponsesEventTypes(turn)
	chatEvents := llmtest.ChatEventTypes(turn, true)
	check := func(t *testing.T, ctx context.Context, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("stream ended without error")
		}
		if ctx.Err() != nil {
			t.Fatalf("stream hung until the guard timeout: %v", err)
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("err = %v, want unexpected EOF", err)
		}
	}
	for _, cut := range []int{1, 2, 5, len(respEvents) - 1} {
		t.Run(fmt.Sprint("responses ", cut), func(t *testing.T) {
			turn := turn
			turn.CutAfter = cut
			srv := newServer(t, turn)
			// The guard turns a hang into a failure instead of a test timeout.
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			r := streamResponses(ctx, newOpenAIClient(srv), responsesParams())
			check(t, ctx, r.err)
			if diff := cmp.Diff(respEvents[:cut], r.events); diff != "" {
				t.Errorf("events before the cut (-want +got):\n%s", diff)
			}
		})
	}
	// Every chunk before the cut arrives; the last one, [DONE], is not
	// delivered as a chunk, so cut before it.
	for _, cut := range []int{1, 2, 4, len(chatEvents) - 1} {
		t.Run(fmt.Sprint("chat ", cut), func(t *testing.T) {
			turn := turn
			turn.CutAfter = cut
			srv := newServer(t, turn)
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			r := streamChat(ctx, newOpenAIClient(srv), chatParams(true))
			check(t, ctx, r.err)
			if r.chunks != cut {
				t.Errorf("%d chunks before the cut, want %d", r.chunks, cut)
			}
		})
	}
	t.Run("non-streaming", func(t *testing.T) {
		turn := turn
		turn.CutAfter = 1
		srv := newServer(t, turn, turn)
		c := newOpenAIClient(srv)
		if _, err := c.Responses.New(t.Context(), responsesParams()); err == nil {
			t.Error("responses: no error for a dropped connection")
		}
		if _, err := c.Chat.Completions.New(t.Context(), chatParams(false)); err == nil {
			t.Error("chat: no error for a dropped connection")
		}
	})
}

func TestOpenAIStallAfter(t *testing.T) {
	turn := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("hello")}, StallAfter: 3}
	for _, format := range []string{"responses", "chat"} {
		t.Run(format, func(t *testing.T) {
			srv := newServer(t, turn)
			ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
			defer cancel()
			var err error
			var seen int
			if format == "responses" {
				r := streamResponses(ctx, newOpenAIClient(srv), responsesParams())
				err, seen = r.err, len(r.events)
			} else {
				r := streamChat(ctx, newOpenAIClient(srv), chatParams(true))
				err, seen = r.err, r.chunks
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want deadline exceeded", err)
			}
			if seen != 3 {
				t.Errorf("%d events before the stall, want 3", seen)
			}
		})
	}
}

func TestOpenAIHang(t *testing.T) {
	for _, format := range []string{"responses", "chat"} {
		t.Run(format, func(t *testing.T) {
			srv := newServer(t, llmtest.Turn{Hang: true})
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(100*time.Millisecond, cancel)
			start := time.Now()
			var err error
			if format == "responses" {
				err = streamResponses(ctx, newOpenAIClient(srv), responsesParams()).err
			} else {
				err = streamChat(ctx, newOpenAIClient(srv), chatParams(true)).err
			}
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
			if elapsed := time.Since(start); elapsed > 15*time.Second {
				t.Errorf("cancel took %v to return", elapsed)
			}
			waitDone(t, srv)
		})
	}
}

func TestOpenAIPacing(t *testing.T) {
	const (
		delay      = 60 * time.Millisecond
		chunkDelay = 10 * time.Millisecond
		fragments  = 4
	)
	turn := llmtest.Turn{
		Blocks: []llmtest.Block{
			{Kind: llmtest.KindText, Text: "first", Delay: delay},
			// Chat sends nothing for redacted thinking: its delay and
			// block stop pass to the next block's first chunk.
			{Kind: llmtest.KindRedactedThinking, Data: "x", Delay: delay},
			{Kind: llmtest.KindToolUse, Name: "read", Input: `{"path":"main.go"}`, Fragments: fragments},
		},
		ChunkDelay: chunkDelay,
	}
	for _, format := range []string{"responses", "chat"} {
		t.Run(format, func(t *testing.T) {
			srv := newServer(t, turn)
			var err error
			if format == "responses" {
				err = streamResponses(t.Context(), newOpenAIClient(srv), responsesParams()).err
			} else {
				err = streamChat(t.Context(), newOpenAIClient(srv), chatParams(true)).err
			}
			if err != nil {
				t.Fatal(err)
			}
			req := srv.Requests()[0]
			if len(req.BlockStops) != 3 {
				t.Fatalf("BlockStops = %v", req.BlockStops)
			}
			if got := req.BlockStops[0].Sub(req.Received); got < delay {
				t.Errorf("first block stopped %v after the request, want ≥ %v", got, delay)
			}
			// Responses streams 4 argument deltas (3 gaps); Chat a header
			// chunk and 4 argument chunks (4 gaps).
			minTool := delay + (fragments-1)*chunkDelay
			if got := req.BlockStops[2].Sub(req.BlockStops[0]); got < minTool {
				t.Errorf("tool block stopped %v after the first, want ≥ %v", got, minTool)
			}
		})
	}
}

func TestOpenAINonStreaming(t *testing.T) {
	turn := llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Thinking("hmm", "sig"),
			llmtest.Text("Reading it."),
			llmtest.ToolUse("", "read", `{"path":"a"}`),
			{Kind: llmtest.KindToolUse, ID: "call_bad", Name: "bash", Input: `{"cmd": "ls`},
		},
		Usage: llm.Usage{InputTokens: 5, OutputTokens: 6, CacheReadTokens: 7},
	}
	srv := newServer(t, turn, turn, llmtest.Turn{StreamError: &llmtest.StreamError{}}, llmtest.Turn{StreamError: &llmtest.StreamError{Type: "rate_limit_error"}})
	c := newOpenAIClient(srv)

	r, err := c.Responses.New(t.Context(), responsesParams())
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "completed" || r.OutputText() != "Reading it." || len(r.Output) != 4 ||
		r.Output[0].Summary[0].Text != "hmm" || r.Output[2].CallID != "call_1" || r.Output[3].Arguments.OfString != `{"cmd": "ls` ||
		r.Usage.InputTokens != 12 || r.Usage.InputTokensDetails.CachedTokens != 7 {
		t.Errorf("response = %s", r.RawJSON())
	}

	cc, err := c.Chat.Completions.New(t.Context(), chatParams(false))
	if err != nil {
		t.Fatal(err)
	}
	msg := cc.Choices[0].Message
	if msg.Content != "Reading it." || len(msg.ToolCalls) != 2 || msg.ToolCalls[0].ID != "call_2" ||
		msg.ToolCalls[1].Function.Arguments != `{"cmd": "ls` || cc.Choices[0].FinishReason != "tool_calls" ||
		msg.JSON.ExtraFields["reasoning_content"].Raw() != `"hmm"` || cc.Usage.PromptTokens != 12 {
		t.Errorf("completion = %s", cc.RawJSON())
	}

	// Without a stream, an in-stream error becomes an error status.
	_, err = c.Responses.New(t.Context(), responsesParams())
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Type != "server_error" {
		t.Errorf("overloaded: err = %v", err)
	}
	_, err = c.Chat.Completions.New(t.Context(), chatParams(false))
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Code != "rate_limit_exceeded" {
		t.Errorf("rate limited: err = %v", err)
	}
}

// normalizeTimes replaces clock readings, so streams can be pinned.
var timesRE = regexp.MustCompile(`"(created|created_at|completed_at)":\d+`)

func normalizeTimes(s string) string { return timesRE.ReplaceAllString(s, `"$1":0`) }

// TestOpenAIWireFormat pins the exact bytes of small streams, so field order
// and shapes stay those of the real APIs.
func TestOpenAIWireFormat(t *testing.T) {
	turn := llmtest.Turn{
		Blocks: []llmtest.Block{
			llmtest.Text("Hi <there> & you"),
			{Kind: llmtest.KindToolUse, ID: "call_01", Name: "weather", Input: `{"location":"Florence"}`, Fragments: 2},
		},
		Usage: llm.Usage{InputTokens: 394, OutputTokens: 67, CacheReadTokens: 5, CacheWriteTokens: 6},
	}
	t.Run("chat", func(t *testing.T) {
		srv := newServer(t, turn)
		got := normalizeTimes(rawStream(t, srv, "/v1/chat/completions", `{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true}}`))
		const want = `data: {"id":"chatcmpl-llmtest0001","object":"chat.completion.chunk","created":0,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":""}

data: {"id":"chatcmpl-llmtest0001","object":"chat.completion.chunk","created":0,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":{"content":"Hi <there> & you"},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":""}

data: {"id":"chatcmpl-llmtest0001","object":"chat.completion.chunk","created":0,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_01","type":"function","function":{"name":"weather","arguments":""}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Qx7vN2kLp"}

data: {"id":"chatcmpl-llmtest0001","object":"chat.completion.chunk","created":0,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Qx7v"}

data: {"id":"chatcmpl-llmtest0001","object":"chat.completion.chunk","created":0,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Florence\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"Qx7vN"}

data: {"id":"chatcmpl-llmtest0001","object":"chat.completion.chunk","created":0,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_llmtest","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null,"obfuscation":""}

data: {"id":"chatcmpl-llmtest0001","object":"chat.completion.chunk","created":0,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_llmtest","choices":[],"usage":{"prompt_tokens":399,"completion_tokens":67,"total_tokens":466,"prompt_tokens_details":{"cached_tokens":5,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"obfuscation":""}

data: [DONE]

`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("stream (-want +got):\n%s", diff)
		}
	})
	t.Run("responses", func(t *testing.T) {
		srv := newServer(t, turn)
		got := normalizeTimes(rawStream(t, srv, "/v1/responses",
			`{"model":"gpt-4o","stream":true,"store":false,"stream_options":{"include_obfuscation":false}}`))
		const response = `{"id":"resp_llmtest_0001","object":"response","created_at":0,"status":"%s","background":false,"completed_at":%s,"error":null,"frequency_penalty":0.0,"incomplete_details":null,"instructions":null,"max_output_tokens":null,"max_tool_calls":null,"model":"gpt-4o","moderation":null,"output":%s,"parallel_tool_calls":true,"presence_penalty":0.0,"previous_response_id":null,"prompt_cache_key":null,"prompt_cache_retention":"in_memory","reasoning":{"effort":null,"summary":null},"safety_identifier":null,"service_tier":"%s","store":false,"temperature":1.0,"text":{"format":{"type":"text"},"verbosity":"medium"},"tool_choice":"auto","tools":[],"top_logprobs":0,"top_p":1.0,"truncation":"disabled","usage":%s,"user":null,"metadata":{}}`
		const (
			msgDone = `{"id":"msg_llmtest_0001_0","type":"message","status":"completed","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"Hi <there> & you"}],"role":"assistant"}`
			fcDone  = `{"id":"fc_llmtest_0001_1","type":"function_call","status":"completed","arguments":"{\"location\":\"Florence\"}","call_id":"call_01","name":"weather"}`
			usage   = `{"input_tokens":399,"input_tokens_details":{"cached_tokens":5},"output_tokens":67,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":466}`
		)
		opening := fmt.Sprintf(response, "in_progress", "null", "[]", "auto", "null")
		final := fmt.Sprintf(response, "completed", "0", "["+msgDone+","+fcDone+"]", "default", usage)
		want := `event: response.created
data: {"type":"response.created","response":` + opening + `,"sequence_number":0}

event: response.in_progress
data: {"type":"response.in_progress","response":` + opening + `,"sequence_number":1}

event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"msg_llmtest_0001_0","type":"message","status":"in_progress","content":[],"role":"assistant"},"output_index":0,"sequence_number":2}

event: response.content_part.added
data: {"type":"response.content_part.added","content_index":0,"item_id":"msg_llmtest_0001_0","output_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":""},"sequence_number":3}

event: response.output_text.delta
data: {"type":"response.output_text.delta","content_index":0,"delta":"Hi <there> & you","item_id":"msg_llmtest_0001_0","logprobs":[],"output_index":0,"sequence_number":4}

event: response.output_text.done
data: {"type":"response.output_text.done","content_index":0,"item_id":"msg_llmtest_0001_0","logprobs":[],"output_index":0,"sequence_number":5,"text":"Hi <there> & you"}

event: response.content_part.done
data: {"type":"response.content_part.done","content_index":0,"item_id":"msg_llmtest_0001_0","output_index":0,"part":{"type":"output_text","annotations":[],"logprobs":[],"text":"Hi <there> & you"},"sequence_number":6}

event: response.output_item.done
data: {"type":"response.output_item.done","item":` + msgDone + `,"output_index":0,"sequence_number":7}

event: response.output_item.added
data: {"type":"response.output_item.added","item":{"id":"fc_llmtest_0001_1","type":"function_call","status":"in_progress","arguments":"","call_id":"call_01","name":"weather"},"output_index":1,"sequence_number":8}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","delta":"{\"location\":","item_id":"fc_llmtest_0001_1","output_index":1,"sequence_number":9}

event: response.function_call_arguments.delta
data: {"type":"response.function_call_arguments.delta","delta":"\"Florence\"}","item_id":"fc_llmtest_0001_1","output_index":1,"sequence_number":10}

event: response.function_call_arguments.done
data: {"type":"response.function_call_arguments.done","arguments":"{\"location\":\"Florence\"}","item_id":"fc_llmtest_0001_1","output_index":1,"sequence_number":11}

event: response.output_item.done
data: {"type":"response.output_item.done","item":` + fcDone + `,"output_index":1,"sequence_number":12}

event: response.completed
data: {"type":"response.completed","response":` + final + `,"sequence_number":13}

`
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("stream (-want +got):\n%s", diff)
		}
	})
}

func TestEventTypeLists(t *testing.T) {
	turn := llmtest.Turn{Blocks: []llmtest.Block{
		llmtest.Thinking("short", "sig"),
		{Kind: llmtest.KindToolUse, Name: "t", Input: `{"a":1}`, Fragments: 2},
		llmtest.RedactedThinking("x"),
	}}
	t.Run("responses", func(t *testing.T) {
		want := []string{
			"response.created", "response.in_progress",
			"response.output_item.added", "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
			"response.reasoning_summary_text.done", "response.reasoning_summary_part.done", "response.output_item.done",
			"response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
			"response.function_call_arguments.done", "response.output_item.done",
			"response.output_item.added", "response.output_item.done",
			"response.completed",
		}
		if diff := cmp.Diff(want, llmtest.ResponsesEventTypes(turn)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		failed := llmtest.ResponsesEventTypes(llmtest.Turn{StopReason: "max_tokens", StreamError: &llmtest.StreamError{}})
		if diff := cmp.Diff([]string{"response.created", "response.in_progress", "response.failed"}, failed); diff != "" {
			t.Errorf("stream error (-want +got):\n%s", diff)
		}
		incomplete := llmtest.ResponsesEventTypes(llmtest.Turn{StopReason: "max_tokens"})
		if diff := cmp.Diff([]string{"response.created", "response.in_progress", "response.incomplete"}, incomplete); diff != "" {
			t.Errorf("max tokens (-want +got):\n%s", diff)
		}
	})
	t.Run("chat", func(t *testing.T) {
		want := []string{"role", "reasoning_content", "tool_call", "tool_arguments", "tool_arguments", "finish", "usage", "[DONE]"}
		if diff := cmp.Diff(want, llmtest.ChatEventTypes(turn, true)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(slices.DeleteFunc(slices.Clone(want), func(s string) bool { return s == "usage" }),
			llmtest.ChatEventTypes(turn, false)); diff != "" {
			t.Errorf("without usage (-want +got):\n%s", diff)
		}
		errTurn := llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("hi")}, StreamError: &llmtest.StreamError{}}
		if diff := cmp.Diff([]string{"role", "content", "error"}, llmtest.ChatEventTypes(errTurn, true)); diff != "" {
			t.Errorf("stream error (-want +got):\n%s", diff)
		}
	})
}

func TestProtocolRouting(t *testing.T) {
	srv := newServer(t)
	var seen []string
	srv.SetFallback(func(r llmtest.Request) llmtest.Turn {
		seen = append(seen, r.Protocol)
		return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text("answer for " + r.Protocol)}}
	})
	ctx := t.Context()
	a := stream(ctx, newClient(srv.URL+"/gateway/anthropic/"), params())
	resp := streamResponses(ctx, newOpenAIClient(srv, oaoption.WithBaseURL(srv.URL+"/gateway/openai/v1")), responsesParams())
	chat := streamChat(ctx, newOpenAIClient(srv), chatParams(false))
	if err := errors.Join(a.err, resp.err, chat.err); err != nil {
		t.Fatal(err)
	}
	got := []string{a.msg.Content[0].Text, resp.out.Text, chat.out.Text}
	wantText := []string{"answer for anthropic", "answer for openai-responses", "answer for openai-chat"}
	if diff := cmp.Diff(wantText, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"anthropic", "openai-responses", "openai-chat"}, seen); diff != "" {
		t.Errorf("protocols the fallback saw (-want +got):\n%s", diff)
	}
	if p := srv.Requests()[1].Path; p != "/gateway/openai/v1/responses" {
		t.Errorf("recorded path %q", p)
	}

	t.Run("server diagnostics in the OpenAI shape", func(t *testing.T) {
		srv := newServer(t)
		err := streamChat(t.Context(), newOpenAIClient(srv), chatParams(true)).err
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Message != "llmtest: script exhausted" || apiErr.Type != "server_error" {
			t.Errorf("err = %v", err)
		}
		resp, err := http.Post(srv.URL+"/v1/responses", "application/json", strings.NewReader("{oops"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("bad body: status %d", resp.StatusCode)
		}
	})
}

func TestModelsEndpoints(t *testing.T) {
	srv := newServer(t)
	ctx := t.Context()
	ac, oc := newClient(srv.URL), newOpenAIClient(srv)

	t.Run("anthropic list", func(t *testing.T) {
		page, err := ac.Models.List(ctx, anthropic.ModelListParams{})
		if err != nil {
			t.Fatal(err)
		}
		type info struct {
			ID             string
			MaxInput, MaxT int64
		}
		var got []info
		for _, m := range page.Data {
			got = append(got, info{m.ID, m.MaxInputTokens, m.MaxTokens})
		}
		want := []info{
			{"claude-sonnet-4-5", 200000, 64000}, {"claude-opus-4-5", 200000, 64000}, {"claude-haiku-4-5", 200000, 64000},
			{"gpt-5", 400000, 128000}, {"gpt-4o-mini", 128000, 16384},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("models (-want +got):\n%s", diff)
		}
		m := page.Data[0]
		if m.DisplayName != "Claude Sonnet 4.5" || m.CreatedAt.IsZero() || !m.Capabilities.Thinking.Supported || m.Line != "sonnet" || m.Type != "model" {
			t.Errorf("model info %s", m.RawJSON())
		}
		if page.HasMore || page.FirstID != "claude-sonnet-4-5" || page.LastID != "gpt-4o-mini" {
			t.Errorf("page %s", page.RawJSON())
		}
	})
	t.Run("anthropic get", func(t *testing.T) {
		m, err := ac.Models.Get(ctx, "claude-opus-4-5", anthropic.ModelGetParams{})
		if err != nil {
			t.Fatal(err)
		}
		if m.ID != "claude-opus-4-5" || m.MaxInputTokens != 200000 || m.MaxTokens != 64000 {
			t.Errorf("model %s", m.RawJSON())
		}
		_, err = ac.Models.Get(ctx, "claude-nope", anthropic.ModelGetParams{})
		var apiErr *anthropic.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Type() != "not_found_error" {
			t.Errorf("unknown model: err = %v", err)
		}
	})
	t.Run("openai list", func(t *testing.T) {
		page, err := oc.Models.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		type info struct {
			ID, Object, OwnedBy string
			Context             string
		}
		var got []info
		for _, m := range page.Data {
			got = append(got, info{m.ID, string(m.Object), m.OwnedBy, m.JSON.ExtraFields["context_length"].Raw()})
			if m.Created == 0 {
				t.Errorf("%s: no created time", m.ID)
			}
		}
		want := []info{
			{"claude-sonnet-4-5", "model", "system", "200000"}, {"claude-opus-4-5", "model", "system", "200000"},
			{"claude-haiku-4-5", "model", "system", "200000"}, {"gpt-5", "model", "system", "400000"},
			{"gpt-4o-mini", "model", "system", "128000"},
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("models (-want +got):\n%s", diff)
		}
		if body := rawGet(t, srv.URL+"/v1/models"); !strings.HasPrefix(body, `{"object":"list","data":[`) {
			t.Errorf("list body %s", body)
		}
	})
	t.Run("openai get", func(t *testing.T) {
		m, err := oc.Models.Get(ctx, "gpt-5")
		if err != nil {
			t.Fatal(err)
		}
		if m.ID != "gpt-5" || m.JSON.ExtraFields["context_length"].Raw() != "400000" {
			t.Errorf("model %s", m.RawJSON())
		}
		_, err = oc.Models.Get(ctx, "gpt-nope")
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 || apiErr.Code != "model_not_found" {
			t.Errorf("unknown model: err = %v", err)
		}
	})
	t.Run("set models", func(t *testing.T) {
		srv := newServer(t)
		srv.SetModels([]llmtest.Model{{ID: "local/qwen3-coder", ContextWindow: 32768, MaxOutput: 8192}})
		ac, oc := newClient(srv.URL), newOpenAIClient(srv)
		m, err := oc.Models.Get(ctx, "local/qwen3-coder")
		if err != nil {
			t.Fatal(err)
		}
		if m.ID != "local/qwen3-coder" || m.JSON.ExtraFields["context_length"].Raw() != "32768" {
			t.Errorf("model %s", m.RawJSON())
		}
		info, err := ac.Models.Get(ctx, "local/qwen3-coder", anthropic.ModelGetParams{})
		if err != nil || info.MaxInputTokens != 32768 || info.MaxTokens != 8192 || info.DisplayName != "local/qwen3-coder" {
			t.Errorf("anthropic view: err %v, model %+v", err, info)
		}
		srv.SetModels(nil)
		if page, err := ac.Models.List(ctx, anthropic.ModelListParams{}); err != nil || len(page.Data) != 0 || page.FirstID != "" {
			t.Errorf("empty list: err %v, page %s", err, page.RawJSON())
		}
		if got := srv.Models(); len(got) != 0 {
			t.Errorf("Models() = %v after SetModels(nil)", got)
		}
	})
	t.Run("recorded", func(t *testing.T) {
		var protos []string
		for _, r := range srv.Requests() {
			protos = append(protos, r.Protocol)
		}
		if !slices.Contains(protos, llmtest.ProtocolAnthropic) || !slices.Contains(protos, llmtest.ProtocolOpenAI) {
			t.Errorf("protocols recorded for the models requests: %v", protos)
		}
		if srv.Pending() != 0 {
			t.Error("a models request consumed a turn")
		}
	})
}

func rawGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
