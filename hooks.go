package nova

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/permission"
)

// Hooks are Go functions run at the loop's events: the events and fields of
// Claude Code's hooks, so that what a hook script would do a Go function can
// do in-process. Each list runs in order; a function that returns an error
// is reported as a warning event and does not block.
type Hooks struct {
	// SessionStart runs when a Session opens (Source "startup" or
	// "resume"). AdditionalContext goes to the model with the next prompt.
	SessionStart []HookFunc
	// UserPromptSubmit runs before a prompt is sent. Block refuses the
	// prompt (Send ends with an error saying Reason); AdditionalContext goes
	// to the model with it.
	UserPromptSubmit []HookFunc
	// PreToolUse runs when a call's block is complete, before the
	// permission chain's answer is final. Block, or PermissionDecision
	// "deny", denies the call with Reason; "ask" asks even where a rule
	// allows; "allow" skips asking where only a rule or mode would have
	// asked, never past a deny rule or a hard check (dangerous commands,
	// protected paths), which still ask or deny.
	PreToolUse []ToolHook
	// PostToolUse runs after a call's result is in. Block tells the model
	// Reason; AdditionalContext is added for it; both reach the model with
	// the next request.
	PostToolUse []ToolHook
	// Stop runs when the model has finished. Block makes it go on with
	// Reason as the next instruction; StopHookActive tells the hook it is
	// such a continuation. A hook that blocks again with the same Reason
	// ends the run: no hook can keep it going in a loop.
	Stop []HookFunc
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

// HookInput is what a hook is told, with Claude Code's field names.
type HookInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	PermissionMode string `json:"permission_mode"`
	HookEventName  string `json:"hook_event_name"`

	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	ToolResponse *ToolResponse   `json:"tool_response,omitempty"`

	Prompt         string `json:"prompt,omitempty"`
	StopHookActive bool   `json:"stop_hook_active,omitempty"`
	Source         string `json:"source,omitempty"`
	Reason         string `json:"reason,omitempty"`
}

// ToolResponse is a call's result, for PostToolUse.
type ToolResponse struct {
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

// HookOutput is a hook's answer; the zero value changes nothing.
type HookOutput struct {
	Block  bool   `json:"-"`
	Reason string `json:"reason,omitempty"`
	// PermissionDecision is PreToolUse's "allow", "deny" or "ask".
	PermissionDecision string `json:"permissionDecision,omitempty"`
	// AdditionalContext is text for the model.
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// Hook event names, as HookInput.HookEventName carries them.
const (
	HookSessionStart     = "SessionStart"
	HookUserPromptSubmit = "UserPromptSubmit"
	HookPreToolUse       = "PreToolUse"
	HookPostToolUse      = "PostToolUse"
	HookStop             = "Stop"
	HookSessionEnd       = "SessionEnd"
)

// hookRunner runs a session's hooks and keeps what they add for the model
// until the next request takes it.
type hookRunner struct {
	hooks Hooks
	base  func() HookInput // the session's common fields, current mode

	mu      sync.Mutex
	pending []string // context for the model, taken by the next request
	warn    []string // hook failures, reported as warning events
	re      map[string]*regexp.Regexp
}

func newHookRunner(h Hooks, base func() HookInput) (*hookRunner, error) {
	r := &hookRunner{hooks: h, base: base, re: map[string]*regexp.Regexp{}}
	for _, list := range [][]ToolHook{h.PreToolUse, h.PostToolUse} {
		for _, th := range list {
			if th.Run == nil {
				return nil, fmt.Errorf("hook for %q has no Run function", th.Matcher)
			}
			if _, ok := r.re[th.Matcher]; ok || th.Matcher == "" || th.Matcher == "*" {
				continue
			}
			re, err := regexp.Compile("^(?:" + th.Matcher + ")$")
			if err != nil {
				return nil, fmt.Errorf("hook matcher %q: %w", th.Matcher, err)
			}
			r.re[th.Matcher] = re
		}
	}
	return r, nil
}

// run runs fns for event; it returns the merged output: blocked if any
// blocked (its reason first), contexts joined.
func (r *hookRunner) run(ctx context.Context, event string, fns []HookFunc, in HookInput) HookOutput {
	var out HookOutput
	var reasons, contexts []string
	for i, f := range fns {
		in.HookEventName = event
		o, err := f(ctx, in)
		if err != nil {
			r.mu.Lock()
			r.warn = append(r.warn, fmt.Sprintf("%s hook %d failed: %v", event, i+1, err))
			r.mu.Unlock()
			continue
		}
		if o.Block || o.PermissionDecision == "deny" {
			out.Block = true
		}
		if o.Reason != "" {
			reasons = append(reasons, o.Reason)
		}
		if o.AdditionalContext != "" {
			contexts = append(contexts, o.AdditionalContext)
		}
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
	out.AdditionalContext = strings.Join(contexts, "\n")
	return out
}

// forTool returns the hooks of list whose matcher matches name.
func (r *hookRunner) forTool(list []ToolHook, name string) []HookFunc {
	var fns []HookFunc
	for _, th := range list {
		if re := r.re[th.Matcher]; re == nil || re.MatchString(name) {
			fns = append(fns, th.Run)
		}
	}
	return fns
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

// takeWarnings returns and forgets the hook failures.
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

// hookChecker puts the PreToolUse hooks in front of the permission chain.
// ctx is the context of the Send running (the chain's Check has none).
type hookChecker struct {
	inner agent.PermissionChecker
	hooks *hookRunner
	ctx   func() context.Context
}

func (c hookChecker) Check(call permission.Call) permission.Decision {
	d := c.inner.Check(call)
	fns := c.hooks.forTool(c.hooks.hooks.PreToolUse, call.Tool)
	if len(fns) == 0 {
		return d
	}
	in := c.hooks.base()
	in.ToolName, in.ToolInput = call.Tool, call.Input
	out := c.hooks.run(c.ctx(), HookPreToolUse, fns, in)
	reason := out.Reason
	switch {
	case out.Block:
		if reason == "" {
			reason = "a PreToolUse hook blocked this call."
		}
		return permission.Decision{Behavior: permission.Deny, Reason: "blocked by a hook: " + reason}
	case out.PermissionDecision == "ask" && d.Behavior == permission.Allow:
		d.Behavior, d.Reason = permission.Ask, "a PreToolUse hook asks for approval: "+reason
	case out.PermissionDecision == "allow" && d.Behavior == permission.Ask && !d.NeedsPerson:
		d.Behavior, d.Reason = permission.Allow, "allowed by a PreToolUse hook"
	}
	return d
}
