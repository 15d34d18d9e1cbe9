package contextinfo

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Preamble is the text the agent puts at the start of a conversation, and
// again after each compaction: Environment for dir, then Render of
// MemoryFiles(home, dir) when there are any, inside one <system-reminder>
// (framed the way agent.TurnInfo.Remind frames its reminders):
//
//	<system-reminder>
//	<env>…</env>
//
//	<memory>…</memory>
//	</system-reminder>
//
// It runs on every session start, so it must stay cheap (< 20 ms typical:
// two or three git processes and a handful of small reads) and free of side
// effects: nothing is written, git takes no optional locks, and no program
// the repository's config names is run. The only error is an unreadable
// memory file; a git problem only shows in the <env> block.
func Preamble(ctx context.Context, home, dir string, now time.Time) (string, error) {
	files, err := MemoryFiles(home, dir)
	if err != nil {
		return "", fmt.Errorf("build preamble: %w", err)
	}
	var b strings.Builder
	b.WriteString("<system-reminder>\n")
	b.WriteString(Environment(ctx, dir, now))
	if m := Render(files); m != "" {
		b.WriteString("\n\n")
		b.WriteString(m)
	}
	b.WriteString("\n</system-reminder>\n")
	return b.String(), nil
}
