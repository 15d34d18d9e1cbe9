package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
	"github.com/novacode/nova/tool"
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
	window     int // resolved context window, 0 until first asked

	startTurn int   // conv.Turns when the run began
	recorded  int   // messages the Recorder holds
	recErr    error // first Recorder failure: the run ends at the next turn
	// lastSize is the history size in tokens after the last model call
	// (its prompt plus its output) and lastLen the number of messages then;
	// compaction estimates the next prompt from them.
	lastSize int64
	lastLen  int
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

// callState follows one tool call through the turn.
type callState struct {
	call     ToolCall
	task     *task        // set when submitted to the executor
	deferred bool         // needs a person; runs after the stream
	decided  *tool.Result // set when no tool runs (denied, unknown, invalid)
	denied   bool
	decision permission.Decision
	question bool // an Interactive tool: a person answers it
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

func (r *run) loop(ctx context.Context) {
	a := r.a
	r.turn, r.startTurn, r.recorded = r.conv.Turns, r.conv.Turns, r.conv.Persisted
	r.total, r.cost = r.conv.Usage, r.conv.CostUSD
	defer func() {
		// Leave the conversation ready for the next run.
		r.conv.Turns, r.conv.Usage, r.conv.CostUSD = r.turn, r.total, r.cost
		r.record()
		r.conv.Persisted = r.recorded
	}()
	r.record()
	if a.ModelInfo != nil {
		r.model = *a.ModelInfo
	} else {
		r.model, _ = llm.LookupModel(a.Model)
	}
	r.maxTokens = a.MaxTokens
	if r.maxTokens <= 0 {
		r.maxTokens = min(r.model.MaxOutputTokens, 32_000)
	}
	var specs []llm.ToolSpec
	if a.Tools != nil {
		specs = a.Tools.Specs() // computed once: the tools array must be byte-stable
	}
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
		if r.shouldCompact(specs) {
			if err := r.compact(ctx, specs, "auto", ""); err != nil {
				r.complete(event.ReasonError, err)
				return
			}
		}
		req := &llm.Request{
			Model:     a.Model,
			System:    r.conv.System,
			Messages:  r.conv.Messages,
			Tools:     specs,
			MaxTokens: r.maxTokens,
			Thinking:  a.Thinking,
		}
		r.sent = len(r.conv.Messages)
		if !r.turnOnce(ctx, req, ti) {
			return
		}
	}
}

