package tui

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/internal/tui/render"
)

// Subagents (issue 16). A Task call starts a subagent; every event of the
// subagent reaches the run's stream wrapped in an event.Child whose
// ParentToolUseID is the Task call's id. The Task call's card is the one
// place the subagent shows: its last call, turns and cost while it works,
// its final text once done. None of a subagent's events touches the rest
// of the timeline or the status line: its text is for the model that
// started it (which answers with it), its usage is in the run's own totals
// once its Task result is in, and its end is not the run's. Its permission
// requests and questions are the exception: only the person can answer
// them, so they open the same dialogs as the run's own, labelled with the
// subagent that asks.

// taskTool is the tool that starts a subagent.
const taskTool = "Task"

// Mail kinds (event.MailItem.Kind).
const (
	mailCommand = "command"
	mailAgent   = "agent"
	mailMessage = "message"
)

// subagent is what a Task card knows of the subagent its call started.
type subagent struct {
	desc, typ string
	agentID   string
	// background: the Task result said the subagent goes on in the
	// background; bgDone: the Mailbox delivered its end.
	background, bgDone bool
	turns              int
	cost               float64
	calls              []subCall
	// asking are the ids of its calls a person is asked about now.
	asking []string
	// note is the latest news not shown otherwise (a retry's wait),
	// cleared by the next sign of progress.
	note string
	// end is its LoopComplete's reason; "" while it runs.
	end string
}

// subCall is one tool call of a subagent.
type subCall struct {
	id, name                            string
	input                               json.RawMessage
	running, isError, denied, cancelled bool
}

// taskInput is the part of a Task call's input the card shows.
type taskInput struct {
	Description  string `json:"description"`
	SubagentType string `json:"subagent_type"`
	Background   bool   `json:"run_in_background"`
}

func (s *subagent) call(id string) *subCall {
	for i := range s.calls {
		if s.calls[i].id == id {
			return &s.calls[i]
		}
	}
	return nil
}

// stop settles the calls still marked running: the subagent ended (or
// was cut off) without saying they finished.
func (s *subagent) stop() {
	for i := range s.calls {
		if c := &s.calls[i]; c.running {
			c.running, c.cancelled = false, true
		}
	}
	s.asking = nil
}

// wait marks call id as waiting for the person. The card stops being
// refreshed by the frame tick, as a tool card's clock stops while it waits:
// a TUI whose only news is a clock stays asleep until the person answers
// (its other events still redraw it).
func (s *subagent) wait(b *block, id string) {
	s.asking = append(s.asking, id)
	b.live = false
}

// answered ends the wait on call id; with no other wait left, a running
// card is refreshed by the frame tick again.
func (s *subagent) answered(b *block, id string) {
	if i := slices.Index(s.asking, id); i >= 0 {
		s.asking = slices.Delete(s.asking, i, i+1)
	}
	b.live = b.running && len(s.asking) == 0
	b.dirty = true
}

// label names the subagent for a person: its type and job.
func (s *subagent) label() string {
	typ := s.typ
	if typ == "" {
		typ = taskTool
	}
	if s.desc == "" {
		return typ
	}
	return typ + " (" + s.desc + ")"
}

// agentCard returns the card of Task call id, making one if the call has
// not been seen: a subagent's first events may come before the event of
// the call that started it (an allowed call starts before it is
// announced), and the card fills in when the call's event comes.
func (m *Model) agentCard(id string) *block {
	if b := m.agents[id]; b != nil {
		return b
	}
	b := &block{kind: kindTool, id: id, name: taskTool, sub: &subagent{}, start: timeNow(), running: true, live: true}
	m.agents[id], m.tools[id] = b, b
	m.add(b)
	return b
}

// taskUse shows a Task call as a subagent's card.
func (m *Model) taskUse(e event.ToolUse) {
	b := m.agents[e.ID]
	if b == nil {
		b = &block{kind: kindTool, id: e.ID, sub: &subagent{}, start: timeNow(), running: true, live: true}
		m.agents[e.ID] = b
		m.add(b)
	}
	m.tools[e.ID] = b
	b.name, b.input, b.dirty = e.Name, e.Input, true
	var in taskInput
	_ = json.Unmarshal(e.Input, &in) // a malformed input shows as an unnamed Task
	// The model wrote them: one line, nothing the terminal would obey.
	b.sub.desc, b.sub.typ = flat(in.Description), flat(in.SubagentType)
}

