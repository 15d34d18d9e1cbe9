package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission/verdict"
	"github.com/novacode/nova/tool"
)

// callState follows one tool call through the turn.
type callState struct {
	call     ToolCall
	tool     tool.Tool
	task     *task        // its place in the executor, when it may run
	deferred bool         // needs a person; decided after the stream
	decided  *tool.Result // set when no tool runs (denied, unknown, invalid)
	denied   bool
	denial   denial // why, when denied
	decision verdict.Decision
	question bool // an Interactive tool: a person answers it
	// modelInput is the model's own input when the decision replaced it
	// (verdict.Decision.Input): call.Input is what runs.
	modelInput json.RawMessage
	pending    tool.Pending // known by name only: decided once resolved
}

// dispatch decides one call exactly once, and starts it, reserves its place
// until a person decides, or answers it at once.
func (r *run) dispatch(exec *executor, call ToolCall) *callState {
	a := r.a
	cs := &callState{call: call}
	if a.Tools != nil {
		// Listed or deferred: a deferred tool (behind ToolSearch) is
		// callable by its exact name.
		cs.tool, _ = a.Tools.Get(call.Name)
	}
	t := cs.tool
	if t == nil {
		res := tool.Errorf("Unknown tool %q. No tools are available in this session.", call.Name)
		if a.Tools != nil {
			res = a.Tools.UnknownToolResult(call.Name)
		}
		cs.decided = &res
		return cs
	}
	if !json.Valid(call.Input) {
		res := tool.Errorf("The arguments for %s are not valid JSON, so the call was not run: %s\nSend the call again with one complete JSON object matching the tool's schema.", call.Name, preview(string(call.Input), 200))
		cs.decided = &res
		return cs
	}
	if it, ok := t.(tool.Interactive); ok && it.AsksUser() {
		// A question needs no permission: it does nothing but ask, and
		// touches nothing other calls could conflict with.
		if a.NonInteractive {
			res := tool.Errorf("Nobody can answer questions in this non-interactive run. Continue with your best judgement and say what you assumed.")
			cs.decided = &res
		} else {
			cs.deferred, cs.question = true, true
		}
		return cs
	}
	if p, ok := t.(tool.Pending); ok {
		// Whether it may run depends on the tool it turns out to be: its
		// place is kept (it may touch anything) and it is decided after
		// the stream, once resolved.
		cs.deferred, cs.pending = true, p
		cs.task = exec.reserve(call, tool.Exclusive())
		return cs
	}
	r.decide(exec, cs, t)
	return cs
}

// decide asks the chain about a call of t and starts it, denies it, or
// keeps its place for a person's answer (cs.deferred).
func (r *run) decide(exec *executor, cs *callState, t tool.Tool) {
	a, call := r.a, cs.call
	dec := a.check(verdict.Call{ID: call.ID, Tool: call.Name, Input: call.Input, ReadOnly: t.ReadOnly()})
	cs.decision = dec
	if dec.Input != nil && dec.Behavior != verdict.Deny && !bytes.Equal(dec.Input, call.Input) {
		// A hook rewrote the call: what runs is what the decision was
		// about, provided the tool accepts it. An input the tool rejects
		// is not replaced by the model's: the hook meant it not to run.
		if err := tool.Validate(t, dec.Input); err != nil {
			res := tool.Errorf("A hook replaced the arguments of this %s call with arguments the tool does not accept (%v), so the call was not run.", call.Name, err)
			cs.decided, cs.denied, cs.denial = &res, true, denial{reason: "a hook replaced its arguments with invalid ones: " + err.Error()}
			return
		}
		cs.modelInput = call.Input
		call.Input = dec.Input
		cs.call = call
	}
	switch dec.Behavior {
	case verdict.Allow:
		if cs.task == nil {
			cs.task = exec.reserve(call, effectsOf(t, a.Env, call.Input))
		}
		exec.start(cs.task, t, dec.Paths)
	case verdict.Deny:
		res := tool.Errorf("Permission to use %s was denied: %s Do not retry this call; choose another approach or ask the user.", call.Name, endSentence(dec.Reason))
		cs.decided, cs.denied, cs.denial = &res, true, denial{reason: dec.Reason}
	default:
		if pa, ok := t.(tool.PlanApprover); ok && a.NonInteractive {
			// Nobody can approve the plan: the run ends with it, once
			// this turn's other calls are done.
			res := pa.Unattended()
			cs.decided = &res
			plan := pa.Plan(a.Env, call.Input)
			r.endWith = &plan
			return
		}
		if a.NonInteractive {
			d := denial{reason: dec.Reason, needsApproval: true}
			how := "Only a person can approve it, in an interactive session."
			if rs, mode, ok := dec.Lift(); ok {
				d.suggest, d.mode = rs, string(mode)
				how = "The user can allow it by running again with " + allowFlags(rs, string(mode)) + "."
			}
			res := tool.Errorf("Permission to use %s was not granted: it needs approval (%s), and nobody can approve it in this non-interactive run. %s", call.Name, dec.Reason, how)
			cs.decided, cs.denied, cs.denial = &res, true, d
		} else {
			// Its place is kept: later calls that conflict with it wait
			// for the person's answer, as they would for the call.
			cs.deferred = true
			if cs.task == nil {
				cs.task = exec.reserve(call, effectsOf(t, a.Env, call.Input))
			}
		}
	}
}

