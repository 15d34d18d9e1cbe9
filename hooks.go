package nova

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/internal/config"
	"github.com/novacode/nova/permission"
)

// Hooks are Go functions run at the loop's events: the events and fields of
// Claude Code's hooks, so that what a hook script would do a Go function can
// do in-process. The command hooks of the settings files ("hooks", in
// Claude Code's format) run beside them, through the same dispatch: the
// hooks of one event that match run in parallel (a command named twice
// runs once), and their answers are merged in order, Go functions first. A
// function that returns an error is reported as a warning event and
// answers nothing.
type Hooks struct {
	// SessionStart runs when a Session opens (Source "startup" or
	// "resume"), when Session.Resume switches to a stored session
	// ("resume"), and once a compaction has replaced the history
	// ("compact"). AdditionalContext goes to the model with the next
	// request.
	SessionStart []HookFunc
	// UserPromptSubmit runs before a prompt is sent. Block refuses the
	// prompt (Send ends with an error saying Reason); AdditionalContext goes
	// to the model with it.
	UserPromptSubmit []HookFunc
	// PreToolUse runs when a call's block is complete, before the
	// permission chain decides. Block, or PermissionDecision "deny",
	// denies the call with Reason (or PermissionDecisionReason), which the
	// model sees; "ask" asks even where a rule allows; "allow" skips asking
	// where only a rule or mode would have asked, never past a deny rule,
	// an ask rule or a hard check (dangerous commands, protected and
	// secret paths, places outside the workspace), which still ask or
	// deny. UpdatedInput replaces the call's input: the chain decides
	// about it, the tool must accept it, and the call runs with it (the
	// model's tool_use block in history stays as the model sent it).
	PreToolUse []ToolHook
	// PermissionRequest runs when the chain would ask a person about a
	// call (an interactive session, or one with CanUseTool), before
	// anyone is asked. PermissionDecision "deny" (or Block) denies it with
	// Reason; "allow" allows it, unless only a person may (a hard check or
	// an ask rule: the person is asked all the same). Nobody is asked in a
	// run that cannot ask (print mode): such calls are denied at once and
	// these hooks do not run.
	PermissionRequest []ToolHook
	// PostToolUse runs after a call ran and succeeded. Block tells the
	// model Reason; AdditionalContext is added for it; both reach the
	// model with the next request.
	PostToolUse []ToolHook
	// PostToolUseFailure runs after a call ran and failed (its result is
	// an error; Error is that result, IsInterrupt says the run was
	// interrupted). Block and AdditionalContext as for PostToolUse.
	PostToolUseFailure []ToolHook
	// Notification runs, in the background, when the loop waits for a
	// person: a permission request (NotificationType "permission_prompt")
	// or a question ("question"); Message says what it waits for.
	Notification []HookFunc
	// Stop runs when the model has finished. Block makes it go on with
	// Reason as the next instruction; StopHookActive tells the hook it is
	// such a continuation. A hook that blocks again with the same Reason
	// ends the run: no hook can keep it going in a loop.
	Stop []HookFunc
	// SubagentStop runs when a subagent's model has finished. Block makes
	// it go on with Reason as its next instruction (StopHookActive then
	// set), as Stop does for the session's own model. PostToolUse and
	// PostToolUseFailure also run for subagents' calls; what they say is
	// for the subagent.
	SubagentStop []HookFunc
	// PreCompact runs before the history is compacted, Trigger "auto" or
	// "manual" (CustomInstructions: what /compact was asked to keep).
	PreCompact []HookFunc
	// SessionEnd runs when the Session is closed.
	SessionEnd []HookFunc
}

// HookFunc is one hook.
type HookFunc func(ctx context.Context, in HookInput) (HookOutput, error)

// ToolHook is a hook for the calls whose tool name Matcher matches: a
// regular expression matched against the whole name ("Bash|Edit",
// "mcp__github__.*"); empty or "*" matches every tool.
type ToolHook struct {
	Matcher string
	Run     HookFunc
}

