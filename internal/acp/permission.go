package acp

import (
	"fmt"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/novacode/nova/event"
)

// A permission request's choices as the editor offers them: the option's
// id is the choice itself (event.DecisionFor reads it back), its kind what
// the editor shows it as.
var options = map[string]struct {
	name string
	kind acpsdk.PermissionOptionKind
}{
	event.ChoiceAllowOnce:          {"Allow once", acpsdk.PermissionOptionKindAllowOnce},
	event.ChoiceAllowAlways:        {"Allow always", acpsdk.PermissionOptionKindAllowAlways},
	event.ChoiceDeny:               {"Reject", acpsdk.PermissionOptionKindRejectOnce},
	event.ChoiceApproveAcceptEdits: {"Approve, and accept edits", acpsdk.PermissionOptionKindAllowAlways},
	event.ChoiceApproveDefault:     {"Approve, and ask before edits", acpsdk.PermissionOptionKindAllowOnce},
	event.ChoiceKeepPlanning:       {"No, keep planning", acpsdk.PermissionOptionKindRejectOnce},
}

// permissionOptions are the options of a request with these choices, in
// their order; a choice this package does not know is left out (the
// request can still be answered with the others).
func permissionOptions(choices []string, suggest []string) []acpsdk.PermissionOption {
	var out []acpsdk.PermissionOption
	for _, ch := range choices {
		o, ok := options[ch]
		if !ok {
			continue
		}
		name := o.name
		if ch == event.ChoiceAllowAlways && len(suggest) > 0 {
			// What "always" remembers, as the TUI's dialog says it.
			name += ": " + strings.Join(suggest, ", ")
		}
		out = append(out, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(ch), Name: name, Kind: o.kind})
	}
	return out
}

// permissionCall is what a permission request shows of the call it asks
// about: the call as announced, or, for a request about something that is
// no tool call of the model's (the session's web search), a call of its
// own (new true: it must be announced first).
func permissionCall(m *mapper, r *event.PermissionRequest, parent string) (c *call, isNew bool) {
	if c, ok := m.call(r.ID); ok {
		return c, false
	}
	c = newCall(m.dir, r.ID, r.Name, r.Input)
	if r.ID == "web_search" {
		c.title, c.kind = "Search the web", acpsdk.ToolKindSearch
	}
	c.parent = parent
	return c, true
}

// permissionRequest asks the editor about r, shown as c.
func permissionRequest(sid acpsdk.SessionId, c *call, r *event.PermissionRequest) acpsdk.RequestPermissionRequest {
	tc := c.update(acpsdk.ToolCallStatusPending)
	if r.Plan != "" {
		tc.Content = []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(r.Plan))}
	}
	return acpsdk.RequestPermissionRequest{SessionId: sid, ToolCall: tc, Options: permissionOptions(r.Choices, r.Suggest)}
}

// decision is the editor's answer as a Decision: the option chosen, or a
// denial when the request was cancelled (the prompt was cancelled) or
// failed, or an option the request did not offer came back.
func decision(r *event.PermissionRequest, resp acpsdk.RequestPermissionResponse, err error) event.Decision {
	switch {
	case err != nil:
		return event.DecisionFor(event.ChoiceDeny, "The editor could not ask: "+err.Error())
	case resp.Outcome.Selected == nil:
		return event.DecisionFor(event.ChoiceDeny, "The person cancelled.")
	}
	choice := string(resp.Outcome.Selected.OptionId)
	for _, ch := range r.Choices {
		if ch == choice {
			return event.DecisionFor(choice, "")
		}
	}
	return event.DecisionFor(event.ChoiceDeny, fmt.Sprintf("The editor answered with %q, which was not offered.", choice))
}

// The answer to a question nobody answered, as the SDK gives it when
// nobody can be asked.
const noAnswer = "(The person did not answer. Continue with your best judgement and say what you assumed.)"

// skipOption lets the person leave a question to the model.
const skipOption = "skip"

// questionRequest asks a question (AskUserQuestion) through a permission
// request: one option per answer offered, and one to leave it to the
// model. ok is false for a question without answers to choose from, which
// no permission dialog can take (the person would have to type).
func questionRequest(sid acpsdk.SessionId, c *call, q *event.Question) (req acpsdk.RequestPermissionRequest, ok bool) {
	if len(q.Options) == 0 {
		return acpsdk.RequestPermissionRequest{}, false
	}
	tc := c.update(acpsdk.ToolCallStatusPending)
	tc.Title = acpsdk.Ptr(q.Question)
	opts := make([]acpsdk.PermissionOption, 0, len(q.Options)+1)
	for i, o := range q.Options {
		opts = append(opts, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId("answer-" + strconv.Itoa(i)), Name: o, Kind: acpsdk.PermissionOptionKindAllowOnce})
	}
	opts = append(opts, acpsdk.PermissionOption{OptionId: skipOption, Name: "Skip: let the agent decide", Kind: acpsdk.PermissionOptionKindRejectOnce})
	return acpsdk.RequestPermissionRequest{SessionId: sid, ToolCall: tc, Options: opts}, true
}

// answer is the editor's answer to a question.
func answer(q *event.Question, resp acpsdk.RequestPermissionResponse, err error) event.Answer {
	if err != nil || resp.Outcome.Selected == nil {
		return event.Answer{Text: noAnswer}
	}
	n, ok := strings.CutPrefix(string(resp.Outcome.Selected.OptionId), "answer-")
	i, err := strconv.Atoi(n)
	if !ok || err != nil || i < 0 || i >= len(q.Options) {
		return event.Answer{Text: noAnswer}
	}
	return event.Answer{Option: q.Options[i]}
}
