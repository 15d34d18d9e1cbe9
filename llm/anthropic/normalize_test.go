package anthropic

import (
	"testing"

	"github.com/novacode/nova/llm/llmtest"
)

// sse builds a stream body from data payloads, naming each event after its
// type as the API does.
var sse = llmtest.TypedEvents

const (
	evStart = `{"type":"message_start","message":{"model":"claude-x","usage":{"input_tokens":100,"output_tokens":1,"cache_read_input_tokens":5000,"cache_creation_input_tokens":200}}}`
	evStop  = `{"type":"message_stop"}`
)

// TestNormalize covers the event shapes the recordings lack.
func TestNormalize(t *testing.T) {
	tests := []struct {
		name   string
		events []string
		want   string
		// lax: the stream breaks a rule of llmtest.CheckEvents on purpose.
		lax bool
	}{
		{
			name: "message_delta usage is final where present",
			events: []string{evStart,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":90000,"output_tokens":42}}`, evStop},
			want: "end stop=end_turn model=claude-x usage=in:90000 out:42 cache_read:5000 cache_write:200\n",
		},
		{
			name: "message_delta with only output_tokens keeps message_start's input",
			events: []string{evStart,
				`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":7,"input_tokens":null}}`, evStop},
			want: "end stop=max_tokens model=claude-x usage=in:100 out:7 cache_read:5000 cache_write:200\n",
		},
		{
			name: "redacted thinking, then signed thinking",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EncryptedBlob"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"Hmm"}}`,
				`{"type":"content_block_delta","index":1,"delta":{"type":"signature_delta","signature":"c2ln"}}`,
				`{"type":"content_block_stop","index":1}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`, evStop},
			want: "redacted[0] x1 \"EncryptedBlob\"\nthinking[1] x1 \"Hmm\"\nsignature[1] x1 \"c2ln\"\n" +
				"end stop=end_turn model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
		},
		{
			name: "tool without parameters streams no fragment",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"pwd","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`, evStop},
			want: "tool_start[0] id=toolu_a name=pwd\ntool_complete[0] id=toolu_a name=pwd input={}\n" +
				"end stop=tool_use model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
		},
		{
			name: "input in content_block_start and no deltas (compatible servers)",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_b","name":"read","input":{"path":"a.go"}}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}`, evStop},
			want: "tool_start[0] id=toolu_b name=read\ntool_complete[0] id=toolu_b name=read input={\"path\":\"a.go\"}\n" +
				"end stop=tool_use model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
			// No delta carries the input.
			lax: true,
		},
		{
			name: "invalid tool JSON is passed on as produced",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_c","name":"read","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": "}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":3}}`, evStop},
			want: "tool_start[0] id=toolu_c name=read\ntool_delta[0] x1 \"{\\\"path\\\": \"\ntool_complete[0] id=toolu_c name=read input={\"path\": \n" +
				"end stop=max_tokens model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
			lax: true,
		},
		{
			name: "other server tools, document citations and unknown events are ignored",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_fetch","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"web_fetch_tool_result","tool_use_id":"srvtoolu_1","content":{}}}`,
				`{"type":"content_block_stop","index":1}`,
				`{"type":"content_block_start","index":2,"content_block":{"type":"text","text":"Hi"}}`,
				`{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"char_location"}}}`,
				`{"type":"brand_new_event","index":2}`,
				`{"type":"content_block_stop","index":2}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`, evStop},
			want: "text[2] x1 \"Hi\"\n" +
				"end stop=end_turn model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
		},
		{
			name: "a web search, its results, and text citing one after the text",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":"}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"go\"}"}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","title":"Go","url":"https://go.dev/","encrypted_content":"e1","page_age":"1 day ago"},{"type":"web_search_result","title":"Go Blog","url":"https://go.dev/blog","encrypted_content":"e2","page_age":null}]}}`,
				`{"type":"content_block_stop","index":1}`,
				`{"type":"content_block_start","index":2,"content_block":{"citations":[],"type":"text","text":""}}`,
				`{"type":"content_block_delta","index":2,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","cited_text":"Go is","url":"https://go.dev/","title":"Go","encrypted_index":"i1"}}}`,
				`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"Go is a language."}}`,
				`{"type":"content_block_stop","index":2}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3,"server_tool_use":{"web_search_requests":1,"web_fetch_requests":0}}}`, evStop},
			want: "server_tool_use[0] id=srvtoolu_1 name=web_search input={\"query\":\"go\"}\n" +
				"server_tool_result[1] id=srvtoolu_1 name=web_search results=2 error=\"\" raw=302 bytes\n" +
				"  result title=\"Go\" url=https://go.dev/ page_age=\"1 day ago\"\n" +
				"  result title=\"Go Blog\" url=https://go.dev/blog page_age=\"\"\n" +
				"text[2] x1 \"Go is a language.\"\n" +
				"citation[2] url=https://go.dev/ title=\"Go\" cited=\"Go is\"\n" +
				"end stop=end_turn model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200 web_search:1\n",
		},
		{
			name: "a result whose call was in the paused message before",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_9","content":[]}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}`, evStop},
			want: "server_tool_result[0] id=srvtoolu_9 name=web_search results=0 error=\"\" raw=73 bytes\n" +
				"end stop=end_turn model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
			lax: true, // no call before it in this stream
		},
		{
			name: "a failed search",
			events: []string{evStart,
				`{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_2","name":"web_search","input":{"query":"x"}}}`,
				`{"type":"content_block_stop","index":0}`,
				`{"type":"content_block_start","index":1,"content_block":{"type":"web_search_tool_result","tool_use_id":"srvtoolu_2","content":{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}}}`,
				`{"type":"content_block_stop","index":1}`,
				`{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3,"server_tool_use":{"web_search_requests":0}}}`, evStop},
			want: "server_tool_use[0] id=srvtoolu_2 name=web_search input={\"query\":\"x\"}\n" +
				"server_tool_result[1] id=srvtoolu_2 name=web_search results=0 error=\"max_uses_exceeded\" raw=143 bytes\n" +
				"end stop=end_turn model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
		},
		{
			name: "stop reasons",
			events: []string{evStart,
				`{"type":"message_delta","delta":{"stop_reason":"model_context_window_exceeded"},"usage":{"output_tokens":3}}`, evStop},
			want: "end stop=model_context_window_exceeded model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
		},
		{
			name: "unknown stop reason passes through",
			events: []string{evStart,
				`{"type":"message_delta","delta":{"stop_reason":"compaction"},"usage":{"output_tokens":3}}`, evStop},
			want: "end stop=compaction model=claude-x usage=in:100 out:3 cache_read:5000 cache_write:200\n",
		},
	}
	cases := make([]llmtest.StreamCase, len(tests))
	for i, tt := range tests {
		cases[i] = llmtest.StreamCase{Name: tt.name, Body: sse(tt.events...), Want: tt.want, Lax: tt.lax}
	}
	adapter.Streams(t, cases)
}
