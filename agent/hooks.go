package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Hook runs at a fixed point of every turn. An error ends the loop with that
// error: hooks are policy, and a failed policy must not be skipped silently.
type Hook func(ctx context.Context, t *TurnInfo) error

// Hooks are the loop's extension points.
type Hooks struct {
	// TurnStart runs before anything else in a turn.
	TurnStart []Hook
	// PreSend runs just before the request is built; it may add reminders.
	PreSend []Hook
	// TurnEnd runs once the model has finished without asking for tools.
	TurnEnd []Hook
	// PreCompact runs before the history is compacted: automatically
	// before a turn's request (TurnInfo.Trigger "auto") or on demand
	// (Agent.Compact, "manual", with TurnInfo.Focus). An error leaves the
	// history as it is and ends the loop (or Compact) with it.
	PreCompact []Hook
	// PostCompact runs once the summary has replaced the history; what it
	// reminds goes to the model after the summary, in a new user message.
	PostCompact []Hook
}

// TurnInfo is what a hook sees of the turn.
type TurnInfo struct {
	Turn int
	Conv *Conversation
	// Trigger and Focus are set for PreCompact and PostCompact hooks: what
	// started the compaction ("auto" or "manual") and what the summary was
	// asked to keep ("" for none).
	Trigger, Focus string

	reminders []string
}

// Remind adds a <system-reminder> to this turn's outgoing user message. It is
// new content: messages the model has already seen are never edited.
func (t *TurnInfo) Remind(text string) { t.reminders = append(t.reminders, text) }

// Stop is what a hook returns to end the loop on purpose, not because
// something failed (a user's hook said not to go on): loop_complete then
// carries Reason as its error as it is, without the hook's place.
type Stop struct {
	Reason string
}

func (s *Stop) Error() string { return s.Reason }

func runHooks(ctx context.Context, stage string, hooks []Hook, t *TurnInfo) error {
	for i, h := range hooks {
		if err := h(ctx, t); err != nil {
			var stop *Stop
			if errors.As(err, &stop) {
				return stop
			}
			return fmt.Errorf("%s hook %d: %w", stage, i+1, err)
		}
	}
	return nil
}

func reminderText(rs []string) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString("<system-reminder>\n")
		b.WriteString(r)
		b.WriteString("\n</system-reminder>\n")
	}
	return b.String()
}
