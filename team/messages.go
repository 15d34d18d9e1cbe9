package team

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/novacode/nova/tool"
)

// Tool names.
const (
	TaskOutputName  = "TaskOutput"
	SendMessageName = "SendMessage"
)

// TaskOutputInput is the input of TaskOutput.
type TaskOutputInput struct {
	TaskID  string `json:"task_id" jsonschema:"The id of the background agent (agent_N), as Task returned it"`
	Block   *bool  `json:"block,omitempty" jsonschema:"Wait for the agent to finish (default true)"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"How long to wait in milliseconds (default 30000, at most 600000)"`
}

const (
	taskOutputWait    = 30 * time.Second
	taskOutputMaxWait = 10 * time.Minute
)

const taskOutputDesc = `Returns the state of a background agent started with Task (run_in_background), and its final answer once it has finished.

- block (default true) waits until the agent finishes or the timeout passes; block: false answers at once.
- timeout is in milliseconds: default 30000, at most 600000. A lead waiting for its teammates calls it once per teammate.`

func (t *Team) taskOutputTool() tool.Tool {
	return tool.New(TaskOutputName, taskOutputDesc, true, nil, t.runTaskOutput).WithEffects(func(*tool.Env, TaskOutputInput) tool.Effects {
		return tool.Effects{} // it waits; it touches nothing
	})
}

func (t *Team) runTaskOutput(ctx context.Context, env *tool.Env, in TaskOutputInput) (tool.Result, error) {
	m := t.member(strings.TrimSpace(in.TaskID))
	if m == nil {
		return tool.Errorf("No agent %q in this session. Task returns the id (agent_N) of the agent it starts.", in.TaskID), nil
	}
	if in.Block == nil || *in.Block {
		wait := taskOutputWait
		if in.Timeout > 0 {
			wait = time.Duration(min(in.Timeout, int(taskOutputMaxWait.Milliseconds()))) * time.Millisecond
		}
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-m.done:
		case <-timer.C:
			return tool.Result{Content: m.status() + fmt.Sprintf(" (Waited %s.)", wait)}, nil
		case <-ctx.Done():
			return tool.Errorf("[cancelled while waiting for %s]", m.id), nil
		}
	}
	res := tool.Result{Content: m.status()}
	if m.ended() && env.Mailbox != nil {
		// The model learns the end here: the mail of it, if not yet
		// delivered, is taken back, and what the subagent cost comes
		// with this result instead.
		for _, mail := range env.Mailbox.Retract(tool.MailAgent, m.id) {
			res.Spent = mail.Spent
		}
	}
	return res, nil
}

// SendMessageInput is the input of SendMessage.
type SendMessageInput struct {
	To      string `json:"to" jsonschema:"The agent to send to: an agent id (agent_N) or the description it was started with, \"parent\" for the agent that started you, or \"main\" for the session's agent"`
	Message string `json:"message" jsonschema:"The message"`
}

const sendMessageDesc = `Sends a message to another agent of this session: a subagent (by its id, agent_N), the agent that started you ("parent"), or the session's own agent ("main").

The message is delivered at the start of the recipient's next turn, after what it is doing now. Use it to share findings, hand over work or coordinate edits with teammates. An agent that has finished cannot receive messages.`

func (t *Team) sendMessageTool() tool.Tool {
	return tool.New(SendMessageName, sendMessageDesc, true, nil, t.runSendMessage).WithEffects(func(*tool.Env, SendMessageInput) tool.Effects {
		return tool.Effects{}
	})
}

func (t *Team) runSendMessage(_ context.Context, env *tool.Env, in SendMessageInput) (tool.Result, error) {
	if strings.TrimSpace(in.Message) == "" {
		return tool.Errorf("message is empty."), nil
	}
	from := env.AgentID
	if from == "" {
		from = mainAgent
	}
	to := strings.TrimSpace(in.To)
	if to == "parent" {
		if env.AgentID == "" {
			return tool.Errorf("You are the session's main agent: you have no parent. Send to an agent id (agent_N)."), nil
		}
		to = mainAgent
		if m := t.member(env.AgentID); m != nil && m.parent != "" {
			to = m.parent
		}
	}
	if to == from {
		return tool.Errorf("You cannot send a message to yourself."), nil
	}
	var box *tool.Mailbox
	if to == mainAgent {
		if t.cfg.Parent.Env != nil {
			box = t.cfg.Parent.Env.Mailbox
		}
	} else {
		m := t.member(to)
		if m == nil {
			m = t.named(to)
		}
		if m == nil {
			return tool.Errorf("No agent %q in this session. Send to an agent id (agent_N), \"parent\" or \"main\".", in.To), nil
		}
		if m.ended() {
			return tool.Errorf("%s has finished; it cannot read messages any more.", to), nil
		}
		box, to = m.mailbox, m.id
	}
	if box == nil {
		return tool.Errorf("%s has no mailbox in this session.", to), nil
	}
	box.Post(tool.Mail{Kind: tool.MailMessage, From: from, Text: in.Message})
	return tool.Result{Content: fmt.Sprintf("Message sent to %s; it is delivered at the start of its next turn.", to)}, nil
}

// named is the one running agent started with description name, if
// exactly one is.
func (t *Team) named(name string) *member {
	t.mu.Lock()
	defer t.mu.Unlock()
	var found *member
	for _, m := range t.members {
		if strings.EqualFold(strings.TrimSpace(m.description), name) && !m.ended() {
			if found != nil {
				return nil
			}
			found = m
		}
	}
	return found
}
