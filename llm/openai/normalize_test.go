package openai

import (
	"strings"
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// sse builds a stream body from data payloads, naming each event after its
// type as the API does.
var sse = llmtest.TypedEvents

const (
	evCreated   = `{"type":"response.created","response":{"model":"gpt-x","status":"in_progress","output":[]}}`
	evCompleted = `{"type":"response.completed","response":{"model":"gpt-x","status":"completed","output":[],"usage":{"input_tokens":1000,"input_tokens_details":{"cached_tokens":800},"output_tokens":50,"output_tokens_details":{"reasoning_tokens":20}}}}`
	endLine     = "end stop=end_turn model=gpt-x usage=in:200 out:50 cache_read:800 cache_write:0\n"
)

// TestNormalize covers the event shapes the recordings lack.
func TestNormalize(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		want   string
		// invalidJSON marks streams whose tool input is not valid JSON.
		invalidJSON bool
	}{
		{
			name:   "cached tokens are split off the input",
			events: []string{evCreated, evCompleted},
			want:   endLine,
		},
		{
			name: "tokens written to the cache are split off too",
			events: []string{evCreated,
				`{"type":"response.completed","response":{"model":"gpt-x","output":[],"usage":{"input_tokens":1000,"input_tokens_details":{"cached_tokens":300,"cache_write_tokens":600},"output_tokens":5}}}`},
			want: "end stop=end_turn model=gpt-x usage=in:100 out:5 cache_read:300 cache_write:600\n",
		},
		{
			name:   "no usage gives zero figures",
			events: []string{evCreated, `{"type":"response.completed","response":{"model":"gpt-x","output":[],"usage":null}}`},
			want:   "end stop=end_turn model=gpt-x usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "incomplete at max_output_tokens, with its usage",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","content":[]}}`,
				`{"type":"response.output_text.delta","output_index":0,"item_id":"msg_1","delta":"The answer is"}`,
				`{"type":"response.incomplete","response":{"model":"gpt-x","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"id":"msg_1","type":"message","status":"incomplete","content":[{"type":"output_text","text":"The answer is"}]}],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":16}}}`},
			want: "text[0] x1 \"The answer is\"\nend stop=max_tokens model=gpt-x usage=in:10 out:16 cache_read:0 cache_write:0\n",
		},
		{
			name:        "incomplete inside a tool call: the call is completed with what streamed",
			invalidJSON: true,
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"write","arguments":""}}`,
				`{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_1","delta":"{\"content\": \"long"}`,
				`{"type":"response.incomplete","response":{"model":"gpt-x","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":10,"output_tokens":16}}}`},
			want: "tool_start[0] id=call_1 name=write\ntool_delta[0] id=call_1 x1 \"{\\\"content\\\": \\\"long\"\n" +
				"tool_complete[0] id=call_1 name=write input={\"content\": \"long\n" +
				"end stop=max_tokens model=gpt-x usage=in:10 out:16 cache_read:0 cache_write:0\n",
		},
		{
			name: "incomplete by the content filter is a refusal",
			events: []string{evCreated,
				`{"type":"response.incomplete","response":{"model":"gpt-x","incomplete_details":{"reason":"content_filter"},"output":[]}}`},
			want: "end stop=refusal model=gpt-x usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "unknown incomplete reason passes through",
			events: []string{evCreated,
				`{"type":"response.incomplete","response":{"model":"gpt-x","incomplete_details":{"reason":"steered"},"output":[]}}`},
			want: "end stop=steered model=gpt-x usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "refusal",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","content":[]}}`,
				`{"type":"response.refusal.delta","output_index":0,"item_id":"msg_1","delta":"I can't help"}`,
				`{"type":"response.refusal.delta","output_index":0,"item_id":"msg_1","delta":" with that."}`,
				`{"type":"response.refusal.done","output_index":0,"item_id":"msg_1","refusal":"I can't help with that."}`,
				evCompleted},
			want: "text[0] x2 \"I can't help with that.\"\n" + strings.Replace(endLine, "end_turn", "refusal", 1),
		},
		{
			name: "summary parts become paragraphs; the encrypted content comes from output_item.done",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[],"encrypted_content":"partial"}}`,
				`{"type":"response.reasoning_summary_part.added","output_index":0,"item_id":"rs_1","summary_index":0,"part":{"type":"summary_text","text":""}}`,
				`{"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"rs_1","summary_index":0,"delta":"**Plan**"}`,
				`{"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"rs_1","summary_index":0,"delta":" first."}`,
				`{"type":"response.reasoning_summary_text.delta","output_index":0,"item_id":"rs_1","summary_index":1,"delta":"**Check**"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"**Plan** first."},{"type":"summary_text","text":"**Check**"}],"encrypted_content":"gAAAAfinal"}}`,
				evCompleted},
			want: "thinking[0] origin=openai-responses item=rs_1 x3 \"**Plan** first.\\n\\n**Check**\"\n" +
				"signature[0] origin=openai-responses item=rs_1 \"gAAAAfinal\"\n" + endLine,
		},
		{
			name: "raw reasoning text (reasoning_text.delta) is thinking too",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_2","type":"reasoning","summary":[]}}`,
				`{"type":"response.reasoning_text.delta","output_index":0,"item_id":"rs_2","content_index":0,"delta":"Let me think."}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_2","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"Let me think."}]}}`,
				evCompleted},
			want: "thinking[0] origin=openai-responses item=rs_2 x1 \"Let me think.\"\n" + endLine,
		},
		{
			name: "reasoning without summary or encrypted content yields nothing",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_3","type":"reasoning","summary":[]}}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_3","type":"reasoning","summary":[]}}`,
				evCompleted},
			want: endLine,
		},
		{
			name: "finished items without deltas (compatible servers)",
			events: []string{evCreated,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"rs_4","type":"reasoning","summary":[{"type":"summary_text","text":"A"},{"type":"summary_text","text":"B"}],"encrypted_content":"enc"}}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_4","type":"message","content":[{"type":"output_text","text":"Hi"},{"type":"output_text","text":" there"}]}}`,
				`{"type":"response.output_item.done","output_index":2,"item":{"id":"fc_4","type":"function_call","call_id":"call_4","name":"read","arguments":"{\"path\":\"a\"}"}}`,
				evCompleted},
			want: "thinking[0] origin=openai-responses item=rs_4 x1 \"A\\n\\nB\"\nsignature[0] origin=openai-responses item=rs_4 \"enc\"\n" +
				"text[1] x2 \"Hi there\"\n" +
				"tool_start[2] id=call_4 name=read\ntool_delta[2] id=call_4 x1 \"{\\\"path\\\":\\\"a\\\"}\"\ntool_complete[2] id=call_4 name=read input={\"path\":\"a\"}\n" +
				strings.Replace(endLine, "end_turn", "tool_use", 1),
		},
		{
			name: "only the final response (no item events at all)",
			events: []string{evCreated,
				`{"type":"response.completed","response":{"model":"gpt-x","output":[` +
					`{"id":"msg_5","type":"message","content":[{"type":"output_text","text":"Sure."}]},` +
					`{"id":"fc_5","type":"function_call","call_id":"call_5","name":"ls","arguments":""}]}}`},
			want: "text[0] x1 \"Sure.\"\ntool_start[1] id=call_5 name=ls\ntool_complete[1] id=call_5 name=ls input={}\n" +
				"end stop=tool_use model=gpt-x usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "a call is completed once, by whichever done event comes first",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_6","type":"function_call","call_id":"call_6","name":"read","arguments":""}}`,
				`{"type":"response.function_call_arguments.delta","output_index":0,"item_id":"fc_6","delta":"{}"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"fc_6","type":"function_call","call_id":"call_6","name":"read","arguments":"{}"}}`,
				`{"type":"response.function_call_arguments.done","output_index":0,"item_id":"fc_6","arguments":"{}"}`,
				`{"type":"response.completed","response":{"model":"gpt-x","output":[{"id":"fc_6","type":"function_call","call_id":"call_6","name":"read","arguments":"{}"}]}}`},
			want: "tool_start[0] id=call_6 name=read\ntool_delta[0] id=call_6 x1 \"{}\"\ntool_complete[0] id=call_6 name=read input={}\n" +
				"end stop=tool_use model=gpt-x usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name:        "a function without parameters, and invalid argument JSON passed on as produced",
			invalidJSON: true,
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"fc_7","type":"function_call","call_id":"call_7","name":"pwd","arguments":""}}`,
				`{"type":"response.function_call_arguments.done","output_index":0,"item_id":"fc_7","arguments":""}`,
				`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_8","type":"function_call","call_id":"call_8","name":"read","arguments":""}}`,
				`{"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc_8","delta":"{\"path\": "}`,
				`{"type":"response.function_call_arguments.done","output_index":1,"item_id":"fc_8","arguments":"{\"path\": "}`,
				evCompleted},
			want: "tool_start[0] id=call_7 name=pwd\ntool_complete[0] id=call_7 name=pwd input={}\n" +
				"tool_start[1] id=call_8 name=read\ntool_delta[1] id=call_8 x1 \"{\\\"path\\\": \"\ntool_complete[1] id=call_8 name=read input={\"path\": \n" +
				strings.Replace(endLine, "end_turn", "tool_use", 1),
		},
		{
			name: "other built-in tool items, lifecycle and unknown events are ignored",
			events: []string{evCreated,
				`{"type":"response.in_progress","response":{"model":"gpt-x"}}`,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"fs_1","type":"file_search_call","status":"in_progress"}}`,
				`{"type":"response.file_search_call.searching","output_index":0,"item_id":"fs_1"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"fs_1","type":"file_search_call","status":"completed"}}`,
				`{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_9","type":"message","content":[]}}`,
				`{"type":"response.content_part.added","output_index":1,"item_id":"msg_9","content_index":0,"part":{"type":"output_text","text":""}}`,
				`{"type":"response.output_text.delta","output_index":1,"item_id":"msg_9","content_index":0,"delta":"Hi"}`,
				`{"type":"response.output_text.annotation.added","output_index":1,"item_id":"msg_9","annotation":{"type":"file_citation","file_id":"f"}}`,
				`{"type":"response.brand_new_event","output_index":1}`,
				`{"type":"response.output_text.done","output_index":1,"item_id":"msg_9","text":"Hi"}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_9","type":"message","content":[{"type":"output_text","text":"Hi"}]}}`,
				evCompleted},
			want: "text[1] x1 \"Hi\"\n" + endLine,
		},
		{
			name: "a web search, its sources, and a citation after the text it spans",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"in_progress","action":{"type":"search"}}}`,
				`{"type":"response.web_search_call.in_progress","output_index":0,"item_id":"ws_1"}`,
				`{"type":"response.web_search_call.searching","output_index":0,"item_id":"ws_1"}`,
				`{"type":"response.web_search_call.completed","output_index":0,"item_id":"ws_1"}`,
				`{"type":"response.output_item.done","output_index":0,"item":{"id":"ws_1","type":"web_search_call","status":"completed","action":{"type":"search","queries":["go"],"query":"go","sources":[{"type":"url","url":"https://go.dev/"}]}}}`,
				`{"type":"response.output_item.added","output_index":1,"item":{"id":"msg_9","type":"message","content":[]}}`,
				`{"type":"response.output_text.delta","output_index":1,"item_id":"msg_9","content_index":0,"delta":"Go."}`,
				`{"type":"response.output_text.annotation.added","output_index":1,"item_id":"msg_9","annotation":{"type":"url_citation","end_index":3,"start_index":0,"title":"Go","url":"https://go.dev/"}}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"id":"msg_9","type":"message","content":[{"type":"output_text","text":"Go.","annotations":[{"type":"url_citation","end_index":3,"start_index":0,"title":"Go","url":"https://go.dev/"}]}]}}`,
				evCompleted},
			want: "server_tool_use[0] id=ws_1 name=web_search input={\"query\":\"go\"}\n" +
				"server_tool_result[0] id=ws_1 name=web_search results=1 error=\"\" raw=167 bytes\n" +
				"  result title=\"\" url=https://go.dev/ page_age=\"\"\n" +
				"text[1] x1 \"Go.\"\n" +
				"citation[1] url=https://go.dev/ title=\"Go\" cited=\"\"\n" +
				strings.Replace(endLine, "\n", " web_search:1\n", 1),
		},
		{
			name: "only finished items (compatible servers): a failed search, a page opened, citations of the final message",
			events: []string{evCreated,
				`{"type":"response.completed","response":{"model":"gpt-x","status":"completed","output":[` +
					`{"id":"ws_2","type":"web_search_call","status":"failed","action":{"type":"search","query":"x"}},` +
					`{"id":"ws_3","type":"web_search_call","status":"completed","action":{"type":"open_page","url":"https://go.dev/doc"}},` +
					`{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Done.","annotations":[{"type":"url_citation","url":"https://go.dev/doc","title":"Docs"}]}]}],` +
					`"usage":{"input_tokens":1000,"input_tokens_details":{"cached_tokens":800},"output_tokens":50}}}`},
			want: "server_tool_use[0] id=ws_2 name=web_search input={\"query\":\"x\"}\n" +
				"server_tool_result[0] id=ws_2 name=web_search results=0 error=\"the search failed\" raw=95 bytes\n" +
				"server_tool_use[1] id=ws_3 name=web_search input={\"url\":\"https://go.dev/doc\"}\n" +
				"server_tool_result[1] id=ws_3 name=web_search results=0 error=\"\" raw=116 bytes\n" +
				"text[2] x1 \"Done.\"\n" +
				"citation[2] url=https://go.dev/doc title=\"Docs\" cited=\"\"\n" +
				strings.Replace(endLine, "\n", " web_search:1\n", 1),
		},
		{
			name: "calls are matched by id, not position: a final output that leaves an item out starts nothing twice",
			events: []string{evCreated,
				`{"type":"response.output_item.added","output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}}`,
				`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"read","arguments":""}}`,
				`{"type":"response.output_item.added","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"read","arguments":""}}`,
				`{"type":"response.function_call_arguments.delta","output_index":1,"item_id":"fc_1","delta":"{}"}`,
				`{"type":"response.output_item.done","output_index":1,"item":{"id":"fc_1","type":"function_call","call_id":"call_1","name":"read","arguments":"{}"}}`,
				`{"type":"response.completed","response":{"model":"gpt-x","output":[{"id":"fc_1","type":"function_call","call_id":"call_1","name":"read","arguments":"{}"}]}}`},
			want: "tool_start[1] id=call_1 name=read\ntool_delta[1] id=call_1 x1 \"{}\"\ntool_complete[1] id=call_1 name=read input={}\n" +
				"end stop=tool_use model=gpt-x usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
		{
			name: "the model of response.completed wins",
			events: []string{evCreated,
				`{"type":"response.completed","response":{"model":"gpt-x-2025","output":[]}}`},
			want: "end stop=end_turn model=gpt-x-2025 usage=in:0 out:0 cache_read:0 cache_write:0\n",
		},
	}
	cases := make([]llmtest.StreamCase, len(tests))
	for i, tt := range tests {
		cases[i] = llmtest.StreamCase{Name: tt.name, Body: sse(tt.events...), Want: tt.want, Lax: tt.invalidJSON}
	}
	adapter.Streams(t, cases)
}