// taskResult completes a Task card with what the subagent's run did and
// cost. A background subagent goes on: its card waits for the Mailbox
// item that reports its end.
func (m *Model) taskResult(b *block, e event.ToolResult) {
	s := b.sub
	if r := e.Subagent; r != nil {
		s.agentID, s.background = r.AgentID, r.Background
		if r.AgentType != "" {
			s.typ = flat(r.AgentType)
		}
		if r.Turns > 0 {
			s.turns = r.Turns
		}
		if r.CostUSD > 0 {
			s.cost = r.CostUSD
		}
	}
	if s.background && !s.bgDone && s.agentID != "" && !e.IsError && !e.Cancelled && !e.Denied {
		m.bgAgents[s.agentID] = b
		return
	}
	s.background = false
	s.stop()
}

// child folds a subagent's event into its Task card.
func (m *Model) child(c event.Child) {
	inner, parent := event.Inner(c)
	b := m.agentCard(parent)
	s := b.sub
	b.dirty = true
	switch e := inner.(type) {
	case *event.PermissionRequest:
		s.wait(b, e.ID)
		m.ask(ask{perm: e, card: b})
		return
	case *event.Question:
		s.wait(b, e.ID)
		m.ask(ask{ques: e, card: b})
		return
	}
	if _, nested := c.Event.(event.Child); nested {
		// A subagent of the subagent: the card shows the Task call that
		// started it among the calls; its own steps are one level too deep
		// for a line of progress (its questions are not: above).
		return
	}
	switch e := inner.(type) {
	case event.ToolUse:
		if s.call(e.ID) == nil {
			s.calls = append(s.calls, subCall{id: e.ID, name: e.Name, input: e.Input, running: true})
		}
		s.note = ""
	case event.ToolDone:
		if sc := s.call(e.ID); sc != nil {
			sc.running, sc.isError = false, e.IsError
		}
	case event.ToolResult:
		if sc := s.call(e.ID); sc != nil {
			sc.running, sc.isError, sc.denied, sc.cancelled = false, e.IsError, e.Denied, e.Cancelled
		}
	case event.WebSearch:
		m.childSearch(s, e)
	case event.Usage:
		// Each model call reports its usage: its turn number is the count
		// so far (counting the events instead, where a producer leaves the
		// number out).
		if e.Turn > 0 {
			s.turns = max(s.turns, e.Turn)
		} else {
			s.turns++
		}
		s.cost, s.note = e.CostUSD, ""
	case event.TurnComplete:
		s.turns = max(s.turns, e.Turn)
	case event.Retry:
		s.note = e.Notice()
	case event.Warning:
		m.addText(kindWarning, s.label()+": "+e.Message)
	case event.LoopComplete:
		s.end = e.Reason
		if e.Turns > 0 {
			s.turns = e.Turns
		}
		if e.CostUSD > 0 {
			s.cost = e.CostUSD
		}
		s.stop()
	}
	// StreamText, ThinkingText, Citation, Todo, Compact and Mailbox are
	// the subagent's own business: its answer reaches the person through
	// the model that started it.
}

// childSearch lists a subagent's web search among its calls.
func (m *Model) childSearch(s *subagent, e event.WebSearch) {
	if e.ID == "" {
		return
	}
	sc := s.call(e.ID)
	if sc == nil {
		in, _ := json.Marshal(map[string]string{"query": e.Query})
		s.calls = append(s.calls, subCall{id: e.ID, name: searchTool, input: in, running: true})
		sc = &s.calls[len(s.calls)-1]
	}
	if e.Status != event.SearchSearching {
		sc.running, sc.isError = false, e.Status == event.SearchFailed
	}
}

// agentView is a Task card for package render.
func (b *block) agentView(expanded bool) render.Agent {
	s := b.sub
	a := render.Agent{
		Type: s.typ, Description: s.desc,
		Running: b.running, Waiting: b.waiting || len(s.asking) > 0,
		Detached: s.background, Background: s.background && !s.bgDone,
		Turns: s.turns, CostUSD: s.cost, Note: s.note,
		Result: b.result, IsError: b.isError, Denied: b.denied, Cancelled: b.cancelled,
		Pending: b.pending, Expanded: expanded,
	}
	if s.bgDone {
		// What it reported at its end; how it ended, when its own events
		// said.
		a.IsError = s.end == event.ReasonError || s.end == event.ReasonMaxTurns
		a.Cancelled = s.end == event.ReasonCancelled
	}
	a.Calls = make([]render.AgentCall, len(s.calls))
	for i, c := range s.calls {
		a.Calls[i] = render.AgentCall{Name: c.name, Input: c.input, Running: c.running,
			Waiting: slices.Contains(s.asking, c.id), IsError: c.isError, Denied: c.denied, Cancelled: c.cancelled}
	}
	return a
}

