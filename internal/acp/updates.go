package acp

import (
	"cmp"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/novacode/nova/event"
)

// mapper turns a session's events into session/update notifications. It
// remembers each tool call from its tool_use to its result, so that the
// updates of a call carry what its announcement did (a result replaces
// the call's content: a diff is shown again with it). One mapper serves one
// prompt, or the replay of a stored conversation; it is used from one
// goroutine.
type mapper struct {
	dir   string
	calls map[string]*call
	// hidden are the calls not shown as tool calls: TodoWrite, whose list
	// is the plan.
	hidden map[string]bool
}

func newMapper(dir string) *mapper {
	return &mapper{dir: dir, calls: map[string]*call{}, hidden: map[string]bool{}}
}

// call is the call with id, when it was announced.
func (m *mapper) call(id string) (*call, bool) {
	c, ok := m.calls[id]
	return c, ok
}

// updates are the notifications e becomes. Permission requests and
// questions are not among them: the caller asks the client about them
// (session/request_permission).
//
// A subagent's events (event.Child) show only as tool calls: its calls are
// announced as the session's own (labelled with the subagent's id, and
// with the Task call in _meta), so that what it asks permission for is a
// call the editor knows; its text and thinking are not shown, since its
// final answer is the Task call's result.
func (m *mapper) updates(e event.Event) []acpsdk.SessionUpdate {
	inner, _ := event.Inner(e)
	child, isChild := e.(event.Child)
	switch e := inner.(type) {
	case event.StreamText:
		if isChild || e.Text == "" {
			return nil
		}
		return []acpsdk.SessionUpdate{acpsdk.UpdateAgentMessageText(e.Text)}
	case event.ThinkingText:
		if isChild || e.Text == "" {
			return nil
		}
		return []acpsdk.SessionUpdate{acpsdk.UpdateAgentThoughtText(e.Text)}
	case event.ToolUse:
		if e.Name == "TodoWrite" {
			m.hidden[e.ID] = true
			return nil
		}
		c := newCall(m.dir, e.ID, e.Name, e.Input)
		if isChild {
			c.parent, c.agent = outermost(child)
			c.title = c.agent + " · " + c.title
		}
		m.calls[e.ID] = c
		// A call the chain allowed started before its tool_use was
		// yielded; one it asks about is marked pending when the
		// permission request comes.
		return []acpsdk.SessionUpdate{c.toolCall(acpsdk.ToolCallStatusInProgress)}
	case event.ToolDone:
		if m.hidden[e.ID] {
			return nil
		}
		return []acpsdk.SessionUpdate{acpsdk.UpdateToolCall(acpsdk.ToolCallId(e.ID), acpsdk.WithUpdateStatus(doneStatus(e.IsError)))}
	case event.ToolResult:
		if m.hidden[e.ID] {
			delete(m.hidden, e.ID)
			return nil
		}
		u := acpsdk.UpdateToolCall(acpsdk.ToolCallId(e.ID), acpsdk.WithUpdateStatus(doneStatus(e.IsError)))
		c, known := m.calls[e.ID]
		if !known {
			// A result whose call was never shown (a stored conversation
			// cut before it): announce it now, by name.
			c = newCall(m.dir, e.ID, e.Name, nil)
			m.calls[e.ID] = c
			u = c.toolCall(doneStatus(e.IsError))
		}
		setContent(&u, resultContent(c, e))
		delete(m.calls, e.ID)
		return []acpsdk.SessionUpdate{u}
	case event.Todo:
		return []acpsdk.SessionUpdate{plan(e.Todos)}
	case event.WebSearch:
		if isChild {
			return nil
		}
		return webSearch(e)
	case event.Warning:
		if isChild {
			return []acpsdk.SessionUpdate{note(child.AgentID + ": " + e.Message)}
		}
		return []acpsdk.SessionUpdate{note(e.Message)}
	case event.Retry:
		if isChild {
			return nil
		}
		return []acpsdk.SessionUpdate{note(e.Notice())}
	case event.Compact:
		if isChild {
			return nil
		}
		return []acpsdk.SessionUpdate{note(fmt.Sprintf("conversation compacted: %d → %d tokens", e.TokensBefore, e.TokensAfter))}
	}
	// usage, citation, mailbox, turn_complete, loop_complete: nothing an
	// editor shows (the prompt's answer carries the end).
	return nil
}

