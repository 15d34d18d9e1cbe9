package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
)

// Output-truncation recovery prompts (see the design handbook: raise the
// limit and continue once, then up to three split-the-work recoveries).
const (
	maxRecoveries  = 4
	continuePrompt = "Your previous response was cut off because it hit the output token limit. " +
		"Continue exactly where you stopped — no apology, no recap of what you already wrote."
	splitPrompt = "Your response hit the output token limit again. Break the remaining work into " +
		"smaller pieces: do one small step now (one short answer or one tool call with a small input), " +
		"then continue with the rest in later turns."
)

// run is the state of one Agent.Run. It is confined to the goroutine that
// drives the iterator; tool goroutines only touch their own task.
type run struct {
	a      *Agent
	conv   *Conversation
	yield  func(event.Event) bool
	cancel context.CancelFunc
	start  time.Time

	stopped  bool // the consumer stopped iterating
	finished bool // LoopComplete was yielded
	turn     int
	sent     int // messages already sent to the model; they are frozen
	total    llm.Usage
	cost     float64
	model    llm.ModelInfo

	maxTokens  int
	recoveries int
	// lastStop is why the model call of the current turn stopped, once it
	// ended (empty while it streams, or when it failed).
	lastStop llm.StopReason
	window   int // resolved context window, 0 until first asked

	startTurn int   // conv.Turns when the run began
	recorded  int   // messages the Recorder holds
	recErr    error // first Recorder failure: the run ends at the next turn
	// lastSize is the history size in tokens after the last model call
	// (its prompt plus its output) and lastLen the number of messages then;
	// compaction estimates the next prompt from them.
	lastSize int64
	lastLen  int
	specs    []llm.ToolSpec // the tools array, computed once per run
	todos    uint64         // version of the task list last reported (reportTodos)
	search   *llm.WebSearch // the web search offered, once the session decided
	// endWith, when set, ends the run after this turn's calls with its text
	// as the final text: a plan nobody could approve.
	endWith *string
	// wake is signalled when a tool ends or work a call started (a
	// subagent) posts an event to the relay.
	wake chan struct{}
}

// emit yields e unless the consumer has stopped. A consumer that stops
// cancels the run: tools are interrupted and no more events are produced.
func (r *run) emit(e event.Event) bool {
	// Invariant: every message is recorded before any event is yielded, so
	// a consumer never sees something a crash could lose.
	r.record()
	if r.stopped || r.finished {
		return false
	}
	if !r.yield(e) {
		r.stopped = true
		r.cancel()
		return false
	}
	return true
}

// record hands the messages appended since the last call to the Recorder.
func (r *run) record() {
	rec := r.a.Recorder
	if rec == nil {
		r.recorded = len(r.conv.Messages)
		return
	}
	turn := r.turn
	if turn == r.startTurn {
		turn++ // the prompt belongs to the first model call that reads it
	}
	for r.recorded < len(r.conv.Messages) {
		if err := rec.Message(turn, r.conv.Messages[r.recorded]); err != nil {
			if r.recErr == nil {
				r.recErr = fmt.Errorf("could not write the session transcript: %w; the run stops so nothing more goes unrecorded", err)
			}
			return
		}
		r.recorded++
	}
}

// turnEnd makes the turn durable.
func (r *run) turnEnd() {
	r.record()
	if r.a.Recorder != nil && r.recErr == nil {
		if err := r.a.Recorder.TurnEnd(r.turn); err != nil {
			r.recErr = fmt.Errorf("could not sync the session transcript: %w", err)
		}
	}
}

// newRun prepares the state of one run over conv: turn numbering, totals
// and the recorded prefix continue from the conversation, and the model's
// limits come from the catalog (or ModelInfo).
func newRun(a *Agent, conv *Conversation, yield func(event.Event) bool, cancel context.CancelFunc) *run {
	r := &run{a: a, conv: conv, yield: yield, cancel: cancel, start: a.now(), wake: make(chan struct{}, 1)}
	r.turn, r.startTurn, r.recorded = conv.Turns, conv.Turns, conv.Persisted
	r.total, r.cost = conv.Usage, conv.CostUSD
	if a.ModelInfo != nil {
		r.model = *a.ModelInfo
	} else {
		r.model, _ = llm.LookupModel(a.Model)
	}
	r.maxTokens = a.MaxTokens
	if r.maxTokens <= 0 {
		r.maxTokens = min(r.model.MaxOutputTokens, 32_000)
	}
	if a.Tools != nil {
		r.specs = a.Tools.Specs() // computed once: the tools array must be byte-stable
	}
	r.todos = todoVersion(a.Env)
	if conv.webSearch == searchOn {
		r.search = a.WebSearch
	}
	return r
}

