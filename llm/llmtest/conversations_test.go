package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/novacode/nova/llm/llmtest"
)

// say is a turn that answers text.
func say(text string) llmtest.Turn {
	return llmtest.Turn{Blocks: []llmtest.Block{llmtest.Text(text)}}
}

// answer is what a turn said: its text, or its error message.
func answer(t llmtest.Turn) string {
	if t.Status != 0 {
		return fmt.Sprintf("%d %s", t.Status, t.ErrorMessage)
	}
	var b strings.Builder
	for _, bl := range t.Blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// TestConversationsBodies feeds the fallback request bodies of every shape
// a first user message takes.
func TestConversationsBodies(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		{"anthropic, text blocks after a preamble",
			`{"system":"child-1 in the system prompt does not count","messages":[` +
				`{"role":"user","content":[{"type":"text","text":"<system-reminder>env</system-reminder>"},{"type":"text","text":"You are child-10."}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"parent"}]}]}`,
			"child-10"},
		{"anthropic, string content", `{"messages":[{"role":"user","content":"hello child-1"}]}`, "child-1"},
		{"anthropic, image before the text", `{"messages":[{"role":"user","content":[{"type":"image","source":{}},{"type":"text","text":"parent here"}]}]}`, "parent"},
		{"chat, system message first", `{"messages":[{"role":"system","content":"child-1"},{"role":"user","content":"parent"}]}`, "parent"},
		{"chat, text parts", `{"messages":[{"role":"developer","content":[{"type":"text","text":"x"}]},{"role":"user","content":[{"type":"text","text":"pre"},{"type":"text","text":"child-1"}]}]}`, "child-1"},
		{"responses, input string", `{"instructions":"parent","input":"child-10 go"}`, "child-10"},
		{"responses, easy input message", `{"input":[{"role":"user","content":[{"type":"input_text","text":"ctx"},{"type":"input_text","text":"child-1"}]}]}`, "child-1"},
		{"responses, typed message after other items", `{"input":[{"role":"developer","content":"child-1"},{"type":"message","role":"user","content":"parent"},{"type":"function_call_output","call_id":"c","output":"child-10"}]}`, "parent"},
		{"only the first user message counts", `{"messages":[{"role":"user","content":"parent"},{"role":"assistant","content":"child-10"},{"role":"user","content":"child-1"}]}`, "parent"},
		{"a marker inside a longer one", `{"messages":[{"role":"user","content":"child-100"}]}`, "child-10"},
		{"no marker", `{"messages":[{"role":"user","content":"someone else"}]}`, "500 llmtest: no script for conversation: \"someone else\""},
		{"no user message", `{"messages":[{"role":"system","content":"child-1"}]}`, "500 llmtest: no script for conversation: (no user message)"},
		{"not JSON", `{oops`, "500 llmtest: no script for conversation: (no user message)"},
		{"long message cut", `{"input":"` + strings.Repeat("é", 100) + `"}`, "500 llmtest: no script for conversation: \"" + strings.Repeat("é", 80) + "…\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := llmtest.Conversations(map[string][]llmtest.Turn{
				"child-1":  {say("child-1")},
				"child-10": {say("child-10")},
				"parent":   {say("parent")},
			})
			if got := answer(f(llmtest.Request{Body: []byte(tc.body)})); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestConversationsScripts(t *testing.T) {
	scripts := map[string][]llmtest.Turn{
		"a":  {say("a1"), say("a2")},
		"ab": {say("ab1")},
		"":   {say("other1"), say("other2")},
	}
	f := llmtest.Conversations(scripts)
	scripts["a"][0] = say("changed") // the fallback keeps its own copy
	ask := func(text string) string {
		return answer(f(llmtest.Request{Body: fmt.Appendf(nil, `{"input":%q}`, text)}))
	}
	var got []string
	for _, text := range []string{"xa", "xab", "?", "xa", "xa", "xab", "!", "?"} {
		got = append(got, ask(text))
	}
	want := []string{
		"a1", "ab1", "other1", "a2",
		`500 llmtest: script "a" exhausted after 2 turns; conversation: "xa"`,
		`500 llmtest: script "ab" exhausted after 1 turns; conversation: "xab"`,
		"other2",
		`500 llmtest: script "" exhausted after 2 turns; conversation: "?"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := answer(llmtest.Conversations(nil)(llmtest.Request{Body: []byte(`{"input":"x"}`)})); got != `500 llmtest: no script for conversation: "x"` {
		t.Errorf("no scripts: %q", got)
	}
}

// preamble stands for the environment block that opens a conversation
// before its prompt.
const preamble = "<system-reminder>\nWorking directory: /src/p\nPlatform: linux\n</system-reminder>"

// opening is how an error names a conversation that opens with prompt: the
// first 80 characters of its first user message.
func opening(prompt string) string {
	text := []rune(preamble + "\n" + prompt)
	if len(text) <= 80 {
		return fmt.Sprintf("%q", string(text))
	}
	return fmt.Sprintf("%q", string(text[:80])+"…")
}

// converse sends one request of a conversation in proto's format: the
// first user message is the preamble and prompt, then for each of later
// the model's "ok" and a user message. It returns the answer's text, or
// the error's message.
func converse(ctx context.Context, srv *llmtest.Server, proto, prompt string, later ...string) string {
	switch proto {
	case llmtest.ProtocolAnthropic:
		p := anthropic.MessageNewParams{
			Model:     testModel,
			MaxTokens: 1024,
			System:    []anthropic.TextBlockParam{{Text: "You are a subagent of parent."}},
			Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(preamble), anthropic.NewTextBlock(prompt))},
		}
		for _, l := range later {
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock("ok")), anthropic.NewUserMessage(anthropic.NewTextBlock(l)))
		}
		r := stream(ctx, newClient(srv.URL), p)
		var apiErr *anthropic.Error
		switch {
		case errors.As(r.err, &apiErr):
			return fmt.Sprintf("%d %s", apiErr.StatusCode, apiErr.Message)
		case r.err != nil:
			return r.err.Error()
		}
		return anthropicOutcome(r).Text
	case llmtest.ProtocolResponses:
		input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage(responses.ResponseInputMessageContentListParam{
			responses.ResponseInputContentParamOfInputText(preamble),
			responses.ResponseInputContentParamOfInputText(prompt),
		}, responses.EasyInputMessageRoleUser)}
		for _, l := range later {
			input = append(input,
				responses.ResponseInputItemParamOfMessage("ok", responses.EasyInputMessageRoleAssistant),
				responses.ResponseInputItemParamOfMessage(l, responses.EasyInputMessageRoleUser))
		}
		p := responses.ResponseNewParams{
			Model:        "gpt-5",
			Instructions: openai.String("You are a subagent of parent."),
			Input:        responses.ResponseNewParamsInputUnion{OfInputItemList: input},
		}
		r := streamResponses(ctx, newOpenAIClient(srv), p)
		return openaiAnswer(r.out.Text, r.err)
	}
	msgs := []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage("You are a subagent of parent."),
		openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(preamble), openai.TextContentPart(prompt)}),
	}
	for _, l := range later {
		msgs = append(msgs, openai.AssistantMessage("ok"), openai.UserMessage(l))
	}
	r := streamChat(ctx, newOpenAIClient(srv), openai.ChatCompletionNewParams{Model: "gpt-4o", Messages: msgs})
	return openaiAnswer(r.out.Text, r.err)
}

// openaiAnswer is converse's answer from an OpenAI client.
func openaiAnswer(text string, err error) string {
	var apiErr *openai.Error
	switch {
	case errors.As(err, &apiErr):
		return fmt.Sprintf("%d %s", apiErr.StatusCode, apiErr.Message)
	case err != nil:
		return err.Error()
	}
	return text
}

var protocols = []string{llmtest.ProtocolAnthropic, llmtest.ProtocolResponses, llmtest.ProtocolChat}

// TestConversationsOverHTTP holds two conversations in turns with each
// protocol's official client, then asks for one nobody scripted and one
// past its script's end.
func TestConversationsOverHTTP(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv := newServer(t)
			srv.SetFallback(llmtest.Conversations(map[string][]llmtest.Turn{
				"parent":   {say("parent 1"), say("parent 2")},
				"child-1":  {say("child-1 1"), say("child-1 2")},
				"child-10": {say("child-10 1")},
			}))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			got := []string{
				converse(ctx, srv, proto, "You are the parent."),
				converse(ctx, srv, proto, "Task for child-10: read the code."),
				converse(ctx, srv, proto, "Task for child-1: run the tests."),
				converse(ctx, srv, proto, "Task for child-1: run the tests.", "child-10 says: go on"),
				converse(ctx, srv, proto, "You are the parent.", "child-1 is done"),
				converse(ctx, srv, proto, "Nobody's task."),
				converse(ctx, srv, proto, "Task for child-10: read the code.", "more"),
			}
			want := []string{
				"parent 1", "child-10 1", "child-1 1", "child-1 2", "parent 2",
				"500 llmtest: no script for conversation: " + opening("Nobody's task."),
				`500 llmtest: script "child-10" exhausted after 1 turns; conversation: ` + opening("Task for child-10: read the code."),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestConversationsConcurrent runs three conversations at once, one per
// protocol, each several calls long, with pacing that interleaves their
// requests: each must get its own script's turns in order.
func TestConversationsConcurrent(t *testing.T) {
	const calls = 4
	scripts := map[string][]llmtest.Turn{}
	for i := range protocols {
		marker := fmt.Sprintf("child-%d", i+1)
		for k := range calls {
			turn := say(fmt.Sprintf("%s answer %d", marker, k+1))
			turn.Blocks[0].Delay = time.Duration((i+k)%3) * time.Millisecond
			turn.ChunkDelay = time.Millisecond
			scripts[marker] = append(scripts[marker], turn)
		}
	}
	srv := newServer(t)
	srv.SetFallback(llmtest.Conversations(scripts))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	got := make([][]string, len(protocols))
	var wg sync.WaitGroup
	for i, proto := range protocols {
		wg.Go(func() {
			prompt := fmt.Sprintf("Task for child-%d.", i+1)
			var later []string
			for range calls {
				got[i] = append(got[i], converse(ctx, srv, proto, prompt, later...))
				later = append(later, "next")
			}
		})
	}
	wg.Wait()
	var want [][]string
	for i := range protocols {
		var w []string
		for k := range calls {
			w = append(w, fmt.Sprintf("child-%d answer %d", i+1, k+1))
		}
		want = append(want, w)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers per conversation (-want +got):\n%s", diff)
	}
	if n := len(srv.Requests()); n != len(protocols)*calls {
		t.Errorf("%d requests, want %d", n, len(protocols)*calls)
	}
}

// A request sent again gets the same answer: the turn is chosen by the
// answers the request carries, in every protocol's shape.
func TestConversationTurns(t *testing.T) {
	f := llmtest.ConversationTurns(map[string][]llmtest.Turn{
		"task-1": {say("one"), say("two"), say("three")},
		"task-2": {say("other")},
	})
	cases := []struct {
		name, body string
		answers    int
		want       string
	}{
		{"anthropic, the prompt", `{"messages":[{"role":"user","content":"task-1 go"}]}`, 0, "one"},
		{"anthropic, after a tool turn",
			`{"messages":[{"role":"user","content":"task-1 go"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"x","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"}]}]}`, 1, "two"},
		{"chat, tool messages end an answer",
			`{"messages":[{"role":"system","content":"s"},{"role":"user","content":"task-1"},{"role":"assistant","tool_calls":[{}]},{"role":"tool","content":"r"},` +
				`{"role":"assistant","content":"x"},{"role":"user","content":"more"}]}`, 2, "three"},
		{"responses, an answer's items count once",
			`{"input":[{"type":"message","role":"user","content":"task-1"},{"type":"reasoning"},{"type":"function_call","call_id":"c"},` +
				`{"type":"function_call","call_id":"d"},{"type":"function_call_output","call_id":"c"},{"type":"function_call_output","call_id":"d"}]}`, 1, "two"},
		{"responses, a prompt string", `{"input":"task-2"}`, 0, "other"},
		{"past the script",
			`{"messages":[{"role":"user","content":"task-2"},{"role":"assistant","content":"other"},{"role":"user","content":"and?"}]}`, 1,
			`500 llmtest: script "task-2" has 1 turns; the request carries 1 answers; conversation: "task-2"`},
		{"no script", `{"messages":[{"role":"user","content":"task-3"}]}`, 0, `500 llmtest: no script for conversation: "task-3"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if n := llmtest.Answers([]byte(tc.body)); n != tc.answers {
				t.Errorf("Answers = %d, want %d", n, tc.answers)
			}
			for range 2 { // the same request again: the same answer
				if got := answer(f(llmtest.Request{Body: []byte(tc.body)})); got != tc.want {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			}
		})
	}
	if n := llmtest.Answers([]byte(`{oops`)); n != -1 {
		t.Errorf("Answers of a body that is not JSON = %d, want -1", n)
	}
}