// finishCalls asks a person about the deferred calls (each allowed one
// starts at once, in its place), waits for every tool, applies size control
// and appends the one results message. extra, if set, is added after the
// results as text.
func (r *run) finishCalls(ctx context.Context, exec *executor, calls []*callState, extra string) {
	r.reportEnded(exec)
	for _, cs := range calls {
		if !cs.deferred {
			continue
		}
		switch {
		case ctx.Err() != nil:
			r.settleCancelled(exec, cs)
		case cs.pending != nil:
			r.resolve(ctx, exec, cs)
		case cs.question:
			r.askQuestion(ctx, exec, cs)
			r.settled(cs)
		default:
			r.askAndRun(ctx, exec, cs)
		}
	}
	// Wait for the tools still running, reporting each as it ends.
	for r.reportEnded(exec) > 0 {
		<-exec.notify
	}
	exec.wait()

	results := make([]resultRec, len(calls))
	for i, cs := range calls {
		rec := resultRec{call: cs.call, denied: cs.denied, denial: cs.denial}
		switch {
		case cs.decided != nil:
			rec.res = *cs.decided
			rec.cancelled = *cs.decided == cancelledResult
		case cs.task != nil && cs.task.state == started:
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
		r.spend(rec.res.Spent)
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
			Reason: rec.denial.reason, NeedsApproval: rec.denial.needsApproval,
			Suggest: rec.denial.suggest, SuggestMode: rec.denial.mode,
			DurationMS: rec.duration.Milliseconds(), SpillPath: rec.spill,
			Subagent: subagentRun(rec.res.Spent),
		})
	}
}

// resolve waits for a pending call's tool, then decides the call as it
// would have been decided had the tool been known when its block completed:
// started in its place, denied, or asked about now.
func (r *run) resolve(ctx context.Context, exec *executor, cs *callState) {
	type resolved struct {
		t   tool.Tool
		err error
	}
	done := make(chan resolved, 1)
	go func() {
		t, err := cs.pending.Resolve(ctx) // returns once ctx ends
		done <- resolved{t, err}
	}()
	var got resolved
	for waiting := true; waiting; {
		select {
		case got = <-done:
			waiting = false
		case <-exec.notify:
			r.reportEnded(exec) // tools keep ending while it waits
		}
	}
	cs.pending = nil
	if ctx.Err() != nil {
		r.settleCancelled(exec, cs)
		return
	}
	if _, still := got.t.(tool.Pending); got.err == nil && (got.t == nil || still) {
		got.err = errors.New("the tool could not be found")
	}
	if got.err != nil {
		res := tool.Errorf("The call of %s did not run: %s", cs.call.Name, endSentence(got.err.Error()))
		cs.decided, cs.deferred = &res, false
		exec.release(cs.task)
		r.settled(cs)
		return
	}
	cs.tool, cs.deferred = got.t, false
	r.decide(exec, cs, got.t)
	switch {
	case cs.decided != nil:
		exec.release(cs.task)
		r.settled(cs)
	case cs.deferred:
		r.askAndRun(ctx, exec, cs)
	default:
		r.reportEnded(exec)
	}
}

// settleCancelled ends a deferred call that will not be asked about: the
// run was interrupted. Its place is released.
func (r *run) settleCancelled(exec *executor, cs *callState) {
	res := cancelledResult
	cs.decided = &res
	if cs.task != nil {
		exec.release(cs.task)
	}
	r.settled(cs)
}

