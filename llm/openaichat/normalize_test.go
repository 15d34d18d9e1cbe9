package openaichat

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// ck builds a chunk with one choice whose delta is the given JSON object
// body, and an optional finish_reason and trailing members.
func ck(delta, finish, extra string) string {
	fr := "null"
	if finish != "" {
		fr = `"` + finish + `"`
	}
	s := `{"id":"c1","object":"chat.completion.chunk","model":"m-1","choices":[{"index":0,"delta":{` + delta + `},"finish_reason":` + fr + `}]`
	if extra != "" {
		s += "," + extra
	}
	return s + "}"
}

// tc is a tool_calls delta member.
func tc(index int, id, name, args string) string {
	s := fmt.Sprintf(`{"index":%d`, index)
	if id != "" {
		s += `,"id":"` + id + `","type":"function"`
	}
	s += `,"function":{`
	if name != "" {
		s += `"name":"` + name + `",`
	}
	return s + fmt.Sprintf(`"arguments":%q}}`, args)
}

const done = "[DONE]"

// TestNormalize covers the chunk shapes the recordings lack.
func TestNormalize(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string
		// lax: the stream breaks a rule of llmtest.CheckEvents on purpose.
		lax bool
	}{
		{
			name: "calls without ids get stable synthesized ones",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "", "read", `{"path":`)+`]`, "", ""),
				ck(`"tool_calls":[`+tc(0, "", "", `"a"}`)+`]`, "", ""),
				ck(`"tool_calls":[{"index":1,"id":"","function":{"name":"pwd","arguments":""}}]`, "", ""),
				ck(``, "tool_calls", ""), done},
			want: "tool_start[0] id=call_0_1 name=read\ntool_delta[0] x2 \"{\\\"path\\\":\\\"a\\\"}\"\n" +
				"tool_complete[0] id=call_0_1 name=read input={\"path\":\"a\"}\n" +
				"tool_start[1] id=call_1_2 name=pwd\ntool_complete[1] id=call_1_2 name=pwd input={}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "calls without index are told apart by id",
			chunks: []string{
				ck(`"tool_calls":[{"id":"a1","function":{"name":"x","arguments":"{}"}}]`, "", ""),
				ck(`"tool_calls":[{"id":"b2","function":{"name":"y","arguments":"{\"k\""}}]`, "", ""),
				ck(`"tool_calls":[{"function":{"arguments":":1}"}}]`, "", ""),
				ck(``, "tool_calls", ""), done},
			want: "tool_start[0] id=a1 name=x\ntool_delta[0] x1 \"{}\"\ntool_complete[0] id=a1 name=x input={}\n" +
				"tool_start[1] id=b2 name=y\ntool_delta[1] x2 \"{\\\"k\\\":1}\"\ntool_complete[1] id=b2 name=y input={\"k\":1}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "every call numbered 0, told apart by id",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "g1", "x", `{"a":1}`)+`,`+tc(0, "g2", "y", `{"b":2}`)+`]`, "", ""),
				ck(``, "tool_calls", ""), done},
			want: "tool_start[0] id=g1 name=x\ntool_delta[0] x1 \"{\\\"a\\\":1}\"\ntool_complete[0] id=g1 name=x input={\"a\":1}\n" +
				"tool_start[1] id=g2 name=y\ntool_delta[1] x1 \"{\\\"b\\\":2}\"\ntool_complete[1] id=g2 name=y input={\"b\":2}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "arguments sent as an object, escapes and nulls",
			chunks: []string{
				ck(`"reasoning":null,"refusal":null,"content":"caf\u00e9 \"quoted\""`, "", ""),
				ck(`"tool_calls":[{"index":0,"id":"o1","function":{"name":"edit","arguments":{"path":"a.go","n":1}}}]`, "", ""),
				ck(``, "tool_calls", ""), done},
			want: "text[0] x1 \"café \\\"quoted\\\"\"\ntool_start[1] id=o1 name=edit\ntool_delta[1] x1 \"{\\\"path\\\":\\\"a.go\\\",\\\"n\\\":1}\"\n" +
				"tool_complete[1] id=o1 name=edit input={\"path\":\"a.go\",\"n\":1}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "id and name repeated on every fragment",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "call_r", "read", `{"p`)+`]`, "", ""),
				ck(`"tool_calls":[`+tc(0, "call_r", "read", `":1}`)+`]`, "", ""),
				ck(``, "tool_calls", ""), done},
			want: "tool_start[0] id=call_r name=read\ntool_delta[0] x2 \"{\\\"p\\\":1}\"\ntool_complete[0] id=call_r name=read input={\"p\":1}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "arguments before the name are held back",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "call_n", "", `{"q"`)+`]`, "", ""),
				ck(`"tool_calls":[`+tc(0, "", "grep", `:"x"}`)+`]`, "", ""),
				ck(``, "tool_calls", ""), done},
			want: "tool_start[0] id=call_n name=grep\ntool_delta[0] x1 \"{\\\"q\\\":\\\"x\\\"}\"\n" +
				"tool_complete[0] id=call_n name=grep input={\"q\":\"x\"}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "a call is complete as soon as the next one starts",
			chunks: []string{
				ck(`"content":"Both."`, "", ""),
				ck(`"tool_calls":[`+tc(0, "c_a", "add", `{}`)+`]`, "", ""),
				ck(`"content":" "`, "", ""),
				ck(`"tool_calls":[`+tc(1, "c_m", "mul", `{}`)+`]`, "", ""),
				ck(``, "tool_calls", ""), done},
			want: "text[0] x1 \"Both.\"\ntool_start[1] id=c_a name=add\ntool_delta[1] x1 \"{}\"\ntext[2] x1 \" \"\n" +
				"tool_complete[1] id=c_a name=add input={}\n" +
				"tool_start[3] id=c_m name=mul\ntool_delta[3] x1 \"{}\"\ntool_complete[3] id=c_m name=mul input={}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "length cuts a call: its arguments are passed on as produced",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "c_l", "write", `{"text": "abc`)+`]`, "", ""),
				ck(``, "length", `"usage":{"prompt_tokens":10,"completion_tokens":5}`), done},
			want: "tool_start[0] id=c_l name=write\ntool_delta[0] x1 \"{\\\"text\\\": \\\"abc\"\n" +
				"tool_complete[0] id=c_l name=write input={\"text\": \"abc\n" +
				"end stop=max_tokens model=m-1 usage=in:10 out:5 cache_read:0 cache_write:0\n",
			lax: true,
		},
		{
			name: "finish_reason stop with tool calls (older local servers) is tool use",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "c_s", "ls", `{}`)+`]`, "", ""),
				ck(``, "stop", ""), done},
			want: "tool_start[0] id=c_s name=ls\ntool_delta[0] x1 \"{}\"\ntool_complete[0] id=c_s name=ls input={}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "fragments after finish_reason are ignored",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "c_f", "ls", `{}`)+`]`, "", ""),
				ck(``, "tool_calls", ""),
				ck(`"tool_calls":[`+tc(0, "", "", `garbage`)+`]`, "", ""), done},
			want: "tool_start[0] id=c_f name=ls\ntool_delta[0] x1 \"{}\"\ntool_complete[0] id=c_f name=ls input={}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "usage repeated (Groq): the last one, not the sum",
			chunks: []string{
				ck(`"content":"hi"`, "stop", `"usage":{"prompt_tokens":20,"completion_tokens":4,"queue_time":0.2}`),
				`{"id":"c1","object":"chat.completion.chunk","model":"m-1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":4,"queue_time":0.2}}`, done},
			want: "text[0] x1 \"hi\"\nend stop=end_turn model=m-1 usage=in:20 out:4 cache_read:0 cache_write:0\n",
		},
		{
			name: "Moonshot: usage in the choice, cached_tokens at the top",
			chunks: []string{
				`{"id":"c1","model":"kimi-k2","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop","usage":{"prompt_tokens":100,"completion_tokens":2,"total_tokens":102,"cached_tokens":64}}]}`, done},
			want: "text[0] x1 \"ok\"\nend stop=end_turn model=kimi-k2 usage=in:36 out:2 cache_read:64 cache_write:0\n",
		},
		{
			name: "DeepSeek: prompt_cache_hit_tokens",
			chunks: []string{
				ck(`"content":"ok"`, "stop", ""),
				`{"id":"c1","model":"deepseek-chat","choices":[],"usage":{"prompt_tokens":90,"completion_tokens":3,"prompt_cache_hit_tokens":80,"prompt_cache_miss_tokens":10}}`, done},
			want: "text[0] x1 \"ok\"\nend stop=end_turn model=m-1 usage=in:10 out:3 cache_read:80 cache_write:0\n",
		},
		{
			name: "counts sent as floats, strings or junk",
			chunks: []string{
				ck(`"content":"ok"`, "stop", `"usage":{"prompt_tokens":12.0,"completion_tokens":"3","prompt_tokens_details":{"cached_tokens":"lots","cache_write_tokens":null}}`), done},
			want: "text[0] x1 \"ok\"\nend stop=end_turn model=m-1 usage=in:12 out:3 cache_read:0 cache_write:0\n",
		},
		{
			name: "reasoning field (OpenRouter, vLLM) and reasoning_details alone",
			chunks: []string{
				ck(`"reasoning":"think ","reasoning_details":[{"type":"reasoning.text","text":"think "}]`, "", ""),
				ck(`"reasoning_details":[{"type":"reasoning.summary","summary":"more"},{"type":"reasoning.encrypted","data":"xyz"}]`, "", ""),
				ck(`"reasoning_content":"once","reasoning_details":[{"type":"reasoning.text","text":"once"}]`, "", ""),
				ck(`"content":"answer"`, "stop", ""), done},
			want: "thinking[0] x3 \"think moreonce\"\ntext[1] x1 \"answer\"\n" +
				"end stop=end_turn model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "reasoning and text alternating make new blocks",
			chunks: []string{
				ck(`"reasoning_content":"a"`, "", ""),
				ck(`"reasoning_content":"b","content":"c"`, "", ""),
				ck(`"reasoning_content":"d"`, "", ""),
				ck(`"content":"e"`, "stop", ""), done},
			want: "thinking[0] x2 \"ab\"\ntext[1] x1 \"c\"\nthinking[2] x1 \"d\"\ntext[3] x1 \"e\"\n" +
				"end stop=end_turn model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "Mistral: content as an array with thinking parts",
			chunks: []string{
				ck(`"content":[{"type":"thinking","thinking":[{"type":"text","text":"hmm"}]}]`, "", ""),
				ck(`"content":[{"type":"text","text":"yes"}]`, "stop", ""), done},
			want: "thinking[0] x1 \"hmm\"\ntext[1] x1 \"yes\"\nend stop=end_turn model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "refusal",
			chunks: []string{
				ck(`"content":null,"refusal":"I can't help with that."`, "", ""),
				ck(``, "stop", ""), done},
			want: "text[0] x1 \"I can't help with that.\"\nend stop=refusal model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name:   "content_filter",
			chunks: []string{ck(`"content":"Sure, "`, "content_filter", ""), done},
			want:   "text[0] x1 \"Sure, \"\nend stop=refusal model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name:   "unknown finish reason passes through",
			chunks: []string{ck(`"content":"x"`, "eos", ""), done},
			want:   "text[0] x1 \"x\"\nend stop=eos model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "other choices, empty strings, comments-only chunks and unknown fields are ignored",
			chunks: []string{
				`{"id":"","model":"","object":"","choices":[],"prompt_filter_results":[]}`,
				`{"id":"c1","model":"m-2","choices":[{"index":1,"delta":{"content":"other"}},{"index":0,"delta":{"role":"assistant","content":""}}],"x_future":{"a":1},"error":""}`,
				`{"id":"c1","choices":[],"error":{}}`,
				ck(`"content":"mine"`, "stop", ""), done},
			want: "text[0] x1 \"mine\"\nend stop=end_turn model=m-2 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name:   "finish_reason then end of body without [DONE]",
			chunks: []string{ck(`"content":"x"`, "stop", `"usage":{"prompt_tokens":2,"completion_tokens":1}`)},
			want:   "text[0] x1 \"x\"\nend stop=end_turn model=m-1 usage=in:2 out:1 cache_read:0 cache_write:0\n",
		},
		{
			name: "[DONE] without finish_reason",
			chunks: []string{
				ck(`"tool_calls":[`+tc(0, "c_d", "ls", `{}`)+`]`, "", ""), done},
			want: "tool_start[0] id=c_d name=ls\ntool_delta[0] x1 \"{}\"\ntool_complete[0] id=c_d name=ls input={}\n" +
				"end stop=tool_use model=m-1 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
	}
	cases := make([]llmtest.StreamCase, len(tests))
	for i, tt := range tests {
		cases[i] = llmtest.StreamCase{Name: tt.name, Body: sse(tt.chunks...), Want: tt.want, Lax: tt.lax}
	}
	adapter.Streams(t, cases)
}

// TestSynthesizedIDsUniqueAcrossCalls: ids made up for id-less calls stay
// unique over the turns of a session, so results cannot pair with the wrong
// call.
func TestSynthesizedIDsUniqueAcrossCalls(t *testing.T) {
	srv := httptest.NewServer(llmtest.SSEHandler(sse(ck(`"tool_calls":[`+tc(0, "", "ls", `{}`)+`]`, "tool_calls", ""), done)))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Options{})
	seen := map[string]bool{}
	for range 3 {
		events, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest))
		if err != nil {
			t.Fatal(err)
		}
		var id string
		for _, ev := range events {
			if st, ok := ev.(llm.ToolCallStart); ok {
				id = st.ID
			}
		}
		if id == "" {
			t.Fatalf("no tool call: %s", adapter.Render(events))
		}
		if seen[id] {
			t.Fatalf("id %s synthesized twice", id)
		}
		seen[id] = true
	}
}

// TestMislabelledStream: an event stream sent as application/json is still
// read as a stream.
func TestMislabelledStream(t *testing.T) {
	srv := httptest.NewServer(errorHandler(200, nil, "application/json", "\n"+okStream))
	defer srv.Close()
	c := newTestClient(t, srv.URL, Options{})
	events, err := llmtest.Collect(t, c.Stream(context.Background(), simpleRequest))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := adapter.Render(events), "text[0] x1 \"ok\"\nend stop=end_turn model=m usage=in:3 out:1 cache_read:0 cache_write:0\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
