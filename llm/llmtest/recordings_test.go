package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/llm/llmtest"
)

// The recordings of the real APIs that the renderers are modelled on.
const recordings = "../testdata/providers"

// keyOrder returns the keys of the JSON object raw in document order, which
// encoding/json's maps would lose.
func keyOrder(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %.80s", raw)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// field returns the member key of the JSON object raw ("" if absent or not
// an object), and for arrays, with key "0", the first element.
func field(raw json.RawMessage, key string) json.RawMessage {
	if key == "0" {
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) != nil || len(a) == 0 {
			return nil
		}
		return a[0]
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m[key]
}

func isObject(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '{' }

// dataLines returns the JSON payloads of an SSE body, skipping [DONE].
func dataLines(t *testing.T, body []byte) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && d != "[DONE]" {
			out = append(out, json.RawMessage(d))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shapes maps a label naming an object's role (e.g. "response.output_item.added
// item function_call") to its key order. A label seen twice must have the
// same order both times, or the recordings disagree among themselves and
// make no reference.
type shapes map[string][]string

func (s shapes) add(t *testing.T, label string, raw json.RawMessage) {
	t.Helper()
	if !isObject(raw) {
		return
	}
	keys := keyOrder(t, raw)
	if prev, ok := s[label]; ok && !slices.Equal(prev, keys) {
		s[label] = nil // inconsistent: not a reference
		return
	}
	s[label] = keys
}

// responsesShapes labels the objects of Responses events.
func responsesShapes(t *testing.T, s shapes, events []json.RawMessage) {
	for _, ev := range events {
		var head struct{ Type string }
		if err := json.Unmarshal(ev, &head); err != nil {
			t.Fatal(err)
		}
		s.add(t, head.Type, ev)
		if item := field(ev, "item"); item != nil {
			var it struct {
				Type             string
				EncryptedContent *string `json:"encrypted_content"`
			}
			_ = json.Unmarshal(item, &it)
			label := head.Type + " item " + it.Type
			if it.EncryptedContent != nil {
				label += " encrypted"
			}
			s.add(t, label, item)
		}
		s.add(t, head.Type+" part", field(ev, "part"))
		if r := field(ev, "response"); r != nil {
			s.add(t, "response", r)
			s.add(t, "usage", field(r, "usage"))
			s.add(t, "usage input_tokens_details", field(field(r, "usage"), "input_tokens_details"))
		}
	}
}

// chatShapes labels the objects of Chat chunks. Top-level keys are compared
// as sets: the recordings themselves place "usage" before or after
// "choices".
func chatShapes(t *testing.T, s shapes, chunks []json.RawMessage) {
	for i, ch := range chunks {
		top := keyOrder(t, ch)
		slices.Sort(top)
		label := "chunk"
		choice := field(field(ch, "choices"), "0")
		if choice == nil {
			label = "usage chunk"
		}
		if prev, ok := s[label]; !ok || slices.Equal(prev, top) {
			s[label] = top
		} else {
			s[label] = nil
		}
		if u := field(ch, "usage"); isObject(u) {
			s.add(t, "usage", u)
			s.add(t, "usage prompt_tokens_details", field(u, "prompt_tokens_details"))
			s.add(t, "usage completion_tokens_details", field(u, "completion_tokens_details"))
		}
		if choice == nil {
			continue
		}
		s.add(t, "choice", choice)
		delta := field(choice, "delta")
		switch tc := field(field(delta, "tool_calls"), "0"); {
		case i == 0 && tc == nil:
			s.add(t, "role delta", delta)
		case tc != nil && field(tc, "id") != nil:
			s.add(t, "tool call head", tc)
			s.add(t, "tool call head function", field(tc, "function"))
		case tc != nil:
			s.add(t, "tool call fragment", tc)
			s.add(t, "tool call fragment function", field(tc, "function"))
		}
	}
}

// compareShapes checks every label both sides have, and that ours covers
// every consistent label of the recordings.
func compareShapes(t *testing.T, recorded, ours shapes) {
	t.Helper()
	for label, want := range recorded {
		if want == nil {
			continue
		}
		got, ok := ours[label]
		if !ok {
			t.Errorf("%s: recorded but never rendered", label)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s keys (-recorded +rendered):\n%s", label, diff)
		}
	}
}

func readRecordings(t *testing.T, pattern string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(recordings, pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recordings match %s: %v", pattern, err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// shapeTurn exercises every kind of event the recordings hold.
var shapeTurn = llmtest.Turn{
	Blocks: []llmtest.Block{
		llmtest.Thinking("**Planning**\n\nI should call the tool.", "gAAAAB-signature"),
		llmtest.WebSearch("weather Florence", llmtest.SearchResult{Title: "Florence weather", URL: "https://weather.example/florence"}),
		llmtest.CitedText("Let me check the weather.", llmtest.Citation{URL: "https://weather.example/florence", Title: "Florence weather"}),
		{Kind: llmtest.KindToolUse, Name: "weather", Input: `{"location":"Florence, Italy"}`, Fragments: 4},
	},
	Usage: llm.Usage{InputTokens: 63, OutputTokens: 121, CacheReadTokens: 10},
}

func TestResponsesMatchRecordings(t *testing.T) {
	recorded := shapes{}
	for _, body := range readRecordings(t, "openai-responses/*.sse") {
		responsesShapes(t, recorded, dataLines(t, body))
	}
	ours := shapes{}
	srv := newServer(t, shapeTurn, shapeTurn, llmtest.Turn{Blocks: []llmtest.Block{llmtest.Thinking("", "")}})
	for _, body := range []string{
		`{"model":"gpt-5","stream":true,"include":["reasoning.encrypted_content"]}`,
		`{"model":"gpt-5","stream":true}`,
		`{"model":"gpt-5","stream":true}`,
	} {
		responsesShapes(t, ours, dataLines(t, []byte(rawStream(t, srv, "/v1/responses", body))))
	}
	compareShapes(t, recorded, ours)
}

// anthropicShapes labels the objects of Messages events that the web search
// recordings added: content blocks by type, search results, citations and
// usage.
func anthropicShapes(t *testing.T, s shapes, events []json.RawMessage) {
	for _, ev := range events {
		var head struct{ Type string }
		if err := json.Unmarshal(ev, &head); err != nil {
			t.Fatal(err)
		}
		s.add(t, head.Type, ev)
		if cb := field(ev, "content_block"); cb != nil {
			var b struct {
				Type      string
				Citations []any
			}
			_ = json.Unmarshal(cb, &b)
			label := "content_block " + b.Type
			if b.Citations != nil {
				label += " cited"
			}
			s.add(t, label, cb)
			if hit := field(field(cb, "content"), "0"); hit != nil {
				s.add(t, label+" result", hit)
			}
		}
		if c := field(field(ev, "delta"), "citation"); c != nil {
			s.add(t, "citation", c)
		}
		if u := field(ev, "usage"); u != nil {
			s.add(t, head.Type+" usage", u)
			s.add(t, "server_tool_use usage", field(u, "server_tool_use"))
		}
	}
}

func TestAnthropicSearchMatchesRecordings(t *testing.T) {
	recorded := shapes{}
	for _, body := range readRecordings(t, "anthropic/TestAnthropicWebSearch__*.sse") {
		anthropicShapes(t, recorded, dataLines(t, body))
	}
	ours := shapes{}
	anthropicShapes(t, ours, dataLines(t, []byte(rawStream(t, newServer(t, searchTurn), "/v1/messages", `{"stream":true}`))))
	compareShapes(t, recorded, ours)
}

func TestChatMatchesRecordings(t *testing.T) {
	recorded := shapes{}
	for _, body := range readRecordings(t, "openai-chat/TestOpenAICommon__openai-gpt-4o*__*.sse") {
		chatShapes(t, recorded, dataLines(t, body))
	}
	ours := shapes{}
	srv := newServer(t, shapeTurn)
	chatShapes(t, ours, dataLines(t, []byte(rawStream(t, srv, "/v1/chat/completions",
		`{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true}}`))))
	compareShapes(t, recorded, ours)
}