// save leaves the conversation ready for the next run.
func (r *run) save() {
	r.record()
	r.conv.Turns, r.conv.Usage, r.conv.CostUSD, r.conv.Persisted = r.turn, r.total, r.cost, r.recorded
}

func (r *run) loop(ctx context.Context) {
	a := r.a
	defer r.save()
	if r.conv.relay == nil {
		r.conv.relay = newRelay()
	}
	r.conv.relay.attach(r.wake)
	// Events posted after the run (a background subagent's) have no
	// consumer: they are dropped.
	defer r.conv.relay.detach()
	r.record()
	for {
		if r.stopped {
			return
		}
		if ctx.Err() != nil {
			r.complete(event.ReasonCancelled, nil)
			return
		}
		if r.recErr != nil {
			r.complete(event.ReasonError, r.recErr)
			return
		}
		if a.MaxTurns > 0 && r.turn-r.startTurn >= a.MaxTurns {
			r.complete(event.ReasonMaxTurns, fmt.Errorf("reached the turn limit (%d) before the task was done; raise --max-turns to let it go on", a.MaxTurns))
			return
		}
		r.turn++
		ti := &TurnInfo{Turn: r.turn, Conv: r.conv}
		r.deliver(ti)
		if err := runHooks(ctx, "turn_start", a.Hooks.TurnStart, ti); err != nil {
			r.complete(event.ReasonError, err)
			return
		}
		if err := runHooks(ctx, "pre_send", a.Hooks.PreSend, ti); err != nil {
			r.complete(event.ReasonError, err)
			return
		}
		if len(ti.reminders) > 0 {
			r.addUserContent(llm.Block{Type: llm.BlockText, Text: reminderText(ti.reminders)})
		}
		if r.search = r.searchFor(ctx); r.stopped {
			return
		}
		// Compaction keeps this turn's unsent prompt and reminders out of
		// the summary and puts them back verbatim after it.
		if r.shouldCompact() {
			if err := r.compact(ctx, "auto", ""); err != nil {
				r.complete(event.ReasonError, err)
				return
			}
		}
		req := &llm.Request{
			Model:     a.Model,
			System:    r.conv.System,
			Messages:  r.conv.Messages,
			Tools:     r.specs,
			MaxTokens: r.maxTokens,
			Thinking:  a.Thinking,
			WebSearch: r.search,
		}
		if !r.turnOnce(ctx, req, ti) {
			return
		}
	}
}

// streamed is what one model call produced.
type streamed struct {
	msg   llm.Message
	calls []*callState
	end   llm.StreamEnd
	err   error // the stream failed or was cut; msg and calls hold what came
}

// turnOnce streams one model call and handles its tools. It reports whether
// the loop goes on.
func (r *run) turnOnce(ctx context.Context, req *llm.Request, ti *TurnInfo) bool {
	exec := newExecutor(ctx, r.a.Env, r.a.now, r.turn, r.a.Snapshot, r.wake, r.conv.relay)
	// Whatever happens below, no tool goroutine outlives the turn.
	defer exec.wait()
	r.lastStop = ""

	s := r.stream(ctx, req, exec)
	if s.err != nil && r.searchRejected(req, s) {
		exec.wait()
		return r.turnOnce(ctx, req, ti)
	}
	if s.err != nil {
		reason := event.ReasonError
		if ctx.Err() != nil || errors.Is(s.err, context.Canceled) {
			reason = event.ReasonCancelled
		}
		// End the run: interrupt running tools, then record every call.
		r.cancel()
		exec.wait()
		r.closeTurn(ctx, exec, s, "")
		r.complete(reason, s.err)
		return false
	}
	r.account(s.end, len(req.Messages))
	r.lastStop = s.end.StopReason

	extra, err := r.outputLimit(s.end)
	if err != nil {
		exec.wait()
		r.closeTurn(ctx, exec, s, "")
		r.complete(event.ReasonError, err)
		return false
	}
	r.appendAssistant(s.msg)
	if len(s.calls) == 0 && extra == "" && s.end.StopReason == llm.StopPauseTurn {
		// The provider paused a long turn of its own tools (web
		// searches): sent back as it is, the answer goes on.
		r.turnEnd()
		r.emit(event.TurnComplete{Turn: r.turn, StopReason: string(s.end.StopReason)})
		return !r.stopped
	}
	if len(s.calls) == 0 {
		if extra != "" {
			r.addUserContent(llm.Block{Type: llm.BlockText, Text: extra})
			r.turnEnd()
			r.emit(event.TurnComplete{Turn: r.turn, StopReason: string(s.end.StopReason)})
			return !r.stopped
		}
		if r.awaitBackground(ctx) {
			// Background work reported: the next turn delivers it.
			r.turnEnd()
			r.emit(event.TurnComplete{Turn: r.turn, StopReason: string(s.end.StopReason)})
			return !r.stopped
		}
		if ctx.Err() != nil {
			r.complete(event.ReasonCancelled, ctx.Err())
			return false
		}
		if err := runHooks(ctx, "turn_end", r.a.Hooks.TurnEnd, ti); err != nil {
			r.complete(event.ReasonError, err)
			return false
		}
		r.complete(event.ReasonDone, nil)
		return false
	}
	r.finishCalls(ctx, exec, s.calls, extra)
	r.turnEnd()
	if r.stopped {
		return false
	}
	if r.endWith != nil {
		r.complete(event.ReasonDone, nil)
		return false
	}
	r.emit(event.TurnComplete{Turn: r.turn, StopReason: string(s.end.StopReason)})
	return !r.stopped
}

