package agent

import (
	"context"
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
}

// TurnInfo is what a hook sees of the turn.
type TurnInfo struct {
	Turn int
	Conv *Conversation

	reminders []string
}

// Remind adds a <system-reminder> to this turn's outgoing user message. It is
// new content: messages the model has already seen are never edited.
func (t *TurnInfo) Remind(text string) { t.reminders = append(t.reminders, text) }

func runHooks(ctx context.Context, stage string, hooks []Hook, t *TurnInfo) error {
	for i, h := range hooks {
		if err := h(ctx, t); err != nil {
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
