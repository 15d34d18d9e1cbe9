package team

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/tool"
)

// TaskInput is the input of the Task tool (Claude Code's fields).
type TaskInput struct {
	Description     string `json:"description" jsonschema:"A short (3-5 word) description of the task"`
	Prompt          string `json:"prompt" jsonschema:"The task for the agent to perform"`
	SubagentType    string `json:"subagent_type" jsonschema:"The type of specialized agent to use for this task"`
	Model           string `json:"model,omitempty" jsonschema:"Optional model for this agent (a name or alias); default: the agent type's model, else the session's"`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"Set to true to run the agent in the background: the call returns at once with the agent's id, you are told when it finishes (with its final answer), and you can wait for it with TaskOutput or message it with SendMessage"`
}

// TaskName is the Task tool's name.
const TaskName = "Task"

const taskDesc = `Launch a new agent (a subagent) to handle a complex, multi-step task on its own.

The subagent starts with a clean context: it sees the environment and the project's memory files but none of this conversation, so the prompt must say everything it needs (what to do, where, what to report back). It runs its own loop with its own tools, every call checked by the same permissions, and returns one final message, which is this call's result; the user does not see it, so summarise what matters in your reply.

When to use it:
- Open-ended searches across many files (an Explore agent reads 200 files and returns one paragraph, keeping your context small).
- Independent pieces of work: send several Task calls in ONE response to run them in parallel.
- Long-running work you want to continue beside: set run_in_background; you are told when it finishes (its final answer arrives at the start of a later turn), can wait for it with TaskOutput (block: true) and exchange messages with it using SendMessage.

When not to use it: reading one known file (use Read), finding a definition (use Grep or Glob), or anything a couple of direct tool calls do.

Available agent types (subagent_type):
`

// taskTool is Task. It is read-only as far as the permission chain is
// concerned: the call changes nothing itself, and every call its subagent
// makes is checked on its own (in plan mode too, where the subagent may
// only read).
func (t *Team) taskTool() tool.Tool {
	desc := taskDesc + Describe(t.cfg.Defs)
	return tool.New(TaskName, desc, true, nil, t.runTask).WithEffects(func(*tool.Env, TaskInput) tool.Effects {
		// A subagent's effects are those of its tools, each checked and
		// ordered when it runs (file changes serialised by the file
		// state's locks): the call itself touches nothing, so several
		// run side by side.
		return tool.Effects{}
	})
}

func (t *Team) runTask(ctx context.Context, env *tool.Env, in TaskInput) (tool.Result, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return tool.Errorf("prompt is empty. Say what the subagent should do and what it should report back."), nil
	}
	def, ok := t.def(cmp.Or(in.SubagentType, "general-purpose"))
	if !ok {
		return tool.Errorf("Unknown subagent_type %q. Available agent types:\n%s", in.SubagentType, Describe(t.cfg.Defs)), nil
	}
	depth := t.depthOf(env.AgentID) + 1
	if depth > t.cfg.MaxDepth {
		return tool.Errorf("Subagents cannot start further subagents here (nesting is limited to %d level). Do the work with your own tools.", t.cfg.MaxDepth), nil
	}
	if in.RunInBackground && env.Mailbox == nil {
		return tool.Errorf("Background agents are not available here: nobody would be told when it ends. Run it in the foreground."), nil
	}
	child, conv, m, err := t.spawn(ctx, env, def, in, depth)
	if err != nil {
		return tool.Errorf("The subagent could not start: %v", err), nil
	}
	if in.RunInBackground {
		return t.background(ctx, env, child, conv, m), nil
	}
	t.run(ctx, child, conv, m, func(e event.Event) { agent.Emit(ctx, e) })
	close(m.done)
	return m.result(), nil
}

// spawn makes the subagent's agent and conversation.
func (t *Team) spawn(ctx context.Context, env *tool.Env, def Definition, in TaskInput, depth int) (*agent.Agent, *agent.Conversation, *member, error) {
	p := t.cfg.Parent
	m := &member{typ: def.Name, description: in.Description, depth: depth, parent: env.AgentID,
		parentBox: env.Mailbox, mailbox: tool.NewMailbox(), background: in.RunInBackground,
		callID: tool.CallID(ctx), started: time.Now(), done: make(chan struct{})}
	model, info := p.Model, p.ModelInfo
	if name := cmp.Or(in.Model, def.Model); name != "" && name != "inherit" {
		model, info = name, nil
		if t.cfg.Model != nil {
			var err error
			if model, info, err = t.cfg.Model(name); err != nil {
				return nil, nil, nil, fmt.Errorf("model %q: %w", name, err)
			}
		}
	}
	var rec agent.Recorder
	for tries := 0; ; tries++ {
		if err := t.add(m); err != nil {
			return nil, nil, nil, err
		}
		if t.cfg.Recorder == nil {
			break
		}
		r, path, err := t.cfg.Recorder(m.id, def.Name, in.Description, model)
		if errors.Is(err, fs.ErrExist) && tries < 1000 {
			// A resumed session's earlier subagents hold this id: the
			// next number.
			t.forget(m.id)
			continue
		}
		if err != nil {
			t.forget(m.id)
			return nil, nil, nil, fmt.Errorf("its transcript: %w", err)
		}
		rec, m.transcript = r, path
		break
	}
	cenv := &tool.Env{}
	if p.Env != nil {
		*cenv = *p.Env
	}
	if cenv.Files != nil {
		cenv.Files = cenv.Files.Fork()
	}
	cenv.Todos, cenv.PlanFile = new(tool.TodoList), nil
	cenv.Mailbox, cenv.AgentID = m.mailbox, m.id

	maxTurns := p.MaxTurns
	if t.cfg.MaxTurns != 0 {
		maxTurns = max(t.cfg.MaxTurns, 0)
	}
	child := &agent.Agent{
		Client: p.Client, Model: model, Tools: t.registry(def, depth), Env: cenv,
		Permissions: p.Permissions, AllowAlways: p.AllowAlways,
		NonInteractive: p.NonInteractive, QuestionTimeout: p.QuestionTimeout,
		MaxTurns: maxTurns, ModelInfo: info, MaxTokens: p.MaxTokens, Thinking: p.Thinking,
		ResultCap: p.ResultCap, BatchBudget: p.BatchBudget, SpillDir: p.SpillDir,
		Preamble: t.cfg.Preamble, CompactThreshold: p.CompactThreshold, Now: p.Now,
		ReadOnly: def.ReadOnly, AgentID: m.id, WaitBackground: true,
	}
	if model == p.Model {
		child.ContextWindow = p.ContextWindow
	}
	if p.Snapshot != nil {
		// Changes a subagent makes belong to the parent's turn that
		// started it: rewinding that turn undoes them too.
		turn := agent.CallTurn(ctx)
		child.Snapshot = func(_ int, paths []string) error { return p.Snapshot(turn, paths) }
	}
	if rec != nil {
		child.Recorder = rec
	}
	system := cmp.Or(def.Prompt, t.cfg.System)
	conv := &agent.Conversation{ID: m.id, System: system}
	var blocks []llm.Block
	if t.cfg.Preamble != nil {
		pre, err := t.cfg.Preamble(ctx)
		if err != nil {
			return nil, nil, nil, err
		}
		if pre != "" {
			blocks = append(blocks, llm.Block{Type: llm.BlockText, Text: pre})
		}
	}
	blocks = append(blocks, llm.Block{Type: llm.BlockText, Text: in.Prompt})
	conv.Messages = []llm.Message{{Role: llm.RoleUser, Content: blocks}}
	return child, conv, m, nil
}

// Tools a subagent never gets: it cannot ask the person questions (its
// parent can) or leave a plan mode it is not in.
var notForSubagents = map[string]bool{"AskUserQuestion": true, "ExitPlanMode": true}

// registry is the subagent's tools: the definition's list (or all the
// parent's), without what no subagent gets, without Task and TaskOutput at
// the depth limit, and only read-only ones (and Bash, whose commands the
// permission checker proves read-only) for a read-only type.
func (t *Team) registry(def Definition, depth int) *tool.Registry {
	p := t.cfg.Parent
	reg := tool.NewRegistry()
	if p.Tools == nil {
		return reg
	}
	allowed := func(tl tool.Tool) bool {
		name := tl.Name()
		switch {
		case notForSubagents[name]:
			return false
		case (name == TaskName || name == TaskOutputName) && depth >= t.cfg.MaxDepth:
			return false
		case def.ReadOnly && !tl.ReadOnly() && name != "Bash":
			return false
		}
		return true
	}
	if def.Tools == nil {
		for _, tl := range p.Tools.Tools() {
			if allowed(tl) {
				reg.Register(tl)
			}
		}
		for _, tl := range p.Tools.Deferred() {
			if allowed(tl) {
				reg.Defer(tl)
			}
		}
		return reg
	}
	for _, name := range def.Tools {
		if tl, ok := p.Tools.Get(name); ok && allowed(tl) {
			reg.Register(tl)
		}
	}
	if tl, ok := p.Tools.Get(SendMessageName); ok {
		reg.Register(tl) // every teammate can talk back
	}
	return reg
}

// run drives the subagent to its end, passing each of its events to emit
// wrapped as the events of the Task call, and records how it ended. The
// caller closes m.done once the end is reported.
//
// The session's hooks see the subagent's calls (AfterCall) and its end
// (Stop): the end is held back until no Stop hook has the subagent go on,
// so that its consumers see one loop_complete, the last.
func (t *Team) run(ctx context.Context, child *agent.Agent, conv *agent.Conversation, m *member, emit func(event.Event)) {
	var lc event.LoopComplete
	ended := false                // lc is the last run's end
	inputs := map[string][]byte{} // each call's input as it ran, for AfterCall
	active, lastReason := false, ""
	for {
		for e := range child.Run(ctx, conv) {
			if l, ok := e.(event.LoopComplete); ok {
				lc, ended = l, true
				continue
			}
			m.note(e)
			emit(event.Child{ParentToolUseID: m.callID, AgentID: m.id, Event: e})
			switch e := e.(type) {
			case event.ToolUse:
				inputs[e.ID] = e.Input
			case event.ToolResult:
				if t.cfg.AfterCall != nil && !e.Denied && ctx.Err() == nil {
					if text := t.cfg.AfterCall(ctx, m.id, e, inputs[e.ID]); text != "" {
						m.mailbox.Post(tool.Mail{Kind: tool.MailHook, From: "hook", Text: text})
					}
				}
				delete(inputs, e.ID)
			}
		}
		if !ended || lc.Reason != event.ReasonDone || t.cfg.Stop == nil || ctx.Err() != nil {
			break
		}
		block, reason := t.cfg.Stop(ctx, m.id, m.typ, active)
		if !block || (active && reason == lastReason) {
			break
		}
		active, lastReason, ended = true, reason, false
		conv.AddUser(cmp.Or(reason, "Continue."))
	}
	if ended {
		emit(event.Child{ParentToolUseID: m.callID, AgentID: m.id, Event: lc})
	}
	if j := child.Env.Jobs; j != nil {
		// Its background commands have nobody left to report to.
		j.KillOwner(m.id)
	}
	m.mu.Lock()
	m.final, m.reason, m.errText = strings.TrimSpace(lc.FinalText), cmp.Or(lc.Reason, event.ReasonCancelled), lc.Error
	m.spent = tool.Spent{AgentID: m.id, AgentType: m.typ, Turns: conv.Turns, Usage: conv.Usage, CostUSD: conv.CostUSD, Transcript: m.transcript}
	m.mu.Unlock()
	if c, ok := child.Recorder.(io.Closer); ok {
		_ = c.Close()
	}
}

// result is a foreground subagent's Task result.
func (m *member) result() tool.Result {
	m.mu.Lock()
	defer m.mu.Unlock()
	spent := m.spent
	res := tool.Result{Content: m.final, Spent: &spent}
	switch m.reason {
	case event.ReasonDone:
		if res.Content == "" {
			res.Content = "(The subagent finished without a final message.)"
		}
	case event.ReasonMaxTurns:
		res.Content = strings.TrimSpace(res.Content + "\n\n[The subagent stopped at its turn limit before it was done.]")
	case event.ReasonCancelled:
		res.Content, res.IsError = strings.TrimSpace("[cancelled: the subagent was interrupted]\n"+res.Content), true
	default:
		res.Content, res.IsError = strings.TrimSpace(fmt.Sprintf("The subagent failed: %s\n%s", m.errText, res.Content)), true
	}
	return res
}

// background starts the subagent on the team's own context and returns at
// once. Its events reach whichever run of the session is going on (and are
// dropped when none is); a permission request or question nobody can see
// is denied. Its end is mailed to the agent that started it.
func (t *Team) background(ctx context.Context, env *tool.Env, child *agent.Agent, conv *agent.Conversation, m *member) tool.Result {
	emitter := agent.Emitter(ctx)
	reported := env.Mailbox.Expect()
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		t.run(t.ctx, child, conv, m, func(e event.Event) {
			if emitter != nil && emitter(e) {
				return
			}
			refuse(e)
		})
		m.mu.Lock()
		spent := m.spent
		text := m.report(fmt.Sprintf("Background agent %s (%s: %s)", m.id, m.typ, m.description))
		m.mu.Unlock()
		reported(&tool.Mail{Kind: tool.MailAgent, From: m.id, Text: tool.Truncate(text, mailCap), Spent: &spent})
		// After the mail: TaskOutput, woken by done, takes it back when
		// it reports the end itself.
		close(m.done)
	}()
	spent := tool.Spent{AgentID: m.id, AgentType: m.typ, Background: true, Transcript: m.transcript}
	return tool.Result{Spent: &spent, Content: fmt.Sprintf("Started background agent %s (%s: %s). It runs on its own; you will be told when it finishes, with its final answer. "+
		"Wait for it with TaskOutput (task_id %q, block: true), or send it a message with SendMessage (to %q).", m.id, m.typ, m.description, m.id, m.id)}
}

// mailCap bounds what a subagent's end puts into the parent's context;
// TaskOutput gives the whole answer.
const mailCap = 8_000

// refuse answers what a background subagent asked that nobody saw.
func refuse(e event.Event) {
	switch e := e.(type) {
	case *event.PermissionRequest:
		e.Respond(event.Decision{Behavior: event.Deny, Message: "Nobody saw this request: the agent runs in the background while no run of the session is going on. Do without it, or report what you need."})
	case *event.Question:
		e.Respond(event.Answer{Text: "(Nobody can answer questions of a background agent. Continue with your best judgement.)"})
	case event.Child:
		inner, _ := event.Inner(e)
		refuse(inner)
	}
}