// turnOnce streams one model call and handles its tools. It reports whether
// the loop goes on.
func (r *run) turnOnce(ctx context.Context, req *llm.Request, ti *TurnInfo) bool {
	a := r.a
	exec := newExecutor(ctx, a.Env, a.now, r.turn, a.Snapshot)
	// Whatever happens below, no tool goroutine outlives the turn.
	defer exec.wait()

	asst := llm.Message{Role: llm.RoleAssistant}
	var calls []*callState
	var end llm.StreamEnd
	gotEnd := false
	var streamErr error
	lastKind, lastIdx := llm.BlockType(""), -1

	for ev, err := range a.Client.Stream(ctx, req) {
		if err != nil {
			streamErr = err
			break
		}
		switch e := ev.(type) {
		case llm.TextDelta:
			if lastKind == llm.BlockText && lastIdx == e.Index {
				asst.Content[len(asst.Content)-1].Text += e.Text
			} else {
				asst.Content = append(asst.Content, llm.Block{Type: llm.BlockText, Text: e.Text})
				lastKind, lastIdx = llm.BlockText, e.Index
			}
			r.emit(event.StreamText{Turn: r.turn, Text: e.Text})
		case llm.ThinkingDelta:
			switch {
			case e.Redacted != "":
				asst.Content = append(asst.Content, llm.Block{Type: llm.BlockRedactedThinking, Data: e.Redacted, Origin: e.Origin})
				lastKind, lastIdx = llm.BlockRedactedThinking, e.Index
			case lastKind == llm.BlockThinking && lastIdx == e.Index:
				b := &asst.Content[len(asst.Content)-1]
				b.Text += e.Text
				b.Signature += e.Signature
				if e.ItemID != "" {
					b.ItemID = e.ItemID
				}
			default:
				asst.Content = append(asst.Content, llm.Block{Type: llm.BlockThinking, Text: e.Text, Signature: e.Signature, ItemID: e.ItemID, Origin: e.Origin})
				lastKind, lastIdx = llm.BlockThinking, e.Index
			}
			if e.Text != "" {
				r.emit(event.ThinkingText{Turn: r.turn, Text: e.Text})
			}
		case llm.ToolCallComplete:
			call := ToolCall{ID: e.ID, Name: e.Name, Input: e.Input}
			input := validJSON(e.Input)
			asst.Content = append(asst.Content, llm.Block{Type: llm.BlockToolUse, ToolUseID: e.ID, ToolName: e.Name, Input: input})
			lastKind, lastIdx = llm.BlockToolUse, e.Index
			// Decide and submit before yielding: the tool starts now, not
			// after the consumer has rendered the event.
			cs := r.dispatch(exec, call)
			calls = append(calls, cs)
			r.emit(event.ToolUse{Turn: r.turn, ID: e.ID, Name: e.Name, Input: input})
			if cs.decided != nil {
				r.settled(cs) // refused or answered at once: it will not run
			}
		case llm.StreamEnd:
			end, gotEnd = e, true
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

	if streamErr == nil && !gotEnd {
		if ctx.Err() != nil {
			streamErr = ctx.Err()
		} else {
			streamErr = &llm.Error{Kind: llm.ErrBrokenStream, Message: "the model stream ended without a stop event"}
		}
	}
	if streamErr != nil {
		reason := event.ReasonError
		if ctx.Err() != nil || errors.Is(streamErr, context.Canceled) {
			reason = event.ReasonCancelled
		}
		// End the run: interrupt running tools, then record every call.
		r.cancel()
		exec.wait()
		r.appendAssistant(asst)
		if len(calls) > 0 {
			r.finishCalls(ctx, exec, calls, "")
		}
		r.complete(reason, streamErr)
		return false
	}

	r.total = r.total.Add(end.Usage)
	r.cost += r.model.Cost(end.Usage)
	r.lastSize, r.lastLen = end.Usage.PromptTokens()+end.Usage.OutputTokens, len(req.Messages)+1
	if a.Recorder != nil && r.recErr == nil {
		if err := a.Recorder.Usage(r.turn, r.total, r.cost); err != nil {
			r.recErr = fmt.Errorf("could not write the session transcript: %w", err)
		}
	}
	r.emit(event.Usage{
		Turn: r.turn, Model: cmp.Or(end.Model, a.Model),
		Call: counts(end.Usage), Total: counts(r.total), CostUSD: r.cost,
		ContextWindow: r.contextWindow(),
	})

	extra := ""
	if end.StopReason == llm.StopMaxTokens {
		if r.recoveries >= maxRecoveries {
			exec.wait()
			r.appendAssistant(asst)
			if len(calls) > 0 {
				r.finishCalls(ctx, exec, calls, "")
			}
			r.complete(event.ReasonError, fmt.Errorf("the model hit its output token limit %d times in a row; ask for a smaller piece of work", maxRecoveries+1))
			return false
		}
		r.recoveries++
		extra = splitPrompt
		if r.recoveries == 1 {
			extra = continuePrompt
			if r.model.MaxOutputTokens > r.maxTokens {
				r.maxTokens = r.model.MaxOutputTokens
			}
		}
	}

	r.appendAssistant(asst)
	if len(calls) == 0 {
		if extra != "" {
			r.addUserContent(llm.Block{Type: llm.BlockText, Text: extra})
			r.turnEnd()
			r.emit(event.TurnComplete{Turn: r.turn, StopReason: string(end.StopReason)})
			return !r.stopped
		}
		if err := runHooks(ctx, "turn_end", a.Hooks.TurnEnd, ti); err != nil {
			r.complete(event.ReasonError, err)
			return false
		}
		r.complete(event.ReasonDone, nil)
		return false
	}
	r.finishCalls(ctx, exec, calls, extra)
	r.turnEnd()
	if r.stopped {
		return false
	}
	r.emit(event.TurnComplete{Turn: r.turn, StopReason: string(end.StopReason)})
	return !r.stopped
}

// dispatch decides one call exactly once and submits, defers or answers it.
func (r *run) dispatch(exec *executor, call ToolCall) *callState {
	a := r.a
	cs := &callState{call: call}
	var t tool.Tool
	if a.Tools != nil {
		t, _ = a.Tools.Get(call.Name)
	}
	if t == nil {
		res := tool.Errorf("Unknown tool %q. Available tools: %s. Call one of those.", call.Name, strings.Join(a.toolNames(), ", "))
		cs.decided = &res
		return cs
	}
	if !json.Valid(call.Input) {
		res := tool.Errorf("The arguments for %s are not valid JSON, so the call was not run: %s\nSend the call again with one complete JSON object matching the tool's schema.", call.Name, preview(string(call.Input), 200))
		cs.decided = &res
		return cs
	}
	if it, ok := t.(tool.Interactive); ok && it.AsksUser() {
		// A question needs no permission: it does nothing but ask.
		if a.NonInteractive {
			res := tool.Errorf("Nobody can answer questions in this non-interactive run. Continue with your best judgement and say what you assumed.")
			cs.decided = &res
		} else {
			cs.deferred, cs.question = true, true
		}
		return cs
	}
	dec := permission.Decision{Behavior: permission.Allow}
	if a.Permissions != nil {
		dec = a.Permissions.Check(permission.Call{Tool: call.Name, Input: call.Input, ReadOnly: t.ConcurrencySafe()})
	}
	cs.decision = dec
	switch dec.Behavior {
	case permission.Allow:
		cs.task = exec.submit(call, t, dec.Paths)
	case permission.Deny:
		res := tool.Errorf("Permission to use %s was denied: %s. Do not retry this call; choose another approach or ask the user.", call.Name, dec.Reason)
		cs.decided, cs.denied = &res, true
	default:
		if a.NonInteractive {
			res := tool.Errorf("Permission to use %s was not granted: it needs approval (%s), and nobody can approve it in this non-interactive run. The user can allow it with --allowedTools %s or a broader --permission-mode.", call.Name, dec.Reason, call.Name)
			cs.decided, cs.denied = &res, true
		} else {
			cs.deferred = true
		}
	}
	return cs
}

func (a *Agent) toolNames() []string {
	if a.Tools == nil {
		return nil
	}
	return a.Tools.Names()
}

// finishCalls runs the deferred calls one by one behind permission requests,
// waits for every tool, applies size control and appends the one results
// message. extra, if set, is added after the results as text.
func (r *run) finishCalls(ctx context.Context, exec *executor, calls []*callState, extra string) {
	r.reportEnded(exec)
	for _, cs := range calls {
		if !cs.deferred {
			continue
		}
		if ctx.Err() != nil {
			res := cancelledResult
			cs.decided = &res
			r.settled(cs)
			continue
		}
		if cs.question {
			r.askQuestion(ctx, exec, cs)
			r.settled(cs)
			continue
		}
		r.askAndRun(ctx, exec, cs)
	}
	// Wait for the tools still running, reporting each as it ends.
	for r.reportEnded(exec) > 0 {
		<-exec.notify
	}
	exec.wait()

	results := make([]resultRec, len(calls))
	for i, cs := range calls {
		rec := resultRec{call: cs.call, denied: cs.denied}
		switch {
		case cs.decided != nil:
			rec.res = *cs.decided
		case cs.task != nil:
			rec.res = cs.task.result
			rec.cancelled = cs.task.cancelled
			if !cs.task.started.IsZero() {
				rec.duration = cs.task.finished.Sub(cs.task.started)
			}
		default:
			rec.res, rec.cancelled = cancelledResult, true
		}
		results[i] = rec
	}
	r.applySizeControl(results)

	msg := llm.Message{Role: llm.RoleUser, Content: make([]llm.Block, 0, len(results)+1)}
	for _, rec := range results {
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockToolResult, ToolUseID: rec.call.ID, Content: rec.res.Content, IsError: rec.res.IsError})
	}
	if extra != "" {
		msg.Content = append(msg.Content, llm.Block{Type: llm.BlockText, Text: extra})
	}
	r.conv.Messages = append(r.conv.Messages, msg)

	for _, rec := range results {
		r.emit(event.ToolResult{
			Turn: r.turn, ID: rec.call.ID, Name: rec.call.Name,
			Content: rec.res.Content, IsError: rec.res.IsError,
			Cancelled: rec.cancelled, Denied: rec.denied,
			DurationMS: rec.duration.Milliseconds(), SpillPath: rec.spill,
		})
	}
}