// HookInput is what a hook is told, with Claude Code's field names. Encoded
// as JSON (what a command hook reads on its standard input) it holds the
// common fields and those of its event, each always present, the others
// never.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`

	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse *ToolResponse   `json:"tool_response,omitempty"`
	// Error and IsInterrupt are PostToolUseFailure's: the failed call's
	// result, and whether the run was interrupted.
	Error       string `json:"error,omitempty"`
	IsInterrupt bool   `json:"is_interrupt,omitempty"`

	Prompt         string `json:"prompt,omitempty"`
	StopHookActive bool   `json:"stop_hook_active,omitempty"`
	// Trigger and CustomInstructions are PreCompact's.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	Source             string `json:"source,omitempty"`
	Reason             string `json:"reason,omitempty"`
	// Message and NotificationType are Notification's.
	Message          string `json:"message,omitempty"`
	NotificationType string `json:"notification_type,omitempty"`
}

// hookFields are the fields each event adds to the common ones.
var hookFields = map[string][]string{
	HookPreToolUse:         {"tool_name", "tool_input", "tool_use_id"},
	HookPermissionRequest:  {"tool_name", "tool_input", "tool_use_id"},
	HookPostToolUse:        {"tool_name", "tool_input", "tool_response", "tool_use_id"},
	HookPostToolUseFailure: {"tool_name", "tool_input", "tool_use_id", "error", "is_interrupt"},
	HookUserPromptSubmit:   {"prompt"},
	HookStop:               {"stop_hook_active"},
	HookSubagentStop:       {"stop_hook_active"},
	HookPreCompact:         {"trigger", "custom_instructions"},
	HookSessionStart:       {"source"},
	HookSessionEnd:         {"reason"},
	HookNotification:       {"message", "notification_type"},
}