// outermost is the Task call a (possibly nested) subagent's event came
// through, and the subagent that made it.
func outermost(c event.Child) (parent, agent string) {
	parent, agent = c.ParentToolUseID, c.AgentID
	for {
		inner, ok := c.Event.(event.Child)
		if !ok {
			return parent, agent
		}
		agent = inner.AgentID
		c = inner
	}
}

func doneStatus(isError bool) acpsdk.ToolCallStatus {
	if isError {
		return acpsdk.ToolCallStatusFailed
	}
	return acpsdk.ToolCallStatusCompleted
}

// setContent sets the content of a tool_call or tool_call_update.
func setContent(u *acpsdk.SessionUpdate, content []acpsdk.ToolCallContent) {
	switch {
	case u.ToolCall != nil:
		u.ToolCall.Content = content
	case u.ToolCallUpdate != nil:
		u.ToolCallUpdate.Content = content
	}
}

// resultContent is what a finished call shows: the diff of a Write or
// Edit that succeeded, else the result as the model reads it (a
// program's output in a code block).
func resultContent(c *call, r event.ToolResult) []acpsdk.ToolCallContent {
	if !r.IsError && (c.name == "Write" || c.name == "Edit") && len(c.content) > 0 {
		return c.content
	}
	text := r.Content
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if c.fence && !r.IsError {
		text = fence(text)
	}
	return []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(text))}
}

// plan is the model's task list as an ACP plan.
func plan(todos []event.TodoItem) acpsdk.SessionUpdate {
	entries := make([]acpsdk.PlanEntry, 0, len(todos))
	for _, t := range todos {
		status := acpsdk.PlanEntryStatusPending
		switch t.Status {
		case "in_progress":
			status = acpsdk.PlanEntryStatusInProgress
		case "completed":
			status = acpsdk.PlanEntryStatusCompleted
		}
		entries = append(entries, acpsdk.PlanEntry{Content: t.Content, Status: status, Priority: acpsdk.PlanEntryPriorityMedium})
	}
	return acpsdk.UpdatePlan(entries...)
}

// webSearch shows a search of the provider's own web search as a tool
// call: it ran at the provider, but it is a step of the answer all the
// same.
func webSearch(e event.WebSearch) []acpsdk.SessionUpdate {
	id := acpsdk.ToolCallId(e.ID)
	switch e.Status {
	case event.SearchSearching:
		return []acpsdk.SessionUpdate{acpsdk.StartToolCall(id, "Search the web: "+e.Query,
			acpsdk.WithStartKind(acpsdk.ToolKindSearch), acpsdk.WithStartStatus(acpsdk.ToolCallStatusInProgress),
			acpsdk.WithStartRawInput(map[string]any{"query": e.Query}))}
	case event.SearchDone:
		var b strings.Builder
		for _, r := range e.Results {
			fmt.Fprintf(&b, "- [%s](%s)\n", strings.ReplaceAll(cmp.Or(r.Title, r.URL), "]", "\\]"), r.URL)
		}
		u := acpsdk.UpdateToolCall(id, acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusCompleted))
		if b.Len() > 0 {
			setContent(&u, []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(b.String()))})
		}
		return []acpsdk.SessionUpdate{u}
	case event.SearchFailed:
		u := acpsdk.UpdateToolCall(id, acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusFailed))
		setContent(&u, []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock("The search failed: " + e.Error))})
		return []acpsdk.SessionUpdate{u}
	case event.SearchUnavailable:
		return []acpsdk.SessionUpdate{note("web search is off for the rest of the session: " + e.Error)}
	}
	return nil
}

// note is something the person should know that is not the model's
// answer (a warning, a retry, a compaction), as a quoted line of its own
// between the answer's text: ACP has no notice of its own.
func note(s string) acpsdk.SessionUpdate {
	return acpsdk.UpdateAgentMessageText("\n\n> **nova:** " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ") + "\n\n")
}