// askAndRun asks a person about one deferred call and runs it if allowed.
func (r *run) askAndRun(ctx context.Context, exec *executor, cs *callState) {
	reply := event.NewReply()
	reason := cs.decision.Reason
	if reason == "" {
		reason = fmt.Sprintf("%s needs your approval", cs.call.Name)
	}
	req := event.NewPermissionRequest(event.PermissionRequest{
		Turn: r.turn, ID: cs.call.ID, Name: cs.call.Name, Input: cs.call.Input,
		Reason:  reason,
		Suggest: cs.decision.Suggest,
		Choices: []string{"allow_once", "allow_always", "deny"},
	}, reply)
	if !r.emit(req) {
		res := cancelledResult
		cs.decided = &res
		return
	}
	var d event.Decision
	for answered := false; !answered; {
		select {
		case d = <-reply.C():
			answered = true
		case <-exec.notify:
			r.reportEnded(exec) // tools keep ending while the person decides
		case <-ctx.Done():
			res := cancelledResult
			cs.decided = &res
			r.settled(cs)
			return
		}
	}
	if d.Behavior != event.Allow {
		msg := "The user denied this call."
		if d.Message != "" {
			msg += " They said: " + d.Message
		}
		res := tool.Errorf("%s Do not retry it; adjust your approach.", msg)
		cs.decided, cs.denied = &res, true
		r.settled(cs)
		return
	}
	if d.Always && r.a.AllowAlways != nil {
		r.a.AllowAlways(cs.call, cs.decision)
	}
	t, _ := r.a.Tools.Get(cs.call.Name)
	cs.task = exec.submit(cs.call, t, cs.decision.Paths)
	<-cs.task.done // deferred calls run one by one
	r.reportEnded(exec)
}