// stream sends req and follows the answer: deltas are yielded and
// assembled, each completed tool call is decided and started at once, and
// tools that end meanwhile are reported.
func (r *run) stream(ctx context.Context, req *llm.Request, exec *executor) streamed {
	var s streamed
	m := newAssembler()
	gotEnd := false
	searches := map[string]event.WebSearch{} // by call id, until their results
	r.sent = len(req.Messages)
	for ev, err := range r.a.Client.Stream(ctx, req) {
		if err != nil {
			s.err = err
			break
		}
		switch e := ev.(type) {
		case llm.TextDelta:
			m.text(e)
			r.emit(event.StreamText{Turn: r.turn, Text: e.Text})
		case llm.ThinkingDelta:
			m.thinking(e)
			if e.Text != "" {
				r.emit(event.ThinkingText{Turn: r.turn, Text: e.Text})
			}
		case llm.ToolCallComplete:
			call, input := m.toolUse(e)
			// Decide and start before yielding: the tool starts now, not
			// after the consumer has rendered the event.
			cs := r.dispatch(exec, call)
			s.calls = append(s.calls, cs)
			use := event.ToolUse{Turn: r.turn, ID: e.ID, Name: e.Name, Input: input}
			if cs.modelInput != nil {
				use.Input, use.ModelInput = cs.call.Input, input
			}
			r.emit(use)
			if cs.decided != nil {
				r.settled(cs) // refused or answered at once: it will not run
			}
		case llm.ServerToolUse:
			m.serverToolUse(e)
			ev := searchEvent(r.turn, e.ID, e.Input)
			searches[e.ID] = ev
			r.emit(ev)
		case llm.ServerToolResult:
			m.serverToolResult(e)
			start, ok := searches[e.ID]
			if !ok {
				start = searchEvent(r.turn, e.ID, nil)
			}
			delete(searches, e.ID)
			r.emit(searchDone(start, e))
		case llm.Citation:
			r.emit(event.Citation{Turn: r.turn, URL: e.URL, Title: e.Title, CitedText: e.CitedText})
		case llm.StreamEnd:
			s.end, gotEnd = e, true
		case llm.Retrying:
			// Nothing of the failed attempt was yielded (llm.WithRetry
			// retries only before the first event), so the turn so far
			// is still empty: only a notice.
			r.emit(retryEvent(r.turn, e))
		}
		// Tools that ended while the model kept talking; a pending wake-up
		// is the cheap check (no lock per delta).
		select {
		case <-exec.notify:
			r.reportEnded(exec)
		default:
		}
		if r.stopped {
			break
		}
	}
	s.msg = m.msg
	if s.end.StopReason != llm.StopPauseTurn {
		s.msg = answeredSearches(s.msg)
	}
	if s.err == nil && !gotEnd {
		if ctx.Err() != nil {
			s.err = ctx.Err()
		} else {
			s.err = &llm.Error{Kind: llm.ErrBrokenStream, Message: "the model stream ended without a stop event"}
		}
	}
	return s
}

// closeTurn keeps a turn that ends the run valid: what the model said is
// appended and every call gets a result.
func (r *run) closeTurn(ctx context.Context, exec *executor, s streamed, extra string) {
	r.appendAssistant(s.msg)
	if len(s.calls) > 0 {
		r.finishCalls(ctx, exec, s.calls, extra)
	}
}

