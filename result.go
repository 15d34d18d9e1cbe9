package nova

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"

	"github.com/novacode/nova/event"
)

// Result is what one Send (or Query) came to.
type Result struct {
	SessionID string
	// Text is the model's final answer.
	Text string
	// Reason is why the loop ended: event.ReasonDone, ReasonMaxTurns,
	// ReasonCancelled or ReasonError (Err then says what failed).
	Reason string
	Err    string
	// Turns counts this Send's model calls.
	Turns int
	// Usage and CostUSD are the totals loop_complete reports.
	Usage    event.TokenCounts
	CostUSD  float64
	Duration int64 // milliseconds of this Send
	// ToolCalls lists this Send's calls in the order the model made them.
	ToolCalls []ToolCall
	// Sources are the pages the answer cites, each once.
	Sources []Source
}

// ToolCall is one call of a Send.
type ToolCall struct {
	ID      string
	Name    string
	Input   json.RawMessage
	Result  string
	IsError bool
	// Denied marks a call the permission chain, a hook or a person did not
	// allow; Reason says why.
	Denied bool
	Reason string
}

// Source is a page a web search found and the answer cites.
type Source struct {
	URL, Title string
}

// Denied returns the calls that were not allowed to run.
func (r Result) Denied() []ToolCall {
	var out []ToolCall
	for _, c := range r.ToolCalls {
		if c.Denied {
			out = append(out, c)
		}
	}
	return out
}

// collector builds a Result from a run's events.
type collector struct {
	res  *Result
	byID map[string]int
}

func (c *collector) add(e event.Event) {
	if c.byID == nil {
		c.byID = map[string]int{}
	}
	r := c.res
	switch e := e.(type) {
	case event.ToolUse:
		c.byID[e.ID] = len(r.ToolCalls)
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: e.ID, Name: e.Name, Input: e.Input})
	case event.ToolResult:
		if i, ok := c.byID[e.ID]; ok {
			tc := &r.ToolCalls[i]
			tc.Result, tc.IsError, tc.Denied, tc.Reason = e.Content, e.IsError, e.Denied, e.Reason
		}
	case event.Citation:
		if !slices.ContainsFunc(r.Sources, func(s Source) bool { return s.URL == e.URL }) {
			r.Sources = append(r.Sources, Source{URL: e.URL, Title: e.Title})
		}
	case event.LoopComplete:
		r.Text, r.Reason, r.Err = e.FinalText, e.Reason, e.Error
		r.Turns, r.Usage, r.CostUSD, r.Duration = e.Turns, e.Usage, e.CostUSD, e.DurationMS
	}
}

// Query runs one prompt in a new session and yields its events; the
// session is closed when the iteration ends. Errors opening the session
// come as a single pair with a nil event.
//
//	for ev, err := range nova.Query(ctx, "fix the failing test", nova.Options{}) {
//		if err != nil { ... }
//		if t, ok := ev.(event.StreamText); ok { fmt.Print(t.Text) }
//	}
func Query(ctx context.Context, prompt string, opts Options) iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		s, err := Open(ctx, opts)
		if err != nil {
			yield(nil, err)
			return
		}
		defer s.Close()
		for e, err := range s.Send(ctx, prompt) {
			if !yield(e, err) {
				return
			}
		}
	}
}

// Run runs one prompt in a new session to the end and returns its Result.
// The error is the session's failing to open, or the run's own failure
// (Result.Reason is then event.ReasonError).
func Run(ctx context.Context, prompt string, opts Options) (Result, error) {
	s, err := Open(ctx, opts)
	if err != nil {
		return Result{}, err
	}
	defer s.Close()
	var runErr error
	for _, err := range s.Send(ctx, prompt) {
		if err != nil {
			runErr = errors.Join(runErr, err)
		}
	}
	return s.Result(), runErr
}
