package agent

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/novacode/nova/event"
	"github.com/novacode/nova/llm"
)

// summaryPrompt asks for the structured summary that replaces the history.
const summaryPrompt = `The conversation is about to be compacted: everything above will be replaced by your summary, and you will continue the work from it alone. Write that summary now. Reply with text only — do not call any tool.

Use these sections:
1. Task: what the user asked for, with their exact words where they matter, and any later changes to the request.
2. Decisions and constraints: choices made and why, conventions to keep, things the user ruled out.
3. Files touched: each path, what changed in it and why; files read that matter.
4. Commands: what was run, which worked, which failed and with what error.
5. Current state and open work: what is done, what remains, and the very next step.

Be specific (paths, function names, error messages, numbers). Leave out pleasantries.`

// compactReserve is the share of the window kept free for the next answer
// and the turn's new content, on top of the output limit.
const compactReserveFraction = 10

// threshold is the prompt size (tokens) at which the history is compacted.
func (r *run) threshold() int64 {
	if r.a.CompactThreshold != 0 {
		return int64(r.a.CompactThreshold)
	}
	w := int64(r.contextWindow())
	reserve := int64(min(r.maxTokens, 20_000)) + w/compactReserveFraction
	return max(w-reserve, w/2)
}

// promptEstimate is the size of the next request: the last call's prompt
// and answer, plus an estimate of what was appended since.
func (r *run) promptEstimate() int64 {
	msgs := r.conv.Messages
	if r.lastSize == 0 || r.lastLen > len(msgs) {
		return int64(llm.EstimateTokens(&llm.Request{System: r.conv.System, Tools: r.specs, Messages: msgs}))
	}
	return r.lastSize + int64(llm.EstimateTokens(&llm.Request{Messages: msgs[r.lastLen:]}))
}

func (r *run) shouldCompact() bool {
	if r.a.CompactThreshold < 0 || r.carried() < 2 {
		return false
	}
	return r.promptEstimate() >= r.threshold()
}

// carried returns where the history's unanswered tail starts: the trailing
// user messages of text only — the prompt a person just sent, this turn's
// <system-reminder>s, a "continue" request. Compaction summarises what
// comes before and keeps these verbatim after the summary: a prompt must
// reach the model as written, not as the model's retelling of it. Tool
// results are never carried (their calls are summarised).
func (r *run) carried() int {
	msgs := r.conv.Messages
	i := len(msgs)
	for i > 0 && textOnlyUser(msgs[i-1]) {
		i--
	}
	return i
}

func textOnlyUser(m llm.Message) bool {
	if m.Role != llm.RoleUser || len(m.Content) == 0 {
		return false
	}
	for _, b := range m.Content {
		if b.Type != llm.BlockText {
			return false
		}
	}
	return true
}

// Compact summarises conv's history on demand (the TUI's /compact, an SDK
// call): the model writes a structured summary, which, behind the preamble,
// replaces the history. focus, if set, says what the summary should keep.
func (a *Agent) Compact(ctx context.Context, conv *Conversation, focus string) (event.Compact, error) {
	var got event.Compact
	r := newRun(a, conv, func(e event.Event) bool {
		if c, ok := e.(event.Compact); ok {
			got = c
		}
		return true
	}, func() {})
	r.record()
	if r.carried() == 0 {
		return event.Compact{}, errors.New("compact the conversation: there is nothing to summarise yet")
	}
	if err := r.compact(ctx, "manual", focus); err != nil {
		return event.Compact{}, err
	}
	r.turnEnd()
	r.save()
	return got, r.recErr
}

// compact replaces the history with the preamble and a model-written
// summary, records the boundary and yields a compact event.
func (r *run) compact(ctx context.Context, reason, focus string) error {
	a := r.a
	if err := runHooks(ctx, "pre_compact", a.Hooks.PreCompact, &TurnInfo{Turn: r.turn, Conv: r.conv, Trigger: reason, Focus: focus}); err != nil {
		return err
	}
	specs := r.specs
	before := r.promptEstimate()
	keep := r.carried()
	history, tail := r.conv.Messages[:keep:keep], r.conv.Messages[keep:]
	prompt := summaryPrompt
	if focus != "" {
		prompt += "\n\nThe user asks the summary to focus on: " + focus
	}
	// Same system prompt, tools and history as the turns before: the
	// summary call reads the cached prefix, and the API accepts the tool
	// blocks in the history only when tools are defined.
	// The carried tail is left out: it is not summarised but kept.
	msgs := append(history, llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: prompt}}})
	req := &llm.Request{Model: a.Model, System: r.conv.System, Messages: msgs, Tools: specs, WebSearch: r.search, MaxTokens: min(r.maxTokens, 16_000)}
	var summary strings.Builder
	var end llm.StreamEnd
	for ev, err := range a.Client.Stream(ctx, req) {
		if err != nil {
			return fmt.Errorf("compact the conversation: %w", err)
		}
		switch e := ev.(type) {
		case llm.TextDelta:
			summary.WriteString(e.Text)
		case llm.StreamEnd:
			end = e
		case llm.Retrying:
			r.emit(retryEvent(r.turn, e))
		}
	}
	text := strings.TrimSpace(summary.String())
	if text == "" {
		return errors.New("compact the conversation: the model wrote no summary; the history is unchanged")
	}
	r.total = r.total.Add(end.Usage)
	r.cost += r.model.Cost(end.Usage)

	var first []llm.Block
	if a.Preamble != nil {
		p, err := a.Preamble(ctx)
		if err != nil {
			return fmt.Errorf("compact the conversation: rebuild the context: %w", err)
		}
		if p != "" {
			first = append(first, llm.Block{Type: llm.BlockText, Text: p})
		}
	}
	first = append(first, llm.Block{Type: llm.BlockText, Text: "This session continues an earlier conversation that ran out of context. Summary of everything before this point:\n\n" +
		text + "\n\nContinue the work from where it stopped; do not ask the user to repeat anything."})
	newMsgs := append([]llm.Message{{Role: llm.RoleUser, Content: first}}, tail...)

	var id [8]byte
	_, _ = rand.Read(id[:])
	c := event.Compact{
		TokensBefore: before, Reason: reason, BoundaryID: hex.EncodeToString(id[:]),
		TokensAfter: int64(llm.EstimateTokens(&llm.Request{System: r.conv.System, Tools: specs, Messages: newMsgs})),
	}
	r.record()
	if a.Recorder != nil {
		if err := a.Recorder.Boundary(r.turn, c.BoundaryID, c.Reason, c.TokensBefore, c.TokensAfter, newMsgs); err != nil {
			return fmt.Errorf("compact the conversation: record the boundary: %w", err)
		}
	}
	r.conv.Messages = newMsgs
	r.recorded, r.sent, r.lastSize, r.lastLen = len(newMsgs), 0, 0, 0
	r.emit(event.Usage{Turn: max(r.turn, 1), Model: cmp.Or(end.Model, a.Model), Call: counts(end.Usage), Total: counts(r.total), CostUSD: r.cost, ContextWindow: r.contextWindow()})
	r.emit(c)
	ti := &TurnInfo{Turn: r.turn, Conv: r.conv, Trigger: reason, Focus: focus}
	if err := runHooks(ctx, "post_compact", a.Hooks.PostCompact, ti); err != nil {
		return err
	}
	if len(ti.reminders) > 0 {
		r.addUserContent(llm.Block{Type: llm.BlockText, Text: reminderText(ti.reminders)})
	}
	return nil
}