// askAndRun asks a person about one deferred call and starts it if
// allowed. It does not wait for the call: the next question can be asked
// while it runs.
func (r *run) askAndRun(ctx context.Context, exec *executor, cs *callState) {
	reply := event.NewReply()
	reason := cs.decision.Reason
	if reason == "" {
		reason = fmt.Sprintf("%s needs your approval", cs.call.Name)
	}
	pr := event.PermissionRequest{
		Turn: r.turn, ID: cs.call.ID, Name: cs.call.Name, Input: cs.call.Input,
		Reason:      reason,
		Suggest:     cs.decision.Suggest,
		NeedsPerson: cs.decision.NeedsPerson || cs.decision.Hard,
		Choices:     []string{event.ChoiceAllowOnce, event.ChoiceAllowAlways, event.ChoiceDeny},
	}
	pa, isPlan := cs.tool.(tool.PlanApprover)
	if isPlan {
		// The person approves the plan, not the call: no rule to
		// remember, a mode to go on in.
		pr.Suggest, pr.Choices = nil, event.PlanChoices
		pr.Plan = pa.Plan(r.a.Env, cs.call.Input)
	}
	req := event.NewPermissionRequest(pr, reply)
	if !r.emit(req) {
		res := cancelledResult
		cs.decided = &res
		exec.release(cs.task)
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
			r.settleCancelled(exec, cs)
			return
		}
	}
	if d.Behavior != event.Allow {
		msg := "The user denied this call."
		reason := "the user denied it"
		if isPlan {
			reason = "the user kept planning"
		}
		if m := strings.TrimSpace(d.Message); m != "" {
			msg += " They said: " + endSentence(m)
			reason += ": " + m
		}
		res := tool.Errorf("%s Do not retry it; adjust your approach.", msg)
		if isPlan {
			res = pa.KeepPlanning(d.Message)
		}
		cs.decided, cs.denied, cs.denial = &res, true, denial{reason: reason}
		exec.release(cs.task)
		r.settled(cs)
		return
	}
	if isPlan && d.Mode == "" {
		// An approval that names no mode (a frontend that knows only
		// allow and deny) still ends plan mode, in the default one.
		d.Mode = string(verdict.ModeDefault)
	}
	if d.Mode != "" && r.a.SetMode != nil {
		if err := r.a.SetMode(d.Mode); err != nil {
			r.emit(event.Warning{Turn: r.turn, Message: fmt.Sprintf("could not switch to %s mode: %v", d.Mode, err)})
		}
	}
	if d.Always && !isPlan && r.a.AllowAlways != nil {
		if err := r.a.AllowAlways(cs.call, cs.decision); err != nil {
			r.emit(event.Warning{Turn: r.turn, Message: err.Error()})
		}
	}
	exec.start(cs.task, cs.tool, cs.decision.Paths)
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
	// Events of subagents first: a Task call's subagent posted all of its
	// events before the call ended.
	r.relayed()
	ended, running := exec.takeDone()
	for _, tk := range ended {
		var d time.Duration
		if !tk.started.IsZero() {
			d = tk.finished.Sub(tk.started)
		}
		if tk.snapErr != nil {
			r.emit(event.Warning{Turn: r.turn, Message: tk.snapErr.Error()})
		}
		r.emit(event.ToolDone{Turn: r.turn, ID: tk.call.ID, Name: tk.call.Name, IsError: tk.result.IsError, DurationMS: d.Milliseconds()})
		r.reportTodos(tk.call.ID)
	}
	return running
}

// settled yields tool_done for a call decided without running.
func (r *run) settled(cs *callState) {
	r.emit(event.ToolDone{Turn: r.turn, ID: cs.call.ID, Name: cs.call.Name, IsError: cs.decided.IsError})
}

// denial is why a call was denied and, for a run that could not ask, what
// would have allowed it (event.ToolResult's Reason, Suggest, SuggestMode).
type denial struct {
	reason        string
	needsApproval bool
	suggest       []string
	mode          string
}

// endSentence ends s with a full stop unless it already ends a sentence, so
// that what follows it in a result does not read as part of it ("use go run
// instead Do not retry…").
func endSentence(s string) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	last := r[len(r)-1]
	if len(r) > 1 && strings.ContainsRune("\"')]”’»", last) {
		last = r[len(r)-2] // `(see the README.)`, `"stop."`
	}
	if strings.ContainsRune(".!?…", last) {
		return s
	}
	return strings.TrimRight(s, ",;:-–— ") + "."
}

// allowFlags spells rules and a mode as the command-line flags that would
// allow them, quoted for a POSIX shell: --permission-mode acceptEdits
// --allowedTools 'Bash(go test:*)'.
func allowFlags(rules []string, mode string) string {
	var parts []string
	if mode != "" {
		parts = append(parts, "--permission-mode "+mode)
	}
	for _, r := range rules {
		parts = append(parts, "--allowedTools "+shellQuote(r))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