// account adds a model call's usage to the totals, records them and yields
// the usage event. sentLen is how many messages the call read.
func (r *run) account(end llm.StreamEnd, sentLen int) {
	r.total = r.total.Add(end.Usage)
	r.cost += r.model.Cost(end.Usage)
	r.lastSize, r.lastLen = end.Usage.PromptTokens()+end.Usage.OutputTokens, sentLen+1
	if r.a.Recorder != nil && r.recErr == nil {
		if err := r.a.Recorder.Usage(r.turn, r.total, r.cost); err != nil {
			r.recErr = fmt.Errorf("could not write the session transcript: %w", err)
		}
	}
	r.emit(event.Usage{
		Turn: r.turn, Model: cmp.Or(end.Model, r.a.Model),
		Call: counts(end.Usage), Total: counts(r.total), CostUSD: r.cost,
		ContextWindow: r.contextWindow(),
	})
}

// outputLimit handles an answer cut by the output token limit: the first
// time the limit is raised to the model's maximum and the model is asked
// to continue, then up to three times to split the work; after that the
// run ends with an error. It returns the text to send after the turn's
// results ("" when the answer was not cut).
func (r *run) outputLimit(end llm.StreamEnd) (string, error) {
	if end.StopReason != llm.StopMaxTokens {
		return "", nil
	}
	if r.recoveries >= maxRecoveries {
		return "", fmt.Errorf("the model hit its output token limit %d times in a row; ask for a smaller piece of work", maxRecoveries+1)
	}
	r.recoveries++
	if r.recoveries == 1 {
		if r.model.MaxOutputTokens > r.maxTokens {
			r.maxTokens = r.model.MaxOutputTokens
		}
		return continuePrompt, nil
	}
	return splitPrompt, nil
}

// appendAssistant adds the model's message; an empty one (cut before any
// content) is left out because providers reject empty content.
func (r *run) appendAssistant(m llm.Message) {
	if len(m.Content) > 0 {
		r.conv.Messages = append(r.conv.Messages, m)
	}
}

// addUserContent appends b as a new user message. Messages are never edited
// once appended, not even before they are sent: the transcript records each
// message once, and providers join consecutive user messages.
func (r *run) addUserContent(b llm.Block) {
	r.conv.Messages = append(r.conv.Messages, llm.Message{Role: llm.RoleUser, Content: []llm.Block{b}})
}

// complete yields the final event. err explains reasons other than done.
func (r *run) complete(reason string, err error) {
	r.relayed() // subagents' last events come before the end
	if r.a.Recorder != nil && r.recErr == nil {
		r.record()
		_ = r.a.Recorder.End(r.turn, reason)
	}
	r.turnEnd()
	lc := event.LoopComplete{
		Reason: reason, Turns: r.turn - r.startTurn, FinalText: r.finalText(),
		Usage: counts(r.total), CostUSD: r.cost,
	}
	// Why the last model call stopped, where that says more than the
	// reason: the model refused, or its output limit ended the run.
	switch {
	case reason == event.ReasonDone && r.lastStop == llm.StopRefusal,
		reason == event.ReasonError && r.lastStop == llm.StopMaxTokens:
		lc.StopReason = string(r.lastStop)
	}
	lc.Duration = r.a.now().Sub(r.start)
	lc.DurationMS = lc.Duration.Milliseconds()
	if err != nil {
		lc.Error = err.Error()
		if reason == event.ReasonCancelled {
			lc.Error = "cancelled"
		}
	}
	r.emit(lc)
	r.finished = true
}

// contextWindow asks a.ContextWindow once, on first use: by then the lookup
// started beside the first model call has long finished.
func (r *run) contextWindow() int {
	if r.window == 0 {
		r.window = r.model.ContextWindow
		if r.a.ContextWindow != nil {
			if w := r.a.ContextWindow(); w > 0 {
				r.window = w
			}
		}
	}
	return r.window
}

func (r *run) finalText() string {
	if r.endWith != nil && *r.endWith != "" {
		return *r.endWith
	}
	for i := len(r.conv.Messages) - 1; i >= 0; i-- {
		if r.conv.Messages[i].Role == llm.RoleAssistant {
			return r.conv.Messages[i].Text()
		}
	}
	return ""
}

// retryEvent is the event that tells frontends about a retry's wait.
func retryEvent(turn int, e llm.Retrying) event.Retry {
	ev := event.Retry{Turn: max(turn, 1), Kind: string(llm.ErrOther), Retry: e.Attempt, MaxRetries: e.MaxRetries,
		WaitMS: e.Wait.Milliseconds()}
	if e.Err != nil {
		ev.Error = e.Err.Error()
	}
	var le *llm.Error
	if errors.As(e.Err, &le) {
		ev.Kind, ev.StatusCode = string(le.Kind), le.StatusCode
	}
	return ev
}

func counts(u llm.Usage) event.TokenCounts {
	return event.TokenCounts{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
		WebSearchRequests: u.WebSearchRequests, Estimated: u.Estimated,
	}
}
