package nova

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/novacode/nova/agent"
	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/gitexclude"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/permission"
)

// Plan mode: the model explores with read-only work only (the permission
// chain enforces it), writes its plan to the session's plan file, and asks
// the person to approve it with ExitPlanMode. The plan file is
// plans/<session id>.md in the data directory; the chain lets Write and
// Edit change it, and nothing else, in plan mode. While planning, every
// request carries a reminder with the plan; the first request after plan
// mode ends carries it once more.

// ApprovePlan answers a plan's PermissionRequest (Plan set): approved, and
// the session goes on in mode (ModeAcceptEdits or ModeDefault).
func ApprovePlan(mode string) Decision { return Decision{Behavior: event.Allow, Mode: mode} }

// KeepPlanning answers a plan's PermissionRequest: not approved; feedback
// goes to the model, which stays in plan mode.
func KeepPlanning(feedback string) Decision {
	return event.DecisionFor(event.ChoiceKeepPlanning, feedback)
}

// PlanFile is the session's plan file: where the model writes its plan in
// plan mode (it need not exist).
func (s *Session) PlanFile() string { return s.plan.file() }

// maxReminderPlan bounds the plan a reminder carries.
const maxReminderPlan = 64 << 10

// planState follows plan mode for one session: the plan file (which
// follows the session id) and what the reminders said.
type planState struct {
	data    string
	checker *permission.Checker

	mu       sync.Mutex
	id       string
	excluded bool // the plans directory was put in info/exclude
	// planning: the latest request went out in plan mode; approved: the
	// person approved a plan since.
	planning, approved bool
	// last is the latest full reminder sent: a request whose history
	// still holds it gets a short one while the plan is unchanged.
	last string
}

// setupPlan wires plan mode into the session's chain, tools and agent.
func (s *Session) setupPlan(a *agent.Agent) {
	s.plan = &planState{data: s.data, checker: s.checker}
	s.plan.setID(s.id)
	a.Env.PlanFile = s.plan.file
	a.SetMode = func(mode string) error {
		if err := s.SetMode(mode); err != nil {
			return err
		}
		s.plan.mu.Lock()
		s.plan.approved = true
		s.plan.mu.Unlock()
		return nil
	}
	a.Hooks.PreSend = append(a.Hooks.PreSend, s.plan.preSend)
}

// setID points the plan file at session id's (Open, Resume).
func (p *planState) setID(id string) {
	p.mu.Lock()
	p.id, p.planning, p.approved, p.last = id, false, false, ""
	p.mu.Unlock()
	p.checker.SetPlanFile(p.file())
}

func (p *planState) file() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return filepath.Join(p.data, "plans", p.id+".md")
}

// readPlan returns the plan file's content ("" if there is none), cut to
// maxReminderPlan.
func readPlan(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxReminderPlan+1))
	s := strings.TrimSpace(string(b))
	if len(b) > maxReminderPlan {
		s += "\n[… the rest of the plan file is left out here; Read it for all of it]"
	}
	return s
}

// preSend adds the plan-mode reminder: in plan mode, at every request (the
// plan itself when it changed or the history no longer holds it); on the
// first request after plan mode ended, the plan once more.
func (p *planState) preSend(_ context.Context, t *agent.TurnInfo) error {
	mode := p.checker.Mode()
	path := p.file()
	p.mu.Lock()
	defer p.mu.Unlock()
	if mode == permission.ModePlan {
		p.ensureDir(path)
		full := planReminder(path, readPlan(path))
		if full == p.last && inHistory(t.Conv, full) {
			t.Remind(fmt.Sprintf("Plan mode is still on: only read-only work runs. Your plan in %s is as the last reminder showed it; keep it current there, and call ExitPlanMode with it when it is ready.", path))
		} else {
			t.Remind(full)
			p.last = full
		}
		p.planning = true
		return nil
	}
	if !p.planning {
		return nil
	}
	p.planning, p.last = false, ""
	plan := readPlan(path)
	approved := p.approved
	p.approved = false
	switch {
	case approved && plan != "":
		t.Remind(fmt.Sprintf("Plan mode is over: the user approved your plan, and the permission mode is now %s. Carry the plan out, step by step. The plan (%s):\n\n%s", mode, path, plan))
	case approved:
		t.Remind(fmt.Sprintf("Plan mode is over: the user approved your plan, and the permission mode is now %s. Carry it out, step by step.", mode))
	case plan != "":
		t.Remind(fmt.Sprintf("Plan mode is over: the user switched to %s mode without approving a plan through ExitPlanMode. The plan you were writing (%s) follows, for reference; follow the user's instructions.\n\n%s", mode, path, plan))
	default:
		t.Remind(fmt.Sprintf("Plan mode is over: the user switched to %s mode. Follow the user's instructions.", mode))
	}
	return nil
}

// planReminder is the full reminder of plan mode, with the plan so far.
func planReminder(path, plan string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan mode is on: the user wants a plan before anything changes. Only read-only work runs — reading, searching and listing files, "+
		"commands that only read (ls, git log, rg …) — and anything else is refused, whatever the rules allow. Explore what you need, then write your plan "+
		"to the plan file %s with Write (or Edit): the one file you may change now. When it is ready, call ExitPlanMode with the plan to ask the user "+
		"to approve it; change nothing before they do.\n\n", path)
	if plan == "" {
		fmt.Fprintf(&b, "The plan file %s does not exist yet.", path)
	} else {
		fmt.Fprintf(&b, "Your plan so far (%s):\n\n%s", path, plan)
	}
	return b.String()
}

// inHistory reports whether a user message of conv holds text (a reminder
// sent before; compaction may have summarised it away).
func inHistory(conv *agent.Conversation, text string) bool {
	if conv == nil {
		return false
	}
	for i := len(conv.Messages) - 1; i >= 0; i-- {
		m := conv.Messages[i]
		if m.Role != llm.RoleUser {
			continue
		}
		for _, b := range m.Content {
			if b.Type == llm.BlockText && strings.Contains(b.Text, text) {
				return true
			}
		}
	}
	return false
}

// ensureDir creates the plans directory, so that the model's Write of the
// plan file finds it, and keeps it out of git where the data directory is
// in a work tree. Called with p.mu held.
func (p *planState) ensureDir(path string) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	if !p.excluded {
		p.excluded = true
		_, _ = gitexclude.Add(dir, true)
	}
}