// askQuestion puts an AskUserQuestion call to the person and turns the
// answer (or its absence) into the call's result.
func (r *run) askQuestion(ctx context.Context, exec *executor, cs *callState) {
	var in struct {
		Question string   `json:"question"`
		Options  []string `json:"options"`
	}
	if err := json.Unmarshal(cs.call.Input, &in); err != nil || strings.TrimSpace(in.Question) == "" {
		res := tool.Errorf("Invalid input for AskUserQuestion: it needs a \"question\" (and optional \"options\"). Fix the arguments and call it again.")
		cs.decided = &res
		return
	}
	reply := event.NewAnswerReply()
	q := event.NewQuestion(event.Question{Turn: r.turn, ID: cs.call.ID, Question: in.Question, Options: in.Options}, reply)
	if !r.emit(q) {
		res := cancelledResult
		cs.decided = &res
		return
	}
	wait := r.a.QuestionTimeout
	if wait <= 0 {
		wait = 5 * time.Minute
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var res tool.Result
	for answered := false; !answered; {
		answered = true
		select {
		case ans := <-reply.C():
			var parts []string
			if ans.Option != "" {
				parts = append(parts, "chose: "+ans.Option)
			}
			if t := strings.TrimSpace(ans.Text); t != "" {
				parts = append(parts, "said: "+t)
			}
			if len(parts) == 0 {
				parts = append(parts, "gave no answer")
			}
			res = tool.Result{Content: "The user " + strings.Join(parts, "; ") + "."}
		case <-exec.notify:
			r.reportEnded(exec) // tools keep ending while the person answers
			answered = false
		case <-timer.C:
			res = tool.Result{Content: fmt.Sprintf("The user did not answer within %v. Continue with your best judgement and say what you assumed.", wait)}
		case <-ctx.Done():
			res = cancelledResult
		}
	}
	cs.decided = &res
}

// reportEnded yields tool_done for the tasks that ended since the last call
// and returns how many are still running.
func (r *run) reportEnded(exec *executor) int {
	ended, running := exec.takeDone()
	for _, tk := range ended {
		var d time.Duration
		if !tk.started.IsZero() {
			d = tk.finished.Sub(tk.started)
		}
		r.emit(event.ToolDone{Turn: r.turn, ID: tk.call.ID, Name: tk.call.Name, IsError: tk.result.IsError, DurationMS: d.Milliseconds()})
	}
	return running
}

// settled yields tool_done for a call decided without running.
func (r *run) settled(cs *callState) {
	r.emit(event.ToolDone{Turn: r.turn, ID: cs.call.ID, Name: cs.call.Name, IsError: cs.decided.IsError})
}

// resultRec is one call's result on its way into history.
type resultRec struct {
	call      ToolCall
	res       tool.Result
	duration  time.Duration
	cancelled bool
	denied    bool
	spill     string
}

// applySizeControl caps each result, then spills the longest to disk until
// the batch fits the budget. What is spilled is the full original output, so
// nothing is lost; history keeps a preview and the path.
func (r *run) applySizeControl(results []resultRec) {
	capN := r.a.ResultCap
	if capN <= 0 {
		capN = DefaultResultCap
	}
	budget := r.a.BatchBudget
	if budget <= 0 {
		budget = DefaultBatchBudget
	}
	full := make([]string, len(results))
	total := 0
	for i := range results {
		full[i] = results[i].res.Content
		results[i].res.Content = tool.Truncate(results[i].res.Content, capN)
		total += len(results[i].res.Content)
	}
	for total > budget {
		longest := -1
		for i := range results {
			if results[i].spill == "" && len(results[i].res.Content) > spillPreview*2 &&
				(longest < 0 || len(results[i].res.Content) > len(results[longest].res.Content)) {
				longest = i
			}
		}
		if longest < 0 {
			return
		}
		rec := &results[longest]
		before := len(rec.res.Content)
		path, err := r.spill(rec.call.ID, full[longest])
		if err != nil {
			// Disk refused: keep a shorter head+tail instead, still within budget.
			rec.res.Content = tool.Truncate(rec.res.Content, spillPreview*2)
			rec.spill = "-"
		} else {
			rec.spill = path
			rec.res.Content = preview(full[longest], spillPreview) + fmt.Sprintf(
				"\n\n[Output too large for the context (%d characters). The full output is saved at %s — read it with Read (offset/limit) or search it with Grep.]",
				len(full[longest]), path)
		}
		total += len(rec.res.Content) - before
	}
	for i := range results {
		if results[i].spill == "-" {
			results[i].spill = ""
		}
	}
}

func (r *run) spill(callID string, content string) (string, error) {
	dir := r.a.SpillDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "nova-spill")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("spill result: %w", err)
	}
	name := sanitize(r.conv.ID) + "-" + sanitize(callID) + ".txt"
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		return "", fmt.Errorf("spill result: %w", err)
	}
	return path, nil
}

