package llmtest

// This file answers several conversations at once, each from its own
// script: a parent agent and its subagents call one server in parallel, so
// the order in which their requests arrive says nothing about whose they
// are; the text they open with does.

import (
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Conversations returns a fallback (for [Server.SetFallback]) that answers
// each conversation from its own script. A request belongs to the first
// script whose marker occurs in the text of the request's first user
// message — Anthropic's and Chat Completions' messages, the Responses
// input — and gets that script's next turn. Markers are tried longest
// first, so that "child-1" and "child-10" both work; the first user message
// may start with a preamble (environment, memory files) before the prompt
// that holds the marker.
//
// A request that matches no marker gets the next turn of the script keyed
// "" if there is one, else a 500 error turn naming the problem and the
// start of the message: "llmtest: no script for conversation: …". A script
// that has run out answers likewise ("llmtest: script … exhausted"). As
// with any fallback, turns pushed on the server's queue are served first.
func Conversations(scripts map[string][]Turn) func(Request) Turn {
	type script struct {
		marker string
		turns  []Turn
		next   int
	}
	var byLength []*script // markers, longest first
	var rest *script       // the script keyed ""
	for marker, turns := range scripts {
		s := &script{marker: marker, turns: slices.Clone(turns)}
		if marker == "" {
			rest = s
			continue
		}
		byLength = append(byLength, s)
	}
	slices.SortFunc(byLength, func(a, b *script) int {
		return cmp.Or(cmp.Compare(len(b.marker), len(a.marker)), strings.Compare(a.marker, b.marker))
	})

	var mu sync.Mutex // the Server serialises calls, but the fallback may be used elsewhere
	return func(r Request) Turn {
		text := firstUserText(r.Body)
		mu.Lock()
		defer mu.Unlock()
		s := rest
		for _, c := range byLength {
			if strings.Contains(text, c.marker) {
				s = c
				break
			}
		}
		switch {
		case s == nil:
			return errorTurn("llmtest: no script for conversation: " + opening(text))
		case s.next == len(s.turns):
			return errorTurn(fmt.Sprintf("llmtest: script %q exhausted after %d turns; conversation: %s", s.marker, len(s.turns), opening(text)))
		}
		t := s.turns[s.next]
		s.turns[s.next] = Turn{} // let the served turn be collected
		s.next++
		return t
	}
}

// ConversationTurns is Conversations for a client that may send a request
// again — a retried call, a step of a durable engine retried after its
// worker died mid-stream: a request gets the turn of its conversation's
// script whose index is the number of the model's answers the request
// carries (Answers), so that the same request always gets the same answer,
// however often it comes. A request past its script's end is answered
// with an error, as are those of no script.
func ConversationTurns(scripts map[string][]Turn) func(Request) Turn {
	var byLength []string // markers, longest first
	for marker := range scripts {
		if marker != "" {
			byLength = append(byLength, marker)
		}
	}
	slices.SortFunc(byLength, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	return func(r Request) Turn {
		text := firstUserText(r.Body)
		marker, ok := "", false
		for _, m := range byLength {
			if strings.Contains(text, m) {
				marker, ok = m, true
				break
			}
		}
		turns, known := scripts[marker]
		if !ok && !known {
			return errorTurn("llmtest: no script for conversation: " + opening(text))
		}
		n := Answers(r.Body)
		if n >= len(turns) {
			return errorTurn(fmt.Sprintf("llmtest: script %q has %d turns; the request carries %d answers; conversation: %s", marker, len(turns), n, opening(text)))
		}
		return turns[n]
	}
}

// Answers counts the model's answers in a model call's body, whatever its
// protocol: runs of assistant messages (Anthropic, Chat Completions) or of
// the items an answer is made of (Responses: assistant messages, function
// calls, reasoning, the provider's searches), each ended by a user message,
// a tool result or a function call's output. -1 when the body is not a
// model call.
func Answers(body []byte) int {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Input    json.RawMessage   `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return -1
	}
	items := req.Messages
	if len(items) == 0 {
		var s string
		if json.Unmarshal(req.Input, &s) == nil {
			return 0 // a prompt alone
		}
		if json.Unmarshal(req.Input, &items) != nil {
			return -1
		}
	}
	n, answering := 0, false
	for _, raw := range items {
		var it struct {
			Type string `json:"type"`
			Role string `json:"role"`
		}
		if json.Unmarshal(raw, &it) != nil {
			continue
		}
		switch {
		case it.Role == "assistant", it.Type == "function_call", it.Type == "reasoning", it.Type == "web_search_call":
			if !answering {
				n++
			}
			answering = true
		case it.Role == "user", it.Role == "tool", it.Type == "function_call_output":
			answering = false
		}
	}
	return n
}

// errorTurn answers 500 with msg, which the client reports.
func errorTurn(msg string) Turn {
	return Turn{Status: http.StatusInternalServerError, ErrorMessage: msg}
}

// opening is the first 80 characters of text, quoted, to name a
// conversation in an error.
func opening(text string) string {
	if text == "" {
		return "(no user message)"
	}
	n := 0
	for i := range text {
		if n == 80 {
			text = text[:i] + "…"
			break
		}
		n++
	}
	return fmt.Sprintf("%q", text)
}

// firstUserText returns the text of the first user message of a model
// call's body, whatever its protocol: the "messages" of Anthropic and Chat
// Completions (content a string or a list of parts), or the Responses
// "input" (a string, or a list of items, the user's messages among them).
// The text parts are joined by newlines; "" if there is none.
func firstUserText(body []byte) string {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
		Input    json.RawMessage   `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	var input string
	if json.Unmarshal(req.Input, &input) == nil {
		return input
	}
	items := req.Messages
	if len(items) == 0 {
		_ = json.Unmarshal(req.Input, &items) // not a list: no items
	}
	for _, raw := range items {
		var m struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Role != "user" || (m.Type != "" && m.Type != "message") {
			continue
		}
		return contentText(m.Content)
	}
	return ""
}

// contentText is the text of a message's content: a string, or the text
// of its parts (Anthropic "text", Chat "text", Responses "input_text").
func contentText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Text *string `json:"text"`
	}
	if json.Unmarshal(content, &parts) != nil {
		return ""
	}
	var texts []string
	for _, p := range parts {
		if p.Text != nil {
			texts = append(texts, *p.Text)
		}
	}
	return strings.Join(texts, "\n")
}
