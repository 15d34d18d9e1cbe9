package fleet

// This file runs a task in steps, for engines that make each model call
// and its tool batch a unit of work of their own (fleet/temporal): the
// same session RunTask would open, named so that any machine can go on
// with it, run one model call at a time.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"

	"github.com/novacode/nova"
	"github.com/novacode/nova/event"
)

// StepSessionID is the session id of the task with the given id when it
// runs in steps: a name made from the id alone (safe characters, a hash
// when the id needed changing), so that every step, on whatever machine,
// opens the same stored session.
func StepSessionID(id string) string {
	safe := unsafeSessionChar.ReplaceAllString(id, "_")
	if safe == id && len(id) <= 100 {
		return "fleet-" + id
	}
	sum := sha256.Sum256([]byte(id))
	return "fleet-" + safe[:min(len(safe), 64)] + "-" + hex.EncodeToString(sum[:4])
}

// unsafeSessionChar: session ids are letters, digits, _ and - (a dot
// names a subagent's session).
var unsafeSessionChar = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// Step runs one step of task t (its defaults applied) in ws: one model
// call and its tool batch, in the stored session sessionID — started with
// the task's prompt when it holds no conversation yet, else continued
// where it stands (Session.Continue: a call cut short is made again, a
// finished one never; a conversation already answered ends at once). Its
// result is that step's, as Collect makes it: subtype error_max_turns
// while the model has more to do. each, when not nil, sees every event.
// The error is one of opening the session: the step did not run.
func Step(ctx context.Context, t Task, cfg Config, ws Workspace, sessionID string, each func(event.Event)) (Result, error) {
	o := SessionOptions(t, cfg, ws)
	o.SessionID, o.MaxTurns, o.InMemory = sessionID, 1, false
	// A subagent runs whole within its parent's step, to the task's own
	// limit, as under RunTask.
	o.SubagentMaxTurns = t.MaxTurns
	if t.MaxTurns == 0 {
		o.SubagentMaxTurns = -1
	}
	s, err := nova.Open(ctx, o)
	if err != nil {
		return Result{}, fmt.Errorf("open session %s in %s: %w", sessionID, ws.Dir, err)
	}
	defer s.Close()
	run := s.Continue(ctx)
	if !s.Resumable() {
		run = s.Send(ctx, t.Prompt)
	}
	return Collect(run, s.ID(), each), nil
}

// JoinSteps is the result of a session run in steps (each one Send or
// Continue of it), as one run's: the steps' tool calls, denials, sources
// and subagents together, in order; turns and duration summed; usage and
// cost the last step's (a session's totals carry on from step to step);
// subtype, text and error the last step's. A last step stopped by the turn
// limit stopped at the task's, maxTurns.
func JoinSteps(steps []Result, maxTurns int) Result {
	if len(steps) == 0 {
		return Result{Type: "result", Subtype: SubtypeError, IsError: true, Error: "the task ran no step",
			ToolCalls: []ToolCall{}, PermissionDenials: []PermissionDenial{}}
	}
	r := steps[len(steps)-1]
	r.ToolCalls, r.PermissionDenials, r.Sources, r.Subagents = []ToolCall{}, []PermissionDenial{}, nil, nil
	r.NumTurns, r.DurationMS = 0, 0
	for _, s := range steps {
		r.ToolCalls = append(r.ToolCalls, s.ToolCalls...)
		r.PermissionDenials = append(r.PermissionDenials, s.PermissionDenials...)
		r.Subagents = append(r.Subagents, s.Subagents...)
		for _, src := range s.Sources {
			if !slices.ContainsFunc(r.Sources, func(x Source) bool { return x.URL == src.URL }) {
				r.Sources = append(r.Sources, src)
			}
		}
		r.NumTurns += s.NumTurns
		r.DurationMS += s.DurationMS
	}
	if r.Subtype == SubtypeMaxTurns && maxTurns > 0 {
		// Each step stops at one call; the task stopped at its own limit.
		r.Error = fmt.Sprintf("reached the turn limit (%d) before the task was done; raise --max-turns to let it go on", maxTurns)
	}
	return r
}