func sanitize(s string) string {
	if s == "" {
		return "x"
	}
	return strings.Map(func(c rune) rune {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return c
		}
		return '_'
	}, s)
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
	if r.a.Recorder != nil && r.recErr == nil {
		r.record()
		_ = r.a.Recorder.End(r.turn, reason)
	}
	r.turnEnd()
	lc := event.LoopComplete{
		Reason: reason, Turns: r.turn - r.startTurn, FinalText: r.finalText(),
		Usage: counts(r.total), CostUSD: r.cost,
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
	for i := len(r.conv.Messages) - 1; i >= 0; i-- {
		if r.conv.Messages[i].Role == llm.RoleAssistant {
			return r.conv.Messages[i].Text()
		}
	}
	return ""
}

func counts(u llm.Usage) event.TokenCounts {
	return event.TokenCounts{
		InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheReadTokens: u.CacheReadTokens, CacheWriteTokens: u.CacheWriteTokens,
		Estimated: u.Estimated,
	}
}

// validJSON returns in if it is valid JSON, else in as a JSON string: a
// model's broken arguments are kept verbatim, yet history and events stay
// encodable.
func validJSON(in json.RawMessage) json.RawMessage {
	if json.Valid(in) {
		return in
	}
	b, _ := json.Marshal(string(in))
	return b
}

func preview(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return tool.Truncate(s, n)
}