// MarshalJSON writes the common fields, then those of the event: each
// present even when empty (a script reading stop_hook_active finds false,
// not nothing). An event this version does not know gets every field set.
func (in HookInput) MarshalJSON() ([]byte, error) {
	fields, known := hookFields[in.HookEventName]
	if !known {
		type plain HookInput
		return json.Marshal(plain(in))
	}
	values := map[string]any{
		"tool_name": in.ToolName, "tool_input": in.ToolInput, "tool_use_id": in.ToolUseID,
		"tool_response": in.ToolResponse, "error": in.Error, "is_interrupt": in.IsInterrupt,
		"prompt": in.Prompt, "stop_hook_active": in.StopHookActive, "trigger": in.Trigger,
		"custom_instructions": in.CustomInstructions, "source": in.Source, "reason": in.Reason,
		"message": in.Message, "notification_type": in.NotificationType,
	}
	var b bytes.Buffer
	write := func(k string, v any) error {
		if b.Len() > 0 {
			b.WriteByte(',')
		} else {
			b.WriteByte('{')
		}
		fmt.Fprintf(&b, "%q:", k)
		if raw, ok := v.(json.RawMessage); ok && len(raw) == 0 {
			v = nil
		}
		enc, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("hook input %s: %w", k, err)
		}
		b.Write(enc)
		return nil
	}
	common := []struct {
		k string
		v any
	}{
		{"session_id", in.SessionID}, {"transcript_path", in.TranscriptPath}, {"cwd", in.Cwd},
		{"permission_mode", in.PermissionMode}, {"hook_event_name", in.HookEventName},
	}
	for _, c := range common {
		if err := write(c.k, c.v); err != nil {
			return nil, err
		}
	}
	for _, k := range fields {
		if err := write(k, values[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ToolResponse is a call's result, for PostToolUse.
type ToolResponse struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// HookOutput is a hook's answer; the zero value changes nothing. A command
// hook's answer is read from its exit status and standard output (see the
// README's "Hooks").
type HookOutput struct {
	// Block blocks what the event is about (see Hooks) with Reason.
	Block  bool   `json:"-"`
	Reason string `json:"reason,omitempty"`
	// PermissionDecision is PreToolUse's and PermissionRequest's "allow",
	// "deny" or "ask"; PermissionDecisionReason says why (a denial's goes
	// to the model, an ask's to the person).
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// UpdatedInput is PreToolUse's replacement for the call's input: a
	// JSON object the tool's schema accepts.
	UpdatedInput json.RawMessage `json:"updatedInput,omitempty"`
	// AdditionalContext is text for the model.
	AdditionalContext string `json:"additionalContext,omitempty"`
	// Continue false stops the run (at the next model call, or at once
	// where nothing runs), with StopReason as loop_complete's error; nil
	// or true goes on.
	Continue   *bool  `json:"continue,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	// SystemMessage is shown to the person (a warning event).
	SystemMessage string `json:"systemMessage,omitempty"`
	// SuppressOutput is accepted for Claude Code's hooks: NovaCode shows a
	// hook's plain output to nobody but the model, so there is nothing
	// to suppress.
	SuppressOutput bool `json:"suppressOutput,omitempty"`
}

// Hook event names, as HookInput.HookEventName carries them.
const (
	HookSessionStart       = "SessionStart"
	HookUserPromptSubmit   = "UserPromptSubmit"
	HookPreToolUse         = "PreToolUse"
	HookPermissionRequest  = "PermissionRequest"
	HookPostToolUse        = "PostToolUse"
	HookPostToolUseFailure = "PostToolUseFailure"
	HookNotification       = "Notification"
	HookStop               = "Stop"
	HookSubagentStop       = "SubagentStop"
	HookPreCompact         = "PreCompact"
	HookSessionEnd         = "SessionEnd"
)

// hookEvents are the events, in the order /hooks lists them.
var hookEvents = []string{
	HookSessionStart, HookUserPromptSubmit, HookPreToolUse, HookPermissionRequest, HookPostToolUse,
	HookPostToolUseFailure, HookNotification, HookStop, HookSubagentStop, HookPreCompact, HookSessionEnd,
}

// HookInfo describes one hook of a session (Session.Hooks, the TUI's
// /hooks).
type HookInfo struct {
	Event string
	// Matcher is as written; "" matches everything.
	Matcher string
	// Command is a command hook's shell command; "" for a Go function.
	Command string
	// Timeout is a command hook's.
	Timeout time.Duration
	// Source is the settings file the hook comes from, or "Options.Hooks".
	Source string
	// Withheld marks a hook of a workspace's own settings that does not
	// run until the workspace is trusted (its Matcher is not known then).
	Withheld bool
}

// hookEntry is one hook of an event, Go function or command.
type hookEntry struct {
	// match decides whether it runs for a tool name, source, trigger,
	// notification type or reason; nil matches everything.
	match func(string) bool
	run   HookFunc
	// command is a command hook's command line: identical ones run once
	// per event. "" for a Go function.
	command string
	// label names it in warnings: "PreToolUse hook 2", "PreToolUse hook
	// `./check.sh`".
	label string
	info  HookInfo
}

// hookRunner runs a session's hooks and keeps what they add for the model
// until the next request takes it, what they report for the person until
// the next event, and a request to stop until the loop can stop.
type hookRunner struct {
	events map[string][]hookEntry
	base   func() HookInput // the session's common fields, current mode

	mu      sync.Mutex
	pending []string // context for the model, taken by the next request
	warn    []string // hook failures and messages, reported as warning events
	stop    string   // why a hook stopped the run; "" for none

	// Notification hooks run in the background, until Close.
	bg       sync.WaitGroup
	bgCtx    context.Context
	bgCancel context.CancelFunc
}

func newHookRunner(h Hooks, base func() HookInput) (*hookRunner, error) {
	r := &hookRunner{events: map[string][]hookEntry{}, base: base}
	r.bgCtx, r.bgCancel = context.WithCancel(context.Background())
	add := func(event string, fns []HookFunc) {
		for i, f := range fns {
			if f == nil {
				continue
			}
			r.events[event] = append(r.events[event], hookEntry{run: f, label: fmt.Sprintf("%s hook %d", event, i+1),
				info: HookInfo{Event: event, Source: "Options.Hooks"}})
		}
	}
	addTool := func(event string, list []ToolHook) error {
		for i, th := range list {
			if th.Run == nil {
				return fmt.Errorf("hook for %q has no Run function", th.Matcher)
			}
			match, err := wholeNameMatcher(th.Matcher)
			if err != nil {
				return fmt.Errorf("hook matcher %q: %w", th.Matcher, err)
			}
			r.events[event] = append(r.events[event], hookEntry{match: match, run: th.Run, label: fmt.Sprintf("%s hook %d", event, i+1),
				info: HookInfo{Event: event, Matcher: th.Matcher, Source: "Options.Hooks"}})
		}
		return nil
	}
	add(HookSessionStart, h.SessionStart)
	add(HookUserPromptSubmit, h.UserPromptSubmit)
	for _, t := range []struct {
		event string
		list  []ToolHook
	}{
		{HookPreToolUse, h.PreToolUse}, {HookPermissionRequest, h.PermissionRequest},
		{HookPostToolUse, h.PostToolUse}, {HookPostToolUseFailure, h.PostToolUseFailure},
	} {
		if err := addTool(t.event, t.list); err != nil {
			return nil, err
		}
	}
	add(HookNotification, h.Notification)
	add(HookStop, h.Stop)
	add(HookSubagentStop, h.SubagentStop)
	add(HookPreCompact, h.PreCompact)
	add(HookSessionEnd, h.SessionEnd)
	return r, nil
}

// call runs the hook; a Go function that panics fails like one that
// returns an error (on a goroutine of its own, a panic would end the
// program).
func (e hookEntry) call(ctx context.Context, in HookInput) (out HookOutput, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = HookOutput{}, fmt.Errorf("panicked: %v", p)
		}
	}()
	return e.run(ctx, in)
}

// wholeNameMatcher is a Go ToolHook's matcher: a regular expression that
// must match the whole name.
func wholeNameMatcher(m string) (func(string) bool, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + m + ")$")
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}

// has reports whether any hook of event may run.
func (r *hookRunner) has(event string) bool { return len(r.events[event]) > 0 }

// matching returns the hooks of event that run for value, each command
// once.
func (r *hookRunner) matching(event, value string) []hookEntry {
	var out []hookEntry
	seen := map[string]bool{}
	for _, e := range r.events[event] {
		if e.match != nil && !e.match(value) {
			continue
		}
		if e.command != "" {
			if seen[e.command] {
				continue
			}
			seen[e.command] = true
		}
		out = append(out, e)
	}
	return out
}

// fire runs the hooks of event that match value, in parallel, and returns
// their merged answer: blocked if any blocked, the strictest permission
// decision (deny, then ask, then allow), reasons and contexts joined in
// order, the last updated input. What they report for the person is kept
// as warnings; a hook that says not to continue records the stop.
func (r *hookRunner) fire(ctx context.Context, event, value string, in HookInput) HookOutput {
	entries := r.matching(event, value)
	if len(entries) == 0 {
		return HookOutput{}
	}
	in.HookEventName = event
	outs := make([]HookOutput, len(entries))
	errs := make([]error, len(entries))
	if len(entries) == 1 {
		outs[0], errs[0] = entries[0].call(ctx, in)
	} else {
		var wg sync.WaitGroup
		for i, e := range entries {
			wg.Go(func() { outs[i], errs[i] = e.call(ctx, in) })
		}
		wg.Wait()
	}
	var out HookOutput
	var reasons, decisionReasons, contexts, stopReasons []string
	stop := false
	for i, o := range outs {
		if err := errs[i]; err != nil {
			if ctx.Err() == nil { // an interrupted run says so itself
				r.warnf("%s failed: %v", entries[i].label, err)
			}
			continue
		}
		if o.SystemMessage != "" {
			r.warnf("%s hook: %s", event, o.SystemMessage)
		}
		if o.Block || o.PermissionDecision == "deny" {
			out.Block = true
		}
		if o.Reason != "" {
			reasons = append(reasons, o.Reason)
		}
		if o.PermissionDecisionReason != "" {
			decisionReasons = append(decisionReasons, o.PermissionDecisionReason)
		}
		if o.AdditionalContext != "" {
			contexts = append(contexts, o.AdditionalContext)
		}
		if o.UpdatedInput != nil {
			out.UpdatedInput = o.UpdatedInput
		}
		if o.Continue != nil && !*o.Continue {
			stop = true
			if o.StopReason != "" {
				stopReasons = append(stopReasons, o.StopReason)
			}
		}
		out.SuppressOutput = out.SuppressOutput || o.SuppressOutput
		// The strictest permission answer wins: deny, then ask, then allow.
		switch {
		case o.PermissionDecision == "deny":
			out.PermissionDecision = "deny"
		case o.PermissionDecision == "ask" && out.PermissionDecision != "deny":
			out.PermissionDecision = "ask"
		case o.PermissionDecision == "allow" && out.PermissionDecision == "":
			out.PermissionDecision = "allow"
		}
	}
	out.Reason = strings.Join(reasons, "\n")
	out.PermissionDecisionReason = strings.Join(decisionReasons, "\n")
	out.AdditionalContext = strings.Join(contexts, "\n")
	if stop {
		out.Continue = new(false)
		out.StopReason = strings.Join(stopReasons, "\n")
		why := fmt.Sprintf("stopped by a %s hook", event)
		if out.StopReason != "" {
			why += ": " + out.StopReason
		}
		r.requestStop(why)
	}
	return out
}

// stopped reports whether a hook's answer stops the run.
func (o HookOutput) stopped() bool { return o.Continue != nil && !*o.Continue }

// hookWarningCap is how many characters of a hook's report a warning
// shows.
const hookWarningCap = 2000

func (r *hookRunner) warnf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if rs := []rune(msg); len(rs) > hookWarningCap {
		msg = string(rs[:hookWarningCap]) + "…"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warn = append(r.warn, msg)
}

func (r *hookRunner) requestStop(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop == "" {
		r.stop = why
	}
}

// peekStop returns why a hook stopped the run, without forgetting it.
func (r *hookRunner) peekStop() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop, r.stop != ""
}

// takeStop returns and forgets why a hook stopped the run.
func (r *hookRunner) takeStop() (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	why := r.stop
	r.stop = ""
	return why, why != ""
}

// addContext keeps text for the model's next request.
func (r *hookRunner) addContext(texts ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range texts {
		if t != "" {
			r.pending = append(r.pending, t)
		}
	}
}

// takeContext returns and forgets the pending context.
func (r *hookRunner) takeContext() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending
	r.pending = nil
	return p
}

// takeWarnings returns and forgets the hook failures and messages.
func (r *hookRunner) takeWarnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.warn
	r.warn = nil
	return w
}

// preSend is the agent hook that puts pending context into the request.
func (r *hookRunner) preSend(_ context.Context, t *agent.TurnInfo) error {
	for _, c := range r.takeContext() {
		t.Remind(c)
	}
	return nil
}

// turnStart is the agent hook that ends the loop, before its next model
// call, once a hook said not to continue.
func (r *hookRunner) turnStart(context.Context, *agent.TurnInfo) error {
	if why, ok := r.takeStop(); ok {
		return &agent.Stop{Reason: why}
	}
	return nil
}

// preCompact runs the PreCompact hooks; one that says not to continue
// stops the compaction and the run.
func (r *hookRunner) preCompact(ctx context.Context, t *agent.TurnInfo) error {
	in := r.base()
	in.Trigger, in.CustomInstructions = t.Trigger, t.Focus
	r.fire(ctx, HookPreCompact, t.Trigger, in)
	if why, ok := r.takeStop(); ok {
		return &agent.Stop{Reason: why}
	}
	return nil
}

// postCompact runs the SessionStart hooks with source "compact"; their
// context follows the summary.
func (r *hookRunner) postCompact(ctx context.Context, t *agent.TurnInfo) error {
	in := r.base()
	in.Source = "compact"
	if out := r.fire(ctx, HookSessionStart, "compact", in); out.AdditionalContext != "" {
		t.Remind(out.AdditionalContext)
	}
	return nil
}

// notify runs the Notification hooks in the background: the person is
// being asked, and a hook that plays a sound or sends a message must not
// hold the question up.
func (r *hookRunner) notify(kind, message string) {
	if len(r.matching(HookNotification, kind)) == 0 {
		return
	}
	in := r.base()
	in.NotificationType, in.Message = kind, message
	r.bg.Go(func() { r.fire(r.bgCtx, HookNotification, kind, in) })
}

// hookCloseGrace is how long Close waits for Notification hooks still
// running before it kills them.
const hookCloseGrace = 5 * time.Second

// close waits a little for the hooks running in the background, then
// kills what is left of them.
func (r *hookRunner) close() {
	done := make(chan struct{})
	go func() {
		r.bg.Wait()
		close(done)
	}()
	t := time.NewTimer(hookCloseGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		r.bgCancel()
		<-done
	}
	r.bgCancel()
}

// infos describes every hook, for Session.Hooks.
func (r *hookRunner) infos() []HookInfo {
	var out []HookInfo
	for _, ev := range hookEvents {
		for _, e := range r.events[ev] {
			out = append(out, e.info)
		}
	}
	return out
}

// Hooks describes the hooks of the session, in the order of their events:
// the Go functions of Options.Hooks and the commands of the settings files
// read when it opened (a change to those files takes effect in the next
// session), then the workspace's own hooks that wait for it to be trusted.
func (s *Session) Hooks() []HookInfo {
	return append(s.hooks.infos(), s.withheldHooks...)
}

// withheldHooks are the hooks of a workspace's own settings files that its
// trust decision left out.
func withheldHooks(ws *config.Workspace) []HookInfo {
	var out []HookInfo
	for _, w := range ws.Widening {
		event, ok := strings.CutPrefix(w.Setting, "hooks.")
		if !ok {
			continue
		}
		var command string
		if json.Unmarshal([]byte(w.Value), &command) != nil {
			command = w.Value
		}
		out = append(out, HookInfo{Event: event, Command: command, Source: w.File, Withheld: true})
	}
	return out
}

// hookChecker puts the PreToolUse hooks in front of the permission chain.
// ctx is the context of the Send running (the chain's Check has none).
type hookChecker struct {
	inner agent.PermissionChecker
	hooks *hookRunner
	ctx   func() context.Context
}

func (c hookChecker) Check(call permission.Call) permission.Decision {
	// A call without an id is no tool call of the model's (the session's
	// decision about the provider's web search).
	if call.ID == "" || len(c.hooks.matching(HookPreToolUse, call.Tool)) == 0 {
		return c.inner.Check(call)
	}
	in := c.hooks.base()
	in.ToolName, in.ToolInput, in.ToolUseID = call.Tool, call.Input, call.ID
	out := c.hooks.fire(c.ctx(), HookPreToolUse, call.Tool, in)
	c.hooks.addContext(out.AdditionalContext)
	reason := cmp.Or(out.PermissionDecisionReason, out.Reason)
	switch {
	case out.Block:
		return permission.Decision{Behavior: permission.Deny, Reason: "blocked by a PreToolUse hook: " + cmp.Or(reason, "no reason given")}
	case out.stopped():
		return permission.Decision{Behavior: permission.Deny, Reason: "a PreToolUse hook stopped the run" + prefixedReason(out.StopReason)}
	}
	if out.UpdatedInput != nil {
		// The chain decides about what will run.
		call.Input = out.UpdatedInput
	}
	d := c.inner.Check(call)
	if out.UpdatedInput != nil {
		d.Input = out.UpdatedInput
	}
	switch {
	case out.PermissionDecision == "ask" && d.Behavior == permission.Allow:
		d.Behavior, d.Reason = permission.Ask, "a PreToolUse hook asks for approval"+prefixedReason(reason)
	case out.PermissionDecision == "allow" && d.Behavior == permission.Ask && !d.NeedsPerson && !d.Hard:
		d.Behavior, d.Reason = permission.Allow, "allowed by a PreToolUse hook"+prefixedReason(reason)
	}
	return d
}

// prefixedReason is ": " and reason, or "" for none.
func prefixedReason(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}
