package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"sync"
	"time"

	"github.com/novacode/nova/llm"
)

// step is one scripted stream element: an event after a pause, or an error.
type step struct {
	pause time.Duration
	ev    llm.StreamEvent
	err   error
}

// fakeClient is an in-process llm.Client that replays scripted streams the
// way a real adapter would: paced, cancellable, one error at most and last.
// It records a deep copy of each request so tests can check that history was
// never edited after it was sent.
type fakeClient struct {
	mu       sync.Mutex
	scripts  [][]step
	requests []recorded
	// endedAt records when each stream yielded its last element.
	endedAt []time.Time
	// onRequest, if set, is called with each request's index once the
	// request is recorded, before it is answered: a test changes the world
	// between the requests of a run.
	onRequest func(i int)
}

type recorded struct {
	MaxTokens int
	Messages  []byte // JSON of the messages as sent
	msgs      []llm.Message
	WebSearch *llm.WebSearch
	Tools     []byte // JSON of the tools as sent
}

func (f *fakeClient) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.StreamEvent, error] {
	f.mu.Lock()
	b, _ := json.Marshal(req.Messages)
	var copied []llm.Message
	_ = json.Unmarshal(b, &copied)
	tools, _ := json.Marshal(req.Tools)
	f.requests = append(f.requests, recorded{MaxTokens: req.MaxTokens, Messages: b, msgs: copied, WebSearch: req.WebSearch, Tools: tools})
	i, onRequest := len(f.requests)-1, f.onRequest
	var script []step
	if len(f.scripts) > 0 {
		script, f.scripts = f.scripts[0], f.scripts[1:]
	} else {
		script = []step{{err: &llm.Error{Kind: llm.ErrServer, Message: "fake: script exhausted"}}}
	}
	f.mu.Unlock()
	if onRequest != nil {
		onRequest(i)
	}
	return func(yield func(llm.StreamEvent, error) bool) {
		defer func() {
			f.mu.Lock()
			f.endedAt = append(f.endedAt, time.Now())
			f.mu.Unlock()
		}()
		for _, s := range script {
			if s.pause > 0 {
				t := time.NewTimer(s.pause)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					yield(nil, ctx.Err())
					return
				}
			}
			if ctx.Err() != nil {
				yield(nil, ctx.Err())
				return
			}
			if s.err != nil {
				yield(nil, s.err)
				return
			}
			if !yield(s.ev, nil) {
				return
			}
		}
	}
}

func (f *fakeClient) reqs() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

// Script builders.

func text(idx int, s string) step { return step{ev: llm.TextDelta{Index: idx, Text: s}} }

func call(idx int, id, name, input string) step {
	return step{ev: llm.ToolCallComplete{Index: idx, ID: id, Name: name, Input: json.RawMessage(input)}}
}

func end(reason llm.StopReason, in, out int64) step {
	return step{ev: llm.StreamEnd{StopReason: reason, Usage: llm.Usage{InputTokens: in, OutputTokens: out}, Model: "claude-sonnet-4-5"}}
}

func answer(s string) []step {
	return []step{text(0, s), end(llm.StopEndTurn, 10, 5)}
}

func paused(d time.Duration, s step) step { s.pause = d; return s }
