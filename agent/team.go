package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
	"github.com/novacode/nova/tool"
)

// relayed yields the events subagents posted since the last call.
func (r *run) relayed() {
	if r.conv.relay == nil {
		return
	}
	for _, e := range r.conv.relay.take() {
		r.emit(e)
	}
}

// spend adds what a call's subagent cost to the run's totals, once: a
// foreground subagent's through its Task result, a background one's
// through the mail of its end.
func (r *run) spend(s *tool.Spent) {
	if s == nil || (s.Usage == (llm.Usage{}) && s.CostUSD == 0) {
		return
	}
	r.total = r.total.Add(s.Usage)
	r.cost += s.CostUSD
	if r.a.Recorder != nil && r.recErr == nil {
		if err := r.a.Recorder.Usage(r.turn, r.total, r.cost); err != nil {
			r.recErr = fmt.Errorf("could not write the session transcript: %w", err)
		}
	}
}

// subagentRun is the event form of what a subagent cost.
func subagentRun(s *tool.Spent) *event.SubagentRun {
	if s == nil {
		return nil
	}
	return &event.SubagentRun{AgentID: s.AgentID, AgentType: s.AgentType, Turns: s.Turns,
		Usage: counts(s.Usage), CostUSD: s.CostUSD, Background: s.Background, Transcript: s.Transcript}
}

// deliver drains the agent's mailbox at the start of a turn (the
// pipeline's second step): each delivery becomes a <system-reminder> of
// this turn's outgoing user message, and one mailbox event tells the
// consumers what the model was told.
func (r *run) deliver(ti *TurnInfo) {
	mb := r.mailbox()
	if mb == nil {
		return
	}
	mail := mb.Drain()
	if len(mail) == 0 {
		return
	}
	ev := event.Mailbox{Turn: r.turn}
	for _, m := range mail {
		ti.Remind(mailText(m))
		ev.Items = append(ev.Items, event.MailItem{Kind: m.Kind, From: m.From, Text: m.Text})
		r.spend(m.Spent)
	}
	r.emit(ev)
}

// mailText is how one delivery reads to the model.
func mailText(m tool.Mail) string {
	switch m.Kind {
	case tool.MailMessage:
		return fmt.Sprintf("Message from %s:\n%s", m.From, strings.TrimSpace(m.Text))
	default:
		return strings.TrimSpace(m.Text)
	}
}

func (r *run) mailbox() *tool.Mailbox {
	if r.a.Env == nil {
		return nil
	}
	return r.a.Env.Mailbox
}

// awaitBackground is asked when the model has finished: with
// WaitBackground set and background work the model started still to
// report, it waits (yielding the events subagents post meanwhile) until
// something is delivered — then the loop goes on with a turn that
// delivers it — or nothing is outstanding any more. It reports whether
// the loop goes on.
func (r *run) awaitBackground(ctx context.Context) bool {
	mb := r.mailbox()
	if !r.a.WaitBackground || mb == nil {
		return false
	}
	if r.a.MaxTurns > 0 && r.turn-r.startTurn >= r.a.MaxTurns {
		return false // no turn is left to deliver it in
	}
	for {
		items, outstanding, changed := mb.State()
		if items > 0 {
			return true
		}
		if outstanding == 0 {
			return false
		}
		select {
		case <-changed:
		case <-r.wake:
			r.relayed()
			if r.stopped {
				return false
			}
		case <-ctx.Done():
			return false
		}
	}
}
