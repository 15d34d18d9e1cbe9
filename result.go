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
	// ToolCalls lists this Send's calls in the order the model made them
	// (its own: a subagent's are its Task call's business).
	ToolCalls []ToolCall
	// SubagentDenials are the calls of this Send's subagents that were not
	// allowed to run, each with ParentToolUseID and AgentID: the work a
	// subagent was refused is refused work of the Send (see Denied).
	SubagentDenials []ToolCall
	// Sources are the pages the answer cites, each once.
	Sources []Source
	// Subagents are the subagents this Send's own Task calls ran, in the
	// order their calls ended. Their tokens and cost are already in Usage
	// and CostUSD; a subagent's own subagents are in its figures, not
	// listed here.
	Subagents []SubagentRun
}

// SubagentRun is what one subagent (a Task call) did and cost, as
// event.SubagentRun says it, with the call that ran it.
type SubagentRun struct {
	// ToolUseID is the Task call's id (a ToolCalls entry).
	ToolUseID string
	AgentID   string
	AgentType string
	Turns     int
	Usage     event.TokenCounts
	CostUSD   float64
	// Background marks a subagent that goes on after its call returned:
	// Turns, Usage and CostUSD are what it had done by then.
	Background bool
	// Transcript is the file that keeps its conversation (a session
	// nova --resume takes), "" for an InMemory session.
	Transcript string
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
	// ParentToolUseID and AgentID name, for a subagent's call, the Task
	// call that started the subagent and the subagent (the innermost, for
	// a subagent's subagent), as its events do.
	ParentToolUseID, AgentID string
}

// Source is a page a web search found and the answer cites.
type Source struct {
	URL, Title string
}

// Denied returns the calls that were not allowed to run: the Send's own,
// then its subagents' (SubagentDenials).
func (r Result) Denied() []ToolCall {
	var out []ToolCall
	for _, c := range r.ToolCalls {
		if c.Denied {
			out = append(out, c)
		}
	}
	return append(out, r.SubagentDenials...)
}

// collector builds a Result from a run's events. A subagent's events
// (event.Child) are its own run's, not this one's: its calls are not
// ToolCalls, its citations not Sources, its loop_complete not the end;
// what it cost comes with the Task call's result. Only its denied calls
// are kept (SubagentDenials).
type collector struct {
	res  *Result
	byID map[string]int
	// childCalls are subagents' calls waiting for their result, by the
	// Task call that started the subagent and the call's id.
	childCalls map[[2]string]ToolCall
}

func (c *collector) add(e event.Event) {
	if c.byID == nil {
		c.byID = map[string]int{}
	}
	r := c.res
	switch e := e.(type) {
	case event.Child:
		c.child(e)
	case event.ToolUse:
		c.byID[e.ID] = len(r.ToolCalls)
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: e.ID, Name: e.Name, Input: e.Input})
	case event.ToolResult:
		if i, ok := c.byID[e.ID]; ok {
			tc := &r.ToolCalls[i]
			tc.Result, tc.IsError, tc.Denied, tc.Reason = e.Content, e.IsError, e.Denied, e.Reason
		}
		if a := e.Subagent; a != nil {
			r.Subagents = append(r.Subagents, SubagentRun{ToolUseID: e.ID, AgentID: a.AgentID, AgentType: a.AgentType,
				Turns: a.Turns, Usage: a.Usage, CostUSD: a.CostUSD, Background: a.Background, Transcript: a.Transcript})
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

// child keeps a subagent's denied calls.
func (c *collector) child(ch event.Child) {
	for {
		inner, ok := ch.Event.(event.Child)
		if !ok {
			break
		}
		ch = inner // the innermost: the subagent that made the call
	}
	switch e := ch.Event.(type) {
	case event.ToolUse:
		if c.childCalls == nil {
			c.childCalls = map[[2]string]ToolCall{}
		}
		c.childCalls[[2]string{ch.ParentToolUseID, e.ID}] = ToolCall{ID: e.ID, Name: e.Name, Input: e.Input,
			ParentToolUseID: ch.ParentToolUseID, AgentID: ch.AgentID}
	case event.ToolResult:
		k := [2]string{ch.ParentToolUseID, e.ID}
		tc, ok := c.childCalls[k]
		delete(c.childCalls, k)
		if !e.Denied {
			return
		}
		if !ok {
			tc = ToolCall{ID: e.ID, Name: e.Name, ParentToolUseID: ch.ParentToolUseID, AgentID: ch.AgentID}
		}
		tc.Result, tc.IsError, tc.Denied, tc.Reason = e.Content, e.IsError, true, e.Reason
		c.res.SubagentDenials = append(c.res.SubagentDenials, tc)
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
