package tui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/novacode/nova/event"
)

// A plan the model asks the person to approve (ExitPlanMode) comes as a
// permission request with the plan's choices. The plan goes into the
// timeline, rendered as Markdown (PgUp scrolls back through a long one),
// and the dialog below offers the three answers: approve and accept edits,
// approve and keep asking before edits, or keep planning with feedback typed
// in the input box.

// isPlan reports whether a permission request asks about a plan.
func isPlan(p *event.PermissionRequest) bool {
	return p != nil && slices.Equal(p.Choices, event.PlanChoices)
}

// showPlan puts the plan of a request into the timeline.
func (m *Model) showPlan(e *event.PermissionRequest) {
	m.addText(kindInfo, "The model's plan, for your approval:")
	b := &block{kind: kindText}
	plan := strings.TrimSpace(e.Plan)
	if plan == "" {
		plan = "_(The model gave no plan, and its plan file is empty.)_"
	}
	b.text.WriteString(plan)
	m.add(b)
	m.scroll = 0
}

// planLabels are the dialog's words for a plan's choices.
var planLabels = map[string]string{
	event.ChoiceApproveAcceptEdits: "Yes, and accept edits (acceptEdits mode)",
	event.ChoiceApproveDefault:     "Yes, and ask before each edit (default mode)",
	event.ChoiceKeepPlanning:       "No, keep planning (type feedback, then Enter)",
}

// planDialog renders the dialog of a plan's request.
func (m *Model) planDialog() string {
	var b strings.Builder
	b.WriteString(m.askerLine())
	b.WriteString("Approve the plan above? (pgup scrolls through it)")
	for i, c := range m.perm.Choices {
		mark := "  "
		if i == m.permSel {
			mark = "❯ "
		}
		fmt.Fprintf(&b, "\n%s%d. %s", mark, i+1, planLabels[c])
	}
	return wrap(b.String(), m.width)
}

// defaultChoices are a call's choices when a request names none.
var defaultChoices = []string{event.ChoiceAllowOnce, event.ChoiceAllowAlways, event.ChoiceDeny}

// permChoices are the open request's choices.
func (m *Model) permChoices() []string {
	if len(m.perm.Choices) > 0 {
		return m.perm.Choices
	}
	return defaultChoices
}

// permDecision is the answer the dialog's selection stands for; a denial,
// or keep_planning, takes the typed text as its message.
func (m *Model) permDecision() event.Decision {
	choices := m.permChoices()
	choice := choices[m.permSel%len(choices)]
	msg := ""
	if choice == event.ChoiceDeny || choice == event.ChoiceKeepPlanning {
		msg = strings.TrimSpace(m.input.Value())
		m.input.Reset()
	}
	return event.DecisionFor(choice, msg)
}

// planAnswered says what the answer to a plan did.
func (m *Model) planAnswered(d event.Decision) {
	if d.Behavior == event.Allow {
		if d.Mode != "" {
			m.mode = d.Mode // the session switches before the call runs
		}
		m.addText(kindInfo, "Plan approved. Permission mode: "+m.mode)
		return
	}
	note := "Keep planning"
	if d.Message != "" {
		note += ": " + d.Message
	}
	m.addText(kindInfo, note)
}