// mailbox shows what the loop delivered to the model at a turn's start,
// one line an item, and ends the cards of background subagents it reports
// ended.
func (m *Model) mailbox(e event.Mailbox) {
	if len(e.Items) == 0 {
		return
	}
	m.endStream()
	lines := make([]string, 0, len(e.Items))
	for _, it := range e.Items {
		var card *block
		if it.Kind == mailAgent {
			if card = m.bgAgents[it.From]; card != nil {
				delete(m.bgAgents, it.From)
				s := card.sub
				s.bgDone = true
				s.stop()
				if t := strings.TrimSpace(it.Text); t != "" {
					card.result = t
				}
				card.dirty = true
			}
		}
		lines = append(lines, mailLine(it, card))
	}
	b := &block{kind: kindMail}
	b.text.WriteString(strings.Join(lines, "\n"))
	m.add(b)
}

// mailLine is an item as one line: who, and the first line of what the
// model was told (the model reads the whole of it).
func mailLine(it event.MailItem, card *block) string {
	first, _, _ := strings.Cut(strings.TrimSpace(it.Text), "\n")
	first = printable(strings.TrimSpace(first))
	who := printable(it.From)
	switch it.Kind {
	case mailMessage:
		who = "message from " + who
	case mailAgent:
		if card != nil {
			who = card.sub.label()
		}
	}
	switch {
	case first == "" && it.Kind == mailMessage:
		return who
	case first == "":
		return who + " finished"
	case it.From != "" && strings.Contains(first, it.From) && it.Kind != mailMessage:
		return first // it names itself ("bash_1 finished (exit 0)")
	}
	return who + ": " + first
}

// ask is a permission request or question waiting for the person. Several
// subagents run at once and each may ask, so asks queue: one dialog at a
// time, in the order they came.
type ask struct {
	perm *event.PermissionRequest
	ques *event.Question
	// card is the Task card of the subagent that asks; nil for the run's
	// own.
	card *block
}

// ask opens a's dialog, or queues it behind the open one.
func (m *Model) ask(a ask) {
	if m.perm != nil || m.ques != nil {
		m.asks = append(m.asks, a)
		return
	}
	m.openAsk(a)
}

func (m *Model) openAsk(a ask) {
	m.askCard = a.card
	if a.perm != nil {
		if isPlan(a.perm) {
			m.showPlan(a.perm)
		}
		m.perm, m.permSel = a.perm, 0
	} else {
		m.ques, m.quesSel = a.ques, 0
	}
	m.comp.matches = nil // the dialog owns the arrow keys now
}

// settleAsk ends the wait on call id of the open dialog, which was just
// answered (runs: it was allowed), and opens the next waiting one.
func (m *Model) settleAsk(id string, runs bool) {
	if b := m.askCard; b != nil {
		b.sub.answered(b, id)
	} else {
		m.answered(id, runs)
	}
	m.perm, m.permSel, m.ques, m.quesSel, m.askCard = nil, 0, nil, 0, nil
	if len(m.asks) > 0 {
		next := m.asks[0]
		m.asks = m.asks[1:]
		m.openAsk(next)
	}
}

// dropAsks forgets every dialog, open or waiting: the run they belong to
// was cancelled or has ended, and its context with it.
func (m *Model) dropAsks() {
	m.perm, m.ques, m.asks, m.askCard = nil, nil, nil, nil
	for _, b := range m.agents {
		if len(b.sub.asking) > 0 {
			b.sub.asking, b.live, b.dirty = nil, b.running, true
		}
	}
}

// forgetAgents forgets every subagent card: the timeline they were in is
// gone (/clear, a resumed or rewound conversation).
func (m *Model) forgetAgents() {
	clear(m.agents)
	clear(m.bgAgents)
}

// askerLine names the subagent whose question the open dialog is, "" for
// the run's own.
func (m *Model) askerLine() string {
	if m.askCard == nil {
		return ""
	}
	return "Subagent " + m.askCard.sub.label() + " asks:\n"
}
